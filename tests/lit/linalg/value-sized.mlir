// RUN: xdsl-opt %s -p convert-torch-to-linalg | filecheck %s
// nonzero, the one op whose result size depends on the values: a kernel counts into a
// one-element buffer, the count (read with tensor.extract) sizes the result's tensor.empty,
// and a second kernel writes the coordinates into it.

// CHECK-LABEL: func.func private @tsjit.count_nonzero(tensor<?x4xf32>, tensor<1xi64>) -> tensor<1xi64> attributes {tsjit.kernel = "tsjit.count_nonzero"}
// CHECK-LABEL: func.func private @tsjit.nonzero(tensor<?x4xf32>, tensor<?x2xi64>) -> tensor<?x2xi64> attributes {tsjit.kernel = "tsjit.nonzero"}
// CHECK-LABEL: func.func @torch.aten.nonzero
// CHECK:      %[[BUFFER:.*]] = tensor.empty() : tensor<1xi64>
// CHECK-NEXT: %count = func.call @tsjit.count_nonzero(%x, %[[BUFFER]]) : (tensor<?x4xf32>, tensor<1xi64>) -> tensor<1xi64>
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[N:.*]] = tensor.extract %count[%[[ZERO]]] : tensor<1xi64>
// CHECK-NEXT: %[[ROWS:.*]] = arith.index_cast %[[N]] : i64 to index
// CHECK-NEXT: %[[OUT:.*]] = tensor.empty(%[[ROWS]]) : tensor<?x2xi64>
// CHECK-NEXT: %p = func.call @tsjit.nonzero(%x, %[[OUT]]) : (tensor<?x4xf32>, tensor<?x2xi64>) -> tensor<?x2xi64>
// CHECK-NEXT: func.return %p : tensor<?x2xi64>
func.func @torch.aten.nonzero(%x: !torch.vtensor<[?,4],f32>) -> !torch.vtensor<[?,2],si64> {
  %p = torch.aten.nonzero %x : !torch.vtensor<[?,4],f32> -> !torch.vtensor<[?,2],si64>
  func.return %p : !torch.vtensor<[?,2],si64>
}

// A 0-d input: [0 or 1, 0] coordinates; the kernels of another input type get their own
// declarations.
// CHECK-LABEL: func.func @torch.aten.nonzero$0d
// CHECK: func.call @tsjit.count_nonzero_1(%x, %{{.*}}) : (tensor<i1>, tensor<1xi64>) -> tensor<1xi64>
// CHECK: func.call @tsjit.nonzero_1(%x, %{{.*}}) : (tensor<i1>, tensor<?x0xi64>) -> tensor<?x0xi64>
func.func @torch.aten.nonzero$0d(%x: !torch.vtensor<[],i1>) -> !torch.vtensor<[?,0],si64> {
  %p = torch.aten.nonzero %x : !torch.vtensor<[],i1> -> !torch.vtensor<[?,0],si64>
  func.return %p : !torch.vtensor<[?,0],si64>
}
