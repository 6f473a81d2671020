// RUN: xdsl-opt %s -p torch-check-indices | filecheck %s
// An int index known only at run time is checked before `select` reads there (IndexError
// outside [-size, size), marked to become a cf.assert); a constant index on a static size is
// left to the shape rules; `narrow`'s run-time start is checked and wrapped.

// CHECK-LABEL: func.func @row
// CHECK:      %[[LOW:.*]] = torch.constant.int -3
// CHECK-NEXT: %[[BELOW:.*]] = torch.aten.lt.int %i, %[[LOW]]
// CHECK-NEXT: %[[N:.*]] = torch.constant.int 3
// CHECK-NEXT: %[[ABOVE:.*]] = torch.aten.ge.int %i, %[[N]]
// CHECK-NEXT: %[[OUT:.*]] = torch.aten.__or__.bool %[[BELOW]], %[[ABOVE]]
// CHECK-NEXT: torch.prim.If %[[OUT]] {tsjit.run_time_check} -> () {
// CHECK-NEXT:   torch.prim.RaiseException "IndexError" "select(): index out of range for dimension 0 with size 3"
// CHECK:      %r = torch.aten.select.int %x, %int0, %i
// CHECK-NEXT: %c = torch.aten.select.int %x, %int0, %int0
func.func @row(%x: !torch.vtensor<[3,4],f32>, %i: !torch.int) -> (!torch.vtensor<[4],f32>, !torch.vtensor<[4],f32>) {
  %int0 = torch.constant.int 0
  %r = torch.aten.select.int %x, %int0, %i : !torch.vtensor<[3,4],f32>, !torch.int, !torch.int -> !torch.vtensor<[4],f32>
  %c = torch.aten.select.int %x, %int0, %int0 : !torch.vtensor<[3,4],f32>, !torch.int, !torch.int -> !torch.vtensor<[4],f32>
  func.return %r, %c : !torch.vtensor<[4],f32>, !torch.vtensor<[4],f32>
}

// CHECK-LABEL: func.func @window
// CHECK:      torch.prim.RaiseException "IndexError" "start out of range (expected to be in range of [-3, 3])"
// CHECK:      %[[SHIFT:.*]] = torch.aten.mul.int
// CHECK-NEXT: %[[START:.*]] = torch.aten.add.int %s, %[[SHIFT]]
// CHECK-NEXT: %[[END:.*]] = torch.aten.add.int %[[START]], %int2
// CHECK:      torch.prim.RaiseException "RuntimeError" "start + length exceeds dimension size (3)."
// CHECK:      %w = torch.aten.narrow %x, %int0, %[[START]], %int2
func.func @window(%x: !torch.vtensor<[3,4],f32>, %s: !torch.int) -> !torch.vtensor<[2,4],f32> {
  %int0 = torch.constant.int 0
  %int2 = torch.constant.int 2
  %w = torch.aten.narrow %x, %int0, %s, %int2 : !torch.vtensor<[3,4],f32>, !torch.int, !torch.int, !torch.int -> !torch.vtensor<[2,4],f32>
  func.return %w : !torch.vtensor<[2,4],f32>
}
