// RUN: xdsl-opt %s -p linalg-fuse-elementwise | filecheck %s

#id1 = affine_map<(d0) -> (d0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
#keep = affine_map<(d0, d1) -> (d0, 0)>

// A chain x*2 -> +b (broadcast over rows) -> tanh becomes one generic that reads x and b.
// CHECK-LABEL: func.func @chain$broadcast
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x, %b : tensor<?x4xf32>, tensor<4xf32>)
// CHECK-NEXT:    ^{{.*}}(%[[X:.*]]: f32, %[[B:.*]]: f32, %{{.*}}: f32):
// CHECK:           %[[T:.*]] = arith.mulf %[[X]], %{{.*}} : f32
// CHECK-NEXT:      %[[U:.*]] = arith.addf %[[T]], %[[B]] : f32
// CHECK-NEXT:      %[[V:.*]] = math.tanh %[[U]] : f32
// CHECK-NEXT:      linalg.yield %[[V]] : f32
// CHECK-NOT:     linalg.generic
func.func @chain$broadcast(%x: tensor<?x4xf32>, %b: tensor<4xf32>) -> tensor<?x4xf32> {
  %c0 = arith.constant 0 : index
  %two = arith.constant 2.0 : f32
  %n = tensor.dim %x, %c0 : tensor<?x4xf32>
  %e = tensor.empty(%n) : tensor<?x4xf32>
  %t = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<?x4xf32>) outs(%e : tensor<?x4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.mulf %a, %two : f32
    linalg.yield %r : f32
  } -> tensor<?x4xf32>
  %u = linalg.generic {indexing_maps = [#id2, #row, #id2], iterator_types = ["parallel", "parallel"]} ins(%t, %b : tensor<?x4xf32>, tensor<4xf32>) outs(%e : tensor<?x4xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %r = arith.addf %a, %c : f32
    linalg.yield %r : f32
  } -> tensor<?x4xf32>
  %v = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%u : tensor<?x4xf32>) outs(%e : tensor<?x4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.tanh %a : f32
    linalg.yield %r : f32
  } -> tensor<?x4xf32>
  func.return %v : tensor<?x4xf32>
}

// An expensive producer (exp) with two users keeps its buffer; a cheap one (x - 1) with
// two users is recomputed in each and disappears. x read twice with one map is read once.
// CHECK-LABEL: func.func @shared$expensive_kept_cheap_recomputed
// CHECK:         %[[E:.*]] = linalg.generic {{.*}} ins(%x : tensor<?xf32>)
// CHECK:           arith.subf
// CHECK-NEXT:      math.exp
// CHECK:         linalg.generic {{.*}} ins(%[[E]], %x : tensor<?xf32>, tensor<?xf32>)
// CHECK:           arith.subf
// CHECK:           arith.addf
// CHECK:         linalg.generic {{.*}} ins(%[[E]], %x : tensor<?xf32>, tensor<?xf32>)
// CHECK:           arith.subf
// CHECK:           arith.mulf
func.func @shared$expensive_kept_cheap_recomputed(%x: tensor<?xf32>) -> (tensor<?xf32>, tensor<?xf32>) {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1.0 : f32
  %n = tensor.dim %x, %c0 : tensor<?xf32>
  %out = tensor.empty(%n) : tensor<?xf32>
  %d = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%x : tensor<?xf32>) outs(%out : tensor<?xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.subf %a, %one : f32
    linalg.yield %r : f32
  } -> tensor<?xf32>
  %e = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%d : tensor<?xf32>) outs(%out : tensor<?xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.exp %a : f32
    linalg.yield %r : f32
  } -> tensor<?xf32>
  %s = linalg.generic {indexing_maps = [#id1, #id1, #id1], iterator_types = ["parallel"]} ins(%e, %d : tensor<?xf32>, tensor<?xf32>) outs(%out : tensor<?xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %r = arith.addf %a, %c : f32
    linalg.yield %r : f32
  } -> tensor<?xf32>
  %p = linalg.generic {indexing_maps = [#id1, #id1, #id1], iterator_types = ["parallel"]} ins(%e, %d : tensor<?xf32>, tensor<?xf32>) outs(%out : tensor<?xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %r = arith.mulf %a, %c : f32
    linalg.yield %r : f32
  } -> tensor<?xf32>
  func.return %s, %p : tensor<?xf32>, tensor<?xf32>
}

// A producer fuses into a reduction (sum of exp(x - m) per row, m broadcast along the row);
// an expensive producer on rows is not recomputed for every element of a broadcast.
// CHECK-LABEL: func.func @reduction$consumer
// CHECK:         %[[M:.*]] = linalg.generic {{.*}} ins(%m : tensor<?x1xf32>)
// CHECK:           math.exp
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d0, 0)>], iterator_types = ["parallel", "reduction"]} ins(%x, %[[M]] : tensor<?x?xf32>, tensor<?x1xf32>)
// CHECK:           arith.subf
// CHECK-NEXT:      math.exp
// CHECK-NEXT:      arith.addf
func.func @reduction$consumer(%x: tensor<?x?xf32>, %m: tensor<?x1xf32>, %init: tensor<?x1xf32>) -> tensor<?x1xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %x, %c0 : tensor<?x?xf32>
  %k = tensor.dim %x, %c1 : tensor<?x?xf32>
  %e1 = tensor.empty(%n) : tensor<?x1xf32>
  %em = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%m : tensor<?x1xf32>) outs(%e1 : tensor<?x1xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.exp %a : f32
    linalg.yield %r : f32
  } -> tensor<?x1xf32>
  %e2 = tensor.empty(%n, %k) : tensor<?x?xf32>
  %d = linalg.generic {indexing_maps = [#id2, #keep, #id2], iterator_types = ["parallel", "parallel"]} ins(%x, %em : tensor<?x?xf32>, tensor<?x1xf32>) outs(%e2 : tensor<?x?xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.subf %a, %b : f32
    %y = math.exp %r : f32
    linalg.yield %y : f32
  } -> tensor<?x?xf32>
  %s = linalg.generic {indexing_maps = [#id2, #keep], iterator_types = ["parallel", "reduction"]} ins(%d : tensor<?x?xf32>) outs(%init : tensor<?x1xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.addf %acc, %a : f32
    linalg.yield %r : f32
  } -> tensor<?x1xf32>
  func.return %s : tensor<?x1xf32>
}

// linalg.index in a producer becomes the consumer's index (here through a transpose).
// CHECK-LABEL: func.func @index$remapped
// CHECK:         linalg.generic
// CHECK-NEXT:    ^{{.*}}
// CHECK-NEXT:      %{{.*}} = linalg.index 1 : index
// CHECK-NOT:     linalg.generic
func.func @index$remapped(%x: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %e = tensor.empty() : tensor<3x4xf32>
  %i = linalg.generic {indexing_maps = [#id2], iterator_types = ["parallel", "parallel"]} outs(%e : tensor<3x4xf32>) {
  ^bb0(%o: f32):
    %r = linalg.index 0 : index
    %c = arith.index_cast %r : index to i64
    %f = arith.sitofp %c : i64 to f32
    linalg.yield %f : f32
  } -> tensor<3x4xf32>
  %e2 = tensor.empty() : tensor<4x3xf32>
  %t = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, #id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%i, %x : tensor<3x4xf32>, tensor<4x3xf32>) outs(%e2 : tensor<4x3xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.addf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<4x3xf32>
  func.return %t : tensor<4x3xf32>
}
