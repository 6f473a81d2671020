// RUN: xdsl-opt %s -p torch-emulate-half | filecheck %s
// Half tensors become float32 tensors; an ATen op whose result was half is followed by the
// rounding to that half format, which its uses read; casts and `dtype=` arguments naming a
// half dtype name float32; `x.dtype` of a half tensor folds to the half dtype's code.

// CHECK-LABEL: func.func @ops
// CHECK-SAME:    (%x: !torch.vtensor<[?,4],f32>, %y: !torch.vtensor<[4],f32>) -> (!torch.vtensor<[?,4],f32>, !torch.vtensor<[],f32>)
// CHECK:         %[[ADD:.*]] = torch.aten.add.Tensor %x, %y, %int1
// CHECK-NEXT:    %[[R1:.*]] = torch.aten._round_to_float16 %[[ADD]]
// CHECK:         %[[SUM:.*]] = torch.aten.sum %[[R1]], %none
// CHECK-NEXT:    %[[R2:.*]] = torch.aten._round_to_float16 %[[SUM]]
// CHECK:         func.return %[[R1]], %[[R2]]
func.func @ops(%x: !torch.vtensor<[?,4],f16>, %y: !torch.vtensor<[4],f16>) -> (!torch.vtensor<[?,4],f16>, !torch.vtensor<[],f16>) {
  %int1 = torch.constant.int 1
  %none = torch.constant.none
  %a = torch.aten.add.Tensor %x, %y, %int1 : !torch.vtensor<[?,4],f16>, !torch.vtensor<[4],f16>, !torch.int -> !torch.vtensor<[?,4],f16>
  %s = torch.aten.sum %a, %none : !torch.vtensor<[?,4],f16>, !torch.none -> !torch.vtensor<[],f16>
  func.return %a, %s : !torch.vtensor<[?,4],f16>, !torch.vtensor<[],f16>
}

// A bfloat16 result of float32 inputs: `to.dtype` names float32, then the bfloat16 rounding;
// a mixed float16 + float32 add is float32 in torch, so nothing rounds it.
// CHECK-LABEL: func.func @casts
// CHECK:         %[[F32:.*]] = torch.constant.int 6
// CHECK-NEXT:    %[[TO:.*]] = torch.aten.to.dtype %x, %[[F32]]
// CHECK-NEXT:    %[[RB:.*]] = torch.aten._round_to_bfloat16 %[[TO]]
// CHECK:         %[[HALF:.*]] = torch.aten._cast_Float %x, %false
// CHECK-NEXT:    %[[RH:.*]] = torch.aten._round_to_float16 %[[HALF]]
// CHECK-NEXT:    %[[MIX:.*]] = torch.aten.add.Tensor %[[RH]], %x, %int1
// CHECK-NOT:     _round_to
// CHECK:         func.return %[[RB]], %[[MIX]]
func.func @casts(%x: !torch.vtensor<[3],f32>) -> (!torch.vtensor<[3],bf16>, !torch.vtensor<[3],f32>) {
  %int15 = torch.constant.int 15
  %int1 = torch.constant.int 1
  %false = torch.constant.bool false
  %none = torch.constant.none
  %b = torch.aten.to.dtype %x, %int15, %false, %false, %none : !torch.vtensor<[3],f32>, !torch.int, !torch.bool, !torch.bool, !torch.none -> !torch.vtensor<[3],bf16>
  %h = torch.aten._cast_Half %x, %false : !torch.vtensor<[3],f32>, !torch.bool -> !torch.vtensor<[3],f16>
  %m = torch.aten.add.Tensor %h, %x, %int1 : !torch.vtensor<[3],f16>, !torch.vtensor<[3],f32>, !torch.int -> !torch.vtensor<[3],f32>
  func.return %b, %m : !torch.vtensor<[3],bf16>, !torch.vtensor<[3],f32>
}

// CHECK-LABEL: func.func @dtype_of_half
// CHECK:         %[[CODE:.*]] = torch.constant.int 5
// CHECK:         func.return %[[CODE]]
func.func @dtype_of_half(%x: !torch.vtensor<[3],f16>) -> !torch.int {
  %d = torch.prim.dtype %x : !torch.vtensor<[3],f16> -> !torch.int
  func.return %d : !torch.int
}

// A Python number an add promotes with a half tensor is rounded to half, as torch casts it;
// mul reads it in float32, as torch's kernel does.
// CHECK-LABEL: func.func @scalars
// CHECK:         %[[HALF_TENTH:.*]] = torch.constant.float 0.0999755859375
// CHECK-NEXT:    torch.aten.add.Scalar %x, %[[HALF_TENTH]], %int1
// CHECK:         torch.aten.mul.Scalar %x, %float
func.func @scalars(%x: !torch.vtensor<[3],f16>) -> (!torch.vtensor<[3],f16>, !torch.vtensor<[3],f16>) {
  %float = torch.constant.float 1.000000e-01
  %int1 = torch.constant.int 1
  %a = torch.aten.add.Scalar %x, %float, %int1 : !torch.vtensor<[3],f16>, !torch.float, !torch.int -> !torch.vtensor<[3],f16>
  %m = torch.aten.mul.Scalar %x, %float : !torch.vtensor<[3],f16>, !torch.float -> !torch.vtensor<[3],f16>
  func.return %a, %m : !torch.vtensor<[3],f16>, !torch.vtensor<[3],f16>
}
