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
// CHECK:         %[[W:.*]] = "memref.cast"(%w) : (memref<4x8xf32>) -> memref<?x?xf32>
// CHECK:         func.call @tsjit.matmul_nt_f32(%x, %[[W]], %{{.*}}) : (memref<?x?xf32>, memref<?x?xf32>, memref<?x?xf32>) -> ()
// CHECK-NOT:     linalg.generic
func.func @linear$nt(%x: memref<?x?xf32>, %w: memref<4x8xf32>, %out: memref<?x?xf32>) {
  linalg.generic {indexing_maps = [#mk, #nk, #mn], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %w : memref<?x?xf32>, memref<4x8xf32>) outs(%out : memref<?x?xf32>) {
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

// Not a contraction (max-plus), or a transposed output: left as linalg.
// CHECK-LABEL: func.func @not$contractions
// CHECK-COUNT-2: linalg.generic
// CHECK-NOT:     func.call
func.func @not$contractions(%a: memref<?x?xf32>, %b: memref<?x?xf32>, %out: memref<?x?xf32>) {
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
