// RUN: xdsl-opt %s -t python | filecheck %s

// arith.bitcast (in @casts below) makes the source define its helper, after the header.
// CHECK:       FASTMATH =
// CHECK:       @intrinsic
// CHECK-NEXT:  def bitcast(typingctx, value, dtype):

// Constants are inlined in their exact dtype, so float32 never widens to float64.
// CHECK-LABEL: def constants(out32, out64, outi):
// CHECK-NEXT:      wide_vectors()
// CHECK-NEXT:      out32[0] = np.float32(2.5)
// CHECK-NEXT:      out32[1] = np.float32(np.nan)
// CHECK-NEXT:      out32[2] = np.float32(np.inf)
// CHECK-NEXT:      out32[(-1)] = np.float32(-np.inf)
// CHECK-NEXT:      out64[0] = np.float64(0.1)
// CHECK-NEXT:      outi[0] = np.int32(-3)
// CHECK-NEXT:      v0 = np.int64(7) == np.int64(7)
// CHECK-NEXT:      v1 = v0 & True
// CHECK-NEXT:      v2 = v1 ^ False
func.func @constants(%out32: memref<4xf32>, %out64: memref<1xf64>, %outi: memref<1xi32>) -> i1 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %cm1 = arith.constant -1 : index
  %f = arith.constant 2.5 : f32
  %nan = arith.constant 0x7FC00000 : f32
  %inf = arith.constant 0x7F800000 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %d = arith.constant 0.1 : f64
  %i = arith.constant -3 : i32
  %l = arith.constant 7 : i64
  %t = arith.constant true
  %f0 = arith.constant false
  memref.store %f, %out32[%c0] : memref<4xf32>
  memref.store %nan, %out32[%c1] : memref<4xf32>
  memref.store %inf, %out32[%c2] : memref<4xf32>
  memref.store %ninf, %out32[%cm1] : memref<4xf32>
  memref.store %d, %out64[%c0] : memref<1xf64>
  memref.store %i, %outi[%c0] : memref<1xi32>
  %0 = arith.cmpi eq, %l, %l : i64
  %1 = arith.andi %0, %t : i1
  %2 = arith.xori %1, %f0 : i1
  func.return %2 : i1
}

// Ordered predicates are Python's <, >, <=, >=, == (False on NaN); unordered ones negate the
// opposite ordered one; une is != (True on NaN).
// CHECK-LABEL: def predicates(a, b):
// CHECK:           one = (a < b) | (a > b)
// CHECK-NEXT:      ord = (a == a) & (b == b)
// CHECK-NEXT:      ueq = not ((a < b) | (a > b))
// CHECK-NEXT:      ult = not (a >= b)
// CHECK-NEXT:      une = a != b
// CHECK-NEXT:      uno = (a != a) | (b != b)
// CHECK-NEXT:      sel = a if one else b
// CHECK:           ugt = np.uint64(i) > np.uint64(j)
func.func @predicates(%a: f32, %b: f32) -> (f32, i1, i1, i1, i1, i1) {
  %one = arith.cmpf one, %a, %b : f32
  %ord = arith.cmpf ord, %a, %b : f32
  %ueq = arith.cmpf ueq, %a, %b : f32
  %ult = arith.cmpf ult, %a, %b : f32
  %une = arith.cmpf une, %a, %b : f32
  %uno = arith.cmpf uno, %a, %b : f32
  %sel = arith.select %one, %a, %b : f32
  %i = arith.fptosi %a : f32 to i64
  %j = arith.fptosi %b : f32 to i64
  %ugt = arith.cmpi ugt, %i, %j : i64
  func.return %sel, %ord, %ueq, %ult, %une, %ugt : f32, i1, i1, i1, i1, i1
}

// numba widens i32 arithmetic to int64: results are cast back. divsi / remsi truncate
// toward zero, floordivsi floors (Python's //), ceildivsi rounds up.
// CHECK-LABEL: def integers(x, y):
// CHECK-NEXT:      wide_vectors()
// CHECK-NEXT:      x = np.int32(x)
// CHECK-NEXT:      y = np.int32(y)
// CHECK-NEXT:      add = np.int32(x + y)
// CHECK-NEXT:      div = np.int32(x // y + ((x % y != 0) & ((x < 0) != (y < 0))))
// CHECK-NEXT:      rem = np.int32(x % y - y * ((x % y != 0) & ((x < 0) != (y < 0))))
// CHECK-NEXT:      floor = np.int32(x // y)
// CHECK-NEXT:      ceil = np.int32(-(-x // y))
// CHECK-NEXT:      max_v1 = np.int32(max(x, y))
func.func @integers(%x: i32, %y: i32) -> (i32, i32, i32, i32, i32, i32) {
  %add = arith.addi %x, %y : i32
  %div = arith.divsi %x, %y : i32
  %rem = arith.remsi %x, %y : i32
  %floor = arith.floordivsi %x, %y : i32
  %ceil = arith.ceildivsi %x, %y : i32
  %max = arith.maxsi %x, %y : i32
  func.return %add, %div, %rem, %floor, %ceil, %max : i32, i32, i32, i32, i32, i32
}

// Casts produce their exact type; an i1 read as signed is 0 or -1; bitcast uses the
// `bitcast` intrinsic, defined after the header (see the top of the file).
// CHECK-LABEL: def casts(x, k, flag):
// CHECK:           f = np.float32(k)
// CHECK-NEXT:      i = np.int64(x)
// CHECK-NEXT:      d = np.float64(x)
// CHECK-NEXT:      h = np.float32(d)
// CHECK-NEXT:      t = np.int32(k)
// CHECK-NEXT:      s = np.int64(t)
// CHECK-NEXT:      u = np.int64(np.uint32(t))
// CHECK-NEXT:      m = np.int64(-np.int64(flag))
// CHECK-NEXT:      fu = np.float32(flag)
// CHECK-NEXT:      bits = bitcast(x, np.int32)
// CHECK-NEXT:      idx = np.intp(k)
// CHECK-NEXT:      odd = (k & 1) != 0
func.func @casts(%x: f32, %k: i64, %flag: i1) -> (f32, i64, f32, i64, i64, i64, f32, i32, index, i1) {
  %f = arith.sitofp %k : i64 to f32
  %i = arith.fptosi %x : f32 to i64
  %d = arith.extf %x : f32 to f64
  %h = arith.truncf %d : f64 to f32
  %t = arith.trunci %k : i64 to i32
  %s = arith.extsi %t : i32 to i64
  %u = arith.extui %t : i32 to i64
  %m = arith.extsi %flag : i1 to i64
  %fu = arith.uitofp %flag : i1 to f32
  %bits = arith.bitcast %x : f32 to i32
  %idx = arith.index_cast %k : i64 to index
  %odd = arith.trunci %k : i64 to i1
  func.return %f, %i, %h, %s, %u, %m, %fu, %bits, %idx, %odd : f32, i64, f32, i64, i64, i64, f32, i32, index, i1
}
