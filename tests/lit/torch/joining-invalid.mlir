// RUN: xdsl-opt %s --split-input-file --verify-diagnostics | filecheck %s
// Joining and splitting reject what torch rejects.

func.func @torch.prim.ListUnpack$count(%x: !torch.vtensor<[5,4],f32>) {
  %int2 = torch.constant.int 2
  %int0 = torch.constant.int 0
  %l = torch.aten.split.Tensor %x, %int2, %int0 : !torch.vtensor<[5,4],f32>, !torch.int, !torch.int -> !torch.list<vtensor<[?,4],f32>>
  %a, %b = torch.prim.ListUnpack %l : !torch.list<vtensor<[?,4],f32>> -> !torch.vtensor<[?,4],f32>, !torch.vtensor<[?,4],f32>
  func.return
}
// CHECK: torch.prim.ListUnpack: cannot unpack a list of 3 elements into 2 values

// -----

func.func @torch.aten.cat$sizes(%a: !torch.vtensor<[2,3],f32>, %b: !torch.vtensor<[2,4],f32>) {
  %int0 = torch.constant.int 0
  %l = torch.prim.ListConstruct %a, %b : (!torch.vtensor<[2,3],f32>, !torch.vtensor<[2,4],f32>) -> !torch.list<vtensor<[2,?],f32>>
  %0 = torch.aten.cat %l, %int0 : !torch.list<vtensor<[2,?],f32>>, !torch.int -> !torch.vtensor<[4,3],f32>
  func.return
}
// CHECK: torch.aten.cat: Sizes of tensors must match except in dimension 0. Expected size 3 but got size 4 for tensor number 1 in the list.

// -----

func.func @torch.aten.split.sizes$sum(%x: !torch.vtensor<[5,4],f32>) {
  %int1 = torch.constant.int 1
  %int2 = torch.constant.int 2
  %int0 = torch.constant.int 0
  %sizes = torch.prim.ListConstruct %int1, %int2 : (!torch.int, !torch.int) -> !torch.list<int>
  %l = torch.aten.split.sizes %x, %sizes, %int0 : !torch.vtensor<[5,4],f32>, !torch.list<int>, !torch.int -> !torch.list<vtensor<[?,4],f32>>
  func.return
}
// CHECK: split_with_sizes expects split_sizes to sum exactly to 5
