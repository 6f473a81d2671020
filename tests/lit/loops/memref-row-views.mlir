// RUN: xdsl-opt %s -p memref-row-views | filecheck %s

#id2 = affine_map<(d0, d1) -> (d0, d1)>

func.func private @tsjit.matmul_packed_set_f32(memref<?x?xf32>, memref<?xf32>, memref<?x?xf32>) attributes {tsjit.library = "matmul_packed_set"}
func.func private @other(memref<?x?xf32>)

// A row copy that only a library kernel reads, as an input: the kernel reads the row in
// place (a subview of x, cast to the type the call was made for); the copy and its buffer go.
// CHECK-LABEL: func.func @row_into_kernel
// CHECK-NOT:     memref.alloc(%b, %k)
// CHECK:         %[[VIEW:.*]] = memref.subview %x[%r, 0, 0] [1, %b, %k] [1, 1, 1] : memref<?x?x?xf32> to memref<?x?xf32, strided<[?, 1], offset: ?>>
// CHECK-NEXT:    %[[ROW:.*]] = "memref.cast"(%[[VIEW]]) : (memref<?x?xf32, strided<[?, 1], offset: ?>>) -> memref<?x?xf32>
// CHECK-NOT:     linalg.generic
// CHECK:         %[[N:.*]] = memref.dim %[[ROW]], %c0 : memref<?x?xf32>
// CHECK:         func.call @tsjit.matmul_packed_set_f32(%[[ROW]], %wp, %out)
func.func @row_into_kernel(%x: memref<?x?x?xf32>, %wp: memref<?xf32>, %out: memref<?x?xf32>, %r: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %b = memref.dim %x, %c1 : memref<?x?x?xf32>
  %k = memref.dim %x, %c2 : memref<?x?x?xf32>
  %row = memref.alloc(%b, %k) : memref<?x?xf32>
  linalg.generic {indexing_maps = [#id2], iterator_types = ["parallel", "parallel"]} outs(%row : memref<?x?xf32>) {
  ^bb0(%o: f32):
    %d0 = linalg.index 0 : index
    %d1 = linalg.index 1 : index
    %v = memref.load %x[%r, %d0, %d1] : memref<?x?x?xf32>
    linalg.yield %v : f32
  }
  %n = memref.dim %row, %c0 : memref<?x?xf32>
  func.call @tsjit.matmul_packed_set_f32(%row, %wp, %out) : (memref<?x?xf32>, memref<?xf32>, memref<?x?xf32>) -> ()
  func.return
}

// Copies kept: one a kernel writes (its last buffer operand), one another op reads (a
// generic, a call of a function that is not a library kernel), one of a part of a row, and
// a fill that is no row copy (a body of one op).
// CHECK-LABEL: func.func @kept
// CHECK-NOT:     memref.subview
// CHECK:         func.return
func.func @kept(%x: memref<3x4x5xf32>, %wp: memref<?xf32>, %a: memref<?x?xf32>, %r: index) {
  %e1 = memref.alloc() : memref<4x5xf32>
  linalg.generic {indexing_maps = [#id2], iterator_types = ["parallel", "parallel"]} outs(%e1 : memref<4x5xf32>) {
  ^bb0(%o: f32):
    %d0 = linalg.index 0 : index
    %d1 = linalg.index 1 : index
    %v = memref.load %x[%r, %d0, %d1] : memref<3x4x5xf32>
    linalg.yield %v : f32
  }
  %c1 = "memref.cast"(%e1) : (memref<4x5xf32>) -> memref<?x?xf32>
  func.call @tsjit.matmul_packed_set_f32(%a, %wp, %c1) : (memref<?x?xf32>, memref<?xf32>, memref<?x?xf32>) -> ()
  %e2 = memref.alloc() : memref<4x5xf32>
  linalg.generic {indexing_maps = [#id2], iterator_types = ["parallel", "parallel"]} outs(%e2 : memref<4x5xf32>) {
  ^bb0(%o: f32):
    %d0 = linalg.index 0 : index
    %d1 = linalg.index 1 : index
    %v = memref.load %x[%r, %d0, %d1] : memref<3x4x5xf32>
    linalg.yield %v : f32
  }
  %c2 = "memref.cast"(%e2) : (memref<4x5xf32>) -> memref<?x?xf32>
  func.call @other(%c2) : (memref<?x?xf32>) -> ()
  %e3 = memref.alloc() : memref<4x4xf32>
  linalg.generic {indexing_maps = [#id2], iterator_types = ["parallel", "parallel"]} outs(%e3 : memref<4x4xf32>) {
  ^bb0(%o: f32):
    %d0 = linalg.index 0 : index
    %d1 = linalg.index 1 : index
    %v = memref.load %x[%r, %d0, %d1] : memref<3x4x5xf32>
    linalg.yield %v : f32
  }
  %c3 = "memref.cast"(%e3) : (memref<4x4xf32>) -> memref<?x?xf32>
  func.call @tsjit.matmul_packed_set_f32(%c3, %wp, %a) : (memref<?x?xf32>, memref<?xf32>, memref<?x?xf32>) -> ()
  %s = memref.load %x[%r, %r, %r] : memref<3x4x5xf32>
  %e4 = memref.alloc() : memref<4x5xf32>
  linalg.generic {indexing_maps = [#id2], iterator_types = ["parallel", "parallel"]} outs(%e4 : memref<4x5xf32>) {
  ^bb0(%o: f32):
    linalg.yield %s : f32
  }
  %c4 = "memref.cast"(%e4) : (memref<4x5xf32>) -> memref<?x?xf32>
  func.call @tsjit.matmul_packed_set_f32(%c4, %wp, %a) : (memref<?x?xf32>, memref<?xf32>, memref<?x?xf32>) -> ()
  func.return
}
