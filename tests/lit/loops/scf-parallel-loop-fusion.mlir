// RUN: xdsl-opt %s -p scf-parallel-loop-fusion | filecheck %s

// Row loops over the same bound that share a buffer only through their own row fuse into
// one loop over rows; the allocation between them moves above; the 2-D loop is split into
// an outer loop over rows around an inner loop over columns; dim(alloc) folds to its size.
// CHECK-LABEL: func.func @rows$fused
// CHECK:         %[[N:.*]] = memref.dim %x, %{{.*}} : memref<?x?xf32>
// CHECK:         %[[M:.*]] = memref.alloc(%[[N]]) : memref<?xf32>
// CHECK:         %[[OUT:.*]] = memref.alloc(%[[N]], %{{.*}}) : memref<?x?xf32>
// CHECK:         "scf.parallel"(%{{.*}}, %[[N]], %{{.*}})
// CHECK-NEXT:    ^{{.*}}(%[[I:.*]]: index):
// CHECK:           memref.store %{{.*}}, %[[M]][%[[I]]] : memref<?xf32>
// CHECK:           "scf.parallel"
// CHECK:             memref.load %[[M]][%[[I]]] : memref<?xf32>
// CHECK:             memref.store %{{.*}}, %[[OUT]][%[[I]], %{{.*}}] : memref<?x?xf32>
// CHECK-NOT:     "scf.parallel"(%{{.*}}, %[[N]], %{{.*}})
func.func @rows$fused(%x: memref<?x?xf32>) -> memref<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %n = memref.dim %x, %c0 : memref<?x?xf32>
  %k = memref.dim %x, %c1 : memref<?x?xf32>
  %m = memref.alloc(%n) : memref<?xf32>
  "scf.parallel"(%c0, %n, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%i: index):
    %s = scf.for %j = %c0 to %k step %c1 iter_args(%acc = %zero) -> (f32) {
      %v = memref.load %x[%i, %j] : memref<?x?xf32>
      %a = arith.addf %acc, %v : f32
      scf.yield %a : f32
    }
    memref.store %s, %m[%i] : memref<?xf32>
    scf.reduce
  }) : (index, index, index) -> ()
  %n2 = memref.dim %m, %c0 : memref<?xf32>
  %out = memref.alloc(%n2, %k) : memref<?x?xf32>
  "scf.parallel"(%c0, %c0, %n2, %k, %c1, %c1) <{operandSegmentSizes = array<i32: 2, 2, 2, 0>}> ({
  ^bb0(%i: index, %j: index):
    %v = memref.load %x[%i, %j] : memref<?x?xf32>
    %s = memref.load %m[%i] : memref<?xf32>
    %d = arith.divf %v, %s : f32
    memref.store %d, %out[%i, %j] : memref<?x?xf32>
    scf.reduce
  }) : (index, index, index, index, index, index) -> ()
  func.return %out : memref<?x?xf32>
}

// The second loop reads the first one's buffer at other rows (a transpose): not fused.
// CHECK-LABEL: func.func @transpose$kept
// CHECK:         "scf.parallel"
// CHECK:         scf.reduce
// CHECK:         "scf.parallel"
func.func @transpose$kept(%x: memref<?x?xf32>) -> memref<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %x, %c0 : memref<?x?xf32>
  %t = memref.alloc(%n, %n) : memref<?x?xf32>
  %out = memref.alloc(%n, %n) : memref<?x?xf32>
  "scf.parallel"(%c0, %c0, %n, %n, %c1, %c1) <{operandSegmentSizes = array<i32: 2, 2, 2, 0>}> ({
  ^bb0(%i: index, %j: index):
    %v = memref.load %x[%i, %j] : memref<?x?xf32>
    memref.store %v, %t[%i, %j] : memref<?x?xf32>
    scf.reduce
  }) : (index, index, index, index, index, index) -> ()
  "scf.parallel"(%c0, %c0, %n, %n, %c1, %c1) <{operandSegmentSizes = array<i32: 2, 2, 2, 0>}> ({
  ^bb0(%i: index, %j: index):
    %v = memref.load %t[%j, %i] : memref<?x?xf32>
    memref.store %v, %out[%i, %j] : memref<?x?xf32>
    scf.reduce
  }) : (index, index, index, index, index, index) -> ()
  func.return %out : memref<?x?xf32>
}

// Different trip counts, or a load between the loops: not fused.
// CHECK-LABEL: func.func @bounds$differ
// CHECK:         "scf.parallel"
// CHECK:         scf.reduce
// CHECK:         "scf.parallel"
// CHECK:         scf.reduce
// CHECK:         memref.load %b[%{{.*}}]
// CHECK:         "scf.parallel"
func.func @bounds$differ(%a: memref<?xf32>, %b: memref<?xf32>) -> memref<?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %a, %c0 : memref<?xf32>
  %k = memref.dim %b, %c0 : memref<?xf32>
  %out = memref.alloc(%n) : memref<?xf32>
  "scf.parallel"(%c0, %n, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%i: index):
    %v = memref.load %a[%i] : memref<?xf32>
    memref.store %v, %out[%i] : memref<?xf32>
    scf.reduce
  }) : (index, index, index) -> ()
  "scf.parallel"(%c0, %k, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%i: index):
    %v = memref.load %b[%i] : memref<?xf32>
    memref.store %v, %out[%i] : memref<?xf32>
    scf.reduce
  }) : (index, index, index) -> ()
  %first = memref.load %b[%c0] : memref<?xf32>
  "scf.parallel"(%c0, %k, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%i: index):
    memref.store %first, %out[%i] : memref<?xf32>
    scf.reduce
  }) : (index, index, index) -> ()
  func.return %out : memref<?xf32>
}
