// RUN: xdsl-opt %s -t python | filecheck %s

// memref.subview is a numpy view: `x[i]` when it drops leading unit dims and keeps the other
// dims whole (numba keeps the array C-contiguous), else slices.
// CHECK-LABEL: def views(x, r, n):
// CHECK-NEXT:      wide_vectors()
// CHECK-NEXT:      b = x.shape[1]
// CHECK-NEXT:      row = x[r]
// CHECK-NEXT:      part = x[r, 0:0 + n, 1:1 + 2]
// CHECK-NEXT:      v = row[0, 0]
// CHECK-NEXT:      part[0, 0] = v
func.func @views(%x: memref<?x?x4xf32>, %r: index, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %b = memref.dim %x, %c1 : memref<?x?x4xf32>
  %row = memref.subview %x[%r, 0, 0] [1, %b, 4] [1, 1, 1] : memref<?x?x4xf32> to memref<?x4xf32, strided<[4, 1], offset: ?>>
  %part = memref.subview %x[%r, 0, 1] [1, %n, 2] [1, 1, 1] : memref<?x?x4xf32> to memref<?x2xf32, strided<[4, 1], offset: ?>>
  %v = memref.load %row[%c0, %c0] : memref<?x4xf32, strided<[4, 1], offset: ?>>
  memref.store %v, %part[%c0, %c0] : memref<?x2xf32, strided<[4, 1], offset: ?>>
  func.return
}
