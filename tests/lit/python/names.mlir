// RUN: xdsl-opt %s -t python | filecheck %s

// Function symbols and SSA name hints become Python identifiers, unique within a function;
// keywords, the globals of the generated module and builtins it calls get a suffix; values
// without a hint are v0, v1, ... Scalar arguments are cast to their declared type on entry
// (a Python float passed for an f32 stays float32); index and i1 arguments are left alone.
// CHECK-LABEL: def torch_aten_relu(x, range_v1, flag, n):
// CHECK-NEXT:      wide_vectors()
// CHECK-NEXT:      x = np.float32(x)
// CHECK-NEXT:      range_v1 = np.int64(range_v1)
// CHECK-NEXT:      np_v1 = x + x
// CHECK-NEXT:      v0 = np_v1 * np_v1
// CHECK-NEXT:      v1 = v0 * v0
// CHECK-NEXT:      sum = range_v1 + range_v1
// CHECK-NEXT:      np_v1_v1 = v1 + v1
// CHECK-NEXT:      lambda_v1 = np_v1_v1 - v1
// CHECK-NEXT:      r, r_v1 = pair(lambda_v1, sum)
// CHECK-NEXT:      return r, r_v1
func.func @"torch.aten.relu"(%x: f32, %range: i64, %flag: i1, %n: index) -> (f32, i64) {
  %np = arith.addf %x, %x : f32
  %0 = arith.mulf %np, %np : f32
  %1 = arith.mulf %0, %0 : f32
  %sum = arith.addi %range, %range : i64
  %np_v1 = arith.addf %1, %1 : f32
  %lambda = arith.subf %np_v1, %1 : f32
  %r:2 = func.call @pair(%lambda, %sum) : (f32, i64) -> (f32, i64)
  func.return %r#0, %r#1 : f32, i64
}

// CHECK-LABEL: def pair(x, y):
// CHECK:           return x, y
func.func @pair(%x: f32, %y: i64) -> (f32, i64) {
  func.return %x, %y : f32, i64
}

// CHECK-LABEL: def nothing():
// CHECK-NEXT:      wide_vectors()
// CHECK-NEXT:      return
func.func @nothing() {
  func.return
}
