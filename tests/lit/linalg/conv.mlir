// RUN: xdsl-opt %s -p convert-torch-to-linalg,canonicalize,cse | filecheck %s
// conv2d: a zero-padded copy (bounds-checked reads), the bias as init, one generic with
// reductions over (c, kh, kw) reading the input through a strided affine map.

// CHECK-LABEL: func.func @torch.aten.conv2d
// CHECK: %[[PADDED:.*]] = linalg.generic
// CHECK: arith.cmpi sge
// CHECK: scf.if %{{.*}} -> (f32) {
// CHECK: tensor.extract %x
// CHECK: } else {
// CHECK: } -> tensor<?x2x?x?xf32>
// CHECK: %[[INIT:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d1)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>]
// CHECK-SAME: ins(%b : tensor<4xf32>)
// CHECK: linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, ((d2 * 2) + d5), (d3 + d6))>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d4, d5, d6)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
// CHECK-SAME: ins(%[[PADDED]], %w : tensor<?x2x?x?xf32>, tensor<4x2x3x3xf32>) outs(%[[INIT]] : tensor<?x4x?x?xf32>)
// CHECK: arith.mulf
// CHECK: arith.addf
func.func @torch.aten.conv2d(%x: !torch.vtensor<[?,2,?,?],f32>, %w: !torch.vtensor<[4,2,3,3],f32>, %b: !torch.vtensor<[4],f32>) -> !torch.vtensor<[?,4,?,?],f32> {
  %int1 = torch.constant.int 1
  %int2 = torch.constant.int 2
  %stride = torch.prim.ListConstruct %int2, %int1 : (!torch.int, !torch.int) -> !torch.list<int>
  %padding = torch.prim.ListConstruct %int1, %int1 : (!torch.int, !torch.int) -> !torch.list<int>
  %dilation = torch.prim.ListConstruct %int1, %int1 : (!torch.int, !torch.int) -> !torch.list<int>
  %0 = torch.aten.conv2d %x, %w, %b, %stride, %padding, %dilation, %int1 : !torch.vtensor<[?,2,?,?],f32>, !torch.vtensor<[4,2,3,3],f32>, !torch.vtensor<[4],f32>, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.int -> !torch.vtensor<[?,4,?,?],f32>
  func.return %0 : !torch.vtensor<[?,4,?,?],f32>
}

// Unbatched, groups = 2, "same" padding of a dynamic kernel: the pads are (k - 1) / 2 and
// the rest, the input channel is (oc / (C_out / 2)) * (C_in / 2) + c, read with extract.
// CHECK-LABEL: func.func @torch.aten.conv2d.padding$groups
// CHECK: %[[KH:.*]] = tensor.dim %w, %{{.*}} : tensor<?x?x?x?xf32>
// CHECK: %[[REACH:.*]] = arith.subi %[[KH]], %{{.*}} : index
// CHECK: %[[TOP:.*]] = arith.floordivsi %[[REACH]], %{{.*}} : index
// CHECK: arith.subi %[[REACH]], %[[TOP]] : index
// CHECK: linalg.fill
// CHECK: linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d3, d4, d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
// CHECK: %[[OC:.*]] = linalg.index 0 : index
// CHECK: %[[C:.*]] = linalg.index 3 : index
// CHECK: %[[GROUP:.*]] = arith.floordivsi %[[OC]], %{{.*}} : index
// CHECK: %[[FIRST:.*]] = arith.muli %[[GROUP]], %{{.*}} : index
// CHECK: %[[CHANNEL:.*]] = arith.addi %[[FIRST]], %[[C]] : index
// CHECK: tensor.extract %{{.*}}[%[[CHANNEL]], %{{.*}}, %{{.*}}] : tensor<?x?x?xf32>
func.func @torch.aten.conv2d.padding$groups(%x: !torch.vtensor<[?,?,?],f32>, %w: !torch.vtensor<[?,?,?,?],f32>) -> !torch.vtensor<[?,?,?],f32> {
  %none = torch.constant.none
  %int1 = torch.constant.int 1
  %int2 = torch.constant.int 2
  %same = torch.constant.str "same"
  %0 = torch.aten.conv2d.padding %x, %w, %none, %int1, %same, %int1, %int2 : !torch.vtensor<[?,?,?],f32>, !torch.vtensor<[?,?,?,?],f32>, !torch.none, !torch.int, !torch.str, !torch.int, !torch.int -> !torch.vtensor<[?,?,?],f32>
  func.return %0 : !torch.vtensor<[?,?,?],f32>
}
