// RUN: xdsl-opt %s -t python --verify-diagnostics | filecheck %s

// An op the target does not know is an error naming the op and the target.
// CHECK: python target: cannot emit op 'arith.ceildivui'
func.func @unsigned_ceil_division(%a: i64, %b: i64) -> i64 {
  %r = arith.ceildivui %a, %b : i64
  func.return %r : i64
}
