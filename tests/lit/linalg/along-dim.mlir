// RUN: xdsl-opt %s -p convert-torch-to-linalg | filecheck %s
// Sorts, selections and scans: a destination-passing call of a numba kernel (tsjit.<name>)
// with the input, the sizes before / at / after the dim (outer, n, inner) and the kernel's
// scalars; each output a tensor.empty whose ? sizes are the input's.

// CHECK-LABEL: func.func private @tsjit.sort(tensor<4x?xf32>, i64, i64, i64, i64, i64, tensor<4x?xf32>, tensor<4x?xi64>) -> (tensor<4x?xf32>, tensor<4x?xi64>) attributes {tsjit.kernel = "tsjit.sort"}
// CHECK-LABEL: func.func @torch.aten.sort$descending
// CHECK: %[[OUTER:.*]] = arith.constant 4 : i64
// CHECK: %[[SIZE:.*]] = tensor.dim %x, %{{.*}} : tensor<4x?xf32>
// CHECK: %[[N:.*]] = arith.index_cast %{{.*}} : index to i64
// CHECK: %[[INNER:.*]] = arith.constant 1 : i64
// CHECK: %[[DESCENDING:.*]] = arith.constant 1 : i64
// CHECK: %[[WHOLE_ROW:.*]] = arith.constant -1 : i64
// CHECK: %[[VALUES:.*]] = tensor.empty(%{{.*}}) : tensor<4x?xf32>
// CHECK: %[[INDICES:.*]] = tensor.empty(%{{.*}}) : tensor<4x?xi64>
// CHECK: %v, %i = func.call @tsjit.sort(%x, %[[OUTER]], %[[N]], %[[INNER]], %[[DESCENDING]], %[[WHOLE_ROW]], %[[VALUES]], %[[INDICES]])
func.func @torch.aten.sort$descending(%x: !torch.vtensor<[4,?],f32>) -> (!torch.vtensor<[4,?],f32>, !torch.vtensor<[4,?],si64>) {
  %int1 = torch.constant.int 1
  %true = torch.constant.bool true
  %v, %i = torch.aten.sort %x, %int1, %true : !torch.vtensor<[4,?],f32>, !torch.int, !torch.bool -> !torch.vtensor<[4,?],f32>, !torch.vtensor<[4,?],si64>
  func.return %v, %i : !torch.vtensor<[4,?],f32>, !torch.vtensor<[4,?],si64>
}

// argsort returns the indices; the values go to a scratch buffer of the input's dtype.
// CHECK-LABEL: func.func @torch.aten.argsort
// CHECK: %[[SCRATCH:.*]] = tensor.empty(%{{.*}}) : tensor<?x3x5xi32>
// CHECK: %{{.*}}, %i = func.call @tsjit.sort_1(%x, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[SCRATCH]], %{{.*}})
// CHECK: func.return %i : tensor<?x3x5xi64>
func.func @torch.aten.argsort(%x: !torch.vtensor<[?,3,5],si32>) -> !torch.vtensor<[?,3,5],si64> {
  %int1 = torch.constant.int 1
  %false = torch.constant.bool false
  %i = torch.aten.argsort %x, %int1, %false : !torch.vtensor<[?,3,5],si32>, !torch.int, !torch.bool -> !torch.vtensor<[?,3,5],si64>
  func.return %i : !torch.vtensor<[?,3,5],si64>
}

// The median of all elements: one row of numel elements (outer = inner = 1), 0-d outputs.
// CHECK-LABEL: func.func @torch.aten.median
// CHECK: %[[COUNT:.*]] = arith.index_cast %{{.*}} : index to i64
// CHECK: %m, %{{.*}} = func.call @tsjit.kth(%x, %{{.*}}, %[[COUNT]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : (tensor<?x4xf64>, i64, i64, i64, i64, i64, tensor<f64>, tensor<i64>) -> (tensor<f64>, tensor<i64>)
func.func @torch.aten.median(%x: !torch.vtensor<[?,4],f64>) -> !torch.vtensor<[],f64> {
  %m = torch.aten.median %x : !torch.vtensor<[?,4],f64> -> !torch.vtensor<[],f64>
  func.return %m : !torch.vtensor<[],f64>
}

// cumsum of bools: the kernel writes int64 running sums.
// CHECK-LABEL: func.func @torch.aten.cumsum$bool
// CHECK: func.call @tsjit.cumsum(%x, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : (tensor<3x4xi1>, i64, i64, i64, tensor<3x4xi64>) -> tensor<3x4xi64>
func.func @torch.aten.cumsum$bool(%x: !torch.vtensor<[3,4],i1>) -> !torch.vtensor<[3,4],si64> {
  %int0 = torch.constant.int 0
  %none = torch.constant.none
  %c = torch.aten.cumsum %x, %int0, %none : !torch.vtensor<[3,4],i1>, !torch.int, !torch.none -> !torch.vtensor<[3,4],si64>
  func.return %c : !torch.vtensor<[3,4],si64>
}
