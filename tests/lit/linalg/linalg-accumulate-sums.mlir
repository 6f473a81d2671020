// RUN: xdsl-opt %s -p linalg-accumulate-sums | filecheck %s

#id2 = affine_map<(d0, d1) -> (d0, d1)>
#tr2 = affine_map<(d0, d1) -> (d1, d0)>
#row = affine_map<(d0, d1) -> (d1)>
#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#b = affine_map<(d0, d1, d2) -> (d2, d1)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>

// An RNN step `tanh(x @ w + h @ u + b)` (the sums as convert-torch-to-linalg makes them):
// the bias starts the sum, x @ w accumulates into it, h @ u into that (the matmuls keep their
// order); no zero fill, no sum pass is left, and tanh reads the last matmul.
// CHECK-LABEL: func.func @rnn_step
// CHECK-NOT:     linalg.fill
// CHECK:         %[[BIAS:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%bias : tensor<4xf32>)
// CHECK-NEXT:    ^{{.*}}(%[[V:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      linalg.yield %[[V]] : f32
// CHECK:         %[[XW:.*]] = linalg.generic {{.*}} ins(%x, %w : tensor<2x3xf32>, tensor<3x4xf32>) outs(%[[BIAS]] : tensor<2x4xf32>)
// CHECK:         %[[HU:.*]] = linalg.generic {{.*}} ins(%h, %u : tensor<2x4xf32>, tensor<4x4xf32>) outs(%[[XW]] : tensor<2x4xf32>)
// CHECK:         %[[R:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%[[HU]] : tensor<2x4xf32>)
// CHECK-NEXT:    ^{{.*}}(%[[S:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[T:.*]] = math.tanh %[[S]] : f32
// CHECK-NEXT:      linalg.yield %[[T]] : f32
// CHECK:         func.return %[[R]]
func.func @rnn_step(%x: tensor<2x3xf32>, %w: tensor<3x4xf32>, %h: tensor<2x4xf32>, %u: tensor<4x4xf32>, %bias: tensor<4xf32>) -> tensor<2x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x4xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e : tensor<2x4xf32>) -> tensor<2x4xf32>
  %xw = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %w : tensor<2x3xf32>, tensor<3x4xf32>) outs(%f1 : tensor<2x4xf32>) {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %mul = arith.mulf %p, %q : f32
    %add = arith.addf %acc, %mul : f32
    linalg.yield %add : f32
  } -> tensor<2x4xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e : tensor<2x4xf32>) -> tensor<2x4xf32>
  %hu = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]} ins(%h, %u : tensor<2x4xf32>, tensor<4x4xf32>) outs(%f2 : tensor<2x4xf32>) {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %mul = arith.mulf %p, %q : f32
    %add = arith.addf %acc, %mul : f32
    linalg.yield %add : f32
  } -> tensor<2x4xf32>
  %sum = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%xw, %hu : tensor<2x4xf32>, tensor<2x4xf32>) outs(%e : tensor<2x4xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %s = arith.addf %p, %q : f32
    linalg.yield %s : f32
  } -> tensor<2x4xf32>
  %r = linalg.generic {indexing_maps = [#id2, #row, #id2], iterator_types = ["parallel", "parallel"]} ins(%sum, %bias : tensor<2x4xf32>, tensor<4xf32>) outs(%e : tensor<2x4xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %s = arith.addf %p, %q : f32
    %t = math.tanh %s : f32
    linalg.yield %t : f32
  } -> tensor<2x4xf32>
  func.return %r : tensor<2x4xf32>
}

// A contraction that starts from something else than zeros keeps it: the term is added to
// its init (`2 * y`, computed from the other input and the body ops that make it).
// CHECK-LABEL: func.func @nonzero_init
// CHECK:         %[[INIT:.*]] = linalg.generic {{.*}} ins(%y : tensor<2x4xf32>)
// CHECK:         %[[START:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%[[INIT]], %z : tensor<2x4xf32>, tensor<2x4xf32>)
// CHECK-NEXT:    ^{{.*}}(%[[I:.*]]: f32, %[[Z:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[TWO:.*]] = arith.constant 2.0
// CHECK-NEXT:      %[[ZZ:.*]] = arith.mulf %[[Z]], %[[TWO]] : f32
// CHECK-NEXT:      %[[SUM:.*]] = arith.addf %[[I]], %[[ZZ]] : f32
// CHECK-NEXT:      linalg.yield %[[SUM]] : f32
// CHECK:         %[[M:.*]] = linalg.generic {{.*}} ins(%x, %w : tensor<2x3xf32>, tensor<3x4xf32>) outs(%[[START]] : tensor<2x4xf32>)
// CHECK:         linalg.generic {{.*}} ins(%[[M]] : tensor<2x4xf32>)
// CHECK-NEXT:    ^{{.*}}(%[[S:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[ZERO:.*]] = arith.constant 0.0
// CHECK-NEXT:      %{{.*}} = arith.maximumf %[[S]], %[[ZERO]] : f32
func.func @nonzero_init(%x: tensor<2x3xf32>, %w: tensor<3x4xf32>, %y: tensor<2x4xf32>, %z: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %e = tensor.empty() : tensor<2x4xf32>
  %init = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%y : tensor<2x4xf32>) outs(%e : tensor<2x4xf32>) {
  ^bb0(%p: f32, %o: f32):
    %n = arith.negf %p : f32
    linalg.yield %n : f32
  } -> tensor<2x4xf32>
  %m = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %w : tensor<2x3xf32>, tensor<3x4xf32>) outs(%init : tensor<2x4xf32>) {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %mul = arith.mulf %p, %q : f32
    %add = arith.addf %mul, %acc : f32
    linalg.yield %add : f32
  } -> tensor<2x4xf32>
  %r = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%m, %z : tensor<2x4xf32>, tensor<2x4xf32>) outs(%e : tensor<2x4xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %two = arith.constant 2.0 : f32
    %qq = arith.mulf %q, %two : f32
    %s = arith.addf %qq, %p : f32
    %zero = arith.constant 0.0 : f32
    %t = arith.maximumf %s, %zero : f32
    linalg.yield %t : f32
  } -> tensor<2x4xf32>
  func.return %r : tensor<2x4xf32>
}

// Left alone: a contraction read by another op too (`m` is returned), one read twice in the
// sum (`m + m * m`), one read through a transposing map, a max reduction (not a sum).
// CHECK-LABEL: func.func @kept
// CHECK-COUNT-4: linalg.fill
// CHECK-NOT:     linalg.fill
func.func @kept(%x: tensor<4x4xf32>, %w: tensor<4x4xf32>, %z: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x4xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  %m1 = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %w : tensor<4x4xf32>, tensor<4x4xf32>) outs(%f1 : tensor<4x4xf32>) {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %mul = arith.mulf %p, %q : f32
    %add = arith.addf %acc, %mul : f32
    linalg.yield %add : f32
  } -> tensor<4x4xf32>
  %r1 = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%m1, %z : tensor<4x4xf32>, tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %s = arith.addf %p, %q : f32
    linalg.yield %s : f32
  } -> tensor<4x4xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  %m2 = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %w : tensor<4x4xf32>, tensor<4x4xf32>) outs(%f2 : tensor<4x4xf32>) {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %mul = arith.mulf %p, %q : f32
    %add = arith.addf %acc, %mul : f32
    linalg.yield %add : f32
  } -> tensor<4x4xf32>
  %r2 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%m2 : tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) {
  ^bb0(%p: f32, %o: f32):
    %sq = arith.mulf %p, %p : f32
    %s = arith.addf %p, %sq : f32
    linalg.yield %s : f32
  } -> tensor<4x4xf32>
  %f3 = linalg.fill ins(%zero : f32) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  %m3 = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %w : tensor<4x4xf32>, tensor<4x4xf32>) outs(%f3 : tensor<4x4xf32>) {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %mul = arith.mulf %p, %q : f32
    %add = arith.addf %acc, %mul : f32
    linalg.yield %add : f32
  } -> tensor<4x4xf32>
  %r3 = linalg.generic {indexing_maps = [#tr2, #id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%m3, %z : tensor<4x4xf32>, tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %s = arith.addf %p, %q : f32
    linalg.yield %s : f32
  } -> tensor<4x4xf32>
  %f4 = linalg.fill ins(%zero : f32) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  %m4 = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %w : tensor<4x4xf32>, tensor<4x4xf32>) outs(%f4 : tensor<4x4xf32>) {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %mul = arith.mulf %p, %q : f32
    %max = arith.maximumf %acc, %mul : f32
    linalg.yield %max : f32
  } -> tensor<4x4xf32>
  %r4 = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%m4, %z : tensor<4x4xf32>, tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %s = arith.addf %p, %q : f32
    linalg.yield %s : f32
  } -> tensor<4x4xf32>
  func.return %m1, %r1, %r2, %r3, %r4 : tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>
}
