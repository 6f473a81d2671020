// RUN: xdsl-opt %s -p torch-check-value-sized | filecheck %s
// Where a dim sized by the values (nonzero's count) meets another dim in an elementwise op,
// the sizes are compared at run time and a difference raises torch's RuntimeError (the
// compiled op would read out of bounds); functions without nonzero are unchanged.

// CHECK-LABEL: func.func @masked_plus
// CHECK:      %s = torch.aten.index_select
// CHECK:      %[[Y:.*]] = torch.aten.size.int %y, %{{.*}}
// CHECK-NEXT: %{{.*}} = torch.constant.int 0
// CHECK-NEXT: %[[S:.*]] = torch.aten.size.int %s, %{{.*}}
// CHECK-NEXT: %[[NE:.*]] = torch.aten.ne.int %[[Y]], %[[S]]
// CHECK-NEXT: torch.prim.If %[[NE]] -> () {
// CHECK-NEXT:   torch.prim.RaiseException "RuntimeError" "The size of tensor a must match the size of tensor b at non-singleton dimension 0 (a size that depends on the values, which does not broadcast from 1)"
// CHECK:      %a = torch.aten.add.Tensor %s, %y, %int1
// A static size above 1 on the other side: compared with the constant.
// CHECK:      %[[S2:.*]] = torch.aten.size.int %s, %{{.*}}
// CHECK-NEXT: %[[THREE:.*]] = torch.constant.int 3
// CHECK-NEXT: %[[NE2:.*]] = torch.aten.ne.int %[[S2]], %[[THREE]]
// CHECK-NEXT: torch.prim.If %[[NE2]] -> () {
// CHECK:      %b = torch.aten.mul.Tensor %s, %w
func.func @masked_plus(%x: !torch.vtensor<[?],f32>, %m: !torch.vtensor<[?],i1>, %y: !torch.vtensor<[?],f32>, %w: !torch.vtensor<[3],f32>) -> (!torch.vtensor<[?],f32>, !torch.vtensor<[3],f32>) {
  %p = torch.aten.nonzero %m : !torch.vtensor<[?],i1> -> !torch.vtensor<[?,1],si64>
  %int0 = torch.constant.int 0
  %int1 = torch.constant.int 1
  %i = torch.aten.select.int %p, %int1, %int0 : !torch.vtensor<[?,1],si64>, !torch.int, !torch.int -> !torch.vtensor<[?],si64>
  %s = torch.aten.index_select %x, %int0, %i : !torch.vtensor<[?],f32>, !torch.int, !torch.vtensor<[?],si64> -> !torch.vtensor<[?],f32>
  %a = torch.aten.add.Tensor %s, %y, %int1 : !torch.vtensor<[?],f32>, !torch.vtensor<[?],f32>, !torch.int -> !torch.vtensor<[?],f32>
  %b = torch.aten.mul.Tensor %s, %w : !torch.vtensor<[?],f32>, !torch.vtensor<[3],f32> -> !torch.vtensor<[3],f32>
  func.return %a, %b : !torch.vtensor<[?],f32>, !torch.vtensor<[3],f32>
}

// CHECK-LABEL: func.func @no_nonzero
// CHECK-NEXT:    %a = torch.aten.mul.Tensor %x, %y
func.func @no_nonzero(%x: !torch.vtensor<[?],f32>, %y: !torch.vtensor<[?],f32>) -> !torch.vtensor<[?],f32> {
  %a = torch.aten.mul.Tensor %x, %y : !torch.vtensor<[?],f32>, !torch.vtensor<[?],f32> -> !torch.vtensor<[?],f32>
  func.return %a : !torch.vtensor<[?],f32>
}
