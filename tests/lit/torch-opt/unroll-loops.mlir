// RUN: xdsl-opt %s -p 'torch-unroll-loops{max-trip-count=4}' | filecheck %s
// RUN: xdsl-opt %s -p 'torch-unroll-loops{max-trip-count=4},torch-canonicalize' | filecheck %s --check-prefix=FOLD
// Loops with a constant trip count of at most max-trip-count and no early exit become
// straight-line code; the iteration number becomes a constant each copy.

// CHECK-LABEL: func.func @three_steps
// CHECK-NOT:     torch.prim.Loop
// CHECK:         torch.constant.float
// CHECK-NEXT:    %[[I0:.*]] = torch.constant.int 0
// CHECK-NEXT:    %[[A0:.*]] = torch.aten.mul.Scalar %x, %float
// CHECK-NEXT:    %[[B0:.*]] = torch.aten.add.Scalar %[[A0]], %[[I0]], %int1
// CHECK-NEXT:    %[[T0:.*]] = torch.aten.add.int %int0, %[[I0]]
// CHECK-NEXT:    %[[I1:.*]] = torch.constant.int 1
// CHECK-NEXT:    %[[A1:.*]] = torch.aten.mul.Scalar %[[B0]], %float
// CHECK-NEXT:    %[[B1:.*]] = torch.aten.add.Scalar %[[A1]], %[[I1]], %int1
// CHECK-NEXT:    %[[T1:.*]] = torch.aten.add.int %[[T0]], %[[I1]]
// CHECK-NEXT:    %[[I2:.*]] = torch.constant.int 2
// CHECK-NEXT:    %[[A2:.*]] = torch.aten.mul.Scalar %[[B1]], %float
// CHECK-NEXT:    %[[B2:.*]] = torch.aten.add.Scalar %[[A2]], %[[I2]], %int1
// CHECK-NEXT:    %[[T2:.*]] = torch.aten.add.int %[[T1]], %[[I2]]
// CHECK-NEXT:    func.return %[[B2]], %[[T2]]
// After canonicalization the index sum is a constant and `+ 0` is gone.
// FOLD-LABEL: func.func @three_steps
// FOLD:         %[[A0:.*]] = torch.aten.mul.Scalar %x, %float
// FOLD:         %[[A1:.*]] = torch.aten.mul.Scalar %[[A0]], %float
// FOLD-NOT:     torch.aten.add.int
// FOLD:         %[[THREE:.*]] = torch.constant.int 3
// FOLD:         func.return %{{.*}}, %[[THREE]]
func.func @three_steps(%x: !torch.vtensor<[?],f32>) -> (!torch.vtensor<[?],f32>, !torch.int) {
  %true = torch.constant.bool true
  %int0 = torch.constant.int 0
  %int1 = torch.constant.int 1
  %int3 = torch.constant.int 3
  %float = torch.constant.float 2.0
  %y, %total = torch.prim.Loop %int3, %true, init(%x, %int0) {
  ^bb0(%i: !torch.int, %acc: !torch.vtensor<[?],f32>, %t: !torch.int):
    %a = torch.aten.mul.Scalar %acc, %float : !torch.vtensor<[?],f32>, !torch.float -> !torch.vtensor<[?],f32>
    %b = torch.aten.add.Scalar %a, %i, %int1 : !torch.vtensor<[?],f32>, !torch.int, !torch.int -> !torch.vtensor<[?],f32>
    %t2 = torch.aten.add.int %t, %i : !torch.int, !torch.int -> !torch.int
    torch.prim.Loop.condition %true, iter(%b, %t2 : !torch.vtensor<[?],f32>, !torch.int)
  } : (!torch.int, !torch.bool, !torch.vtensor<[?],f32>, !torch.int) -> (!torch.vtensor<[?],f32>, !torch.int)
  func.return %y, %total : !torch.vtensor<[?],f32>, !torch.int
}

// Too many iterations, an unknown trip count, or a body that may stop early: left alone.
// CHECK-LABEL: func.func @kept
// CHECK-COUNT-3: torch.prim.Loop
func.func @kept(%x: !torch.vtensor<[?],f32>, %n: !torch.int) -> (!torch.vtensor<[?],f32>, !torch.vtensor<[?],f32>, !torch.vtensor<[?],f32>) {
  %true = torch.constant.bool true
  %int5 = torch.constant.int 5
  %int2 = torch.constant.int 2
  %a = torch.prim.Loop %int5, %true, init(%x) {
  ^bb0(%i: !torch.int, %h: !torch.vtensor<[?],f32>):
    %e = torch.aten.exp %h : !torch.vtensor<[?],f32> -> !torch.vtensor<[?],f32>
    torch.prim.Loop.condition %true, iter(%e : !torch.vtensor<[?],f32>)
  } : (!torch.int, !torch.bool, !torch.vtensor<[?],f32>) -> !torch.vtensor<[?],f32>
  %b = torch.prim.Loop %n, %true, init(%x) {
  ^bb0(%i: !torch.int, %h: !torch.vtensor<[?],f32>):
    %e = torch.aten.exp %h : !torch.vtensor<[?],f32> -> !torch.vtensor<[?],f32>
    torch.prim.Loop.condition %true, iter(%e : !torch.vtensor<[?],f32>)
  } : (!torch.int, !torch.bool, !torch.vtensor<[?],f32>) -> !torch.vtensor<[?],f32>
  %c = torch.prim.Loop %int2, %true, init(%x) {
  ^bb0(%i: !torch.int, %h: !torch.vtensor<[?],f32>):
    %e = torch.aten.exp %h : !torch.vtensor<[?],f32> -> !torch.vtensor<[?],f32>
    %go = torch.aten.lt.int %i, %int2 : !torch.int, !torch.int -> !torch.bool
    torch.prim.Loop.condition %go, iter(%e : !torch.vtensor<[?],f32>)
  } : (!torch.int, !torch.bool, !torch.vtensor<[?],f32>) -> !torch.vtensor<[?],f32>
  func.return %a, %b, %c : !torch.vtensor<[?],f32>, !torch.vtensor<[?],f32>, !torch.vtensor<[?],f32>
}

// A nested loop is copied with its parent and unrolled too.
// CHECK-LABEL: func.func @nested
// CHECK-NOT:     torch.prim.Loop
// CHECK-COUNT-4: torch.aten.exp
// CHECK-NOT:     torch.aten.exp
func.func @nested(%x: !torch.vtensor<[?],f32>) -> !torch.vtensor<[?],f32> {
  %true = torch.constant.bool true
  %int2 = torch.constant.int 2
  %a = torch.prim.Loop %int2, %true, init(%x) {
  ^bb0(%i: !torch.int, %h: !torch.vtensor<[?],f32>):
    %inner = torch.prim.Loop %int2, %true, init(%h) {
    ^bb1(%j: !torch.int, %g: !torch.vtensor<[?],f32>):
      %e = torch.aten.exp %g : !torch.vtensor<[?],f32> -> !torch.vtensor<[?],f32>
      torch.prim.Loop.condition %true, iter(%e : !torch.vtensor<[?],f32>)
    } : (!torch.int, !torch.bool, !torch.vtensor<[?],f32>) -> !torch.vtensor<[?],f32>
    torch.prim.Loop.condition %true, iter(%inner : !torch.vtensor<[?],f32>)
  } : (!torch.int, !torch.bool, !torch.vtensor<[?],f32>) -> !torch.vtensor<[?],f32>
  func.return %a : !torch.vtensor<[?],f32>
}
