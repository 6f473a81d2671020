// RUN: xdsl-opt %s -p 'torch-refine-types{signature="f32[?,4],f32[1,4],si64[?]"}' | filecheck %s
// The signature fixes argument types; every result type follows from the op shape rules,
// including broadcasting of the size-1 dim, type promotion and reductions.

// CHECK-LABEL: func.func @refine
// CHECK-SAME: (%x: !torch.vtensor<[?,4],f32>, %b: !torch.vtensor<[1,4],f32>, %i: !torch.vtensor<[?],si64>) -> (!torch.vtensor<[?,4],f32>, !torch.vtensor<[?],f32>, !torch.vtensor<[],si64>)
func.func @refine(%x: !torch.vtensor<*,unk>, %b: !torch.vtensor<*,unk>, %i: !torch.vtensor<*,unk>) -> (!torch.vtensor<*,unk>, !torch.vtensor<*,unk>, !torch.vtensor<*,unk>) {
  %int1 = torch.constant.int 1
  %float = torch.constant.float 0.5
  %false = torch.constant.bool false
  %none = torch.constant.none
  // CHECK: torch.aten.add.Tensor {{.*}} -> !torch.vtensor<[?,4],f32>
  %0 = torch.aten.add.Tensor %x, %b, %int1 : !torch.vtensor<*,unk>, !torch.vtensor<*,unk>, !torch.int -> !torch.vtensor<*,unk>
  // CHECK: torch.aten.mul.Scalar {{.*}} -> !torch.vtensor<[?],f32>
  %1 = torch.aten.mul.Scalar %i, %float : !torch.vtensor<*,unk>, !torch.float -> !torch.vtensor<*,unk>
  // CHECK: torch.aten.sum {{.*}} -> !torch.vtensor<[],si64>
  %2 = torch.aten.sum %i, %none : !torch.vtensor<*,unk>, !torch.none -> !torch.vtensor<*,unk>
  func.return %0, %1, %2 : !torch.vtensor<*,unk>, !torch.vtensor<*,unk>, !torch.vtensor<*,unk>
}
