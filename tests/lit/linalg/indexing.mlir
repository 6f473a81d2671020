// RUN: xdsl-opt %s -p convert-torch-to-linalg,canonicalize,cse | filecheck %s
// Index tensors are read in the body, cast to `index`, and address the source.

// CHECK-LABEL: func.func @torch.aten.embedding
// CHECK: tensor.empty(%{{.*}}, %{{.*}}) : tensor<?x?x8xf32>
// CHECK: %[[I:.*]] = linalg.index 0 : index
// CHECK: %[[J:.*]] = linalg.index 1 : index
// CHECK: %[[K:.*]] = linalg.index 2 : index
// CHECK: %[[ROW:.*]] = tensor.extract %i[%[[I]], %[[J]]] : tensor<?x?xi64>
// CHECK: %[[AT:.*]] = arith.index_cast %[[ROW]] : i64 to index
// CHECK: tensor.extract %w[%[[AT]], %[[K]]] : tensor<?x8xf32>
func.func @torch.aten.embedding(%w: !torch.vtensor<[?,8],f32>, %i: !torch.vtensor<[?,?],si64>) -> !torch.vtensor<[?,?,8],f32> {
  %int-1 = torch.constant.int -1
  %false = torch.constant.bool false
  %0 = torch.aten.embedding %w, %i, %int-1, %false, %false : !torch.vtensor<[?,8],f32>, !torch.vtensor<[?,?],si64>, !torch.int, !torch.bool, !torch.bool -> !torch.vtensor<[?,?,8],f32>
  func.return %0 : !torch.vtensor<[?,?,8],f32>
}

// gather replaces the index at `dim` by the index tensor's element; the result has its shape.
// CHECK-LABEL: func.func @torch.aten.gather
// CHECK: %[[I:.*]] = linalg.index 0 : index
// CHECK: %[[J:.*]] = linalg.index 1 : index
// CHECK: %[[COL:.*]] = tensor.extract %i[%[[I]], %[[J]]] : tensor<?x?xi32>
// CHECK: %[[AT:.*]] = arith.index_cast %[[COL]] : i32 to index
// CHECK: tensor.extract %x[%[[I]], %[[AT]]] : tensor<?x4xf32>
func.func @torch.aten.gather(%x: !torch.vtensor<[?,4],f32>, %i: !torch.vtensor<[?,?],si32>) -> !torch.vtensor<[?,?],f32> {
  %int1 = torch.constant.int 1
  %false = torch.constant.bool false
  %0 = torch.aten.gather %x, %int1, %i, %false : !torch.vtensor<[?,4],f32>, !torch.int, !torch.vtensor<[?,?],si32>, !torch.bool -> !torch.vtensor<[?,?],f32>
  func.return %0 : !torch.vtensor<[?,?],f32>
}
