// RUN: xdsl-opt %s -p convert-torch-to-linalg,canonicalize,cse | filecheck %s
// View-like ops are copies: affine maps where they suffice, re-indexing with arith otherwise.

// A size read from the same source dim (`x.size(0)`) maps that dim one to one; only the
// merged dims are split again. The -1 is the element count over the other sizes.
// CHECK-LABEL: func.func @torch.aten.view$dynamic
// CHECK: %[[N:.*]] = tensor.dim %x, %{{.*}} : tensor<?x4x5xf32>
// CHECK: %[[REST:.*]] = arith.floordivsi %{{.*}}, %{{.*}} : index
// CHECK: tensor.empty(%{{.*}}, %[[REST]]) : tensor<?x?xf32>
// CHECK: linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs
// CHECK: %[[I0:.*]] = linalg.index 0 : index
// CHECK: %[[I1:.*]] = linalg.index 1 : index
// CHECK: %[[Q:.*]] = arith.floordivsi %[[I1]], %{{.*}} : index
// CHECK: %[[R:.*]] = arith.subi %[[I1]], %{{.*}} : index
// CHECK: tensor.extract %x[%[[I0]], %[[Q]], %[[R]]] : tensor<?x4x5xf32>
func.func @torch.aten.view$dynamic(%x: !torch.vtensor<[?,4,5],f32>) -> !torch.vtensor<[?,?],f32> {
  %int0 = torch.constant.int 0
  %int-1 = torch.constant.int -1
  %n = torch.aten.size.int %x, %int0 : !torch.vtensor<[?,4,5],f32>, !torch.int -> !torch.int
  %sizes = torch.prim.ListConstruct %n, %int-1 : (!torch.int, !torch.int) -> !torch.list<int>
  %0 = torch.aten.view %x, %sizes : !torch.vtensor<[?,4,5],f32>, !torch.list<int> -> !torch.vtensor<[?,?],f32>
  func.return %0 : !torch.vtensor<[?,?],f32>
}

// flatten keeps the dims outside start..end; only the merged dim is split.
// CHECK-LABEL: func.func @torch.aten.flatten.using_ints
// CHECK: %[[I1:.*]] = linalg.index 1 : index
// CHECK: %[[Q:.*]] = arith.floordivsi %[[I1]], %{{.*}} : index
// CHECK: tensor.extract %x[%{{.*}}, %[[Q]], %{{.*}}, %{{.*}}] : tensor<?x3x4x5xf32>
func.func @torch.aten.flatten.using_ints(%x: !torch.vtensor<[?,3,4,5],f32>) -> !torch.vtensor<[?,12,5],f32> {
  %int1 = torch.constant.int 1
  %int2 = torch.constant.int 2
  %0 = torch.aten.flatten.using_ints %x, %int1, %int2 : !torch.vtensor<[?,3,4,5],f32>, !torch.int, !torch.int -> !torch.vtensor<[?,12,5],f32>
  func.return %0 : !torch.vtensor<[?,12,5],f32>
}

// permute is one affine map: result dim i reads source dim dims[i].
// CHECK-LABEL: func.func @torch.aten.permute
// CHECK: %[[N:.*]] = tensor.dim %x, %{{.*}} : tensor<?x3x4xf32>
// CHECK: tensor.empty(%[[N]]) : tensor<4x?x3xf32>
// CHECK: indexing_maps = [affine_map<(d0, d1, d2) -> (d1, d2, d0)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>]
func.func @torch.aten.permute(%x: !torch.vtensor<[?,3,4],f32>) -> !torch.vtensor<[4,?,3],f32> {
  %int0 = torch.constant.int 0
  %int1 = torch.constant.int 1
  %int2 = torch.constant.int 2
  %dims = torch.prim.ListConstruct %int2, %int0, %int1 : (!torch.int, !torch.int, !torch.int) -> !torch.list<int>
  %0 = torch.aten.permute %x, %dims : !torch.vtensor<[?,3,4],f32>, !torch.list<int> -> !torch.vtensor<[4,?,3],f32>
  func.return %0 : !torch.vtensor<[4,?,3],f32>
}

// expand: the size-1 dim reads index 0, the new leading dim is not read; -1 keeps the source
// size and a runtime size is cast to an index.
// CHECK-LABEL: func.func @torch.aten.expand
// CHECK: %[[D0:.*]] = tensor.dim %x, %{{.*}} : tensor<?x1xf32>
// CHECK: %[[N:.*]] = arith.index_cast %n : i64 to index
// CHECK: tensor.empty(%[[D0]], %[[N]]) : tensor<2x?x?xf32>
// CHECK: indexing_maps = [affine_map<(d0, d1, d2) -> (d1, 0)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>]
func.func @torch.aten.expand(%x: !torch.vtensor<[?,1],f32>, %n: !torch.int) -> !torch.vtensor<[2,?,?],f32> {
  %int2 = torch.constant.int 2
  %int-1 = torch.constant.int -1
  %false = torch.constant.bool false
  %sizes = torch.prim.ListConstruct %int2, %int-1, %n : (!torch.int, !torch.int, !torch.int) -> !torch.list<int>
  %0 = torch.aten.expand %x, %sizes, %false : !torch.vtensor<[?,1],f32>, !torch.list<int>, !torch.bool -> !torch.vtensor<[2,?,?],f32>
  func.return %0 : !torch.vtensor<[2,?,?],f32>
}

// squeeze.dim reads the dropped size-1 dim at index 0.
// CHECK-LABEL: func.func @torch.aten.squeeze.dim
// CHECK: indexing_maps = [affine_map<(d0, d1) -> (d0, 0, d1)>, affine_map<(d0, d1) -> (d0, d1)>]
func.func @torch.aten.squeeze.dim(%x: !torch.vtensor<[?,1,4],f32>) -> !torch.vtensor<[?,4],f32> {
  %int1 = torch.constant.int 1
  %0 = torch.aten.squeeze.dim %x, %int1 : !torch.vtensor<[?,1,4],f32>, !torch.int -> !torch.vtensor<[?,4],f32>
  func.return %0 : !torch.vtensor<[?,4],f32>
}
