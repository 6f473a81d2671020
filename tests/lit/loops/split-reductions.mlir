// RUN: xdsl-opt %s -p scf-split-reductions --split-input-file | filecheck %s
// A whole-array sum (two nested loops, one flagged fold) runs in 16 chunks in parallel, each
// from -0.0, stored to a buffer of partial sums that a loop folds into the initial value.

// CHECK-LABEL: func.func @sum_all
// CHECK:         %[[CHUNKS:.*]] = arith.constant 16 : index
// CHECK:         %[[TRIP:.*]] = arith.subi %[[N:.*]], %{{.*}} : index
// CHECK:         %[[PARTS:.*]] = memref.alloc(%[[CHUNKS]]) : memref<?xf32>
// CHECK:         "scf.parallel"
// CHECK-NEXT:    ^{{.*}}(%[[C:.*]]: index):
// CHECK:           %[[LO:.*]] = arith.addi %c0, %{{.*}} : index
// CHECK:           %[[HI:.*]] = arith.addi %c0, %{{.*}} : index
// CHECK:           %[[ID:.*]] = arith.constant -0.000000e+00 : f32
// CHECK-NEXT:      %[[P:.*]] = scf.for %{{.*}} = %[[LO]] to %[[HI]] step %{{.*}} iter_args(%{{.*}} = %[[ID]]) -> (f32) {
// CHECK:             arith.addf %{{.*}}, %{{.*}} fastmath<reassoc,contract> : f32
// CHECK:           memref.store %[[P]], %[[PARTS]][%[[C]]] : memref<?xf32>
// CHECK:         %[[SUM:.*]] = scf.for %[[K:.*]] = %{{.*}} to %[[CHUNKS]] step %{{.*}} iter_args(%[[ACC:.*]] = %[[INIT:.*]]) -> (f32) {
// CHECK-NEXT:      %[[V:.*]] = memref.load %[[PARTS]][%[[K]]] : memref<?xf32>
// CHECK-NEXT:      %[[S:.*]] = arith.addf %[[ACC]], %[[V]] : f32
// CHECK-NEXT:      scf.yield %[[S]] : f32
// CHECK:         memref.store %[[SUM]], %{{.*}}[] : memref<f32>
func.func @sum_all(%x: memref<?x?xf32>, %out: memref<f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %x, %c0 : memref<?x?xf32>
  %m = memref.dim %x, %c1 : memref<?x?xf32>
  %init = memref.load %out[] : memref<f32>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%a = %init) -> (f32) {
    %r2 = scf.for %j = %c0 to %m step %c1 iter_args(%b = %a) -> (f32) {
      %v = memref.load %x[%i, %j] : memref<?x?xf32>
      %s = arith.addf %b, %v fastmath<reassoc,contract> : f32
      scf.yield %s : f32
    }
    scf.yield %r2 : f32
  }
  memref.store %r, %out[] : memref<f32>
  func.return
}

// -----

// A max starts its chunks from -inf; a fold without the reorderable flags, or a loop that
// writes memory, stays one loop.

// CHECK-LABEL: func.func @max_and_kept
// CHECK:         "scf.parallel"
// CHECK:         arith.constant 0xff800000 : f32
// CHECK:         arith.maximumf %{{.*}}, %{{.*}} fastmath<reassoc,contract> : f32
// CHECK:         arith.maximumf
// CHECK-NOT:     "scf.parallel"
// CHECK:         arith.addf %{{.*}}, %{{.*}} : f32
// CHECK-NOT:     "scf.parallel"
// CHECK:         memref.store %{{.*}}, %{{.*}}[%{{.*}}] : memref<?xf32>
// CHECK-NOT:     "scf.parallel"
// CHECK:         func.return
func.func @max_and_kept(%x: memref<?xf32>, %init: f32, %y: memref<?xf32>) -> (f32, f32, f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %x, %c0 : memref<?xf32>
  %max = scf.for %i = %c0 to %n step %c1 iter_args(%a = %init) -> (f32) {
    %v = memref.load %x[%i] : memref<?xf32>
    %s = arith.maximumf %a, %v fastmath<reassoc,contract> : f32
    scf.yield %s : f32
  }
  %ordered = scf.for %i = %c0 to %n step %c1 iter_args(%a = %init) -> (f32) {
    %v = memref.load %x[%i] : memref<?xf32>
    %s = arith.addf %a, %v : f32
    scf.yield %s : f32
  }
  %written = scf.for %i = %c0 to %n step %c1 iter_args(%a = %init) -> (f32) {
    %v = memref.load %x[%i] : memref<?xf32>
    %s = arith.addf %a, %v fastmath<reassoc,contract> : f32
    memref.store %s, %y[%i] : memref<?xf32>
    scf.yield %s : f32
  }
  func.return %max, %ordered, %written : f32, f32, f32
}
