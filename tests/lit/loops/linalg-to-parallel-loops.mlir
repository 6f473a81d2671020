// RUN: xdsl-opt %s -p convert-linalg-to-parallel-loops --split-input-file --verify-diagnostics | filecheck %s

// Elementwise with a broadcast (constant 0) dim: one scf.parallel, a dynamic bound from
// memref.dim, the constant index for the broadcast dim.

// CHECK-LABEL: func.func @generic$broadcast
// CHECK-SAME:    (%[[X:.*]]: memref<?x4xf32>, %[[B:.*]]: memref<4xf32>, %[[OUT:.*]]: memref<?x4xf32>)
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:     %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG:     %[[C4:.*]] = arith.constant 4 : index
// CHECK-DAG:     %[[N:.*]] = memref.dim %[[X]], %[[C0]] : memref<?x4xf32>
// CHECK:         "scf.parallel"(%[[C0]], %[[C0]], %[[N]], %[[C4]], %[[C1]], %[[C1]])
// CHECK-NEXT:    ^{{.*}}(%[[I:.*]]: index, %[[J:.*]]: index):
// CHECK-NEXT:      %[[A:.*]] = memref.load %[[X]][%[[I]], %[[C0]]] : memref<?x4xf32>
// CHECK-NEXT:      %[[C:.*]] = memref.load %[[B]][%[[J]]] : memref<4xf32>
// CHECK-NEXT:      %[[S:.*]] = arith.addf %[[A]], %[[C]] : f32
// CHECK-NEXT:      memref.store %[[S]], %[[OUT]][%[[I]], %[[J]]] : memref<?x4xf32>
// CHECK-NEXT:      scf.reduce
// CHECK-NOT:     linalg
func.func @generic$broadcast(%x: memref<?x4xf32>, %b: memref<4xf32>, %out: memref<?x4xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x, %b : memref<?x4xf32>, memref<4xf32>) outs(%out : memref<?x4xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.addf %a, %c : f32
    linalg.yield %s : f32
  }
  func.return
}

// -----

// A reduction dim before the parallel one, which is the last index of every operand: the
// reduced dim goes outside a loop over a block of 256 columns (contiguous, so it vectorizes;
// unsigned indices: `tsjit.nonnegative_loop`), the blocks run in parallel, and each output
// element is read and written at every step (in L1), folding the rows in their order.

// CHECK-LABEL: func.func @generic$reduction_first
// CHECK-SAME:    (%[[X:.*]]: memref<?x4xf32>, %[[OUT:.*]]: memref<4xf32>)
// CHECK:         %[[BLOCKS:.*]] = arith.ceildivsi %{{.*}}, %[[WIDTH:.*]] : index
// CHECK:         "scf.parallel"
// CHECK-NEXT:    ^{{.*}}(%[[B:.*]]: index):
// CHECK-NEXT:      %[[LO:.*]] = arith.muli %[[B]], %[[WIDTH]] : index
// CHECK-NEXT:      %[[END:.*]] = arith.addi %[[LO]], %[[WIDTH]] : index
// CHECK-NEXT:      %[[HI:.*]] = arith.minsi %[[END]], %{{.*}} : index
// CHECK-NEXT:      scf.for %[[I:[^ ]*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT:        scf.for %[[J:[^ ]*]] = %[[LO]] to %[[HI]] step %{{.*}} {
// CHECK-NEXT:          %[[A:.*]] = memref.load %[[X]][%[[I]], %[[J]]] : memref<?x4xf32>
// CHECK-NEXT:          %[[ACC:.*]] = memref.load %[[OUT]][%[[J]]] : memref<4xf32>
// CHECK-NEXT:          %[[S:.*]] = arith.addf %[[A]], %[[ACC]] : f32
// CHECK-NEXT:          memref.store %[[S]], %[[OUT]][%[[J]]] : memref<4xf32>
// CHECK-NEXT:        } {tsjit.nonnegative_loop}
// CHECK-NEXT:      }
// CHECK-NEXT:      scf.reduce
func.func @generic$reduction_first(%x: memref<?x4xf32>, %out: memref<4xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>], iterator_types = ["reduction", "parallel"]} ins(%x : memref<?x4xf32>) outs(%out : memref<4xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  }
  func.return
}

// -----

// Two outputs, one indexed by the reduction dim too (softmax's exp and its sum): that one is
// stored inside the scf.for at every step; the other is carried and stored after the loop.

// CHECK-LABEL: func.func @generic$streamed_output
// CHECK-SAME:    (%[[X:.*]]: memref<?x4xf32>, %[[E:.*]]: memref<?x4xf32>, %[[OUT:.*]]: memref<?x1xf32>)
// CHECK:         "scf.parallel"
// CHECK-NEXT:    ^{{.*}}(%[[I:.*]]: index):
// CHECK-NEXT:      %[[INIT:.*]] = memref.load %[[OUT]][%[[I]], %{{.*}}] : memref<?x1xf32>
// CHECK-NEXT:      %[[SUM:.*]] = scf.for %[[J:[^ ]*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %[[INIT]]) -> (f32) {
// CHECK-NEXT:        %[[A:.*]] = memref.load %[[X]][%[[I]], %[[J]]] : memref<?x4xf32>
// CHECK-NEXT:        %[[EXP:.*]] = math.exp %[[A]] : f32
// CHECK-NEXT:        %[[S:.*]] = arith.addf %[[ACC]], %[[EXP]] : f32
// CHECK-NEXT:        memref.store %[[EXP]], %[[E]][%[[I]], %[[J]]] : memref<?x4xf32>
// CHECK-NEXT:        scf.yield %[[S]] : f32
// CHECK-NEXT:      }
// CHECK-NEXT:      memref.store %[[SUM]], %[[OUT]][%[[I]], %{{.*}}] : memref<?x1xf32>
// CHECK-NEXT:      scf.reduce
func.func @generic$streamed_output(%x: memref<?x4xf32>, %e: memref<?x4xf32>, %out: memref<?x1xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>], iterator_types = ["parallel", "reduction"]} ins(%x : memref<?x4xf32>) outs(%e, %out : memref<?x4xf32>, memref<?x1xf32>) {
  ^bb0(%a: f32, %o: f32, %acc: f32):
    %exp = math.exp %a : f32
    %s = arith.addf %acc, %exp : f32
    linalg.yield %exp, %s : f32, f32
  }
  func.return
}

// -----

// A full reduction to 0-d: no scf.parallel, the accumulator goes through both scf.for.

// CHECK-LABEL: func.func @generic$full_reduction
// CHECK-NOT:     scf.parallel
// CHECK:         %[[INIT:.*]] = memref.load %[[OUT:.*]][] : memref<f32>
// CHECK-NEXT:    %[[R:.*]] = scf.for %{{.*}} iter_args(%[[A0:.*]] = %[[INIT]]) -> (f32) {
// CHECK-NEXT:      %[[R1:.*]] = scf.for %{{.*}} iter_args(%[[A1:.*]] = %[[A0]]) -> (f32) {
// CHECK:             arith.maximumf %{{.*}}, %[[A1]] : f32
// CHECK:           scf.yield %[[R1]] : f32
// CHECK:         memref.store %[[R]], %[[OUT]][] : memref<f32>
func.func @generic$full_reduction(%x: memref<?x?xf32>, %out: memref<f32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>], iterator_types = ["reduction", "reduction"]} ins(%x : memref<?x?xf32>) outs(%out : memref<f32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.maximumf %a, %acc : f32
    linalg.yield %s : f32
  }
  func.return
}

// -----

// No loops at all: just the body between a load and a store.

// CHECK-LABEL: func.func @generic$scalar
// CHECK-NEXT:    %[[A:.*]] = memref.load %{{.*}}[] : memref<f32>
// CHECK-NEXT:    %[[M:.*]] = arith.mulf %[[A]], %[[A]] : f32
// CHECK-NEXT:    memref.store %[[M]], %{{.*}}[] : memref<f32>
// CHECK-NEXT:    func.return
func.func @generic$scalar(%x: memref<f32>, %out: memref<f32>) {
  linalg.generic {indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>], iterator_types = []} ins(%x : memref<f32>) outs(%out : memref<f32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.mulf %a, %a : f32
    linalg.yield %s : f32
  }
  func.return
}

// -----

// A strided window (d0 * 2 + d1) is computed with arith on index values, not affine.apply;
// linalg.index becomes the induction variable.

// CHECK-LABEL: func.func @generic$window
// CHECK-DAG:     %[[C2:.*]] = arith.constant 2 : index
// CHECK:         ^{{.*}}(%[[I:.*]]: index):
// CHECK:           scf.for %[[K:[^ ]*]] = {{.*}} {
// CHECK-NEXT:        %[[M:.*]] = arith.muli %[[I]], %[[C2]] : index
// CHECK-NEXT:        %[[IDX:.*]] = arith.addi %[[M]], %[[K]] : index
// CHECK-NEXT:        memref.load %{{.*}}[%[[IDX]]] : memref<17xf32>
// CHECK:             arith.index_cast %[[K]] : index to i64
// CHECK-NOT:     affine
func.func @generic$window(%x: memref<17xf32>, %w: memref<3xf32>, %out: memref<8xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0 * 2 + d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x, %w : memref<17xf32>, memref<3xf32>) outs(%out : memref<8xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %k = linalg.index 1 : index
    %ki = arith.index_cast %k : index to i64
    %kf = arith.sitofp %ki : i64 to f32
    %mk = arith.mulf %m, %kf : f32
    %s = arith.addf %mk, %acc : f32
    linalg.yield %s : f32
  }
  func.return
}

// -----

// Named ops are generalized first: fill, matmul (parallel i, j outside; reduction k inside),
// transpose, broadcast and reduce.

// CHECK-LABEL: func.func @named_ops
// CHECK-SAME:    (%[[A:.*]]: memref<2x3xf32>, %[[B:.*]]: memref<3x4xf32>, %[[C:.*]]: memref<2x4xf32>, %[[T:.*]]: memref<4x2xf32>, %[[Z:.*]]: f32)
// CHECK:         "scf.parallel"
// CHECK-NEXT:    ^{{.*}}(%[[I:.*]]: index, %[[J:.*]]: index):
// CHECK-NEXT:      memref.store %[[Z]], %[[C]][%[[I]], %[[J]]] : memref<2x4xf32>
// CHECK:         "scf.parallel"
// CHECK-NEXT:    ^{{.*}}(%[[I2:.*]]: index, %[[J2:.*]]: index):
// CHECK-NEXT:      memref.load %[[C]][%[[I2]], %[[J2]]]
// CHECK-NEXT:      scf.for %[[K:[^ ]*]] = {{.*}} iter_args
// CHECK-NEXT:        memref.load %[[A]][%[[I2]], %[[K]]]
// CHECK-NEXT:        memref.load %[[B]][%[[K]], %[[J2]]]
// CHECK:         "scf.parallel"
// CHECK-NEXT:    ^{{.*}}(%[[I3:.*]]: index, %[[J3:.*]]: index):
// CHECK-NEXT:      %[[V:.*]] = memref.load %[[C]][%[[J3]], %[[I3]]] : memref<2x4xf32>
// CHECK-NEXT:      memref.store %[[V]], %[[T]][%[[I3]], %[[J3]]] : memref<4x2xf32>
// CHECK-NOT:     linalg
func.func @named_ops(%a: memref<2x3xf32>, %b: memref<3x4xf32>, %c: memref<2x4xf32>, %t: memref<4x2xf32>, %z: f32) {
  linalg.fill ins(%z : f32) outs(%c : memref<2x4xf32>)
  linalg.matmul ins(%a, %b : memref<2x3xf32>, memref<3x4xf32>) outs(%c : memref<2x4xf32>)
  linalg.transpose ins(%c : memref<2x4xf32>) outs(%t : memref<4x2xf32>) permutation = [1, 0]
  func.return
}

// CHECK-LABEL: func.func @broadcast_reduce
// CHECK-SAME:    (%[[V:.*]]: memref<3xf32>, %[[M:.*]]: memref<2x3xf32>, %[[R:.*]]: memref<2xf32>)
// CHECK:         ^{{.*}}(%[[I:.*]]: index, %[[J:.*]]: index):
// CHECK-NEXT:      %[[E:.*]] = memref.load %[[V]][%[[J]]] : memref<3xf32>
// CHECK-NEXT:      memref.store %[[E]], %[[M]][%[[I]], %[[J]]] : memref<2x3xf32>
// CHECK:         ^{{.*}}(%[[I2:.*]]: index):
// CHECK-NEXT:      memref.load %[[R]][%[[I2]]] : memref<2xf32>
// CHECK-NEXT:      scf.for %[[K:[^ ]*]] = {{.*}} iter_args
// CHECK-NEXT:        memref.load %[[M]][%[[I2]], %[[K]]] : memref<2x3xf32>
// CHECK-NOT:     linalg
func.func @broadcast_reduce(%v: memref<3xf32>, %m: memref<2x3xf32>, %r: memref<2xf32>) {
  linalg.broadcast ins(%v : memref<3xf32>) outs(%m : memref<2x3xf32>) dimensions = [0]
  linalg.reduce ins(%m : memref<2x3xf32>) outs(%r : memref<2xf32>) dimensions = [1]
    (%in: f32, %init: f32) {
      %s = arith.addf %in, %init : f32
      linalg.yield %s : f32
    }
  func.return
}

// -----

// A parallel dim that the output does not index would make parallel iterations write the
// same element: it runs sequentially instead.

// CHECK-LABEL: func.func @generic$unindexed_parallel_dim
// CHECK:         "scf.parallel"(%{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}>
// CHECK:           scf.for
func.func @generic$unindexed_parallel_dim(%x: memref<3x4xf32>, %out: memref<3xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "parallel"]} ins(%x : memref<3x4xf32>) outs(%out : memref<3xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  }
  func.return
}

// -----

// Existing control flow is left alone. A fill of another scalar type casts like linalg.fill.

// CHECK-LABEL: func.func @control_flow
// CHECK-SAME:    (%[[C:.*]]: i1, %{{.*}}: memref<3xf32>, %[[Y:.*]]: memref<3xf32>)
// CHECK:         scf.if %[[C]] {
// CHECK:           "scf.parallel"
// CHECK-NEXT:      ^{{.*}}(%[[I:.*]]: index):
// CHECK-NEXT:        %[[F:.*]] = arith.uitofp %[[C]] : i1 to f32
// CHECK-NEXT:        memref.store %[[F]], %[[Y]][%[[I]]] : memref<3xf32>
// CHECK:         } else {
// CHECK-NEXT:      "memref.copy"
func.func @control_flow(%c: i1, %x: memref<3xf32>, %y: memref<3xf32>) {
  scf.if %c {
    linalg.fill ins(%c : i1) outs(%y : memref<3xf32>)
  } else {
    "memref.copy"(%x, %y) : (memref<3xf32>, memref<3xf32>) -> ()
  }
  func.return
}

// -----

// Ops on tensors are rejected, naming the pass, the stage it needs and the pipeline to it.

// CHECK: convert-linalg-to-parallel-loops: needs IR of stage 'memref' (made by linalg-bufferize), but this input is at stage 'linalg'; get there with: xdsl-opt FILE -p 'tsjit-to-memref'
func.func @tensors(%t: tensor<3xf32>) -> tensor<3xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} outs(%t : tensor<3xf32>) {
  ^bb0(%o: f32):
    linalg.yield %o : f32
  } -> tensor<3xf32>
  func.return %r : tensor<3xf32>
}
