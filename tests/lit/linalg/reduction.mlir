// RUN: xdsl-opt %s -p convert-torch-to-linalg | filecheck %s
// Reductions: fill with the identity, then a generic with reduction iterators.

// CHECK-LABEL: func.func @torch.aten.sum.dim_IntList$keepdim
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[INIT:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%{{.*}} : tensor<?x1xf32>)
// CHECK: linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>], iterator_types = ["parallel", "reduction"]}
func.func @torch.aten.sum.dim_IntList$keepdim(%x: !torch.vtensor<[?,4],f32>) -> !torch.vtensor<[?,1],f32> {
  %int_m1 = torch.constant.int -1
  %true = torch.constant.bool true
  %none = torch.constant.none
  %dims = torch.prim.ListConstruct %int_m1 : (!torch.int) -> !torch.list<int>
  %0 = torch.aten.sum.dim_IntList %x, %dims, %true, %none : !torch.vtensor<[?,4],f32>, !torch.list<int>, !torch.bool, !torch.none -> !torch.vtensor<[?,1],f32>
  func.return %0 : !torch.vtensor<[?,1],f32>
}

// Summing int32 widens each element to i64.
// CHECK-LABEL: func.func @torch.aten.sum$int
// CHECK: affine_map<(d0) -> ()>], iterator_types = ["reduction"]
// CHECK: arith.extsi %{{.*}} : i32 to i64
func.func @torch.aten.sum$int(%x: !torch.vtensor<[?],si32>) -> !torch.vtensor<[],si64> {
  %none = torch.constant.none
  %0 = torch.aten.sum %x, %none : !torch.vtensor<[?],si32>, !torch.none -> !torch.vtensor<[],si64>
  func.return %0 : !torch.vtensor<[],si64>
}

// max.dim yields the value and the index of the first maximum (NaN wins): two folds, the
// maximum, then the first position of an element equal to it.
// CHECK-LABEL: func.func @torch.aten.max.dim
// CHECK: arith.constant 0xff800000 : f32
// CHECK: %[[TOP:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<?xf32>)
// CHECK: linalg.generic {{.*}} ins(%x, %[[TOP]] : tensor<?x4xf32>, tensor<?xf32>) outs(%{{.*}} : tensor<?xi64>)
// CHECK: arith.cmpf uno
// CHECK: linalg.index 1 : index
func.func @torch.aten.max.dim(%x: !torch.vtensor<[?,4],f32>) -> (!torch.vtensor<[?],f32>, !torch.vtensor<[?],si64>) {
  %int1 = torch.constant.int 1
  %false = torch.constant.bool false
  %v, %i = torch.aten.max.dim %x, %int1, %false : !torch.vtensor<[?,4],f32>, !torch.int, !torch.bool -> !torch.vtensor<[?],f32>, !torch.vtensor<[?],si64>
  func.return %v, %i : !torch.vtensor<[?],f32>, !torch.vtensor<[?],si64>
}
