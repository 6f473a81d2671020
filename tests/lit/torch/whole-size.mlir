// RUN: xdsl-opt %s -p 'torch-refine-types{signature="f32[?,4],f32[4,?]"}' | filecheck %s
// A shape used whole (`y.reshape(x.shape)`): scripting leaves `torch.aten.size`, a list of
// unknown length; once the signature fixes the rank it becomes one `aten.size.int` per dim,
// which the reshape's shape rule reads element by element.

// CHECK-LABEL: func.func @reshape_like
// CHECK-NEXT:    %int0 = torch.constant.int 0
// CHECK-NEXT:    %0 = torch.aten.size.int %x, %int0 : !torch.vtensor<[?,4],f32>, !torch.int -> !torch.int
// CHECK-NEXT:    %int1 = torch.constant.int 1
// CHECK-NEXT:    %1 = torch.aten.size.int %x, %int1 : !torch.vtensor<[?,4],f32>, !torch.int -> !torch.int
// CHECK-NEXT:    %2 = torch.prim.ListConstruct %0, %1 : (!torch.int, !torch.int) -> !torch.list<int>
// CHECK-NEXT:    %3 = torch.aten.reshape %y, %2 : !torch.vtensor<[4,?],f32>, !torch.list<int> -> !torch.vtensor<[?,?],f32>
// CHECK-NOT:     torch.aten.size %
func.func @reshape_like(%x: !torch.vtensor<*,unk>, %y: !torch.vtensor<*,unk>) -> !torch.vtensor<*,unk> {
  %0 = torch.aten.size %x : !torch.vtensor<*,unk> -> !torch.list<int>
  %1 = torch.aten.reshape %y, %0 : !torch.vtensor<*,unk>, !torch.list<int> -> !torch.vtensor<*,unk>
  func.return %1 : !torch.vtensor<*,unk>
}
