// RUN: xdsl-opt %s -t python --verify-diagnostics | filecheck %s

// An op the target does not know is an error naming the op and the target.
// CHECK: python target: cannot emit op 'arith.remui'
func.func @unsigned_remainder(%a: i64, %b: i64) -> i64 {
  %r = arith.remui %a, %b : i64
  func.return %r : i64
}
