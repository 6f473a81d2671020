// RUN: xdsl-opt %s -p convert-torch-to-linalg,canonicalize,cse | filecheck %s
// select_scatter / slice_scatter: `tensor.insert_slice` of `src` (converted to the dtype by
// one generic when it differs) at the written part; a select drops `dim` from `src`.

// CHECK-LABEL: func.func @torch.aten.select_scatter
// CHECK:      %[[AT:.*]] = arith.select %{{.*}}, %{{.*}}, %{{.*}} : index
// CHECK-NEXT: %{{.*}} = tensor.insert_slice %s into %x[%[[AT]], 0] [1, 4] [1, 1] : tensor<4xf32> into tensor<?x4xf32>
func.func @torch.aten.select_scatter(%x: !torch.vtensor<[?,4],f32>, %s: !torch.vtensor<[4],f32>, %i: !torch.int) -> !torch.vtensor<[?,4],f32> {
  %int0 = torch.constant.int 0
  %0 = torch.aten.select_scatter %x, %s, %int0, %i : !torch.vtensor<[?,4],f32>, !torch.vtensor<[4],f32>, !torch.int, !torch.int -> !torch.vtensor<[?,4],f32>
  func.return %0 : !torch.vtensor<[?,4],f32>
}

// A step > 1 is the stride at `dim`; the part is at most as long as the slice; an integer
// src converts first.
// CHECK-LABEL: func.func @torch.aten.slice_scatter
// CHECK:      %[[CAST:.*]] = linalg.generic
// CHECK:        arith.sitofp %{{.*}} : i64 to f32
// CHECK:      %[[LEN:.*]] = arith.minsi %{{.*}}, %{{.*}} : index
// CHECK-NEXT: tensor.insert_slice %[[CAST]] into %x[0, %{{.*}}] [3, %[[LEN]]] [1, %{{.*}}] : tensor<3x3xf32> into tensor<3x6xf32>
func.func @torch.aten.slice_scatter(%x: !torch.vtensor<[3,6],f32>, %s: !torch.vtensor<[3,3],si64>) -> !torch.vtensor<[3,6],f32> {
  %int1 = torch.constant.int 1
  %none = torch.constant.none
  %int2 = torch.constant.int 2
  %0 = torch.aten.slice_scatter %x, %s, %int1, %none, %none, %int2 : !torch.vtensor<[3,6],f32>, !torch.vtensor<[3,3],si64>, !torch.int, !torch.none, !torch.none, !torch.int -> !torch.vtensor<[3,6],f32>
  func.return %0 : !torch.vtensor<[3,6],f32>
}
