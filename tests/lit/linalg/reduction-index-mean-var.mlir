// RUN: xdsl-opt %s -p convert-torch-to-linalg | filecheck %s
// Reductions with indices, means, variances and bool folds.

// argmax with dim=None folds every dim twice: the maximum (NaN wins), then the smallest
// row-major position of an element equal to it (or NaN when it is NaN):
// ((i0 * 3) + i1) * 4 + i2, a min of positions that vectorizes. The values are not returned.
// CHECK-LABEL: func.func @torch.aten.argmax$flatten
// CHECK: %[[TOP:.*]] = linalg.generic {{.*}} iterator_types = ["reduction", "reduction", "reduction"]} ins(%x : tensor<?x3x4xf32>) outs(%{{.*}} : tensor<f32>)
// CHECK: arith.maximumf
// CHECK: %[[INDICES:.*]] = linalg.generic {{.*}} iterator_types = ["reduction", "reduction", "reduction"]} ins(%x, %[[TOP]] : tensor<?x3x4xf32>, tensor<f32>) outs(%{{.*}} : tensor<i64>)
// CHECK: arith.cmpf oeq
// CHECK: arith.cmpf uno
// CHECK: %[[I0:.*]] = linalg.index 0 : index
// CHECK-NEXT: %[[C3:.*]] = arith.constant 3 : index
// CHECK-NEXT: %[[R0:.*]] = arith.muli %[[I0]], %[[C3]] : index
// CHECK-NEXT: %[[I1:.*]] = linalg.index 1 : index
// CHECK-NEXT: %[[R1:.*]] = arith.addi %[[R0]], %[[I1]] : index
// CHECK-NEXT: %[[C4:.*]] = arith.constant 4 : index
// CHECK-NEXT: arith.muli %[[R1]], %[[C4]] : index
// CHECK-NEXT: %[[I2:.*]] = linalg.index 2 : index
// CHECK: arith.minsi
// CHECK: func.return %[[INDICES]] : tensor<i64>
func.func @torch.aten.argmax$flatten(%x: !torch.vtensor<[?,3,4],f32>) -> !torch.vtensor<[],si64> {
  %none = torch.constant.none
  %false = torch.constant.bool false
  %0 = torch.aten.argmax %x, %none, %false : !torch.vtensor<[?,3,4],f32>, !torch.none, !torch.bool -> !torch.vtensor<[],si64>
  func.return %0 : !torch.vtensor<[],si64>
}

// argmin of integers: the minimum from INT32_MAX, then the first position equal to it
// (`eq`, no NaN test).
// CHECK-LABEL: func.func @torch.aten.argmin$int
// CHECK: arith.constant 2147483647 : i32
// CHECK: arith.minsi
// CHECK: arith.cmpi eq
// CHECK-NOT: uno
// CHECK: linalg.index 1 : index
func.func @torch.aten.argmin$int(%x: !torch.vtensor<[?,?],si32>) -> !torch.vtensor<[?,1],si64> {
  %int1 = torch.constant.int 1
  %true = torch.constant.bool true
  %0 = torch.aten.argmin %x, %int1, %true : !torch.vtensor<[?,?],si32>, !torch.int, !torch.bool -> !torch.vtensor<[?,1],si64>
  func.return %0 : !torch.vtensor<[?,1],si64>
}

// A mean sums, then divides by the count, here 4 * (size of dim 1) read at run time.
// CHECK-LABEL: func.func @torch.aten.mean.dim$dynamic_count
// CHECK: iterator_types = ["parallel", "reduction", "reduction"]
// CHECK: %[[D1:.*]] = tensor.dim %x, %{{.*}} : tensor<?x?x4xf32>
// CHECK: %[[C4:.*]] = arith.constant 4 : index
// CHECK: %[[N:.*]] = arith.muli %[[C4]], %[[D1]] : index
// CHECK: %[[NI:.*]] = arith.index_cast %[[N]] : index to i64
// CHECK: %[[NF:.*]] = arith.sitofp %[[NI]] : i64 to f32
// CHECK: arith.divf %{{.*}}, %[[NF]] : f32
func.func @torch.aten.mean.dim$dynamic_count(%x: !torch.vtensor<[?,?,4],f32>) -> !torch.vtensor<[?],f32> {
  %int1 = torch.constant.int 1
  %int2 = torch.constant.int 2
  %dims = torch.prim.ListConstruct %int1, %int2 : (!torch.int, !torch.int) -> !torch.list<int>
  %false = torch.constant.bool false
  %none = torch.constant.none
  %0 = torch.aten.mean.dim %x, %dims, %false, %none : !torch.vtensor<[?,?,4],f32>, !torch.list<int>, !torch.bool, !torch.none -> !torch.vtensor<[?],f32>
  func.return %0 : !torch.vtensor<[?],f32>
}

// std: sums and means in keepdim layout, summed squared deviations, then
// sqrt(total / max(N - correction, 0)).
// CHECK-LABEL: func.func @torch.aten.std.correction
// CHECK: %[[N:.*]] = arith.constant 5.000000e+00 : f64
// CHECK: arith.divf %{{.*}}, %[[N]] : f64
// CHECK: arith.mulf %[[D:.*]], %[[D]] : f64
// CHECK: %[[C:.*]] = arith.constant 2.000000e+00 : f64
// CHECK-NEXT: %[[NC:.*]] = arith.subf %[[N]], %[[C]] : f64
// CHECK-NEXT: %[[Z:.*]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT: %[[DIV:.*]] = arith.maximumf %[[NC]], %[[Z]] : f64
// CHECK: arith.divf %{{.*}}, %[[DIV]] : f64
// CHECK-NEXT: math.sqrt
func.func @torch.aten.std.correction(%x: !torch.vtensor<[?,5],f64>) -> !torch.vtensor<[?,1],f64> {
  %int1 = torch.constant.int 1
  %dims = torch.prim.ListConstruct %int1 : (!torch.int) -> !torch.list<int>
  %int2 = torch.constant.int 2
  %true = torch.constant.bool true
  %0 = torch.aten.std.correction %x, %dims, %int2, %true : !torch.vtensor<[?,5],f64>, !torch.list<int>, !torch.int, !torch.bool -> !torch.vtensor<[?,1],f64>
  func.return %0 : !torch.vtensor<[?,1],f64>
}

// all() reads each float as `x != 0` (NaN is true) and folds with `and` from true.
// CHECK-LABEL: func.func @torch.aten.all$float
// CHECK: arith.constant true
// CHECK: arith.cmpf une
// CHECK-NEXT: arith.andi
func.func @torch.aten.all$float(%x: !torch.vtensor<[?],f32>) -> !torch.vtensor<[],i1> {
  %0 = torch.aten.all %x : !torch.vtensor<[?],f32> -> !torch.vtensor<[],i1>
  func.return %0 : !torch.vtensor<[],i1>
}
