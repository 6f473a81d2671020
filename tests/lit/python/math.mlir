// RUN: xdsl-opt %s -t python | filecheck %s

// MLIR's math ops map to Python's math module, which numba keeps in float32; floor/ceil
// use numpy (math.floor returns an int).
// CHECK-LABEL: def unary(x):
// CHECK-NEXT:      wide_vectors()
// CHECK-NEXT:      x = np.float32(x)
// CHECK-NEXT:      tanh = math.tanh(x)
// CHECK-NEXT:      exp = math.exp(tanh)
// CHECK-NEXT:      log1p = math.log1p(exp)
// CHECK-NEXT:      erf = math.erf(log1p)
// CHECK-NEXT:      floor = np.floor(erf)
// CHECK-NEXT:      ceil = np.ceil(floor)
// CHECK-NEXT:      abs_v1 = abs(ceil)
// CHECK-NEXT:      rsqrt = np.float32(1.0 / math.sqrt(np.float64(abs_v1)))
// CHECK-NEXT:      pow = np.power(rsqrt, x)
// CHECK-NEXT:      fma = x * pow + rsqrt
// CHECK-NEXT:      return fma
func.func @unary(%x: f32) -> f32 {
  %tanh = math.tanh %x : f32
  %exp = math.exp %tanh : f32
  %log1p = math.log1p %exp : f32
  %erf = math.erf %log1p : f32
  %floor = math.floor %erf : f32
  %ceil = math.ceil %floor : f32
  %abs = math.absf %ceil : f32
  %rsqrt = math.rsqrt %abs : f32
  %pow = math.powf %rsqrt, %x : f32
  %fma = math.fma %x, %pow, %rsqrt : f32
  func.return %fma : f32
}

// Float min/max: the LLVM intrinsics of their semantics (one `maxps` against a constant):
// maximumf/minimumf propagate NaN, maxnumf/minnumf ignore it.
// CHECK-LABEL: def minmax(a, b):
// CHECK:           hi = maximum(a, b)
// CHECK-NEXT:      lo = minimum(a, b)
// CHECK-NEXT:      hin = maxnum(a, b)
// CHECK-NEXT:      lon = minnum(a, b)
func.func @minmax(%a: f64, %b: f64) -> (f64, f64, f64, f64) {
  %hi = arith.maximumf %a, %b : f64
  %lo = arith.minimumf %a, %b : f64
  %hin = arith.maxnumf %a, %b : f64
  %lon = arith.minnumf %a, %b : f64
  func.return %hi, %lo, %hin, %lon : f64, f64, f64, f64
}
