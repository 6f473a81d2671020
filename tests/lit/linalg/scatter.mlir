// RUN: xdsl-opt %s -p convert-torch-to-linalg,canonicalize,cse | filecheck %s
// select_scatter / slice_scatter: one generic over `self` choosing, per element, `src`
// (read at an index made safe outside the part, converted to the dtype) or `self`.

// CHECK-LABEL: func.func @torch.aten.select_scatter
// CHECK:      %[[AT:.*]] = arith.select %{{.*}}, %{{.*}}, %{{.*}} : index
// CHECK:      %[[I:.*]] = linalg.index 0 : index
// CHECK-NEXT: %[[J:.*]] = linalg.index 1 : index
// CHECK-NEXT: %[[IN:.*]] = arith.cmpi eq, %[[I]], %[[AT]] : index
// CHECK-NEXT: %[[SAFE:.*]] = arith.select %[[IN]], %[[J]], %{{.*}} : index
// CHECK-NEXT: %[[NEW:.*]] = tensor.extract %s[%[[SAFE]]] : tensor<4xf32>
// CHECK-NEXT: %[[OLD:.*]] = tensor.extract %x[%[[I]], %[[J]]] : tensor<?x4xf32>
// CHECK-NEXT: arith.select %[[IN]], %[[NEW]], %[[OLD]] : f32
func.func @torch.aten.select_scatter(%x: !torch.vtensor<[?,4],f32>, %s: !torch.vtensor<[4],f32>, %i: !torch.int) -> !torch.vtensor<[?,4],f32> {
  %int0 = torch.constant.int 0
  %0 = torch.aten.select_scatter %x, %s, %int0, %i : !torch.vtensor<[?,4],f32>, !torch.vtensor<[4],f32>, !torch.int, !torch.int -> !torch.vtensor<[?,4],f32>
  func.return %0 : !torch.vtensor<[?,4],f32>
}

// A step > 1 also checks that the offset is a multiple of it; an integer src converts.
// CHECK-LABEL: func.func @torch.aten.slice_scatter
// CHECK:      arith.remsi
// CHECK:      arith.divsi
// CHECK:      %[[NEW:.*]] = tensor.extract %s[%{{.*}}, %{{.*}}] : tensor<3x3xi64>
// CHECK-NEXT: %[[CAST:.*]] = arith.sitofp %[[NEW]] : i64 to f32
// CHECK-NEXT: %[[OLD:.*]] = tensor.extract %x[%{{.*}}, %{{.*}}] : tensor<3x6xf32>
// CHECK-NEXT: arith.select %{{.*}}, %[[CAST]], %[[OLD]] : f32
func.func @torch.aten.slice_scatter(%x: !torch.vtensor<[3,6],f32>, %s: !torch.vtensor<[3,3],si64>) -> !torch.vtensor<[3,6],f32> {
  %int1 = torch.constant.int 1
  %none = torch.constant.none
  %int2 = torch.constant.int 2
  %0 = torch.aten.slice_scatter %x, %s, %int1, %none, %none, %int2 : !torch.vtensor<[3,6],f32>, !torch.vtensor<[3,3],si64>, !torch.int, !torch.none, !torch.none, !torch.int -> !torch.vtensor<[3,6],f32>
  func.return %0 : !torch.vtensor<[3,6],f32>
}
