// RUN: xdsl-opt %s -p linalg-bufferize --split-input-file --verify-diagnostics | filecheck %s

// tensor.dim / tensor.empty / tensor.extract become memref ops; the generic writes in place
// into the fresh alloc, and the function returns that buffer.

// CHECK-LABEL: func.func @generic$dynamic
// CHECK-SAME:    (%[[X:.*]]: memref<?x4xf32>, %[[S:.*]]: memref<f32>) -> memref<?x4xf32>
// CHECK:         %[[N:.*]] = memref.dim %[[X]], %{{.*}} : memref<?x4xf32>
// CHECK-NEXT:    %[[R:.*]] = memref.alloc(%[[N]]) : memref<?x4xf32>
// CHECK-NEXT:    %[[SV:.*]] = memref.load %[[S]][] : memref<f32>
// CHECK-NEXT:    linalg.generic {{.*}} ins(%[[X]] : memref<?x4xf32>) outs(%[[R]] : memref<?x4xf32>) {
// CHECK:           arith.mulf %{{.*}}, %[[SV]] : f32
// CHECK:         }
// CHECK-NEXT:    func.return %[[R]] : memref<?x4xf32>
// CHECK-NOT:     tensor
func.func @generic$dynamic(%x: tensor<?x4xf32>, %s: tensor<f32>) -> tensor<?x4xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x4xf32>
  %e = tensor.empty(%n) : tensor<?x4xf32>
  %sv = tensor.extract %s[] : tensor<f32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<?x4xf32>) outs(%e : tensor<?x4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.mulf %a, %sv : f32
    linalg.yield %m : f32
  } -> tensor<?x4xf32>
  func.return %r : tensor<?x4xf32>
}

// -----

// fill into a fresh empty, then a reduction into the fill: one buffer, no copy.

// CHECK-LABEL: func.func @reduction$fill_chain
// CHECK:         %[[SUM:.*]] = memref.alloc() : memref<3xf32>
// CHECK-NEXT:    linalg.fill ins(%{{.*}} : f32) outs(%[[SUM]] : memref<3xf32>)
// CHECK-NEXT:    linalg.generic {{.*}} outs(%[[SUM]] : memref<3xf32>)
// CHECK-NOT:     memref.copy
// CHECK:         func.return %[[SUM]] : memref<3xf32>
func.func @reduction$fill_chain(%x: tensor<3x5xf32>) -> tensor<3xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<3xf32>) -> tensor<3xf32>
  %sum = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<3x5xf32>) outs(%f : tensor<3xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  } -> tensor<3xf32>
  func.return %sum : tensor<3xf32>
}

// -----

// An init that is a function argument is copied first: the caller's buffer is never written.

// CHECK-LABEL: func.func @init$argument
// CHECK-SAME:    (%[[X:.*]]: memref<?xf32>) -> memref<?xf32>
// CHECK:         %[[N:.*]] = memref.dim %[[X]], %{{.*}} : memref<?xf32>
// CHECK-NEXT:    %[[R:.*]] = memref.alloc(%[[N]]) : memref<?xf32>
// CHECK-NEXT:    "memref.copy"(%[[X]], %[[R]]) : (memref<?xf32>, memref<?xf32>) -> ()
// CHECK-NEXT:    linalg.generic {{.*}} outs(%[[R]] : memref<?xf32>)
// CHECK:         func.return %[[R]] : memref<?xf32>
func.func @init$argument(%x: tensor<?xf32>) -> tensor<?xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} outs(%x : tensor<?xf32>) {
  ^bb0(%o: f32):
    %d = arith.addf %o, %o : f32
    linalg.yield %d : f32
  } -> tensor<?xf32>
  func.return %r : tensor<?xf32>
}

// -----

// An init read by someone else (here: returned too) is copied.

// CHECK-LABEL: func.func @init$other_use
// CHECK:         %[[F:.*]] = memref.alloc() : memref<4xf32>
// CHECK-NEXT:    linalg.fill ins(%{{.*}} : f32) outs(%[[F]] : memref<4xf32>)
// CHECK-NEXT:    %[[R:.*]] = memref.alloc() : memref<4xf32>
// CHECK-NEXT:    "memref.copy"(%[[F]], %[[R]])
// CHECK-NEXT:    linalg.generic {{.*}} outs(%[[R]] : memref<4xf32>)
// CHECK:         func.return %[[F]], %[[R]] : memref<4xf32>, memref<4xf32>
func.func @init$other_use(%v: f32) -> (tensor<4xf32>, tensor<4xf32>) {
  %e = tensor.empty() : tensor<4xf32>
  %f = linalg.fill ins(%v : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} outs(%f : tensor<4xf32>) {
  ^bb0(%o: f32):
    %d = arith.addf %o, %o : f32
    linalg.yield %d : f32
  } -> tensor<4xf32>
  func.return %f, %r : tensor<4xf32>, tensor<4xf32>
}

// -----

// One tensor.empty shared by two ops, and one defined outside the loop that uses it: each op
// gets its own alloc next to it (an empty has no contents, so nothing is copied).

// CHECK-LABEL: func.func @init$shared_empty
// CHECK:         %[[A:.*]] = memref.alloc() : memref<2xf32>
// CHECK-NEXT:    linalg.fill ins(%{{.*}} : f32) outs(%[[A]] : memref<2xf32>)
// CHECK-NEXT:    %[[B:.*]] = memref.alloc() : memref<2xf32>
// CHECK-NEXT:    linalg.fill ins(%{{.*}} : f32) outs(%[[B]] : memref<2xf32>)
// CHECK:         scf.for {{.*}} iter_args(%[[ACC:.*]] = %[[A]]) -> (memref<2xf32>) {
// CHECK-NEXT:      %[[G:.*]] = memref.alloc() : memref<2xf32>
// CHECK-NEXT:      linalg.generic {{.*}} ins(%[[ACC]], %[[B]] : memref<2xf32>, memref<2xf32>) outs(%[[G]] : memref<2xf32>)
// CHECK:           scf.yield %[[G]] : memref<2xf32>
// CHECK-NOT:     memref.copy
func.func @init$shared_empty(%v: f32, %w: f32, %n: index) -> tensor<2xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %e = tensor.empty() : tensor<2xf32>
  %a = linalg.fill ins(%v : f32) outs(%e : tensor<2xf32>) -> tensor<2xf32>
  %b = linalg.fill ins(%w : f32) outs(%e : tensor<2xf32>) -> tensor<2xf32>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %a) -> (tensor<2xf32>) {
    %g = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%acc, %b : tensor<2xf32>, tensor<2xf32>) outs(%e : tensor<2xf32>) {
    ^bb0(%p: f32, %q: f32, %o: f32):
      %s = arith.addf %p, %q : f32
      linalg.yield %s : f32
    } -> tensor<2xf32>
    scf.yield %g : tensor<2xf32>
  }
  func.return %r : tensor<2xf32>
}

// -----

// scf.if / scf.while / func.call only change types; an argument can be returned as is.

// CHECK-LABEL: func.func @identity
// CHECK-SAME:    (%[[X:.*]]: memref<3xi64>) -> memref<3xi64>
// CHECK-NEXT:    func.return %[[X]] : memref<3xi64>
// CHECK-LABEL: func.func @control_flow
// CHECK-SAME:    (%[[X:.*]]: memref<3xi64>, %[[C:.*]]: i1) -> memref<3xi64>
// CHECK:         %[[S:.*]] = scf.if %[[C]] -> (memref<3xi64>) {
// CHECK-NEXT:      scf.yield %[[X]] : memref<3xi64>
// CHECK-NEXT:    } else {
// CHECK-NEXT:      %[[K:.*]] = func.call @identity(%[[X]]) : (memref<3xi64>) -> memref<3xi64>
// CHECK-NEXT:      scf.yield %[[K]] : memref<3xi64>
// CHECK:         %{{.*}} = scf.while (%{{.*}} = %[[S]]) : (memref<3xi64>) -> memref<3xi64> {
// CHECK:           scf.condition(%[[C]]) %{{.*}} : memref<3xi64>
// CHECK:         ^{{.*}}(%[[ARG:.*]]: memref<3xi64>):
// CHECK-NEXT:      %[[M:.*]] = memref.alloc() : memref<3xi64>
// CHECK-NEXT:      "memref.copy"(%[[ARG]], %[[M]])
// CHECK-NEXT:      linalg.add ins(%[[ARG]], %[[ARG]] : memref<3xi64>, memref<3xi64>) outs(%[[M]] : memref<3xi64>)
// CHECK-NEXT:      scf.yield %[[M]] : memref<3xi64>
func.func @identity(%x: tensor<3xi64>) -> tensor<3xi64> {
  func.return %x : tensor<3xi64>
}
func.func @control_flow(%x: tensor<3xi64>, %c: i1) -> tensor<3xi64> {
  %s = scf.if %c -> (tensor<3xi64>) {
    scf.yield %x : tensor<3xi64>
  } else {
    %k = func.call @identity(%x) : (tensor<3xi64>) -> tensor<3xi64>
    scf.yield %k : tensor<3xi64>
  }
  %w = scf.while (%arg = %s) : (tensor<3xi64>) -> tensor<3xi64> {
    scf.condition(%c) %arg : tensor<3xi64>
  } do {
  ^bb0(%arg2: tensor<3xi64>):
    %m = linalg.add ins(%arg2, %arg2 : tensor<3xi64>, tensor<3xi64>) outs(%arg2 : tensor<3xi64>) -> tensor<3xi64>
    scf.yield %m : tensor<3xi64>
  }
  func.return %w : tensor<3xi64>
}

// -----

// Named ops keep their names; linalg.broadcast and linalg.reduce too.

// CHECK-LABEL: func.func @named_ops
// CHECK:         %[[MM:.*]] = memref.alloc() : memref<2x4xf32>
// CHECK-NEXT:    linalg.fill ins(%{{.*}} : f32) outs(%[[MM]] : memref<2x4xf32>)
// CHECK-NEXT:    linalg.matmul ins(%{{.*}}, %{{.*}} : memref<2x3xf32>, memref<3x4xf32>) outs(%[[MM]] : memref<2x4xf32>)
// CHECK-NEXT:    %[[T:.*]] = memref.alloc() : memref<4x2xf32>
// CHECK-NEXT:    linalg.transpose ins(%[[MM]]:memref<2x4xf32>) outs(%[[T]]:memref<4x2xf32>) permutation = [1, 0]
// CHECK-NEXT:    %[[B:.*]] = memref.alloc() : memref<5x4x2xf32>
// CHECK-NEXT:    linalg.broadcast ins(%[[T]]:memref<4x2xf32>) outs(%[[B]]:memref<5x4x2xf32>) dimensions = [0]
// CHECK-NEXT:    %[[R:.*]] = memref.alloc() : memref<4x2xf32>
// CHECK-NEXT:    linalg.fill
// CHECK-NEXT:    linalg.reduce ins(%[[B]]:memref<5x4x2xf32>) outs(%[[R]]:memref<4x2xf32>) dimensions = [0]
// CHECK:         func.return %[[R]] : memref<4x2xf32>
func.func @named_ops(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) -> tensor<4x2xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x4xf32>) -> tensor<2x4xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<2x3xf32>, tensor<3x4xf32>) outs(%f : tensor<2x4xf32>) -> tensor<2x4xf32>
  %et = tensor.empty() : tensor<4x2xf32>
  %t = linalg.transpose ins(%mm : tensor<2x4xf32>) outs(%et : tensor<4x2xf32>) permutation = [1, 0]
  %eb = tensor.empty() : tensor<5x4x2xf32>
  %bc = linalg.broadcast ins(%t : tensor<4x2xf32>) outs(%eb : tensor<5x4x2xf32>) dimensions = [0]
  %er = tensor.empty() : tensor<4x2xf32>
  %fr = linalg.fill ins(%zero : f32) outs(%er : tensor<4x2xf32>) -> tensor<4x2xf32>
  %r = linalg.reduce ins(%bc : tensor<5x4x2xf32>) outs(%fr : tensor<4x2xf32>) dimensions = [0]
    (%in: f32, %init: f32) {
      %s = arith.addf %in, %init : f32
      linalg.yield %s : f32
    }
  func.return %r : tensor<4x2xf32>
}

// -----

// An op on tensors that this pass does not know is rejected, naming the op and the pass.

// CHECK: linalg-bufferize: cannot bufferize 'tensor.insert'
func.func @unsupported(%t: tensor<3xf32>, %v: f32, %i: index) -> tensor<3xf32> {
  %r = tensor.insert %v into %t[%i] : tensor<3xf32>
  func.return %r : tensor<3xf32>
}
