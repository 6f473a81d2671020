// RUN: xdsl-opt %s -p torch-decompose,torch-canonicalize | filecheck %s
// Value-sized ops decompose into nonzero (whose lowering counts, then fills) and ops of
// known sizes: x[mask] flattens the dims the mask covers and index_selects the mask's
// nonzero positions; masked_select broadcasts first; where(cond) is nonzero's columns.

// A 2-D mask over dims 1 and 2 of a 4-D x: [2, count, 5].
// CHECK-LABEL: func.func @index$mask
// CHECK:      %[[X:.*]] = torch.aten.flatten.using_ints %x, %int1, %int2 : {{.*}} -> !torch.vtensor<[2,12,5],f32>
// CHECK:      %[[M:.*]] = torch.aten.reshape %m, %{{.*}} : {{.*}} -> !torch.vtensor<[12],i1>
// CHECK-NEXT: %[[P:.*]] = torch.aten.nonzero %[[M]] : !torch.vtensor<[12],i1> -> !torch.vtensor<[?,1],si64>
// CHECK:      %[[I:.*]] = torch.aten.select.int %[[P]], %{{.*}}, %{{.*}} : {{.*}} -> !torch.vtensor<[?],si64>
// CHECK:      %[[R:.*]] = torch.aten.index_select %[[X]], %{{.*}}, %[[I]] : {{.*}} -> !torch.vtensor<[2,?,5],f32>
// CHECK-NEXT: func.return %[[R]]
func.func @index$mask(%x: !torch.vtensor<[2,3,4,5],f32>, %m: !torch.vtensor<[3,4],i1>) -> !torch.vtensor<[2,?,5],f32> {
  %none = torch.constant.none
  %l = torch.prim.ListConstruct %none, %m : (!torch.none, !torch.vtensor<[3,4],i1>) -> !torch.list<vtensor<[3,4],i1>>
  %r = torch.aten.index.Tensor %x, %l : !torch.vtensor<[2,3,4,5],f32>, !torch.list<vtensor<[3,4],i1>> -> !torch.vtensor<[2,?,5],f32>
  func.return %r : !torch.vtensor<[2,?,5],f32>
}

// x [?,1] and mask [4] broadcast to [?,4] (the ? size read from x), then x[mask].
// CHECK-LABEL: func.func @masked_select$broadcast
// CHECK:      %[[N:.*]] = torch.aten.size.int %x, %{{.*}}
// CHECK:      %[[XB:.*]] = torch.aten.expand %x, %{{.*}} -> !torch.vtensor<[?,4],f32>
// CHECK:      %[[MB:.*]] = torch.aten.expand %m, %{{.*}} -> !torch.vtensor<[?,4],i1>
// CHECK:      %[[XF:.*]] = torch.aten.flatten.using_ints %[[XB]], {{.*}} -> !torch.vtensor<[?],f32>
// CHECK:      %[[MF:.*]] = torch.aten.reshape %[[MB]], {{.*}} -> !torch.vtensor<[?],i1>
// CHECK-NEXT: torch.aten.nonzero %[[MF]]
// CHECK:      torch.aten.index_select %[[XF]], {{.*}} -> !torch.vtensor<[?],f32>
func.func @masked_select$broadcast(%x: !torch.vtensor<[?,1],f32>, %m: !torch.vtensor<[4],i1>) -> !torch.vtensor<[?],f32> {
  %r = torch.aten.masked_select %x, %m : !torch.vtensor<[?,1],f32>, !torch.vtensor<[4],i1> -> !torch.vtensor<[?],f32>
  func.return %r : !torch.vtensor<[?],f32>
}

// One 1-D index tensor per dim: the columns of nonzero.
// CHECK-LABEL: func.func @where$condition
// CHECK-NEXT: %[[P:.*]] = torch.aten.nonzero %c : !torch.vtensor<[?,3],i1> -> !torch.vtensor<[?,2],si64>
// CHECK:      %[[A:.*]] = torch.aten.select.int %[[P]], %int1, %int0 : {{.*}} -> !torch.vtensor<[?],si64>
// CHECK:      %[[B:.*]] = torch.aten.select.int %[[P]], %int1_1, %int1_2 : {{.*}} -> !torch.vtensor<[?],si64>
// CHECK-NEXT: func.return %[[A]], %[[B]]
func.func @where$condition(%c: !torch.vtensor<[?,3],i1>) -> (!torch.vtensor<[?],si64>, !torch.vtensor<[?],si64>) {
  %l = torch.aten.where %c : !torch.vtensor<[?,3],i1> -> !torch.list<vtensor<[?],si64>>
  %a, %b = torch.prim.ListUnpack %l : !torch.list<vtensor<[?],si64>> -> !torch.vtensor<[?],si64>, !torch.vtensor<[?],si64>
  func.return %a, %b : !torch.vtensor<[?],si64>, !torch.vtensor<[?],si64>
}
