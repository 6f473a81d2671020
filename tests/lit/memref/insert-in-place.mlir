// RUN: xdsl-opt %s -p linalg-bufferize --split-input-file | filecheck %s
// RUN: xdsl-opt %s -p linalg-bufferize --split-input-file -t python | filecheck %s --check-prefix=PY

// `out[t] = h` in a loop: the loop-carried buffer is written in place (a subview and a copy of
// `h`), never copied whole, because nobody else reads it and its initial value is fresh.
// CHECK-LABEL: func.func @grow
// CHECK:      %[[OUT:.*]] = memref.alloc() : memref<8x4xf32>
// CHECK:      scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ARG:.*]] = %[[OUT]]) -> (memref<8x4xf32>) {
// CHECK-NEXT:   %[[PART:.*]] = memref.subview %[[ARG]][%{{.*}}, 0] [1, 4] [1, 1] : memref<8x4xf32> to memref<4xf32, strided<[?], offset: ?>>
// CHECK-NEXT:   "memref.copy"(%h, %[[PART]])
// CHECK-NEXT:   scf.yield %[[ARG]] : memref<8x4xf32>
// PY:      def grow(h):
// PY:        for t in range(8):
// PY-NEXT:     acc_part = r[t]
// PY-NEXT:     for i0 in range(h.shape[0]):
// PY-NEXT:       acc_part[i0] = h[i0]
func.func @grow(%h: tensor<4xf32>) -> tensor<8x4xf32> {
  %lo = arith.constant 0 : index
  %hi = arith.constant 8 : index
  %one = arith.constant 1 : index
  %out = tensor.empty() : tensor<8x4xf32>
  %r = scf.for %t = %lo to %hi step %one iter_args(%acc = %out) -> (tensor<8x4xf32>) {
    %next = tensor.insert_slice %h into %acc[%t, 0] [1, 4] [1, 1] : tensor<4xf32> into tensor<8x4xf32>
    scf.yield %next : tensor<8x4xf32>
  }
  func.return %r : tensor<8x4xf32>
}

// -----

// The initial value is an argument (the caller's array): the loop gets one private copy
// before it, and still writes that copy in place.
// CHECK-LABEL: func.func @into_argument
// CHECK:      %[[COPY:.*]] = memref.alloc() : memref<8x4xf32>
// CHECK-NEXT: "memref.copy"(%x, %[[COPY]])
// CHECK-NEXT: scf.for %{{.*}} iter_args(%[[ARG:.*]] = %[[COPY]])
// CHECK-NEXT:   memref.subview %[[ARG]]
func.func @into_argument(%x: tensor<8x4xf32>, %h: tensor<4xf32>) -> tensor<8x4xf32> {
  %lo = arith.constant 0 : index
  %hi = arith.constant 8 : index
  %one = arith.constant 1 : index
  %r = scf.for %t = %lo to %hi step %one iter_args(%acc = %x) -> (tensor<8x4xf32>) {
    %next = tensor.insert_slice %h into %acc[%t, 0] [1, 4] [1, 1] : tensor<4xf32> into tensor<8x4xf32>
    scf.yield %next : tensor<8x4xf32>
  }
  func.return %r : tensor<8x4xf32>
}

// -----

// Someone else reads the old value in the body: each iteration writes into a copy.
// CHECK-LABEL: func.func @old_value_read
// CHECK:      scf.for
// CHECK:        %[[NEW:.*]] = memref.alloc() : memref<8x4xf32>
// CHECK-NEXT:   "memref.copy"(%{{.*}}, %[[NEW]])
// CHECK-NEXT:   memref.subview %[[NEW]]
func.func @old_value_read(%h: tensor<4xf32>) -> (tensor<8x4xf32>, f32) {
  %lo = arith.constant 0 : index
  %hi = arith.constant 8 : index
  %one = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %out = tensor.empty() : tensor<8x4xf32>
  %r, %s = scf.for %t = %lo to %hi step %one iter_args(%acc = %out, %sum = %zero) -> (tensor<8x4xf32>, f32) {
    %old = tensor.extract %acc[%t, %lo] : tensor<8x4xf32>
    %next = tensor.insert_slice %h into %acc[%t, 0] [1, 4] [1, 1] : tensor<4xf32> into tensor<8x4xf32>
    %sum2 = arith.addf %sum, %old : f32
    scf.yield %next, %sum2 : tensor<8x4xf32>, f32
  }
  func.return %r, %s : tensor<8x4xf32>, f32
}
