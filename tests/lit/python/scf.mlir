// RUN: xdsl-opt %s -t python | filecheck %s

// iter_args are plain variables named after the loop result, updated by one tuple
// assignment per iteration (so a swap is safe); the results are those variables.
// CHECK-LABEL: def fib(n):
// CHECK-NEXT:      wide_vectors()
// CHECK-NEXT:      n = np.int64(n)
// CHECK-NEXT:      i = np.intp(n)
// CHECK-NEXT:      a, b = np.int64(0), np.int64(1)
// CHECK-NEXT:      for k in range(i):
// CHECK-NEXT:          c = a + b
// CHECK-NEXT:          a, b = b, c
// CHECK-NEXT:      return a
func.func @fib(%n: i64) -> i64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %i = arith.index_cast %n : i64 to index
  %a, %b = scf.for %k = %c0 to %i step %c1 iter_args(%x = %zero, %y = %one) -> (i64, i64) {
    %c = arith.addi %x, %y : i64
    scf.yield %y, %c : i64, i64
  }
  func.return %a : i64
}

// scf.if with results assigns them in both branches; without results there is no else.
// CHECK-LABEL: def clamp(x, out):
// CHECK-NEXT:      wide_vectors()
// CHECK-NEXT:      x = np.float32(x)
// CHECK-NEXT:      neg = x < np.float32(0.0)
// CHECK-NEXT:      if neg:
// CHECK-NEXT:          r = np.float32(0.0)
// CHECK-NEXT:      else:
// CHECK-NEXT:          r = x
// CHECK-NEXT:      if neg:
// CHECK-NEXT:          out[()] = r
// CHECK-NEXT:      return r
func.func @clamp(%x: f32, %out: memref<f32>) -> f32 {
  %zero = arith.constant 0.0 : f32
  %neg = arith.cmpf olt, %x, %zero : f32
  %r = scf.if %neg -> (f32) {
    scf.yield %zero : f32
  } else {
    scf.yield %x : f32
  }
  scf.if %neg {
    memref.store %r, %out[] : memref<f32>
  }
  func.return %r : f32
}

// scf.while is `while True:`: the before region computes the condition, the values passed
// by scf.condition become the after region's arguments and, on exit, the results; every 1024
// iterations the loop checks for a pending Ctrl-C (a function that holds the GIL).
// CHECK-LABEL: def halvings(n0):
// CHECK-NEXT:      wide_vectors()
// CHECK-NEXT:      n0 = np.int64(n0)
// CHECK-NEXT:      n, k = n0, np.int64(0)
// CHECK-NEXT:      ticks = 0
// CHECK-NEXT:      while True:
// CHECK-NEXT:          ticks = (ticks + 1) & 1023
// CHECK-NEXT:          if ticks == 0 and pending_interrupt():
// CHECK-NEXT:              raise CompiledLoopInterrupted("a compiled while loop was interrupted")
// CHECK-NEXT:          more = n > np.int64(1)
// CHECK-NEXT:          m, steps = n, k
// CHECK-NEXT:          if not more:
// CHECK-NEXT:              break
// CHECK-NEXT:          half = m // np.int64(2)
// CHECK-NEXT:          k1 = steps + np.int64(1)
// CHECK-NEXT:          n, k = half, k1
// CHECK-NEXT:      return steps
func.func @halvings(%n0: i64) -> i64 {
  %zero = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %two = arith.constant 2 : i64
  %res:2 = scf.while (%n = %n0, %k = %zero) : (i64, i64) -> (i64, i64) {
    %more = arith.cmpi sgt, %n, %one : i64
    scf.condition(%more) %n, %k : i64, i64
  } do {
  ^bb0(%m: i64, %steps: i64):
    %half = arith.floordivsi %m, %two : i64
    %k1 = arith.addi %steps, %one : i64
    scf.yield %half, %k1 : i64, i64
  }
  func.return %res#1 : i64
}
