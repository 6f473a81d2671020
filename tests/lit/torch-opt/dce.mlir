// RUN: xdsl-opt %s -p torch-dce | filecheck %s
// Dead code through prim regions: dead ops, unused If results, dead loop-carried values, and
// whole If/Loop ops nothing reads (their terminators are Pure).

// CHECK-LABEL: func.func @dead_ops_and_ifs
// CHECK-NOT:     torch.aten.exp
// CHECK:         %[[R:.*]] = torch.prim.If %c -> (!torch.vtensor<[3],f32>) {
// CHECK-NEXT:      %[[T:.*]] = torch.aten.tanh %x
// CHECK-NEXT:      torch.prim.If.yield %[[T]] : !torch.vtensor<[3],f32>
// CHECK-NEXT:    } else {
// CHECK-NEXT:      torch.prim.If.yield %x : !torch.vtensor<[3],f32>
// CHECK-NEXT:    }
// CHECK-NOT:     torch.prim.If
// CHECK:         func.return %[[R]]
func.func @dead_ops_and_ifs(%x: !torch.vtensor<[3],f32>, %c: !torch.bool) -> !torch.vtensor<[3],f32> {
  %dead = torch.aten.exp %x : !torch.vtensor<[3],f32> -> !torch.vtensor<[3],f32>
  %r:2 = torch.prim.If %c -> (!torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>) {
    %t = torch.aten.tanh %x : !torch.vtensor<[3],f32> -> !torch.vtensor<[3],f32>
    %e = torch.aten.exp %x : !torch.vtensor<[3],f32> -> !torch.vtensor<[3],f32>
    torch.prim.If.yield %t, %e : !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>
  } else {
    torch.prim.If.yield %x, %x : !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>
  }
  %unused = torch.prim.If %c -> (!torch.vtensor<[3],f32>) {
    %t = torch.aten.tanh %x : !torch.vtensor<[3],f32> -> !torch.vtensor<[3],f32>
    torch.prim.If.yield %t : !torch.vtensor<[3],f32>
  } else {
    torch.prim.If.yield %x : !torch.vtensor<[3],f32>
  }
  func.return %r#0 : !torch.vtensor<[3],f32>
}

// `%count` is carried but only feeds itself: it goes. `%h` feeds the result; `%s` feeds `%h`
// (through the body), so it stays although nothing reads its result.
// CHECK-LABEL: func.func @dead_carried
// CHECK:         %[[H:.*]], %{{.*}} = torch.prim.Loop %n, %true, init(%x, %x) {
// CHECK-NEXT:    ^{{.*}}(%i: !torch.int, %{{.*}}: !torch.vtensor<[?],f32>, %{{.*}}: !torch.vtensor<[?],f32>):
// CHECK-NOT:       torch.aten.add.int
// CHECK:           torch.prim.Loop.condition %true, iter(%{{.*}}, %{{.*}} : !torch.vtensor<[?],f32>, !torch.vtensor<[?],f32>)
// CHECK-NEXT:    } : (!torch.int, !torch.bool, !torch.vtensor<[?],f32>, !torch.vtensor<[?],f32>) -> (!torch.vtensor<[?],f32>, !torch.vtensor<[?],f32>)
// CHECK-NEXT:    func.return %[[H]]
func.func @dead_carried(%x: !torch.vtensor<[?],f32>, %n: !torch.int) -> !torch.vtensor<[?],f32> {
  %true = torch.constant.bool true
  %int0 = torch.constant.int 0
  %int1 = torch.constant.int 1
  %h, %s, %count = torch.prim.Loop %n, %true, init(%x, %x, %int0) {
  ^bb0(%i: !torch.int, %h: !torch.vtensor<[?],f32>, %s: !torch.vtensor<[?],f32>, %count: !torch.int):
    %h2 = torch.aten.mul.Tensor %h, %s : !torch.vtensor<[?],f32>, !torch.vtensor<[?],f32> -> !torch.vtensor<[?],f32>
    %s2 = torch.aten.tanh %s : !torch.vtensor<[?],f32> -> !torch.vtensor<[?],f32>
    %count2 = torch.aten.add.int %count, %int1 : !torch.int, !torch.int -> !torch.int
    torch.prim.Loop.condition %true, iter(%h2, %s2, %count2 : !torch.vtensor<[?],f32>, !torch.vtensor<[?],f32>, !torch.int)
  } : (!torch.int, !torch.bool, !torch.vtensor<[?],f32>, !torch.vtensor<[?],f32>, !torch.int) -> (!torch.vtensor<[?],f32>, !torch.vtensor<[?],f32>, !torch.int)
  func.return %h : !torch.vtensor<[?],f32>
}

// A carried value the loop's condition reads stays live (it decides the trip count).
// CHECK-LABEL: func.func @carried_condition
// CHECK:         torch.prim.Loop %n, %true, init(%x, %int0)
// CHECK:         torch.aten.lt.int
func.func @carried_condition(%x: !torch.vtensor<[?],f32>, %n: !torch.int) -> !torch.vtensor<[?],f32> {
  %true = torch.constant.bool true
  %int0 = torch.constant.int 0
  %int1 = torch.constant.int 1
  %int5 = torch.constant.int 5
  %h, %count = torch.prim.Loop %n, %true, init(%x, %int0) {
  ^bb0(%i: !torch.int, %h: !torch.vtensor<[?],f32>, %count: !torch.int):
    %h2 = torch.aten.exp %h : !torch.vtensor<[?],f32> -> !torch.vtensor<[?],f32>
    %count2 = torch.aten.add.int %count, %int1 : !torch.int, !torch.int -> !torch.int
    %go = torch.aten.lt.int %count2, %int5 : !torch.int, !torch.int -> !torch.bool
    torch.prim.Loop.condition %go, iter(%h2, %count2 : !torch.vtensor<[?],f32>, !torch.int)
  } : (!torch.int, !torch.bool, !torch.vtensor<[?],f32>, !torch.int) -> (!torch.vtensor<[?],f32>, !torch.int)
  func.return %h : !torch.vtensor<[?],f32>
}

// A loop nothing reads goes entirely.
// CHECK-LABEL: func.func @dead_loop
// CHECK-NOT:     torch.prim.Loop
// CHECK:         func.return %x
func.func @dead_loop(%x: !torch.vtensor<[?],f32>, %n: !torch.int) -> !torch.vtensor<[?],f32> {
  %true = torch.constant.bool true
  %h = torch.prim.Loop %n, %true, init(%x) {
  ^bb0(%i: !torch.int, %h: !torch.vtensor<[?],f32>):
    %h2 = torch.aten.exp %h : !torch.vtensor<[?],f32> -> !torch.vtensor<[?],f32>
    torch.prim.Loop.condition %true, iter(%h2 : !torch.vtensor<[?],f32>)
  } : (!torch.int, !torch.bool, !torch.vtensor<[?],f32>) -> !torch.vtensor<[?],f32>
  func.return %x : !torch.vtensor<[?],f32>
}
