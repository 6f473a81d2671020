// RUN: xdsl-opt %s -p 'linalg-hoist-row-contractions{collapse_rows=true}' | filecheck %s
// RUN: xdsl-opt %s -p linalg-hoist-row-contractions | filecheck %s --check-prefix=DEFAULT

// By default only vector slices are hoisted (rows of a batch are not: see the pass's
// docstring).
// DEFAULT-LABEL: func.func @rnn
// DEFAULT:         scf.for
// DEFAULT:           tensor.extract %x
// DEFAULT:           "reduction"
// DEFAULT:           "reduction"
// DEFAULT-LABEL: func.func @vector_rows
// DEFAULT:         linalg.generic {{.*}} ins(%x, %w : tensor<4x3xf32>, tensor<3x5xf32>)
// DEFAULT:         scf.for

#id2 = affine_map<(d0, d1) -> (d0, d1)>
#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#b = affine_map<(d0, d1, d2) -> (d2, d1)>
#bt = affine_map<(d0, d1, d2) -> (d1, d2)>
#at = affine_map<(d0, d1, d2) -> (d2, d0)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>

// An RNN step: x[t] @ w runs once for all steps in front of the loop, on x seen as
// [T * B, K] (a collapse_shape: a view once bufferized); the loop reads its rows t * B + i;
// h @ u (h changes) stays in the loop.
// CHECK-LABEL: func.func @rnn
// CHECK:         %one = arith.constant 1 : i64
// CHECK:         %[[T:.*]] = tensor.dim %x, %{{.*}} : tensor<?x?x?xf32>
// CHECK:         %[[B:.*]] = tensor.dim %x, %{{.*}} : tensor<?x?x?xf32>
// CHECK-NEXT:    %[[TB:.*]] = arith.muli %[[T]], %[[B]] : index
// CHECK-NEXT:    %[[FLAT:.*]] = tensor.collapse_shape %x {{\[\[}}0 : i64, 1 : i64], [2 : i64]] : tensor<?x?x?xf32> into tensor<?x?xf32>
// CHECK:         %[[FILL:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<?x?xf32>)
// CHECK-NEXT:    %[[ALL:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[FLAT]], %w : tensor<?x?xf32>, tensor<?x?xf32>) outs(%[[FILL]] : tensor<?x?xf32>)
// CHECK:         scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[H:.*]] = %h)
// CHECK-NOT:       tensor.extract %x
// CHECK:           %[[XW:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%{{.*}} : tensor<?x?xf32>)
// CHECK:             %[[START2:.*]] = arith.muli %{{.*}}, %[[B]] : index
// CHECK-NEXT:        %[[ROW2:.*]] = arith.addi %[[START2]], %{{.*}} : index
// CHECK-NEXT:        tensor.extract %[[ALL]][%[[ROW2]], %{{.*}}] : tensor<?x?xf32>
// CHECK:           %[[HU:.*]] = linalg.generic {{.*}} ins(%[[H]], %u : tensor<?x?xf32>, tensor<?x?xf32>)
// CHECK:           linalg.generic {{.*}} ins(%[[XW]], %[[HU]] : tensor<?x?xf32>, tensor<?x?xf32>)
func.func @rnn(%x: tensor<?x?x?xf32>, %h: tensor<?x?xf32>, %w: tensor<?x?xf32>, %u: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %zero = arith.constant 0.0 : f32
  %n = tensor.dim %x, %c0 : tensor<?x?x?xf32>
  %n64 = arith.index_cast %n : index to i64
  %lo = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %r = scf.for %t = %lo to %n64 step %one iter_args(%hh = %h) -> (tensor<?x?xf32>) : i64 {
    %bs = tensor.dim %x, %c1 : tensor<?x?x?xf32>
    %k = tensor.dim %x, %c2 : tensor<?x?x?xf32>
    %i = arith.index_cast %t : i64 to index
    %neg = arith.cmpi slt, %i, %c0 : index
    %wrapped = arith.addi %i, %n : index
    %row = arith.select %neg, %wrapped, %i : index
    %e = tensor.empty(%bs, %k) : tensor<?x?xf32>
    %xt = linalg.generic {indexing_maps = [#id2], iterator_types = ["parallel", "parallel"]} outs(%e : tensor<?x?xf32>) {
    ^bb0(%o: f32):
      %d0 = linalg.index 0 : index
      %d1 = linalg.index 1 : index
      %v = tensor.extract %x[%row, %d0, %d1] : tensor<?x?x?xf32>
      linalg.yield %v : f32
    } -> tensor<?x?xf32>
    %m = tensor.dim %xt, %c0 : tensor<?x?xf32>
    %nw = tensor.dim %w, %c1 : tensor<?x?xf32>
    %e2 = tensor.empty(%m, %nw) : tensor<?x?xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e2 : tensor<?x?xf32>) -> tensor<?x?xf32>
    %xw = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]} ins(%xt, %w : tensor<?x?xf32>, tensor<?x?xf32>) outs(%f : tensor<?x?xf32>) {
    ^bb0(%p: f32, %q: f32, %acc: f32):
      %mul = arith.mulf %p, %q : f32
      %add = arith.addf %acc, %mul : f32
      linalg.yield %add : f32
    } -> tensor<?x?xf32>
    %e3 = tensor.empty(%m, %nw) : tensor<?x?xf32>
    %f3 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<?x?xf32>) -> tensor<?x?xf32>
    %hu = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]} ins(%hh, %u : tensor<?x?xf32>, tensor<?x?xf32>) outs(%f3 : tensor<?x?xf32>) {
    ^bb0(%p: f32, %q: f32, %acc: f32):
      %mul = arith.mulf %p, %q : f32
      %add = arith.addf %acc, %mul : f32
      linalg.yield %add : f32
    } -> tensor<?x?xf32>
    %e4 = tensor.empty(%m, %nw) : tensor<?x?xf32>
    %sum = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%xw, %hu : tensor<?x?xf32>, tensor<?x?xf32>) outs(%e4 : tensor<?x?xf32>) {
    ^bb0(%p: f32, %q: f32, %o: f32):
      %add = arith.addf %p, %q : f32
      %th = math.tanh %add : f32
      linalg.yield %th : f32
    } -> tensor<?x?xf32>
    scf.yield %sum : tensor<?x?xf32>
  }
  func.return %r : tensor<?x?xf32>
}

// Static shapes and a transposed weight (x[t] @ w.T): the hoisted ops have static types.
// CHECK-LABEL: func.func @static_nt
// CHECK:         tensor.collapse_shape %x {{.*}} : tensor<4x3x3xf32> into tensor<12x3xf32>
// CHECK:         %[[F:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<12x5xf32>)
// CHECK-NEXT:    linalg.generic {{.*}} outs(%[[F]] : tensor<12x5xf32>)
// CHECK:         scf.for
// CHECK-NOT:       "reduction"
// CHECK:           scf.yield
func.func @static_nt(%x: tensor<4x3x3xf32>, %w: tensor<5x3xf32>, %acc0: tensor<3x5xf32>) -> tensor<3x5xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  %r = scf.for %t = %c0 to %c4 step %c1 iter_args(%acc = %acc0) -> (tensor<3x5xf32>) {
    %e = tensor.empty() : tensor<3x3xf32>
    %xt = linalg.generic {indexing_maps = [#id2], iterator_types = ["parallel", "parallel"]} outs(%e : tensor<3x3xf32>) {
    ^bb0(%o: f32):
      %d0 = linalg.index 0 : index
      %d1 = linalg.index 1 : index
      %v = tensor.extract %x[%t, %d0, %d1] : tensor<4x3x3xf32>
      linalg.yield %v : f32
    } -> tensor<3x3xf32>
    %e2 = tensor.empty() : tensor<3x5xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e2 : tensor<3x5xf32>) -> tensor<3x5xf32>
    %xw = linalg.generic {indexing_maps = [#a, #bt, #c], iterator_types = ["parallel", "parallel", "reduction"]} ins(%xt, %w : tensor<3x3xf32>, tensor<5x3xf32>) outs(%f : tensor<3x5xf32>) {
    ^bb0(%p: f32, %q: f32, %o: f32):
      %mul = arith.mulf %p, %q : f32
      %add = arith.addf %o, %mul : f32
      linalg.yield %add : f32
    } -> tensor<3x5xf32>
    %e3 = tensor.empty() : tensor<3x5xf32>
    %sum = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%xw, %acc : tensor<3x5xf32>, tensor<3x5xf32>) outs(%e3 : tensor<3x5xf32>) {
    ^bb0(%p: f32, %q: f32, %o: f32):
      %add = arith.addf %p, %q : f32
      linalg.yield %add : f32
    } -> tensor<3x5xf32>
    scf.yield %sum : tensor<3x5xf32>
  }
  func.return %r : tensor<3x5xf32>
}

// Not hoisted: the loop runs 2 of x's 4 steps (hoisting would compute rows nobody reads),
// and x[t].T @ w reads a column of the slice per result row (not row-wise).
// CHECK-LABEL: func.func @kept
// CHECK:         scf.for
// CHECK:           tensor.extract %x
// CHECK:           "reduction"
// CHECK:           scf.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    scf.for
// CHECK:           tensor.extract %x
// CHECK:           "reduction"
func.func @kept(%x: tensor<4x3x3xf32>, %w: tensor<3x5xf32>, %acc0: tensor<3x5xf32>) -> tensor<3x5xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  %r = scf.for %t = %c0 to %c2 step %c1 iter_args(%acc = %acc0) -> (tensor<3x5xf32>) {
    %e = tensor.empty() : tensor<3x3xf32>
    %xt = linalg.generic {indexing_maps = [#id2], iterator_types = ["parallel", "parallel"]} outs(%e : tensor<3x3xf32>) {
    ^bb0(%o: f32):
      %d0 = linalg.index 0 : index
      %d1 = linalg.index 1 : index
      %v = tensor.extract %x[%t, %d0, %d1] : tensor<4x3x3xf32>
      linalg.yield %v : f32
    } -> tensor<3x3xf32>
    %e2 = tensor.empty() : tensor<3x5xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e2 : tensor<3x5xf32>) -> tensor<3x5xf32>
    %xw = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]} ins(%xt, %w : tensor<3x3xf32>, tensor<3x5xf32>) outs(%f : tensor<3x5xf32>) {
    ^bb0(%p: f32, %q: f32, %o: f32):
      %mul = arith.mulf %p, %q : f32
      %add = arith.addf %o, %mul : f32
      linalg.yield %add : f32
    } -> tensor<3x5xf32>
    scf.yield %xw : tensor<3x5xf32>
  }
  %r2 = scf.for %t = %c0 to %c4 step %c1 iter_args(%acc = %r) -> (tensor<3x5xf32>) {
    %e = tensor.empty() : tensor<3x3xf32>
    %xt = linalg.generic {indexing_maps = [#id2], iterator_types = ["parallel", "parallel"]} outs(%e : tensor<3x3xf32>) {
    ^bb0(%o: f32):
      %d0 = linalg.index 0 : index
      %d1 = linalg.index 1 : index
      %v = tensor.extract %x[%t, %d0, %d1] : tensor<4x3x3xf32>
      linalg.yield %v : f32
    } -> tensor<3x3xf32>
    %e2 = tensor.empty() : tensor<3x5xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e2 : tensor<3x5xf32>) -> tensor<3x5xf32>
    %xw = linalg.generic {indexing_maps = [#at, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]} ins(%xt, %w : tensor<3x3xf32>, tensor<3x5xf32>) outs(%f : tensor<3x5xf32>) {
    ^bb0(%p: f32, %q: f32, %o: f32):
      %mul = arith.mulf %p, %q : f32
      %add = arith.addf %o, %mul : f32
      linalg.yield %add : f32
    } -> tensor<3x5xf32>
    scf.yield %xw : tensor<3x5xf32>
  }
  func.return %r2 : tensor<3x5xf32>
}

// A vector step x[t] @ w (x: [T, K]): one more parallel dim t makes it the matmul x @ w in
// front of the loop, whose row t the loop reads.
// CHECK-LABEL: func.func @vector_rows
// CHECK:         %[[F:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<4x5xf32>)
// CHECK-NEXT:    %[[ALL:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %w : tensor<4x3xf32>, tensor<3x5xf32>) outs(%[[F]] : tensor<4x5xf32>)
// CHECK:         scf.for %[[T:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args
// CHECK-NOT:       "reduction"
// CHECK:           tensor.extract %[[ALL]][%[[T]], %{{.*}}] : tensor<4x5xf32>
// CHECK-NOT:       "reduction"
// CHECK:           scf.yield
func.func @vector_rows(%x: tensor<4x3xf32>, %w: tensor<3x5xf32>, %acc0: tensor<5xf32>) -> tensor<5xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  %r = scf.for %t = %c0 to %c4 step %c1 iter_args(%acc = %acc0) -> (tensor<5xf32>) {
    %e = tensor.empty() : tensor<3xf32>
    %xt = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} outs(%e : tensor<3xf32>) {
    ^bb0(%o: f32):
      %d0 = linalg.index 0 : index
      %v = tensor.extract %x[%t, %d0] : tensor<4x3xf32>
      linalg.yield %v : f32
    } -> tensor<3xf32>
    %e2 = tensor.empty() : tensor<5xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e2 : tensor<5xf32>) -> tensor<5xf32>
    %xw = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%xt, %w : tensor<3xf32>, tensor<3x5xf32>) outs(%f : tensor<5xf32>) {
    ^bb0(%p: f32, %q: f32, %o: f32):
      %mul = arith.mulf %p, %q : f32
      %add = arith.addf %o, %mul : f32
      linalg.yield %add : f32
    } -> tensor<5xf32>
    %e3 = tensor.empty() : tensor<5xf32>
    %sum = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%xw, %acc : tensor<5xf32>, tensor<5xf32>) outs(%e3 : tensor<5xf32>) {
    ^bb0(%p: f32, %q: f32, %o: f32):
      %add = arith.addf %p, %q : f32
      linalg.yield %add : f32
    } -> tensor<5xf32>
    scf.yield %sum : tensor<5xf32>
  }
  func.return %r : tensor<5xf32>
}

// Not hoisted: the contraction's body uses a value of the loop (a per-step scale), which a
// copy in front of the loop could not see.
// CHECK-LABEL: func.func @step_scale
// CHECK:         scf.for
// CHECK:           tensor.extract %x
// CHECK:           "reduction"
// CHECK:           scf.yield
func.func @step_scale(%x: tensor<4x3xf32>, %w: tensor<3x5xf32>, %acc0: tensor<5xf32>) -> tensor<5xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  %r = scf.for %t = %c0 to %c4 step %c1 iter_args(%acc = %acc0) -> (tensor<5xf32>) {
    %ti = arith.index_cast %t : index to i64
    %scale = arith.sitofp %ti : i64 to f32
    %e = tensor.empty() : tensor<3xf32>
    %xt = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} outs(%e : tensor<3xf32>) {
    ^bb0(%o: f32):
      %d0 = linalg.index 0 : index
      %v = tensor.extract %x[%t, %d0] : tensor<4x3xf32>
      linalg.yield %v : f32
    } -> tensor<3xf32>
    %e2 = tensor.empty() : tensor<5xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e2 : tensor<5xf32>) -> tensor<5xf32>
    %xw = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%xt, %w : tensor<3xf32>, tensor<3x5xf32>) outs(%f : tensor<5xf32>) {
    ^bb0(%p: f32, %q: f32, %o: f32):
      %mul = arith.mulf %p, %q : f32
      %scaled = arith.mulf %mul, %scale : f32
      %add = arith.addf %o, %scaled : f32
      linalg.yield %add : f32
    } -> tensor<5xf32>
    scf.yield %xw : tensor<5xf32>
  }
  func.return %r : tensor<5xf32>
}
