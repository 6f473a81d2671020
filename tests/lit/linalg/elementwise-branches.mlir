// RUN: xdsl-opt %s -p convert-torch-to-linalg | filecheck %s
// Elementwise payload branches: raw condition operands, static string arguments, dtype rules.

// where: the bool condition is read raw (i1), the branches in the promoted dtype (an
// int32 tensor and a Python float give float32).
// CHECK-LABEL: func.func @torch.aten.where.ScalarOther
// CHECK: ^bb0(%[[C:.*]]: i1, %[[X:.*]]: i32, %{{.*}}: f32):
// CHECK-NEXT: %[[XF:.*]] = arith.sitofp %[[X]] : i32 to f32
// CHECK-NEXT: %[[K:.*]] = arith.constant 2.500000e+00 : f32
// CHECK-NEXT: arith.select %[[C]], %[[XF]], %[[K]] : f32
func.func @torch.aten.where.ScalarOther(%c: !torch.vtensor<[?,4],i1>, %x: !torch.vtensor<[4],si32>) -> !torch.vtensor<[?,4],f32> {
  %float = torch.constant.float 2.5
  %0 = torch.aten.where.ScalarOther %c, %x, %float : !torch.vtensor<[?,4],i1>, !torch.vtensor<[4],si32>, !torch.float -> !torch.vtensor<[?,4],f32>
  func.return %0 : !torch.vtensor<[?,4],f32>
}

// Rounding modes are compile-time strings: floor division of integers stays integer.
// CHECK-LABEL: func.func @torch.aten.div.Tensor_mode$floor_int
// CHECK: arith.floordivsi %{{.*}}, %{{.*}} : i64
func.func @torch.aten.div.Tensor_mode$floor_int(%x: !torch.vtensor<[?],si64>, %y: !torch.vtensor<[?],si64>) -> !torch.vtensor<[?],si64> {
  %str = torch.constant.str "floor"
  %0 = torch.aten.div.Tensor_mode %x, %y, %str : !torch.vtensor<[?],si64>, !torch.vtensor<[?],si64>, !torch.str -> !torch.vtensor<[?],si64>
  func.return %0 : !torch.vtensor<[?],si64>
}

// CHECK-LABEL: func.func @torch.aten.div.Tensor_mode$trunc_float
// CHECK: arith.divf
// CHECK-NEXT: math.trunc
func.func @torch.aten.div.Tensor_mode$trunc_float(%x: !torch.vtensor<[?],f32>, %y: !torch.vtensor<[?],f32>) -> !torch.vtensor<[?],f32> {
  %str = torch.constant.str "trunc"
  %0 = torch.aten.div.Tensor_mode %x, %y, %str : !torch.vtensor<[?],f32>, !torch.vtensor<[?],f32>, !torch.str -> !torch.vtensor<[?],f32>
  func.return %0 : !torch.vtensor<[?],f32>
}

// rounding_mode=None is true division: integers become float32.
// CHECK-LABEL: func.func @torch.aten.div.Tensor_mode$none_int
// CHECK: arith.sitofp
// CHECK: arith.sitofp
// CHECK-NEXT: arith.divf %{{.*}}, %{{.*}} : f32
func.func @torch.aten.div.Tensor_mode$none_int(%x: !torch.vtensor<[?],si64>, %y: !torch.vtensor<[?],si64>) -> !torch.vtensor<[?],f32> {
  %none = torch.constant.none
  %0 = torch.aten.div.Tensor_mode %x, %y, %none : !torch.vtensor<[?],si64>, !torch.vtensor<[?],si64>, !torch.none -> !torch.vtensor<[?],f32>
  func.return %0 : !torch.vtensor<[?],f32>
}

// gelu's approximate="none" uses erf; "tanh" the cubic tanh form.
// CHECK-LABEL: func.func @torch.aten.gelu$none
// CHECK: math.erf
// CHECK-NOT: math.tanh
func.func @torch.aten.gelu$none(%x: !torch.vtensor<[?],f32>) -> !torch.vtensor<[?],f32> {
  %str = torch.constant.str "none"
  %0 = torch.aten.gelu %x, %str : !torch.vtensor<[?],f32>, !torch.str -> !torch.vtensor<[?],f32>
  func.return %0 : !torch.vtensor<[?],f32>
}

// CHECK-LABEL: func.func @torch.aten.gelu$tanh
// CHECK: arith.constant 4.471500e-02 : f32
// CHECK: math.tanh
// CHECK-NOT: math.erf
func.func @torch.aten.gelu$tanh(%x: !torch.vtensor<[?],f32>) -> !torch.vtensor<[?],f32> {
  %str = torch.constant.str "tanh"
  %0 = torch.aten.gelu %x, %str : !torch.vtensor<[?],f32>, !torch.str -> !torch.vtensor<[?],f32>
  func.return %0 : !torch.vtensor<[?],f32>
}

// A constant exponent 2 is a multiplication; an integer power of integers is ipowi.
// CHECK-LABEL: func.func @torch.aten.pow.Tensor_Scalar$square
// CHECK: ^bb0(%[[X:.*]]: f32, %{{.*}}: f32):
// CHECK: arith.mulf %[[X]], %[[X]] : f32
// CHECK-NOT: math.powf
// CHECK: math.ipowi %{{.*}}, %{{.*}} : i64
func.func @torch.aten.pow.Tensor_Scalar$square(%x: !torch.vtensor<[?],f32>, %y: !torch.vtensor<[?],si64>) -> (!torch.vtensor<[?],f32>, !torch.vtensor<[?],si64>) {
  %int2 = torch.constant.int 2
  %int3 = torch.constant.int 3
  %0 = torch.aten.pow.Tensor_Scalar %x, %int2 : !torch.vtensor<[?],f32>, !torch.int -> !torch.vtensor<[?],f32>
  %1 = torch.aten.pow.Tensor_Scalar %y, %int3 : !torch.vtensor<[?],si64>, !torch.int -> !torch.vtensor<[?],si64>
  func.return %0, %1 : !torch.vtensor<[?],f32>, !torch.vtensor<[?],si64>
}

// clamp with min=None only takes the minimum with max.
// CHECK-LABEL: func.func @torch.aten.clamp$max_only
// CHECK-NOT: arith.maxsi
// CHECK: arith.minsi
func.func @torch.aten.clamp$max_only(%x: !torch.vtensor<[?],si64>) -> !torch.vtensor<[?],si64> {
  %none = torch.constant.none
  %int2 = torch.constant.int 2
  %0 = torch.aten.clamp %x, %none, %int2 : !torch.vtensor<[?],si64>, !torch.none, !torch.int -> !torch.vtensor<[?],si64>
  func.return %0 : !torch.vtensor<[?],si64>
}

// Logical ops read every input as `x != 0` (NaN is true: cmpf une).
// CHECK-LABEL: func.func @torch.aten.logical_and$mixed
// CHECK: arith.cmpf une
// CHECK: arith.cmpi ne
// CHECK-NEXT: arith.andi
func.func @torch.aten.logical_and$mixed(%x: !torch.vtensor<[?],f32>, %y: !torch.vtensor<[?],si64>) -> !torch.vtensor<[?],i1> {
  %0 = torch.aten.logical_and %x, %y : !torch.vtensor<[?],f32>, !torch.vtensor<[?],si64> -> !torch.vtensor<[?],i1>
  func.return %0 : !torch.vtensor<[?],i1>
}

// to.dtype: the payload is the identity, the conversion the cast to the result type.
// CHECK-LABEL: func.func @torch.aten.to.dtype$f32_to_i32
// CHECK: arith.fptosi %{{.*}} : f32 to i32
func.func @torch.aten.to.dtype$f32_to_i32(%x: !torch.vtensor<[?],f32>) -> !torch.vtensor<[?],si32> {
  %int3 = torch.constant.int 3
  %false = torch.constant.bool false
  %none = torch.constant.none
  %0 = torch.aten.to.dtype %x, %int3, %false, %false, %none : !torch.vtensor<[?],f32>, !torch.int, !torch.bool, !torch.bool, !torch.none -> !torch.vtensor<[?],si32>
  func.return %0 : !torch.vtensor<[?],si32>
}

// maximum of bools is `or` (a signed i1 max would pick false over true).
// CHECK-LABEL: func.func @torch.aten.maximum$bool
// CHECK: arith.ori
func.func @torch.aten.maximum$bool(%x: !torch.vtensor<[?],i1>, %y: !torch.vtensor<[?],i1>) -> !torch.vtensor<[?],i1> {
  %0 = torch.aten.maximum %x, %y : !torch.vtensor<[?],i1>, !torch.vtensor<[?],i1> -> !torch.vtensor<[?],i1>
  func.return %0 : !torch.vtensor<[?],i1>
}

// A 0-d tensor operand is read once before the generic, not per element.
// CHECK-LABEL: func.func @torch.aten.div.Tensor$zero_dim
// CHECK: %[[S:.*]] = tensor.extract %s[] : tensor<f32>
// CHECK: linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<?x4xf32>)
// CHECK: arith.divf %{{.*}}, %[[S]] : f32
func.func @torch.aten.div.Tensor$zero_dim(%x: !torch.vtensor<[?,4],f32>, %s: !torch.vtensor<[],f32>) -> !torch.vtensor<[?,4],f32> {
  %0 = torch.aten.div.Tensor %x, %s : !torch.vtensor<[?,4],f32>, !torch.vtensor<[],f32> -> !torch.vtensor<[?,4],f32>
  func.return %0 : !torch.vtensor<[?,4],f32>
}
