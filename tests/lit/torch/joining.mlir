// RUN: xdsl-opt %s -p 'torch-refine-types{signature="f32[5,4],f32[?,4]"}' | filecheck %s
// The list of a chunk joins its pieces' types; ListUnpack gives each piece its exact type.
// cat and stack promote dtypes and add up sizes.

// CHECK-LABEL: func.func @pieces
// CHECK: torch.aten.chunk {{.*}} -> !torch.list<vtensor<[?,4],f32>>
// CHECK: torch.prim.ListUnpack {{.*}} -> !torch.vtensor<[2,4],f32>, !torch.vtensor<[2,4],f32>, !torch.vtensor<[1,4],f32>
// CHECK: torch.prim.ListConstruct {{.*}} -> !torch.list<vtensor<[?,4],f32>>
// CHECK: torch.aten.cat {{.*}} -> !torch.vtensor<[?,4],f32>
// CHECK: torch.aten.stack {{.*}} -> !torch.vtensor<[2,2,4],f32>
func.func @pieces(%x: !torch.vtensor<*,unk>, %y: !torch.vtensor<*,unk>) -> (!torch.vtensor<*,unk>, !torch.vtensor<*,unk>) {
  %int3 = torch.constant.int 3
  %int0 = torch.constant.int 0
  %l = torch.aten.chunk %x, %int3, %int0 : !torch.vtensor<*,unk>, !torch.int, !torch.int -> !torch.list<vtensor<*,unk>>
  %a, %b, %c = torch.prim.ListUnpack %l : !torch.list<vtensor<*,unk>> -> !torch.vtensor<*,unk>, !torch.vtensor<*,unk>, !torch.vtensor<*,unk>
  %both = torch.prim.ListConstruct %a, %y : (!torch.vtensor<*,unk>, !torch.vtensor<*,unk>) -> !torch.list<vtensor<*,unk>>
  %joined = torch.aten.cat %both, %int0 : !torch.list<vtensor<*,unk>>, !torch.int -> !torch.vtensor<*,unk>
  %pair = torch.prim.ListConstruct %a, %b : (!torch.vtensor<*,unk>, !torch.vtensor<*,unk>) -> !torch.list<vtensor<*,unk>>
  %stacked = torch.aten.stack %pair, %int0 : !torch.list<vtensor<*,unk>>, !torch.int -> !torch.vtensor<*,unk>
  func.return %joined, %stacked : !torch.vtensor<*,unk>, !torch.vtensor<*,unk>
}
