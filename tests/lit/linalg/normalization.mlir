// RUN: xdsl-opt %s -p convert-torch-to-linalg | filecheck %s
// Normalization ops lower to a few generics: reductions into keepdim tensors, then elementwise.

// Softmax: the row max is an integer max of order-preserving keys (bits ^ ((bits >> 31) &
// 0x7fffffff), from the key of -inf), turned back into floats by a small generic; one
// generic yields exp(x - max) per element (its output map uses the reduced dim; the exp is
// marked: its argument is <= 0 or NaN) and adds it to the sum; then, as in ATen, 1 / sum once
// per row and a product that writes over the exponentials (its init): no division per
// element. Sums keep the dim as size 1 and are read back through (d0, 0).
// CHECK-LABEL: func.func @torch.aten.softmax.int
// CHECK: arith.constant -2139095041 : i32
// CHECK: linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<?x5xf32>) outs(%{{.*}} : tensor<?x1xi32>)
// CHECK: arith.bitcast %{{.*}} : f32 to i32
// CHECK: arith.xori
// CHECK-NEXT: %[[GT:.*]] = arith.cmpi sgt
// CHECK-NEXT: arith.select %[[GT]]
// CHECK: %[[TOP:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]} ins(%{{.*}} : tensor<?x1xi32>) outs(%{{.*}} : tensor<?x1xf32>)
// CHECK: arith.bitcast %{{.*}} : i32 to f32
// CHECK: %[[EXPS:.*]], %[[SUMS:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>], iterator_types = ["parallel", "reduction"]} ins(%x, %[[TOP]] :
// CHECK: %[[E:.*]] = math.exp %{{.*}} {tsjit.nonpositive_argument} : f32
// CHECK-NEXT: %[[S:.*]] = arith.addf %{{.*}}, %[[E]]
// CHECK-NEXT: linalg.yield %[[E]], %[[S]]
// CHECK: %[[INV:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]} ins(%[[SUMS]] : tensor<?x1xf32>) outs(%{{.*}} : tensor<?x1xf32>)
// CHECK: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT: arith.divf %[[ONE]], %{{.*}} : f32
// CHECK: linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%[[INV]] : tensor<?x1xf32>) outs(%[[EXPS]] : tensor<?x5xf32>)
// CHECK-NOT: math.exp
// CHECK-NOT: arith.divf
// CHECK: arith.mulf
func.func @torch.aten.softmax.int(%x: !torch.vtensor<[?,5],f32>) -> !torch.vtensor<[?,5],f32> {
  %int1 = torch.constant.int 1
  %none = torch.constant.none
  %0 = torch.aten.softmax.int %x, %int1, %none : !torch.vtensor<[?,5],f32>, !torch.int, !torch.none -> !torch.vtensor<[?,5],f32>
  func.return %0 : !torch.vtensor<[?,5],f32>
}

// log_softmax with dtype=float64 over dim 0: the input is widened in every body and the
// result is x - max - log(sum).
// CHECK-LABEL: func.func @torch.aten.log_softmax.int$f64
// CHECK: affine_map<(d0, d1) -> (0, d1)>], iterator_types = ["reduction", "parallel"]
// CHECK: arith.extf %{{.*}} : f32 to f64
// CHECK: math.log %{{.*}} : f64
// CHECK-NEXT: arith.subf
// CHECK-NOT: math.exp
// CHECK: -> tensor<?x5xf64>
func.func @torch.aten.log_softmax.int$f64(%x: !torch.vtensor<[?,5],f32>) -> !torch.vtensor<[?,5],f64> {
  %int0 = torch.constant.int 0
  %int7 = torch.constant.int 7
  %0 = torch.aten.log_softmax.int %x, %int0, %int7 : !torch.vtensor<[?,5],f32>, !torch.int, !torch.int -> !torch.vtensor<[?,5],f64>
  func.return %0 : !torch.vtensor<[?,5],f64>
}

// layer_norm: sums, means (divided by the constant count 4), squared deviations,
// rsqrt(var + eps), then the elementwise generic reading weight and bias by the last dim.
// CHECK-LABEL: func.func @torch.aten.layer_norm
// CHECK: %[[N:.*]] = arith.constant 4.000000e+00 : f32
// CHECK: iterator_types = ["parallel", "parallel", "reduction"]
// CHECK: arith.divf %{{.*}}, %[[N]] : f32
// CHECK: iterator_types = ["parallel", "parallel", "reduction"]
// CHECK: arith.mulf %[[D:.*]], %[[D]] : f32
// CHECK: arith.constant 1.000000e-05 : f32
// CHECK: math.rsqrt
// CHECK: affine_map<(d0, d1, d2) -> (d2)>, affine_map<(d0, d1, d2) -> (d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%x, %{{.*}}, %{{.*}}, %w, %b :
func.func @torch.aten.layer_norm(%x: !torch.vtensor<[?,3,4],f32>, %w: !torch.vtensor<[4],f32>, %b: !torch.vtensor<[4],f32>) -> !torch.vtensor<[?,3,4],f32> {
  %int4 = torch.constant.int 4
  %shape = torch.prim.ListConstruct %int4 : (!torch.int) -> !torch.list<int>
  %eps = torch.constant.float 1.0e-05
  %true = torch.constant.bool true
  %0 = torch.aten.layer_norm %x, %shape, %w, %b, %eps, %true : !torch.vtensor<[?,3,4],f32>, !torch.list<int>, !torch.vtensor<[4],f32>, !torch.vtensor<[4],f32>, !torch.float, !torch.bool -> !torch.vtensor<[?,3,4],f32>
  func.return %0 : !torch.vtensor<[?,3,4],f32>
}

// Without weight and bias the last generic reads only x, the means and the rstds; two
// normalized dims count 12 elements.
// CHECK-LABEL: func.func @torch.aten.layer_norm$no_affine
// CHECK: arith.constant 1.200000e+01 : f32
// CHECK: iterator_types = ["parallel", "reduction", "reduction"]
// CHECK: ins(%x, %{{[0-9]+}}, %{{[0-9]+}} : tensor<?x3x4xf32>, tensor<?x1x1xf32>, tensor<?x1x1xf32>)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: arith.subf
// CHECK-NEXT: arith.mulf
// CHECK-NEXT: linalg.yield
func.func @torch.aten.layer_norm$no_affine(%x: !torch.vtensor<[?,3,4],f32>) -> !torch.vtensor<[?,3,4],f32> {
  %int3 = torch.constant.int 3
  %int4 = torch.constant.int 4
  %shape = torch.prim.ListConstruct %int3, %int4 : (!torch.int, !torch.int) -> !torch.list<int>
  %none = torch.constant.none
  %eps = torch.constant.float 1.0e-05
  %true = torch.constant.bool true
  %0 = torch.aten.layer_norm %x, %shape, %none, %none, %eps, %true : !torch.vtensor<[?,3,4],f32>, !torch.list<int>, !torch.none, !torch.none, !torch.float, !torch.bool -> !torch.vtensor<[?,3,4],f32>
  func.return %0 : !torch.vtensor<[?,3,4],f32>
}

// batch_norm (inference): per-channel scale and shift over [3], then x * scale + shift
// with the channel read by d1.
// CHECK-LABEL: func.func @torch.aten.batch_norm
// CHECK: ins(%v, %w : tensor<3xf32>, tensor<3xf32>)
// CHECK: math.sqrt
// CHECK: ins(%m, %{{.*}}, %b : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>)
// CHECK: affine_map<(d0, d1, d2, d3) -> (d1)>, affine_map<(d0, d1, d2, d3) -> (d1)>
// CHECK: arith.mulf
// CHECK-NEXT: arith.addf
func.func @torch.aten.batch_norm(%x: !torch.vtensor<[?,3,?,?],f32>, %w: !torch.vtensor<[3],f32>, %b: !torch.vtensor<[3],f32>, %m: !torch.vtensor<[3],f32>, %v: !torch.vtensor<[3],f32>) -> !torch.vtensor<[?,3,?,?],f32> {
  %false = torch.constant.bool false
  %momentum = torch.constant.float 0.1
  %eps = torch.constant.float 1.0e-05
  %0 = torch.aten.batch_norm %x, %w, %b, %m, %v, %false, %momentum, %eps, %false : !torch.vtensor<[?,3,?,?],f32>, !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>, !torch.bool, !torch.float, !torch.float, !torch.bool -> !torch.vtensor<[?,3,?,?],f32>
  func.return %0 : !torch.vtensor<[?,3,?,?],f32>
}

// Eval-mode dropout is its input.
// CHECK-LABEL: func.func @torch.aten.dropout
// CHECK-NEXT: func.return %x : tensor<?x5xf32>
func.func @torch.aten.dropout(%x: !torch.vtensor<[?,5],f32>) -> !torch.vtensor<[?,5],f32> {
  %p = torch.constant.float 0.1
  %false = torch.constant.bool false
  %0 = torch.aten.dropout %x, %p, %false : !torch.vtensor<[?,5],f32>, !torch.float, !torch.bool -> !torch.vtensor<[?,5],f32>
  func.return %0 : !torch.vtensor<[?,5],f32>
}
