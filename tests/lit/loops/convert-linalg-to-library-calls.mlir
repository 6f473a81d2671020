// RUN: xdsl-opt %s -p convert-linalg-to-library-calls | filecheck %s

#mk = affine_map<(d0, d1, d2) -> (d0, d2)>
#kn = affine_map<(d0, d1, d2) -> (d2, d1)>
#nk = affine_map<(d0, d1, d2) -> (d1, d2)>
#mn = affine_map<(d0, d1, d2) -> (d0, d1)>

// One declaration per kernel and element type, with fully dynamic memref operands, in front
// of the first function that calls it.
// CHECK:       func.func private @tsjit.matmul_nt_f32(memref<?x?xf32>, memref<?x?xf32>, memref<?x?xf32>) -> () attributes {tsjit.library = "matmul_nt"}

// x @ w.T (a linear layer): the nt kernel; static shapes are cast to dynamic ones.
// CHECK-LABEL: func.func @linear$nt
// CHECK:         %[[W:.*]] = "memref.cast"(%w) : (memref<64x32xf32>) -> memref<?x?xf32>
// CHECK:         func.call @tsjit.matmul_nt_f32(%x, %[[W]], %{{.*}}) : (memref<?x?xf32>, memref<?x?xf32>, memref<?x?xf32>) -> ()
// CHECK-NOT:     linalg.generic
func.func @linear$nt(%x: memref<?x?xf32>, %w: memref<64x32xf32>, %out: memref<?x?xf32>) {
  linalg.generic {indexing_maps = [#mk, #nk, #mn], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %w : memref<?x?xf32>, memref<64x32xf32>) outs(%out : memref<?x?xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  func.return
}

// x @ w with the operands given in the other order: the nn kernel.
// CHECK:       func.func private @tsjit.matmul_nn_f32(memref<?x?xf32>, memref<?x?xf32>, memref<?x?xf32>) -> () attributes {tsjit.library = "matmul_nn"}
// CHECK-LABEL: func.func @matmul$nn_swapped
// CHECK:         func.call @tsjit.matmul_nn_f32(%a, %b, %out)
func.func @matmul$nn_swapped(%a: memref<?x?xf32>, %b: memref<?x?xf32>, %out: memref<?x?xf32>) {
  linalg.generic {indexing_maps = [#kn, #mk, #mn], iterator_types = ["parallel", "parallel", "reduction"]} ins(%b, %a : memref<?x?xf32>, memref<?x?xf32>) outs(%out : memref<?x?xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %y, %x : f32
    %s = arith.addf %p, %acc : f32
    linalg.yield %s : f32
  }
  func.return
}

// Not a contraction (max-plus), a transposed output, or a statically small right operand
// (Linear(4, 4): loops are fast enough there and compile faster): left as linalg.
// CHECK-LABEL: func.func @not$contractions
// CHECK-COUNT-3: linalg.generic
// CHECK-NOT:     func.call
func.func @not$contractions(%a: memref<?x?xf32>, %b: memref<?x?xf32>, %small: memref<4x4xf32>, %out: memref<?x?xf32>) {
  linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : memref<?x?xf32>, memref<?x?xf32>) outs(%out : memref<?x?xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.addf %x, %y : f32
    %s = arith.maximumf %acc, %p : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#mk, #kn, affine_map<(d0, d1, d2) -> (d1, d0)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : memref<?x?xf32>, memref<?x?xf32>) outs(%out : memref<?x?xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#mk, #nk, #mn], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %small : memref<?x?xf32>, memref<4x4xf32>) outs(%out : memref<?x?xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  func.return
}

// A strided, dilated NCHW convolution: the conv2d kernel with (sh, sw, dh, dw) = (2, 1, 1, 3).
// CHECK-LABEL: func.func @conv2d$strided
// CHECK:         %[[SH:.*]] = arith.constant 2 : index
// CHECK-NEXT:    %[[SW:.*]] = arith.constant 1 : index
// CHECK-NEXT:    %[[DH:.*]] = arith.constant 1 : index
// CHECK-NEXT:    %[[DW:.*]] = arith.constant 3 : index
// CHECK-NEXT:    func.call @tsjit.conv2d_f64(%{{.*}}, %{{.*}}, %{{.*}}, %[[SH]], %[[SW]], %[[DH]], %[[DW]])
func.func @conv2d$strided(%x: memref<?x3x?x?xf64>, %w: memref<8x3x3x3xf64>, %out: memref<?x8x?x?xf64>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, ((d2 * 2) + d5), (d3 + (d6 * 3)))>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d4, d5, d6)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : memref<?x3x?x?xf64>, memref<8x3x3x3xf64>) outs(%out : memref<?x8x?x?xf64>) {
  ^bb0(%a: f64, %b: f64, %acc: f64):
    %p = arith.mulf %a, %b : f64
    %s = arith.addf %acc, %p : f64
    linalg.yield %s : f64
  }
  func.return
}

// An nn matmul in a loop that does not write its right operand (an RNN's weights): the
// operand is packed once, in front of the loop, into column panels of the machine model's
// `tiles.gemm_cols` columns (48 with AVX-512, 16 with AVX2), and the loop runs the packed kernel. (The loop writes only its own allocations, as lowered
// programs do.)
// CHECK-LABEL: func.func @rnn$invariant_weights
// CHECK:         %[[K:.*]] = memref.dim %w, %{{.*}} : memref<?x?xf32>
// CHECK:         %[[N:.*]] = memref.dim %w, %{{.*}} : memref<?x?xf32>
// CHECK-NEXT:    %[[COLS:.*]] = arith.constant {{48|16}} : index
// CHECK-NEXT:    %[[PANELS:.*]] = arith.ceildivsi %[[N]], %[[COLS]] : index
// CHECK-NEXT:    %[[WIDTH:.*]] = arith.muli %[[PANELS]], %[[COLS]] : index
// CHECK-NEXT:    %[[SIZE:.*]] = arith.muli %[[WIDTH]], %[[K]] : index
// CHECK-NEXT:    %[[PACKED:.*]] = memref.alloc(%[[SIZE]]) : memref<?xf32>
// CHECK-NEXT:    func.call @tsjit.pack_nn_f32(%w, %[[PACKED]]) : (memref<?x?xf32>, memref<?xf32>) -> ()
// CHECK:         scf.for
// CHECK-NOT:       linalg.generic
// CHECK:           func.call @tsjit.matmul_packed_f32(%h, %[[PACKED]], %out)
func.func @rnn$invariant_weights(%h: memref<?x?xf32>, %w: memref<?x?xf32>, %n: index) {
  %out = memref.alloc(%n, %n) : memref<?x?xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %t = %c0 to %n step %c1 {
    linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"]} ins(%h, %w : memref<?x?xf32>, memref<?x?xf32>) outs(%out : memref<?x?xf32>) {
    ^bb0(%x: f32, %y: f32, %acc: f32):
      %p = arith.mulf %x, %y : f32
      %s = arith.addf %acc, %p : f32
      linalg.yield %s : f32
    }
  }
  func.return
}

// The loop writes the right operand: no hoisting, the nn kernel stays in the loop.
// CHECK-LABEL: func.func @rnn$written_weights
// CHECK-NOT:     tsjit.transpose
// CHECK:         func.call @tsjit.matmul_nn_f32(%h, %w, %out)
func.func @rnn$written_weights(%h: memref<?x?xf32>, %w: memref<?x?xf32>, %out: memref<?x?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %t = %c0 to %n step %c1 {
    linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"]} ins(%h, %w : memref<?x?xf32>, memref<?x?xf32>) outs(%out : memref<?x?xf32>) {
    ^bb0(%x: f32, %y: f32, %acc: f32):
      %p = arith.mulf %x, %y : f32
      %s = arith.addf %acc, %p : f32
      linalg.yield %s : f32
    }
    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%out : memref<?x?xf32>) outs(%w : memref<?x?xf32>) {
    ^bb0(%x: f32, %y: f32):
      linalg.yield %x : f32
    }
  }
  func.return
}

// A static right operand, two loops: the packing goes in front of the outer.
// CHECK-LABEL: func.func @rnn$static_nested
// CHECK:         %[[PACKED:.*]] = memref.alloc(%{{.*}}) : memref<?xf32>
// CHECK-NEXT:    %[[W:.*]] = "memref.cast"(%w) : (memref<32x64xf32>) -> memref<?x?xf32>
// CHECK-NEXT:    func.call @tsjit.pack_nn_f32(%[[W]], %[[PACKED]])
// CHECK-NEXT:    scf.for
// CHECK:           scf.for
// CHECK-NEXT:        func.call @tsjit.matmul_packed_f32(%h, %[[PACKED]], %out)
func.func @rnn$static_nested(%h: memref<?x?xf32>, %w: memref<32x64xf32>, %n: index) {
  %out = memref.alloc(%n, %n) : memref<?x?xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %s = %c0 to %n step %c1 {
    scf.for %t = %c0 to %n step %c1 {
      linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"]} ins(%h, %w : memref<?x?xf32>, memref<32x64xf32>) outs(%out : memref<?x?xf32>) {
      ^bb0(%x: f32, %y: f32, %acc: f32):
        %p = arith.mulf %x, %y : f32
        %s2 = arith.addf %acc, %p : f32
        linalg.yield %s2 : f32
      }
    }
  }
  func.return
}

// The loop writes another function argument (a caller may pass the same array twice), or
// a view of the operand's allocation: no hoisting.
// CHECK-LABEL: func.func @rnn$may_alias
// CHECK-NOT:     linalg.generic
// CHECK:         func.call @tsjit.matmul_nn_f32
// CHECK:         func.call @tsjit.matmul_nn_f32
func.func @rnn$may_alias(%h: memref<?x?xf32>, %w: memref<?x?xf32>, %v: memref<?x?xf32>, %out: memref<?x?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %buf = memref.alloc(%n, %n) : memref<?x?xf32>
  %view = "memref.cast"(%buf) : (memref<?x?xf32>) -> memref<?x?xf32>
  scf.for %t = %c0 to %n step %c1 {
    linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"]} ins(%h, %w : memref<?x?xf32>, memref<?x?xf32>) outs(%out : memref<?x?xf32>) {
    ^bb0(%x: f32, %y: f32, %acc: f32):
      %p = arith.mulf %x, %y : f32
      %s = arith.addf %acc, %p : f32
      linalg.yield %s : f32
    }
    memref.store %zero, %v[%c0, %c0] : memref<?x?xf32>
  }
  scf.for %t = %c0 to %n step %c1 {
    linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"]} ins(%h, %view : memref<?x?xf32>, memref<?x?xf32>) outs(%out : memref<?x?xf32>) {
    ^bb0(%x: f32, %y: f32, %acc: f32):
      %p = arith.mulf %x, %y : f32
      %s = arith.addf %acc, %p : f32
      linalg.yield %s : f32
    }
    memref.store %zero, %buf[%c0, %c0] : memref<?x?xf32>
  }
  func.return
}
