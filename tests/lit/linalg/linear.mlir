// RUN: xdsl-opt %s -p convert-torch-to-linalg | filecheck %s
// Matrix products are one generic with a reduction dim; ranks decide the maps.

// CHECK-LABEL: func.func @torch.aten.mm
// CHECK: linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]}
func.func @torch.aten.mm(%a: !torch.vtensor<[?,?],f32>, %b: !torch.vtensor<[?,?],f32>) -> !torch.vtensor<[?,?],f32> {
  %0 = torch.aten.mm %a, %b : !torch.vtensor<[?,?],f32>, !torch.vtensor<[?,?],f32> -> !torch.vtensor<[?,?],f32>
  func.return %0 : !torch.vtensor<[?,?],f32>
}

// Batched matmul broadcasts the batch dim of the 2-D operand away; a vector drops its dim.
// CHECK-LABEL: func.func @torch.aten.matmul$batch_vector
// CHECK: indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>]
func.func @torch.aten.matmul$batch_vector(%a: !torch.vtensor<[?,?,?],f32>, %b: !torch.vtensor<[?],f32>) -> !torch.vtensor<[?,?],f32> {
  %0 = torch.aten.matmul %a, %b : !torch.vtensor<[?,?,?],f32>, !torch.vtensor<[?],f32> -> !torch.vtensor<[?,?],f32>
  func.return %0 : !torch.vtensor<[?,?],f32>
}

// linear reads the weight through a transposed map, then adds the bias.
// CHECK-LABEL: func.func @torch.aten.linear
// CHECK: affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK: linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>]
func.func @torch.aten.linear(%x: !torch.vtensor<[?,4],f32>, %w: !torch.vtensor<[3,4],f32>, %b: !torch.vtensor<[3],f32>) -> !torch.vtensor<[?,3],f32> {
  %0 = torch.aten.linear %x, %w, %b : !torch.vtensor<[?,4],f32>, !torch.vtensor<[3,4],f32>, !torch.vtensor<[3],f32> -> !torch.vtensor<[?,3],f32>
  func.return %0 : !torch.vtensor<[?,3],f32>
}

// addmm scales the product and the broadcast bias in one elementwise generic.
// CHECK-LABEL: func.func @torch.aten.addmm
// CHECK: iterator_types = ["parallel", "parallel", "reduction"]
// CHECK: linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
// CHECK: %[[BETA:.*]] = arith.constant 5.000000e-01 : f32
// CHECK: arith.mulf %{{.*}}, %[[BETA]] : f32
func.func @torch.aten.addmm(%bias: !torch.vtensor<[3],f32>, %a: !torch.vtensor<[?,4],f32>, %b: !torch.vtensor<[4,3],f32>) -> !torch.vtensor<[?,3],f32> {
  %beta = torch.constant.float 0.5
  %alpha = torch.constant.int 1
  %0 = torch.aten.addmm %bias, %a, %b, %beta, %alpha : !torch.vtensor<[3],f32>, !torch.vtensor<[?,4],f32>, !torch.vtensor<[4,3],f32>, !torch.float, !torch.int -> !torch.vtensor<[?,3],f32>
  func.return %0 : !torch.vtensor<[?,3],f32>
}

// With beta = 0 the bias is not read at all (torch ignores it, NaNs included).
// CHECK-LABEL: func.func @torch.aten.addmm$beta_zero
// CHECK: linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME: ins(%{{.*}} : tensor<2x3xf32>)
func.func @torch.aten.addmm$beta_zero(%bias: !torch.vtensor<[2,3],f32>, %a: !torch.vtensor<[2,4],f32>, %b: !torch.vtensor<[4,3],f32>) -> !torch.vtensor<[2,3],f32> {
  %int0 = torch.constant.int 0
  %int1 = torch.constant.int 1
  %0 = torch.aten.addmm %bias, %a, %b, %int0, %int1 : !torch.vtensor<[2,3],f32>, !torch.vtensor<[2,4],f32>, !torch.vtensor<[4,3],f32>, !torch.int, !torch.int -> !torch.vtensor<[2,3],f32>
  func.return %0 : !torch.vtensor<[2,3],f32>
}
