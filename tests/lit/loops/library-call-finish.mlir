// RUN: xdsl-opt %s -p convert-linalg-to-library-calls | filecheck %s

// The fill in front of a contraction and the elementwise op behind it, done by the kernel
// (lowering/loops/library_call_finish.py).

#mk = affine_map<(d0, d1, d2) -> (d0, d2)>
#kn = affine_map<(d0, d1, d2) -> (d2, d1)>
#nk = affine_map<(d0, d1, d2) -> (d1, d2)>
#mn = affine_map<(d0, d1, d2) -> (d0, d1)>
#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>

// relu(x @ w.T + b) (a linear layer and its relu): zeros, then the bias and the relu behind
// the matmul: one call that writes the relu's buffer; the fill, the epilogue and the
// intermediate buffer are gone.
// CHECK-LABEL: func.func @linear$bias_relu
// CHECK-NEXT:    %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[M:.*]] = memref.dim %x, %[[C0]]
// CHECK-NEXT:    %[[DST:.*]] = memref.alloc(%[[M]]) : memref<?x64xf32>
// CHECK-NEXT:    %{{.*}} = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    %[[DYN:.*]] = "memref.cast"(%[[DST]]) : (memref<?x64xf32>) -> memref<?x?xf32>
// CHECK-NEXT:    func.call @tsjit.matmul_nt_bias_relu_f32(%x, %w, %b, %[[DYN]]) : (memref<?x?xf32>, memref<?x?xf32>, memref<?xf32>, memref<?x?xf32>) -> ()
// CHECK-NEXT:    func.return %[[DST]]
func.func @linear$bias_relu(%x: memref<?x?xf32>, %w: memref<?x?xf32>, %b: memref<?xf32>) -> memref<?x64xf32> {
  %c0 = arith.constant 0 : index
  %m = memref.dim %x, %c0 : memref<?x?xf32>
  %dst = memref.alloc(%m) : memref<?x64xf32>
  %zero = arith.constant 0.0 : f32
  %out = memref.alloc(%m) : memref<?x64xf32>
  linalg.fill ins(%zero : f32) outs(%out : memref<?x64xf32>)
  linalg.generic {indexing_maps = [#mk, #nk, #mn], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %w : memref<?x?xf32>, memref<?x?xf32>) outs(%out : memref<?x64xf32>) {
  ^bb0(%a: f32, %bb: f32, %acc: f32):
    %p = arith.mulf %a, %bb : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%out, %b : memref<?x64xf32>, memref<?xf32>) outs(%dst : memref<?x64xf32>) {
  ^bb0(%v: f32, %bias: f32, %o: f32):
    %t = arith.addf %v, %bias : f32
    %r = arith.maximumf %t, %zero : f32
    linalg.yield %r : f32
  }
  func.return %dst : memref<?x64xf32>
}

// relu(conv2d(x, w) + b): the bias broadcast in front (along the channels), the relu behind.
// CHECK-LABEL: func.func @conv$bias_relu
// CHECK-NOT:     linalg
// CHECK:         func.call @tsjit.conv2d_bias_relu_f32(%x, %w, %b, %dst, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}})
// CHECK-NEXT:    func.return %dst
func.func @conv$bias_relu(%x: memref<?x?x?x?xf32>, %w: memref<?x?x?x?xf32>, %b: memref<?xf32>, %n: index) -> memref<?x?x?x?xf32> {
  %dst = memref.alloc(%n, %n, %n, %n) : memref<?x?x?x?xf32>
  %out = memref.alloc(%n, %n, %n, %n) : memref<?x?x?x?xf32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d1)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%b : memref<?xf32>) outs(%out : memref<?x?x?x?xf32>) {
  ^bb0(%v: f32, %o: f32):
    linalg.yield %v : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, (d2 + d5), (d3 + d6))>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d4, d5, d6)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : memref<?x?x?x?xf32>, memref<?x?x?x?xf32>) outs(%out : memref<?x?x?x?xf32>) {
  ^bb0(%a: f32, %bb: f32, %acc: f32):
    %p = arith.mulf %a, %bb : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%out : memref<?x?x?x?xf32>) outs(%dst : memref<?x?x?x?xf32>) {
  ^bb0(%v: f32, %o: f32):
    %zero = arith.constant 0.0 : f32
    %r = arith.maximumf %zero, %v : f32
    linalg.yield %r : f32
  }
  func.return %dst : memref<?x?x?x?xf32>
}

// Zeros in front and an op behind that is no bias add nor relu (tanh), or that writes a
// function argument while the inputs are arguments too (they may be one array): the `_set`
// kernel; the fill goes, the op behind stays.
// CHECK-LABEL: func.func @matmul$set_only
// CHECK-NOT:     linalg.fill
// CHECK:         func.call @tsjit.matmul_nn_set_f32(%a, %bm, %[[OUT:[a-z0-9_]+]])
// CHECK-NEXT:    linalg.generic
// CHECK:           math.tanh
// CHECK:         func.call @tsjit.matmul_nn_set_f32(%a, %bm, %[[OUT2:[a-z0-9_]+]])
// CHECK-NEXT:    linalg.generic {{.*}} ins(%[[OUT2]] : memref<?x?xf32>) outs(%arg : memref<?x?xf32>)
func.func @matmul$set_only(%a: memref<?x?xf32>, %bm: memref<?x?xf32>, %arg: memref<?x?xf32>, %n: index) {
  %zero = arith.constant 0.0 : f32
  %out = memref.alloc(%n, %n) : memref<?x?xf32>
  %dst = memref.alloc(%n, %n) : memref<?x?xf32>
  linalg.fill ins(%zero : f32) outs(%out : memref<?x?xf32>)
  linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %bm : memref<?x?xf32>, memref<?x?xf32>) outs(%out : memref<?x?xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%out : memref<?x?xf32>) outs(%dst : memref<?x?xf32>) {
  ^bb0(%v: f32, %o: f32):
    %t = math.tanh %v : f32
    linalg.yield %t : f32
  }
  %out2 = memref.alloc(%n, %n) : memref<?x?xf32>
  linalg.fill ins(%zero : f32) outs(%out2 : memref<?x?xf32>)
  linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %bm : memref<?x?xf32>, memref<?x?xf32>) outs(%out2 : memref<?x?xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%out2 : memref<?x?xf32>) outs(%arg : memref<?x?xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = arith.maximumf %v, %zero : f32
    linalg.yield %r : f32
  }
  func.return
}

// Accumulation stays where the output starts as something else: a fill of ones, a function
// argument (the caller's values), an op in between that reads the zeros.
// CHECK-LABEL: func.func @matmul$accumulate
// CHECK:         linalg.fill ins(%one
// CHECK-NEXT:    func.call @tsjit.matmul_nn_f32(%a, %bm, %ones)
// CHECK-NEXT:    linalg.fill ins(%zero
// CHECK-NEXT:    func.call @tsjit.matmul_nn_f32(%a, %bm, %arg)
// CHECK-NEXT:    %zeros = memref.alloc
// CHECK-NEXT:    linalg.fill ins(%zero
// CHECK-NEXT:    memref.copy
// CHECK-NEXT:    func.call @tsjit.matmul_nn_f32(%a, %bm, %zeros)
func.func @matmul$accumulate(%a: memref<?x?xf32>, %bm: memref<?x?xf32>, %arg: memref<?x?xf32>, %n: index) {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %ones = memref.alloc(%n, %n) : memref<?x?xf32>
  linalg.fill ins(%one : f32) outs(%ones : memref<?x?xf32>)
  linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %bm : memref<?x?xf32>, memref<?x?xf32>) outs(%ones : memref<?x?xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  linalg.fill ins(%zero : f32) outs(%arg : memref<?x?xf32>)
  linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %bm : memref<?x?xf32>, memref<?x?xf32>) outs(%arg : memref<?x?xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  %zeros = memref.alloc(%n, %n) : memref<?x?xf32>
  linalg.fill ins(%zero : f32) outs(%zeros : memref<?x?xf32>)
  "memref.copy"(%zeros, %ones) : (memref<?x?xf32>, memref<?x?xf32>) -> ()
  linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %bm : memref<?x?xf32>, memref<?x?xf32>) outs(%zeros : memref<?x?xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  func.return
}

// An RNN step: the bias in front of x @ w, then h @ u added: the first call reads the bias
// (a function argument) but writes only its output, so u (another argument) is still
// invariant in the loop and packed once in front of it.
// CHECK-LABEL: func.func @rnn$bias_then_packed
// CHECK:         func.call @tsjit.pack_nn_f32(%w, %[[PW:.*]]) :
// CHECK:         func.call @tsjit.pack_nn_f32(%u, %[[PU:.*]]) :
// CHECK:         scf.for
// CHECK:           func.call @tsjit.matmul_packed_bias_f32(%x, %[[PW]], %b, %[[OUT:[a-z0-9_]+]])
// CHECK-NEXT:      func.call @tsjit.matmul_packed_f32(%h, %[[PU]], %[[OUT]])
func.func @rnn$bias_then_packed(%x: memref<?x?xf32>, %w: memref<?x?xf32>, %u: memref<?x?xf32>, %b: memref<?xf32>, %h: memref<?x?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %t = %c0 to %n step %c1 {
    %out = memref.alloc(%n, %n) : memref<?x?xf32>
    linalg.generic {indexing_maps = [#col, #id], iterator_types = ["parallel", "parallel"]} ins(%b : memref<?xf32>) outs(%out : memref<?x?xf32>) {
    ^bb0(%v: f32, %o: f32):
      linalg.yield %v : f32
    }
    linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %w : memref<?x?xf32>, memref<?x?xf32>) outs(%out : memref<?x?xf32>) {
    ^bb0(%p: f32, %q: f32, %acc: f32):
      %m = arith.mulf %p, %q : f32
      %s = arith.addf %acc, %m : f32
      linalg.yield %s : f32
    }
    linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"]} ins(%h, %u : memref<?x?xf32>, memref<?x?xf32>) outs(%out : memref<?x?xf32>) {
    ^bb0(%p: f32, %q: f32, %acc: f32):
      %m = arith.mulf %p, %q : f32
      %s = arith.addf %acc, %m : f32
      linalg.yield %s : f32
    }
  }
  func.return
}
