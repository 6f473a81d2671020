// RUN: xdsl-opt %s -p 'scf-outline-kernels{min-nests=2}' | filecheck %s

// Top-level loop nests move into kernels; the two nests that differ only in their buffers
// share one kernel, the third (a multiply) gets its own.
// CHECK-LABEL: func.func @f(%a: memref<?xf32>, %b: memref<?xf32>, %c: memref<?xf32>)
// CHECK:         %n = memref.dim %a
// CHECK-NEXT:    func.call @f.k0(%n, %a, %b) : (index, memref<?xf32>, memref<?xf32>) -> ()
// CHECK-NEXT:    func.call @f.k0(%n, %b, %c)
// CHECK-NEXT:    func.call @f.k1(%n, %a, %c)
// CHECK-NEXT:    func.return
// CHECK:       func.func @f.k0(%n: index, %a: memref<?xf32>, %b: memref<?xf32>)
// CHECK-NEXT:    arith.constant 0 : index
// CHECK:         "scf.parallel"
// CHECK:         arith.addf
// CHECK:       func.func @f.k1(
// CHECK:         arith.mulf
func.func @f(%a: memref<?xf32>, %b: memref<?xf32>, %c: memref<?xf32>) {
  %0 = arith.constant 0 : index
  %1 = arith.constant 1 : index
  %n = memref.dim %a, %0 : memref<?xf32>
  "scf.parallel"(%0, %n, %1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%i: index):
    %x = memref.load %a[%i] : memref<?xf32>
    %y = arith.addf %x, %x : f32
    memref.store %y, %b[%i] : memref<?xf32>
    scf.reduce
  }) : (index, index, index) -> ()
  "scf.parallel"(%0, %n, %1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%j: index):
    %x2 = memref.load %b[%j] : memref<?xf32>
    %y2 = arith.addf %x2, %x2 : f32
    memref.store %y2, %c[%j] : memref<?xf32>
    scf.reduce
  }) : (index, index, index) -> ()
  "scf.parallel"(%0, %n, %1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%k: index):
    %x3 = memref.load %a[%k] : memref<?xf32>
    %y3 = arith.mulf %x3, %x3 : f32
    memref.store %y3, %c[%k] : memref<?xf32>
    scf.reduce
  }) : (index, index, index) -> ()
  func.return
}
