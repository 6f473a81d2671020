// RUN: xdsl-opt %s -p torch-decompose | filecheck %s
// RUN: xdsl-opt %s -p torch-decompose,torch-canonicalize | filecheck %s --check-prefix=FOLD
// Ops with a `decompose` hook become core ops: `t` of a matrix is `transpose(x, 0, 1)`
// (the same lowering), after which transpose folds see through it.

// CHECK-LABEL: func.func @t_is_transpose
// CHECK:         %int1 = torch.constant.int 1
// CHECK-NEXT:    %[[Z:.*]] = torch.constant.int 0
// CHECK-NEXT:    %[[O:.*]] = torch.constant.int 1
// CHECK-NEXT:    %[[T:.*]] = torch.aten.transpose.int %x, %[[Z]], %[[O]] : !torch.vtensor<[?,5],f32>, !torch.int, !torch.int -> !torch.vtensor<[5,?],f32>
// CHECK-NOT:     torch.aten.t {{.*}}
// FOLD-LABEL:  func.func @t_is_transpose
// FOLD-NEXT:     func.return %x
func.func @t_is_transpose(%x: !torch.vtensor<[?,5],f32>) -> !torch.vtensor<[?,5],f32> {
  %int0 = torch.constant.int 0
  %int1 = torch.constant.int 1
  %a = torch.aten.t %x : !torch.vtensor<[?,5],f32> -> !torch.vtensor<[5,?],f32>
  %b = torch.aten.transpose.int %a, %int1, %int0 : !torch.vtensor<[5,?],f32>, !torch.int, !torch.int -> !torch.vtensor<[?,5],f32>
  func.return %b : !torch.vtensor<[?,5],f32>
}

// Core ops (everything without a hook) are left alone.
// CHECK-LABEL: func.func @core
// CHECK-NEXT:    torch.aten.tanh
// CHECK-NEXT:    torch.aten.mm
func.func @core(%x: !torch.vtensor<[3,4],f32>, %w: !torch.vtensor<[4,5],f32>) -> !torch.vtensor<[3,5],f32> {
  %a = torch.aten.tanh %x : !torch.vtensor<[3,4],f32> -> !torch.vtensor<[3,4],f32>
  %b = torch.aten.mm %a, %w : !torch.vtensor<[3,4],f32>, !torch.vtensor<[4,5],f32> -> !torch.vtensor<[3,5],f32>
  func.return %b : !torch.vtensor<[3,5],f32>
}
