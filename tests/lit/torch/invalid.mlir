// RUN: xdsl-opt %s --split-input-file --verify-diagnostics | filecheck %s
// Ill-typed torch IR fails verification with a message naming the op.

func.func @torch.aten.add.Tensor$bad_broadcast(%x: !torch.vtensor<[3,4],f32>, %b: !torch.vtensor<[5],f32>) {
  %int1 = torch.constant.int 1
  %0 = torch.aten.add.Tensor %x, %b, %int1 : !torch.vtensor<[3,4],f32>, !torch.vtensor<[5],f32>, !torch.int -> !torch.vtensor<[3,4],f32>
  func.return
}
// CHECK: torch.aten.add.Tensor: shapes [3,4], [5] cannot be broadcast together

// -----

func.func @torch.aten.tanh$wrong_dtype(%x: !torch.vtensor<[3,4],f32>) {
  %0 = torch.aten.tanh %x : !torch.vtensor<[3,4],f32> -> !torch.vtensor<[3,4],si64>
  func.return
}
// CHECK: torch.aten.tanh: result #0 has type !torch.vtensor<[3,4],si64>, but the operands give !torch.vtensor<[3,4],f32>

// -----

func.func @torch.aten.mm$inner_mismatch(%a: !torch.vtensor<[3,4],f32>, %b: !torch.vtensor<[5,6],f32>) {
  %0 = torch.aten.mm %a, %b : !torch.vtensor<[3,4],f32>, !torch.vtensor<[5,6],f32> -> !torch.vtensor<[3,6],f32>
  func.return
}
// CHECK: torch.aten.mm: mm: shapes [3, 4] and [5, 6] cannot be multiplied (4 != 5)

// -----

func.func @torch.aten.sum.dim_IntList$dim_out_of_range(%x: !torch.vtensor<[3,4],f32>) {
  %int2 = torch.constant.int 2
  %false = torch.constant.bool false
  %none = torch.constant.none
  %dims = torch.prim.ListConstruct %int2 : (!torch.int) -> !torch.list<int>
  %0 = torch.aten.sum.dim_IntList %x, %dims, %false, %none : !torch.vtensor<[3,4],f32>, !torch.list<int>, !torch.bool, !torch.none -> !torch.vtensor<[3],f32>
  func.return
}
// CHECK: Dimension out of range (expected to be in range of [-2, 1], but got 2)

// -----

func.func @torch.aten.tanh$scalar_operand(%x: !torch.int) {
  %0 = torch.aten.tanh %x : !torch.int -> !torch.vtensor<[3],f32>
  func.return
}
// CHECK: operand 'self_' at position 0 does not verify

// -----

func.func @torch.aten.matmul$dtype_mismatch(%a: !torch.vtensor<[3,4],f32>, %b: !torch.vtensor<[4],f64>) {
  %0 = torch.aten.matmul %a, %b : !torch.vtensor<[3,4],f32>, !torch.vtensor<[4],f64> -> !torch.vtensor<[3],f32>
  func.return
}
// CHECK: matmul: expected both operands to have the same dtype, got float32 and float64
