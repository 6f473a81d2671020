// RUN: xdsl-opt %s -p torch-decompose | filecheck %s
// Layers of torch.nn with no lowering of their own: conv1d is conv2d over a unit height
// (window arguments get a height of 1 / padding 0); F.pad in reflect mode reads the input at
// a constant index per padded dim; a bool attention mask becomes -inf / 0 in the query's dtype.

// CHECK-LABEL: func.func @conv1d
// CHECK:         %[[X:.*]] = torch.aten.unsqueeze %x, %int_m2 : {{.*}} -> !torch.vtensor<[2,4,1,9],f32>
// CHECK:         %[[W:.*]] = torch.aten.unsqueeze %w, {{.*}} -> !torch.vtensor<[6,4,1,3],f32>
// CHECK:         %[[STRIDE:.*]] = torch.prim.ListConstruct %int1_1, %int2_1
// CHECK:         %[[PADDING:.*]] = torch.prim.ListConstruct %int0, %int1_2
// CHECK:         %[[Y:.*]] = torch.aten.conv2d %[[X]], %[[W]], %none, %[[STRIDE]], %[[PADDING]], {{.*}} -> !torch.vtensor<[2,6,1,5],f32>
// CHECK:         %[[R:.*]] = torch.aten.squeeze.dim %[[Y]], {{.*}} -> !torch.vtensor<[2,6,5],f32>
// CHECK-NEXT:    func.return %[[R]]
func.func @conv1d(%x: !torch.vtensor<[2,4,9],f32>, %w: !torch.vtensor<[6,4,3],f32>) -> !torch.vtensor<[2,6,5],f32> {
  %none = torch.constant.none
  %int2 = torch.constant.int 2
  %int1 = torch.constant.int 1
  %stride = torch.prim.ListConstruct %int2 : (!torch.int) -> !torch.list<int>
  %padding = torch.prim.ListConstruct %int1 : (!torch.int) -> !torch.list<int>
  %dilation = torch.prim.ListConstruct %int1 : (!torch.int) -> !torch.list<int>
  %r = torch.aten.conv1d %x, %w, %none, %stride, %padding, %dilation, %int1 : !torch.vtensor<[2,4,9],f32>, !torch.vtensor<[6,4,3],f32>, !torch.none, !torch.list<int>, !torch.list<int>, !torch.list<int>, !torch.int -> !torch.vtensor<[2,6,5],f32>
  func.return %r : !torch.vtensor<[2,6,5],f32>
}

// CHECK-LABEL: func.func @reflect_pad
// CHECK:         %[[INDEX:.*]] = torch.vtensor.literal(dense<[2, 1, 0, 1, 2, 1]> : tensor<6xi64>) : !torch.vtensor<[6],si64>
// CHECK:         %[[R:.*]] = torch.aten.index_select %x, %{{.*}}, %[[INDEX]] : {{.*}} -> !torch.vtensor<[2,6],f32>
// CHECK-NEXT:    func.return %[[R]]
// CHECK-NOT:     torch.aten.pad
func.func @reflect_pad(%x: !torch.vtensor<[2,3],f32>) -> !torch.vtensor<[2,6],f32> {
  %int1 = torch.constant.int 1
  %int2 = torch.constant.int 2
  %pad = torch.prim.ListConstruct %int2, %int1 : (!torch.int, !torch.int) -> !torch.list<int>
  %mode = torch.constant.str "reflect"
  %none = torch.constant.none
  %r = torch.aten.pad %x, %pad, %mode, %none : !torch.vtensor<[2,3],f32>, !torch.list<int>, !torch.str, !torch.none -> !torch.vtensor<[2,6],f32>
  func.return %r : !torch.vtensor<[2,6],f32>
}

// CHECK-LABEL: func.func @bool_mask_bias
// CHECK:         %float = torch.constant.float 0xfff0000000000000
// CHECK-NEXT:    %float_1 = torch.constant.float 0.000000e+00
// CHECK-NEXT:    %[[BIAS:.*]] = torch.aten.where.Scalar %m, %float, %float_1 : {{.*}} -> !torch.vtensor<[3,4],f32>
// CHECK:         %[[R:.*]] = torch.aten.to.dtype %[[BIAS]], %int7, {{.*}} -> !torch.vtensor<[3,4],f64>
// CHECK-NEXT:    func.return %[[R]]
func.func @bool_mask_bias(%m: !torch.vtensor<[3,4],i1>, %q: !torch.vtensor<[2,3,5],f64>) -> !torch.vtensor<[3,4],f64> {
  %true = torch.constant.bool true
  %r = torch.aten._attention_bias %m, %q, %true : !torch.vtensor<[3,4],i1>, !torch.vtensor<[2,3,5],f64>, !torch.bool -> !torch.vtensor<[3,4],f64>
  func.return %r : !torch.vtensor<[3,4],f64>
}
