// RUN: xdsl-opt %s | xdsl-opt | filecheck %s
// Every type spelling and the compact op syntax print and parse back unchanged.

// CHECK-LABEL: func.func @torch.types
// CHECK-SAME: !torch.vtensor<[3,?],f32>, %{{.*}}: !torch.vtensor<*,unk>, %{{.*}}: !torch.vtensor<[],si64>, %{{.*}}: !torch.vtensor<[2],unk>
// CHECK-SAME: !torch.int, %{{.*}}: !torch.float, %{{.*}}: !torch.bool, %{{.*}}: !torch.none, %{{.*}}: !torch.list<int>, %{{.*}}: !torch.tuple<vtensor<[2],f32>, int>
func.func @torch.types(%a: !torch.vtensor<[3,?],f32>, %b: !torch.vtensor<*,unk>, %c: !torch.vtensor<[],si64>, %d: !torch.vtensor<[2],unk>, %e: !torch.int, %f: !torch.float, %g: !torch.bool, %h: !torch.none, %i: !torch.list<int>, %j: !torch.tuple<vtensor<[2],f32>, int>) {
  func.return
}

// CHECK-LABEL: func.func @torch.aten.ops
func.func @torch.aten.ops(%x: !torch.vtensor<[?,4],f32>, %b: !torch.vtensor<[4],f32>) -> !torch.vtensor<[?,4],f32> {
  // CHECK: %[[ONE:.*]] = torch.constant.int 1
  // CHECK-NEXT: %[[TWO:.*]] = torch.constant.float 2.000000e+00
  // CHECK-NEXT: %[[T:.*]] = torch.constant.bool true
  // CHECK-NEXT: %[[NONE:.*]] = torch.constant.none
  %int1 = torch.constant.int 1
  %float2 = torch.constant.float 2.0
  %true = torch.constant.bool true
  %none = torch.constant.none
  // CHECK: torch.aten.mul.Scalar %x, %[[TWO]] : !torch.vtensor<[?,4],f32>, !torch.float -> !torch.vtensor<[?,4],f32>
  %0 = torch.aten.mul.Scalar %x, %float2 : !torch.vtensor<[?,4],f32>, !torch.float -> !torch.vtensor<[?,4],f32>
  // CHECK: torch.aten.add.Tensor %{{.*}}, %b, %[[ONE]] : !torch.vtensor<[?,4],f32>, !torch.vtensor<[4],f32>, !torch.int -> !torch.vtensor<[?,4],f32>
  %1 = torch.aten.add.Tensor %0, %b, %int1 : !torch.vtensor<[?,4],f32>, !torch.vtensor<[4],f32>, !torch.int -> !torch.vtensor<[?,4],f32>
  // CHECK: torch.prim.ListConstruct %[[ONE]] : (!torch.int) -> !torch.list<int>
  %dims = torch.prim.ListConstruct %int1 : (!torch.int) -> !torch.list<int>
  // CHECK: torch.aten.sum.dim_IntList %{{.*}}, %{{.*}}, %[[T]], %[[NONE]] : !torch.vtensor<[?,4],f32>, !torch.list<int>, !torch.bool, !torch.none -> !torch.vtensor<[?,1],f32>
  %2 = torch.aten.sum.dim_IntList %1, %dims, %true, %none : !torch.vtensor<[?,4],f32>, !torch.list<int>, !torch.bool, !torch.none -> !torch.vtensor<[?,1],f32>
  // CHECK: %{{.*}}, %{{.*}} = torch.aten.max.dim %{{.*}} -> !torch.vtensor<[?,1],f32>, !torch.vtensor<[?,1],si64>
  %v, %i = torch.aten.max.dim %1, %int1, %true : !torch.vtensor<[?,4],f32>, !torch.int, !torch.bool -> !torch.vtensor<[?,1],f32>, !torch.vtensor<[?,1],si64>
  // CHECK: torch.aten.tanh %{{.*}} : !torch.vtensor<[?,4],f32> -> !torch.vtensor<[?,4],f32>
  %3 = torch.aten.tanh %1 : !torch.vtensor<[?,4],f32> -> !torch.vtensor<[?,4],f32>
  func.return %3 : !torch.vtensor<[?,4],f32>
}

// CHECK-LABEL: func.func @torch.prim.If
// CHECK: torch.prim.If %{{.*}} -> (!torch.vtensor<[?],f32>) {
// CHECK-NEXT: torch.prim.If.yield %x : !torch.vtensor<[?],f32>
// CHECK-NEXT: } else {
func.func @torch.prim.If(%c: !torch.bool, %x: !torch.vtensor<[?],f32>) -> !torch.vtensor<[?],f32> {
  %0 = torch.prim.If %c -> (!torch.vtensor<[?],f32>) {
    torch.prim.If.yield %x : !torch.vtensor<[?],f32>
  } else {
    %n = torch.aten.neg %x : !torch.vtensor<[?],f32> -> !torch.vtensor<[?],f32>
    torch.prim.If.yield %n : !torch.vtensor<[?],f32>
  }
  func.return %0 : !torch.vtensor<[?],f32>
}

// CHECK-LABEL: func.func @torch.prim.Loop
// CHECK: torch.prim.Loop %n, %{{.*}}, init(%x) {
// CHECK: torch.prim.Loop.condition %{{.*}}, iter(%{{.*}} : !torch.vtensor<[?],f32>)
func.func @torch.prim.Loop(%n: !torch.int, %x: !torch.vtensor<[?],f32>) -> !torch.vtensor<[?],f32> {
  %true = torch.constant.bool true
  %0 = torch.prim.Loop %n, %true, init(%x) {
  ^bb0(%i: !torch.int, %h: !torch.vtensor<[?],f32>):
    %t = torch.aten.tanh %h : !torch.vtensor<[?],f32> -> !torch.vtensor<[?],f32>
    torch.prim.Loop.condition %true, iter(%t : !torch.vtensor<[?],f32>)
  } : (!torch.int, !torch.bool, !torch.vtensor<[?],f32>) -> !torch.vtensor<[?],f32>
  func.return %0 : !torch.vtensor<[?],f32>
}
