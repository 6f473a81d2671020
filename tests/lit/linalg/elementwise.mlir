// RUN: xdsl-opt %s -p convert-torch-to-linalg | filecheck %s
// One generic pattern lowers every elementwise op from its payload.

// Broadcasting: the size-1 dim of %b reads index 0, the missing leading dim is dropped.
// CHECK-LABEL: func.func @torch.aten.add.Tensor$broadcast
// CHECK: %[[D0:.*]] = tensor.dim %x, %{{.*}} : tensor<?x4xf32>
// CHECK: %[[INIT:.*]] = tensor.empty(%[[D0]]) : tensor<?x4xf32>
// CHECK: linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME: ins(%x, %b : tensor<?x4xf32>, tensor<1x4xf32>) outs(%[[INIT]] : tensor<?x4xf32>)
// CHECK: arith.addf
func.func @torch.aten.add.Tensor$broadcast(%x: !torch.vtensor<[?,4],f32>, %b: !torch.vtensor<[1,4],f32>) -> !torch.vtensor<[?,4],f32> {
  %int1 = torch.constant.int 1
  %0 = torch.aten.add.Tensor %x, %b, %int1 : !torch.vtensor<[?,4],f32>, !torch.vtensor<[1,4],f32>, !torch.int -> !torch.vtensor<[?,4],f32>
  func.return %0 : !torch.vtensor<[?,4],f32>
}

// A Python float constant is emitted directly as an f32 constant: float32 never widens.
// CHECK-LABEL: func.func @torch.aten.mul.Scalar$f32_constant
// CHECK: %[[C:.*]] = arith.constant 2.500000e+00 : f32
// CHECK: arith.mulf %{{.*}}, %[[C]] : f32
// CHECK-NOT: f64
func.func @torch.aten.mul.Scalar$f32_constant(%x: !torch.vtensor<[?],f32>) -> !torch.vtensor<[?],f32> {
  %float = torch.constant.float 2.5
  %0 = torch.aten.mul.Scalar %x, %float : !torch.vtensor<[?],f32>, !torch.float -> !torch.vtensor<[?],f32>
  func.return %0 : !torch.vtensor<[?],f32>
}

// Type promotion: the int64 operand is converted to f32 inside the body.
// CHECK-LABEL: func.func @torch.aten.sub.Tensor$promote
// CHECK: ^bb0(%[[A:.*]]: i64, %[[B:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[AF:.*]] = arith.sitofp %[[A]] : i64 to f32
// CHECK: arith.subf %[[AF]], %[[B]] : f32
func.func @torch.aten.sub.Tensor$promote(%a: !torch.vtensor<[?],si64>, %b: !torch.vtensor<[?],f32>) -> !torch.vtensor<[?],f32> {
  %int1 = torch.constant.int 1
  %0 = torch.aten.sub.Tensor %a, %b, %int1 : !torch.vtensor<[?],si64>, !torch.vtensor<[?],f32>, !torch.int -> !torch.vtensor<[?],f32>
  func.return %0 : !torch.vtensor<[?],f32>
}

// Comparisons compute in the promoted type and yield i1; float compares are ordered.
// CHECK-LABEL: func.func @torch.aten.gt.Scalar
// CHECK: arith.cmpf ogt
// CHECK: -> tensor<?xi1>
func.func @torch.aten.gt.Scalar(%x: !torch.vtensor<[?],f32>) -> !torch.vtensor<[?],i1> {
  %int0 = torch.constant.int 0
  %0 = torch.aten.gt.Scalar %x, %int0 : !torch.vtensor<[?],f32>, !torch.int -> !torch.vtensor<[?],i1>
  func.return %0 : !torch.vtensor<[?],i1>
}
