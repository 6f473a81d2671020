// RUN: xdsl-opt %s -p memref-unbatch-contractions --split-input-file | filecheck %s
// A batched matmul becomes a parallel loop over the batch around a 2-D matmul of views, each
// cast to a plain 2-D memref (what the library-call pass matches); a 2-D weight shared by
// every batch element is read whole.

// CHECK-LABEL: func.func @bmm
// CHECK:         %[[B:.*]] = memref.dim %c, %{{.*}} : memref<?x?x?xf32>
// CHECK:         "scf.parallel"(%{{.*}}, %[[B]], %{{.*}})
// CHECK-NEXT:    ^{{.*}}(%[[T:.*]]: index):
// CHECK:           %[[AV:.*]] = memref.subview %a[%[[T]], 0, 0] [1, %{{.*}}, %{{.*}}] [1, 1, 1] : memref<?x?x?xf32> to memref<?x?xf32, strided<[?, 1], offset: ?>>
// CHECK-NEXT:      %[[A2:.*]] = "memref.cast"(%[[AV]]) : (memref<?x?xf32, strided<[?, 1], offset: ?>>) -> memref<?x?xf32>
// CHECK:           %[[W2:.*]] = "memref.cast"
// CHECK:           %[[C2:.*]] = "memref.cast"
// CHECK-NEXT:      linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[A2]], %[[W2]] : memref<?x?xf32>, memref<?x?xf32>) outs(%[[C2]] : memref<?x?xf32>)
// CHECK:           scf.reduce
func.func @bmm(%a: memref<?x?x?xf32>, %w: memref<?x?x?xf32>, %c: memref<?x?x?xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%a, %w : memref<?x?x?xf32>, memref<?x?x?xf32>) outs(%c : memref<?x?x?xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  }
  func.return
}

// -----

// x @ W.T of a 3-D x: only x and the output are viewed.

// CHECK-LABEL: func.func @shared_weight
// CHECK:         "scf.parallel"
// CHECK-COUNT-2:   memref.subview
// CHECK-NOT:       memref.subview
// CHECK:           linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%{{.*}}, %w : memref<?x?xf32>, memref<?x?xf32>)
func.func @shared_weight(%x: memref<?x?x?xf32>, %w: memref<?x?xf32>, %c: memref<?x?x?xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%x, %w : memref<?x?x?xf32>, memref<?x?xf32>) outs(%c : memref<?x?x?xf32>) {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %m = arith.mulf %p, %q : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  }
  func.return
}
