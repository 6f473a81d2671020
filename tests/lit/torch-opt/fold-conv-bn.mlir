// RUN: xdsl-opt %s -p torch-fold-conv-bn | filecheck %s

// An inference batch_norm on a conv2d with literal weights folds into one conv2d:
// s = w / sqrt(var + eps) = [2, 1]; W' = W * s; b' = (b - mean) * s + bias = [(1-1)*2+0.5, (0-2)*1+0]
// CHECK-LABEL: func.func @folds
// CHECK-NOT:     torch.aten.batch_norm
// CHECK:         %[[W:.*]] = torch.vtensor.literal(dense<{{\[\[\[\[}}2.000000e+00]]], {{\[\[\[}}1.000000e+00]]]]> : tensor<2x1x1x1xf32>)
// CHECK:         %[[B:.*]] = torch.vtensor.literal(dense<[5.000000e-01, -2.000000e+00]> : tensor<2xf32>)
// CHECK:         %[[R:.*]] = torch.aten.conv2d %x, %[[W]], %[[B]],
// CHECK:         func.return %[[R]]
func.func @folds(%x: !torch.vtensor<[1,1,3,3],f32>) -> !torch.vtensor<[1,2,3,3],f32> {
  %w = torch.vtensor.literal(dense<1.0> : tensor<2x1x1x1xf32>) : !torch.vtensor<[2,1,1,1],f32>
  %b = torch.vtensor.literal(dense<[1.0, 0.0]> : tensor<2xf32>) : !torch.vtensor<[2],f32>
  %int1 = torch.constant.int 1
  %int0 = torch.constant.int 0
  %one = torch.prim.ListConstruct %int1, %int1 : (!torch.int, !torch.int) -> !torch.list<int>
  %zero = torch.prim.ListConstruct %int0, %int0 : (!torch.int, !torch.int) -> !torch.list<int>
  %c = torch.aten.conv2d %x, %w, %b, %one, %zero, %one, %int1 : !torch.vtensor<[1,1,3,3],f32>, !torch.vtensor<[2,1,1,1],f32>, !torch.vtensor<[2],f32>, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.int -> !torch.vtensor<[1,2,3,3],f32>
  %gamma = torch.vtensor.literal(dense<[2.0, 1.0]> : tensor<2xf32>) : !torch.vtensor<[2],f32>
  %beta = torch.vtensor.literal(dense<[0.5, 0.0]> : tensor<2xf32>) : !torch.vtensor<[2],f32>
  %mean = torch.vtensor.literal(dense<[1.0, 2.0]> : tensor<2xf32>) : !torch.vtensor<[2],f32>
  %var = torch.vtensor.literal(dense<[1.0, 1.0]> : tensor<2xf32>) : !torch.vtensor<[2],f32>
  %false = torch.constant.bool false
  %mom = torch.constant.float 1.000000e-01
  %eps = torch.constant.float 0.000000e+00
  %r = torch.aten.batch_norm %c, %gamma, %beta, %mean, %var, %false, %mom, %eps, %false : !torch.vtensor<[1,2,3,3],f32>, !torch.vtensor<[2],f32>, !torch.vtensor<[2],f32>, !torch.vtensor<[2],f32>, !torch.vtensor<[2],f32>, !torch.bool, !torch.float, !torch.float, !torch.bool -> !torch.vtensor<[1,2,3,3],f32>
  func.return %r : !torch.vtensor<[1,2,3,3],f32>
}

// A conv whose result has another use keeps its batch_norm.
// CHECK-LABEL: func.func @shared
// CHECK:         torch.aten.batch_norm
func.func @shared(%x: !torch.vtensor<[1,1,3,3],f32>) -> (!torch.vtensor<[1,2,3,3],f32>, !torch.vtensor<[1,2,3,3],f32>) {
  %w = torch.vtensor.literal(dense<1.0> : tensor<2x1x1x1xf32>) : !torch.vtensor<[2,1,1,1],f32>
  %none = torch.constant.none
  %int1 = torch.constant.int 1
  %int0 = torch.constant.int 0
  %one = torch.prim.ListConstruct %int1, %int1 : (!torch.int, !torch.int) -> !torch.list<int>
  %zero = torch.prim.ListConstruct %int0, %int0 : (!torch.int, !torch.int) -> !torch.list<int>
  %c = torch.aten.conv2d %x, %w, %none, %one, %zero, %one, %int1 : !torch.vtensor<[1,1,3,3],f32>, !torch.vtensor<[2,1,1,1],f32>, !torch.none, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.int -> !torch.vtensor<[1,2,3,3],f32>
  %mean = torch.vtensor.literal(dense<[1.0, 2.0]> : tensor<2xf32>) : !torch.vtensor<[2],f32>
  %var = torch.vtensor.literal(dense<[1.0, 1.0]> : tensor<2xf32>) : !torch.vtensor<[2],f32>
  %false = torch.constant.bool false
  %mom = torch.constant.float 1.000000e-01
  %eps = torch.constant.float 1.000000e-05
  %r = torch.aten.batch_norm %c, %none, %none, %mean, %var, %false, %mom, %eps, %false : !torch.vtensor<[1,2,3,3],f32>, !torch.none, !torch.none, !torch.vtensor<[2],f32>, !torch.vtensor<[2],f32>, !torch.bool, !torch.float, !torch.float, !torch.bool -> !torch.vtensor<[1,2,3,3],f32>
  func.return %r, %c : !torch.vtensor<[1,2,3,3],f32>, !torch.vtensor<[1,2,3,3],f32>
}
