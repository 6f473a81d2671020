// RUN: xdsl-opt %s -p linalg-bufferize | filecheck %s
// RUN: xdsl-opt %s -p linalg-bufferize -t python | filecheck %s --check-prefix=PY

// tensor.collapse_shape is a view of the same (C-contiguous) buffer; the python target
// reshapes the array, which numpy and numba do without a copy.
// CHECK-LABEL: func.func @rows
// CHECK-NEXT:    %[[FLAT:.*]] = memref.collapse_shape %x {{\[\[}}0 : i64, 1 : i64], [2 : i64]] : memref<?x?x4xf32> into memref<?x4xf32>
// CHECK-NEXT:    func.return %[[FLAT]] : memref<?x4xf32>
// PY-LABEL:    def rows(x):
// PY:              [[FLAT:[a-z0-9_]+]] = x.reshape((x.shape[0] * x.shape[1], x.shape[2]))
// PY-NEXT:         return [[FLAT]]
func.func @rows(%x: tensor<?x?x4xf32>) -> tensor<?x4xf32> {
  %flat = tensor.collapse_shape %x [[0, 1], [2]] : tensor<?x?x4xf32> into tensor<?x4xf32>
  func.return %flat : tensor<?x4xf32>
}
