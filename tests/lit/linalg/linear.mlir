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
