// RUN: xdsl-opt %s -p convert-torch-to-linalg | filecheck %s
// Norms fold a term of each element (here x*x) over the reduced dims, then finish each result
// (sqrt); logsumexp folds the max, then exp(x - s) (s: the max, 0 where infinite), then
// log(sum) + s.

// CHECK-LABEL: func.func @torch.aten.linalg_vector_norm
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<?xf32>)
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%x : tensor<?x4xf32>)
// CHECK: arith.mulf %[[E:.*]], %[[E]] : f32
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel"]}
// CHECK: math.sqrt
func.func @torch.aten.linalg_vector_norm(%x: !torch.vtensor<[?,4],f32>) -> !torch.vtensor<[?],f32> {
  %int2 = torch.constant.int 2
  %int1 = torch.constant.int 1
  %false = torch.constant.bool false
  %none = torch.constant.none
  %dims = torch.prim.ListConstruct %int1 : (!torch.int) -> !torch.list<int>
  %0 = torch.aten.linalg_vector_norm %x, %int2, %dims, %false, %none : !torch.vtensor<[?,4],f32>, !torch.int, !torch.list<int>, !torch.bool, !torch.none -> !torch.vtensor<[?],f32>
  func.return %0 : !torch.vtensor<[?],f32>
}

// CHECK-LABEL: func.func @torch.aten.logsumexp
// CHECK: %[[TOP:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<?x1xf32>)
// CHECK: arith.maximumf
// CHECK: %[[SUMS:.*]] = linalg.generic {{.*}} ins(%x, %[[TOP]] : tensor<?x4xf32>, tensor<?x1xf32>) outs(%{{.*}} : tensor<?xf32>)
// CHECK: arith.select
// CHECK: math.exp
// CHECK: linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0, 0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%[[SUMS]], %[[TOP]] : tensor<?xf32>, tensor<?x1xf32>)
// CHECK: math.log
func.func @torch.aten.logsumexp(%x: !torch.vtensor<[?,4],f32>) -> !torch.vtensor<[?],f32> {
  %int1 = torch.constant.int 1
  %false = torch.constant.bool false
  %dims = torch.prim.ListConstruct %int1 : (!torch.int) -> !torch.list<int>
  %0 = torch.aten.logsumexp %x, %dims, %false : !torch.vtensor<[?,4],f32>, !torch.list<int>, !torch.bool -> !torch.vtensor<[?],f32>
  func.return %0 : !torch.vtensor<[?],f32>
}
