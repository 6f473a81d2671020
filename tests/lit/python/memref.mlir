// RUN: xdsl-opt %s -t python | filecheck %s

// alloc: dynamic sizes in order, exact dtype; 0-d memrefs are indexed with `[()]`;
// memref.copy is a loop nest (numba compiles `dst[...] = src` 20x slower);
// memref.cast is an alias and memref.dealloc emits nothing.
// CHECK-LABEL: def buffers(x, s):
// CHECK-NEXT:      wide_vectors()
// CHECK-NEXT:      n = x.shape[0]
// CHECK-NEXT:      m = x.shape[1]
// CHECK-NEXT:      a = np.empty((n, 4, m), dtype=np.float32)
// CHECK-NEXT:      b = np.empty((m,), dtype=np.int64)
// CHECK-NEXT:      c = np.empty((), dtype=np.bool_)
// CHECK-NEXT:      d = np.empty((n, m), dtype=np.float64)
// CHECK-NEXT:      for i0 in range(x.shape[0]):
// CHECK-NEXT:          for i1 in range(x.shape[1]):
// CHECK-NEXT:              d[i0, i1] = x[i0, i1]
// CHECK-NEXT:      v = s[()]
// CHECK-NEXT:      d[0, 0] = v
// CHECK-NEXT:      c[()] = True
// CHECK-NEXT:      return d, c
func.func @buffers(%x: memref<?x?xf64>, %s: memref<f64>) -> (memref<?x?xf64>, memref<i1>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %true = arith.constant true
  %n = memref.dim %x, %c0 : memref<?x?xf64>
  %m = memref.dim %x, %c1 : memref<?x?xf64>
  %a = memref.alloc(%n, %m) : memref<?x4x?xf32>
  %b = memref.alloc(%m) : memref<?xi64>
  %c = memref.alloca() : memref<i1>
  %d = memref.alloc(%n, %m) : memref<?x?xf64>
  "memref.copy"(%x, %d) : (memref<?x?xf64>, memref<?x?xf64>) -> ()
  %v = memref.load %s[] : memref<f64>
  %e = "memref.cast"(%d) : (memref<?x?xf64>) -> memref<?x?xf64>
  memref.store %v, %e[%c0, %c0] : memref<?x?xf64>
  memref.store %true, %c[] : memref<i1>
  memref.dealloc %a : memref<?x4x?xf32>
  memref.dealloc %b : memref<?xi64>
  func.return %e, %c : memref<?x?xf64>, memref<i1>
}
