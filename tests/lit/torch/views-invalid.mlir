// RUN: xdsl-opt %s --split-input-file --verify-diagnostics | filecheck %s
// View-like ops reject sizes torch would reject, with torch's wording.

func.func @torch.aten.view$bad_numel(%x: !torch.vtensor<[3,4],f32>) {
  %int5 = torch.constant.int 5
  %int-1 = torch.constant.int -1
  %sizes = torch.prim.ListConstruct %int5, %int-1 : (!torch.int, !torch.int) -> !torch.list<int>
  %0 = torch.aten.view %x, %sizes : !torch.vtensor<[3,4],f32>, !torch.list<int> -> !torch.vtensor<[5,?],f32>
  func.return
}
// CHECK: torch.aten.view: shape '[5, -1]' is invalid for input of size 12

// -----

func.func @torch.aten.reshape$two_inferred(%x: !torch.vtensor<[?,4],f32>) {
  %int-1 = torch.constant.int -1
  %sizes = torch.prim.ListConstruct %int-1, %int-1 : (!torch.int, !torch.int) -> !torch.list<int>
  %0 = torch.aten.reshape %x, %sizes : !torch.vtensor<[?,4],f32>, !torch.list<int> -> !torch.vtensor<[?,?],f32>
  func.return
}
// CHECK: torch.aten.reshape: only one dimension can be inferred

// -----

func.func @torch.aten.expand$mismatch(%x: !torch.vtensor<[3,4],f32>) {
  %int2 = torch.constant.int 2
  %int5 = torch.constant.int 5
  %false = torch.constant.bool false
  %sizes = torch.prim.ListConstruct %int2, %int5 : (!torch.int, !torch.int) -> !torch.list<int>
  %0 = torch.aten.expand %x, %sizes, %false : !torch.vtensor<[3,4],f32>, !torch.list<int>, !torch.bool -> !torch.vtensor<[2,5],f32>
  func.return
}
// CHECK: torch.aten.expand: The expanded size of the tensor (5) must match the existing size (4) at non-singleton dimension 1.  Target sizes: [2, 5].  Tensor sizes: [3, 4]

// -----

func.func @torch.aten.permute$duplicate(%x: !torch.vtensor<[3,4],f32>) {
  %int0 = torch.constant.int 0
  %int-2 = torch.constant.int -2
  %dims = torch.prim.ListConstruct %int0, %int-2 : (!torch.int, !torch.int) -> !torch.list<int>
  %0 = torch.aten.permute %x, %dims : !torch.vtensor<[3,4],f32>, !torch.list<int> -> !torch.vtensor<[3,3],f32>
  func.return
}
// CHECK: torch.aten.permute: permute(): duplicate dims are not allowed.

// -----

func.func @torch.aten.flatten.using_ints$order(%x: !torch.vtensor<[2,3,4],f32>) {
  %int2 = torch.constant.int 2
  %int0 = torch.constant.int 0
  %0 = torch.aten.flatten.using_ints %x, %int2, %int0 : !torch.vtensor<[2,3,4],f32>, !torch.int, !torch.int -> !torch.vtensor<[24],f32>
  func.return
}
// CHECK: torch.aten.flatten.using_ints: flatten() has invalid args: start_dim cannot come after end_dim

// -----

func.func @torch.aten.t$rank3(%x: !torch.vtensor<[2,3,4],f32>) {
  %0 = torch.aten.t %x : !torch.vtensor<[2,3,4],f32> -> !torch.vtensor<[4,3,2],f32>
  func.return
}
// CHECK: torch.aten.t: t() expects a tensor with <= 2 dimensions, but self is 3D
