// RUN: xdsl-opt %s -p torch-decompose | filecheck %s
// prelu and glu have no lowering of their own: prelu is `where(x > 0, x, x * w)` with the
// weight reshaped to broadcast along dim 1; glu is two slices of dim `dim`, split at half its
// size (an `aten.size.int` // 2 when that size is known only at run time), sigmoid and mul.

// CHECK-LABEL: func.func @prelu_per_channel
// CHECK:         %[[SHAPE:.*]] = torch.prim.ListConstruct %int_m1, %int1
// CHECK-NEXT:    %[[W:.*]] = torch.aten.reshape %w, %[[SHAPE]] : !torch.vtensor<[3],f32>, !torch.list<int> -> !torch.vtensor<[3,1],f32>
// CHECK-NEXT:    %[[SCALED:.*]] = torch.aten.mul.Tensor %x, %[[W]]
// CHECK:         %[[POSITIVE:.*]] = torch.aten.gt.Scalar %x, %int0
// CHECK-NEXT:    %[[R:.*]] = torch.aten.where.self %[[POSITIVE]], %x, %[[SCALED]]
// CHECK-NEXT:    func.return %[[R]]
func.func @prelu_per_channel(%x: !torch.vtensor<[2,3,?],f32>, %w: !torch.vtensor<[3],f32>) -> !torch.vtensor<[2,3,?],f32> {
  %r = torch.aten.prelu %x, %w : !torch.vtensor<[2,3,?],f32>, !torch.vtensor<[3],f32> -> !torch.vtensor<[2,3,?],f32>
  func.return %r : !torch.vtensor<[2,3,?],f32>
}

// CHECK-LABEL: func.func @glu_of_a_runtime_size
// CHECK:         %[[SIZE:.*]] = torch.aten.size.int %x, %int1
// CHECK-NEXT:    %int2 = torch.constant.int 2
// CHECK-NEXT:    %[[HALF:.*]] = torch.aten.floordiv.int %[[SIZE]], %int2
// CHECK:         %[[A:.*]] = torch.aten.slice.Tensor %x, %{{.*}}, %int0, %[[HALF]], %{{.*}} : {{.*}} -> !torch.vtensor<[4,?],f32>
// CHECK:         %[[B:.*]] = torch.aten.slice.Tensor %x, %{{.*}}, %[[HALF]], %none, %{{.*}} : {{.*}} -> !torch.vtensor<[4,?],f32>
// CHECK-NEXT:    %[[GATE:.*]] = torch.aten.sigmoid %[[B]]
// CHECK-NEXT:    %[[R:.*]] = torch.aten.mul.Tensor %[[A]], %[[GATE]]
// CHECK-NEXT:    func.return %[[R]]
func.func @glu_of_a_runtime_size(%x: !torch.vtensor<[4,?],f32>) -> !torch.vtensor<[4,?],f32> {
  %int-1 = torch.constant.int -1
  %r = torch.aten.glu %x, %int-1 : !torch.vtensor<[4,?],f32>, !torch.int -> !torch.vtensor<[4,?],f32>
  func.return %r : !torch.vtensor<[4,?],f32>
}

// CHECK-LABEL: func.func @glu_of_a_known_size
// CHECK-NOT:     torch.aten.size.int
// CHECK:         torch.aten.slice.Tensor %x, {{.*}} -> !torch.vtensor<[2,6],f32>
// CHECK:         torch.aten.slice.Tensor %x, {{.*}} -> !torch.vtensor<[2,6],f32>
// CHECK-NOT:     torch.aten.glu
func.func @glu_of_a_known_size(%x: !torch.vtensor<[4,6],f32>) -> !torch.vtensor<[2,6],f32> {
  %int0 = torch.constant.int 0
  %r = torch.aten.glu %x, %int0 : !torch.vtensor<[4,6],f32>, !torch.int -> !torch.vtensor<[2,6],f32>
  func.return %r : !torch.vtensor<[2,6],f32>
}
