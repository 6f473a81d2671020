// RUN: xdsl-opt %s -p library-call-pairs | filecheck %s

func.func private @tsjit.matmul_packed_bias_f32(memref<?x?xf32>, memref<?xf32>, memref<?xf32>, memref<?x?xf32>) -> () attributes {tsjit.library = "matmul_packed_bias"}
func.func private @tsjit.matmul_packed_set_f32(memref<?x?xf32>, memref<?xf32>, memref<?x?xf32>) -> () attributes {tsjit.library = "matmul_packed_set"}
func.func private @tsjit.matmul_packed_f32(memref<?x?xf32>, memref<?xf32>, memref<?x?xf32>) -> () attributes {tsjit.library = "matmul_packed"}

// The declarations of the pairs' kernels; those no call uses any more go.
// CHECK-NOT:   @tsjit.matmul_packed_bias_f32(
// CHECK:       func.func private @tsjit.matmul_packed_set_f32(
// CHECK:       func.func private @tsjit.matmul_packed_f32(
// CHECK:       func.func private @tsjit.matmul_pair_bias_f32(memref<?x?xf32>, memref<?xf32>, memref<?x?xf32>, memref<?xf32>, memref<?xf32>, memref<?x?xf32>) -> () attributes {tsjit.library = "matmul_pair_bias"}

// An RNN step: x[t] @ W + b into a new buffer, then h @ U added to it (casts in between):
// one call of both products, where the second one was.
// CHECK-LABEL: func.func @rnn_step
// CHECK:         %[[OUT:.*]] = "memref.cast"(%[[C:.*]]) : (memref<?x?xf32>) -> memref<?x?xf32>
// CHECK-NEXT:    %[[H:.*]] = "memref.cast"(%h) : (memref<4x?xf32>) -> memref<?x?xf32>
// CHECK-NEXT:    func.call @tsjit.matmul_pair_bias_f32(%x, %wp, %[[H]], %up, %b, %[[OUT]])
// CHECK-NOT:     func.call
// CHECK:         func.return %[[C]]
func.func @rnn_step(%x: memref<?x?xf32>, %h: memref<4x?xf32>, %wp: memref<?xf32>, %up: memref<?xf32>, %b: memref<?xf32>, %m: index, %n: index) -> memref<?x?xf32> {
  %c = memref.alloc(%m, %n) : memref<?x?xf32>
  %out = "memref.cast"(%c) : (memref<?x?xf32>) -> memref<?x?xf32>
  func.call @tsjit.matmul_packed_bias_f32(%x, %wp, %b, %out) : (memref<?x?xf32>, memref<?xf32>, memref<?xf32>, memref<?x?xf32>) -> ()
  %hc = "memref.cast"(%h) : (memref<4x?xf32>) -> memref<?x?xf32>
  %out2 = "memref.cast"(%c) : (memref<?x?xf32>) -> memref<?x?xf32>
  func.call @tsjit.matmul_packed_f32(%hc, %up, %out2) : (memref<?x?xf32>, memref<?xf32>, memref<?x?xf32>) -> ()
  func.return %c : memref<?x?xf32>
}

// Not a pair: the second call reads a view of the output (made after its allocation), which
// the pair would write while the second product reads it.
// CHECK-LABEL: func.func @reads_its_output
// CHECK:         func.call @tsjit.matmul_packed_set_f32(
// CHECK-NEXT:    func.call @tsjit.matmul_packed_f32(
func.func @reads_its_output(%x: memref<?x?xf32>, %wp: memref<?xf32>, %up: memref<?xf32>, %m: index) -> memref<?x?xf32> {
  %c = memref.alloc(%m, %m) : memref<?x?xf32>
  func.call @tsjit.matmul_packed_set_f32(%x, %wp, %c) : (memref<?x?xf32>, memref<?xf32>, memref<?x?xf32>) -> ()
  func.call @tsjit.matmul_packed_f32(%c, %up, %c) : (memref<?x?xf32>, memref<?xf32>, memref<?x?xf32>) -> ()
  func.return %c : memref<?x?xf32>
}

// Not pairs: two outputs; an output that is no allocation (an argument may be any input);
// a store in between.
// CHECK-LABEL: func.func @others
// CHECK-COUNT-7: func.call @tsjit.matmul_packed
// CHECK-NOT:     matmul_pair
func.func @others(%x: memref<?x?xf32>, %wp: memref<?xf32>, %out: memref<?x?xf32>, %m: index) {
  %c = memref.alloc(%m, %m) : memref<?x?xf32>
  %d = memref.alloc(%m, %m) : memref<?x?xf32>
  func.call @tsjit.matmul_packed_set_f32(%x, %wp, %c) : (memref<?x?xf32>, memref<?xf32>, memref<?x?xf32>) -> ()
  func.call @tsjit.matmul_packed_f32(%x, %wp, %d) : (memref<?x?xf32>, memref<?xf32>, memref<?x?xf32>) -> ()
  func.call @tsjit.matmul_packed_set_f32(%x, %wp, %out) : (memref<?x?xf32>, memref<?xf32>, memref<?x?xf32>) -> ()
  func.call @tsjit.matmul_packed_f32(%x, %wp, %out) : (memref<?x?xf32>, memref<?xf32>, memref<?x?xf32>) -> ()
  func.call @tsjit.matmul_packed_set_f32(%x, %wp, %c) : (memref<?x?xf32>, memref<?xf32>, memref<?x?xf32>) -> ()
  %f = arith.constant 1.0 : f32
  memref.store %f, %x[%m, %m] : memref<?x?xf32>
  func.call @tsjit.matmul_packed_f32(%x, %wp, %c) : (memref<?x?xf32>, memref<?xf32>, memref<?x?xf32>) -> ()
  func.call @tsjit.matmul_packed_f32(%x, %wp, %d) : (memref<?x?xf32>, memref<?xf32>, memref<?x?xf32>) -> ()
  func.return
}
