// RUN: xdsl-opt %s -p cse | filecheck %s
// xDSL's generic `cse` works on torch ops (they are Pure): equal constants and equal ops merge,
// and an op in a prim region reuses an equal op that dominates it from outside.

// CHECK-LABEL: func.func @merge
// CHECK:         %[[ONE:.*]] = torch.constant.int 1
// CHECK-NEXT:    %[[A:.*]] = torch.aten.add.Tensor %x, %x, %[[ONE]]
// CHECK-NEXT:    %[[R:.*]] = torch.prim.If %c -> (!torch.vtensor<[3],f32>) {
// CHECK-NEXT:      %[[T:.*]] = torch.aten.tanh %[[A]]
// CHECK-NEXT:      torch.prim.If.yield %[[T]]
// CHECK-NEXT:    } else {
// CHECK-NEXT:      torch.prim.If.yield %[[A]]
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %[[A]], %[[R]]
func.func @merge(%x: !torch.vtensor<[3],f32>, %c: !torch.bool) -> (!torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>) {
  %int1 = torch.constant.int 1
  %int1b = torch.constant.int 1
  %a = torch.aten.add.Tensor %x, %x, %int1 : !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>, !torch.int -> !torch.vtensor<[3],f32>
  %r = torch.prim.If %c -> (!torch.vtensor<[3],f32>) {
    %b = torch.aten.add.Tensor %x, %x, %int1b : !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>, !torch.int -> !torch.vtensor<[3],f32>
    %t = torch.aten.tanh %b : !torch.vtensor<[3],f32> -> !torch.vtensor<[3],f32>
    torch.prim.If.yield %t : !torch.vtensor<[3],f32>
  } else {
    %b2 = torch.aten.add.Tensor %x, %x, %int1 : !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>, !torch.int -> !torch.vtensor<[3],f32>
    torch.prim.If.yield %b2 : !torch.vtensor<[3],f32>
  }
  func.return %a, %r : !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>
}

// Ops in sibling regions do not merge (neither dominates the other).
// CHECK-LABEL: func.func @siblings
// CHECK:         torch.prim.If
// CHECK:         torch.aten.exp %x
// CHECK:         } else {
// CHECK:         torch.aten.exp %x
func.func @siblings(%x: !torch.vtensor<[3],f32>, %c: !torch.bool) -> !torch.vtensor<[3],f32> {
  %r = torch.prim.If %c -> (!torch.vtensor<[3],f32>) {
    %e = torch.aten.exp %x : !torch.vtensor<[3],f32> -> !torch.vtensor<[3],f32>
    torch.prim.If.yield %e : !torch.vtensor<[3],f32>
  } else {
    %e2 = torch.aten.exp %x : !torch.vtensor<[3],f32> -> !torch.vtensor<[3],f32>
    %t = torch.aten.tanh %e2 : !torch.vtensor<[3],f32> -> !torch.vtensor<[3],f32>
    torch.prim.If.yield %t : !torch.vtensor<[3],f32>
  }
  func.return %r : !torch.vtensor<[3],f32>
}
