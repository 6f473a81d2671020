// RUN: xdsl-opt %s --split-input-file --verify-diagnostics | filecheck %s
// Arguments torch rejects fail verification with a message naming the op.

func.func @torch.aten.dropout$train(%x: !torch.vtensor<[3],f32>) {
  %p = torch.constant.float 0.5
  %true = torch.constant.bool true
  %0 = torch.aten.dropout %x, %p, %true : !torch.vtensor<[3],f32>, !torch.float, !torch.bool -> !torch.vtensor<[3],f32>
  func.return
}
// CHECK: torch.aten.dropout: train=True drops random elements; tsjit compiles dropout in evaluation mode only

// -----

func.func @torch.aten.dropout$p(%x: !torch.vtensor<[3],f32>) {
  %p = torch.constant.float 1.5
  %false = torch.constant.bool false
  %0 = torch.aten.dropout %x, %p, %false : !torch.vtensor<[3],f32>, !torch.float, !torch.bool -> !torch.vtensor<[3],f32>
  func.return
}
// CHECK: torch.aten.dropout: dropout probability has to be between 0 and 1, but got 1.5

// -----

func.func @torch.aten.batch_norm$training(%x: !torch.vtensor<[2,3],f32>, %m: !torch.vtensor<[3],f32>) {
  %none = torch.constant.none
  %true = torch.constant.bool true
  %float = torch.constant.float 0.1
  %0 = torch.aten.batch_norm %x, %none, %none, %m, %m, %true, %float, %float, %true : !torch.vtensor<[2,3],f32>, !torch.none, !torch.none, !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>, !torch.bool, !torch.float, !torch.float, !torch.bool -> !torch.vtensor<[2,3],f32>
  func.return
}
// CHECK: torch.aten.batch_norm: training=True updates running statistics; tsjit compiles batch_norm in inference mode only

// -----

func.func @torch.aten.batch_norm$channels(%x: !torch.vtensor<[2,3],f32>, %m: !torch.vtensor<[4],f32>) {
  %none = torch.constant.none
  %false = torch.constant.bool false
  %float = torch.constant.float 0.1
  %0 = torch.aten.batch_norm %x, %none, %none, %m, %m, %false, %float, %float, %false : !torch.vtensor<[2,3],f32>, !torch.none, !torch.none, !torch.vtensor<[4],f32>, !torch.vtensor<[4],f32>, !torch.bool, !torch.float, !torch.float, !torch.bool -> !torch.vtensor<[2,3],f32>
  func.return
}
// CHECK: torch.aten.batch_norm: expected running_mean of shape [3], got [4]

// -----

func.func @torch.aten.layer_norm$shape(%x: !torch.vtensor<[2,3],f32>) {
  %int4 = torch.constant.int 4
  %shape = torch.prim.ListConstruct %int4 : (!torch.int) -> !torch.list<int>
  %none = torch.constant.none
  %eps = torch.constant.float 1.0e-05
  %true = torch.constant.bool true
  %0 = torch.aten.layer_norm %x, %shape, %none, %none, %eps, %true : !torch.vtensor<[2,3],f32>, !torch.list<int>, !torch.none, !torch.none, !torch.float, !torch.bool -> !torch.vtensor<[2,3],f32>
  func.return
}
// CHECK: torch.aten.layer_norm: input of shape [2, 3] does not end in normalized_shape [4]

// -----

func.func @torch.aten.softmax.int$int(%x: !torch.vtensor<[3],si64>) {
  %int0 = torch.constant.int 0
  %none = torch.constant.none
  %0 = torch.aten.softmax.int %x, %int0, %none : !torch.vtensor<[3],si64>, !torch.int, !torch.none -> !torch.vtensor<[3],si64>
  func.return
}
// CHECK: torch.aten.softmax.int: expected a floating point input, got int64

// -----

func.func @torch.aten.mean$int(%x: !torch.vtensor<[3],si64>) {
  %none = torch.constant.none
  %0 = torch.aten.mean %x, %none : !torch.vtensor<[3],si64>, !torch.none -> !torch.vtensor<[],si64>
  func.return
}
// CHECK: torch.aten.mean: input dtype must be floating point, got int64

// -----

func.func @torch.aten.argmax$empty(%x: !torch.vtensor<[2,0],f32>) {
  %int1 = torch.constant.int 1
  %false = torch.constant.bool false
  %0 = torch.aten.argmax %x, %int1, %false : !torch.vtensor<[2,0],f32>, !torch.int, !torch.bool -> !torch.vtensor<[2],si64>
  func.return
}
// CHECK: torch.aten.argmax: expected a non-empty reduction dim, got shape [2, 0]

// -----

func.func @torch.aten.gelu$approximate(%x: !torch.vtensor<[3],f32>) {
  %str = torch.constant.str "fast"
  %0 = torch.aten.gelu %x, %str : !torch.vtensor<[3],f32>, !torch.str -> !torch.vtensor<[3],f32>
  func.return
}
// CHECK: torch.aten.gelu: approximate argument must be either none or tanh, not 'fast'

// -----

func.func @torch.aten.div.Tensor_mode$mode(%x: !torch.vtensor<[3],f32>) {
  %str = torch.constant.str "round"
  %0 = torch.aten.div.Tensor_mode %x, %x, %str : !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>, !torch.str -> !torch.vtensor<[3],f32>
  func.return
}
// CHECK: torch.aten.div.Tensor_mode: div expected rounding_mode to be one of None, 'trunc', or 'floor' but found 'round'

// -----

func.func @torch.aten.where.self$condition(%c: !torch.vtensor<[3],f32>, %x: !torch.vtensor<[3],f32>) {
  %0 = torch.aten.where.self %c, %x, %x : !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32> -> !torch.vtensor<[3],f32>
  func.return
}
// CHECK: torch.aten.where.self: where: the condition must be a bool tensor, got float32

// -----

func.func @torch.aten.gelu$int(%x: !torch.vtensor<[3],si64>) {
  %str = torch.constant.str "none"
  %0 = torch.aten.gelu %x, %str : !torch.vtensor<[3],si64>, !torch.str -> !torch.vtensor<[3],si64>
  func.return
}
// CHECK: torch.aten.gelu: int64 inputs are not supported (nor by torch)

// -----

func.func @torch.aten.pow.Tensor_Scalar$negative(%x: !torch.vtensor<[3],si64>) {
  %int = torch.constant.int -1
  %0 = torch.aten.pow.Tensor_Scalar %x, %int : !torch.vtensor<[3],si64>, !torch.int -> !torch.vtensor<[3],si64>
  func.return
}
// CHECK: torch.aten.pow.Tensor_Scalar: Integers to negative integer powers are not allowed.
