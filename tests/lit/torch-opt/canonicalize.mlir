// RUN: xdsl-opt %s -p torch-canonicalize | filecheck %s
// Constant folding of scalar ops through their eager references, the ops' fold hooks, and
// control flow on constants. Folds that would change a dtype (promotion) must not happen.

// Scalar arithmetic on constants folds; `7 // 0` is left for the run time to raise.
// CHECK-LABEL: func.func @scalars
// CHECK-SAME:    -> (!torch.int, !torch.bool, !torch.float, !torch.int, !torch.int)
// CHECK-DAG:     %[[SIX:.*]] = torch.constant.int 6
// CHECK-DAG:     %[[TRUE:.*]] = torch.constant.bool true
// CHECK-DAG:     %[[F:.*]] = torch.constant.float 6.000000e+00
// CHECK-DAG:     %[[Z:.*]] = torch.aten.floordiv.int %int7, %int0
// CHECK:         %[[D:.*]] = torch.aten.add.int %n, %[[SIX]]
// CHECK-NOT:     torch.aten.mul.int
// CHECK:         %[[RANGE:.*]] = torch.constant.int 5
// CHECK:         func.return %[[D]], %[[TRUE]], %[[F]], %[[Z]], %[[RANGE]]
func.func @scalars(%n: !torch.int) -> (!torch.int, !torch.bool, !torch.float, !torch.int, !torch.int) {
  %int7 = torch.constant.int 7
  %int3 = torch.constant.int 3
  %int0 = torch.constant.int 0
  %int_m2 = torch.constant.int -2
  %a = torch.aten.floordiv.int %int7, %int3 : !torch.int, !torch.int -> !torch.int
  %b = torch.aten.mul.int %a, %int3 : !torch.int, !torch.int -> !torch.int
  %c = torch.aten.lt.int %b, %int7 : !torch.int, !torch.int -> !torch.bool
  %f = torch.aten.Float.Scalar %b : !torch.int -> !torch.float
  %z = torch.aten.floordiv.int %int7, %int0 : !torch.int, !torch.int -> !torch.int
  %d = torch.aten.add.int %n, %b : !torch.int, !torch.int -> !torch.int
  %r = torch.aten.__range_length %int7, %int_m2, %int_m2 : !torch.int, !torch.int, !torch.int -> !torch.int
  func.return %d, %c, %f, %z, %r : !torch.int, !torch.bool, !torch.float, !torch.int, !torch.int
}

// x * 1, x + 0, x - 0, x / 1 are x when the result type is exactly x's type.
// CHECK-LABEL: func.func @identities
// CHECK-NOT:     torch.aten.mul.Scalar %x
// CHECK-NOT:     torch.aten.add.Scalar
// CHECK-NOT:     torch.aten.div.Scalar
// CHECK-NOT:     torch.aten.sub.Scalar
// CHECK:         func.return %x, %i
func.func @identities(%x: !torch.vtensor<[?,4],f32>, %i: !torch.vtensor<[3],si64>) -> (!torch.vtensor<[?,4],f32>, !torch.vtensor<[3],si64>) {
  %int1 = torch.constant.int 1
  %int0 = torch.constant.int 0
  %float1 = torch.constant.float 1.0
  %float0 = torch.constant.float 0.0
  %a = torch.aten.mul.Scalar %x, %int1 : !torch.vtensor<[?,4],f32>, !torch.int -> !torch.vtensor<[?,4],f32>
  %b = torch.aten.add.Scalar %a, %float0, %int1 : !torch.vtensor<[?,4],f32>, !torch.float, !torch.int -> !torch.vtensor<[?,4],f32>
  %c = torch.aten.div.Scalar %b, %float1 : !torch.vtensor<[?,4],f32>, !torch.float -> !torch.vtensor<[?,4],f32>
  %d = torch.aten.sub.Scalar %i, %int0, %int1 : !torch.vtensor<[3],si64>, !torch.int, !torch.int -> !torch.vtensor<[3],si64>
  %e = torch.aten.add.Scalar %d, %int1, %int0 : !torch.vtensor<[3],si64>, !torch.int, !torch.int -> !torch.vtensor<[3],si64>
  func.return %c, %e : !torch.vtensor<[?,4],f32>, !torch.vtensor<[3],si64>
}

// Promotion blocks the fold: an int tensor times 1.0 or divided by 1 is a float tensor.
// Unknown types block it too: the dtype could promote.
// CHECK-LABEL: func.func @not_identities
// CHECK:         torch.aten.mul.Scalar %i, %float1 {{.*}} -> !torch.vtensor<[3],f32>
// CHECK:         torch.aten.div.Scalar %i, %int1 {{.*}} -> !torch.vtensor<[3],f32>
// CHECK:         torch.aten.mul.Scalar %u, %float1
// CHECK:         torch.aten.mul.Scalar %i, %int2
func.func @not_identities(%i: !torch.vtensor<[3],si64>, %u: !torch.vtensor<*,unk>) -> (!torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>, !torch.vtensor<*,unk>, !torch.vtensor<[3],si64>) {
  %int1 = torch.constant.int 1
  %int2 = torch.constant.int 2
  %float1 = torch.constant.float 1.0
  %a = torch.aten.mul.Scalar %i, %float1 : !torch.vtensor<[3],si64>, !torch.float -> !torch.vtensor<[3],f32>
  %b = torch.aten.div.Scalar %i, %int1 : !torch.vtensor<[3],si64>, !torch.int -> !torch.vtensor<[3],f32>
  %c = torch.aten.mul.Scalar %u, %float1 : !torch.vtensor<*,unk>, !torch.float -> !torch.vtensor<*,unk>
  %d = torch.aten.mul.Scalar %i, %int2 : !torch.vtensor<[3],si64>, !torch.int -> !torch.vtensor<[3],si64>
  func.return %a, %b, %c, %d : !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>, !torch.vtensor<*,unk>, !torch.vtensor<[3],si64>
}

// size/dim/len of static dims are constants; a `?` dim stays a query.
// CHECK-LABEL: func.func @shapes
// CHECK-DAG:     %[[FOUR:.*]] = torch.constant.int 4
// CHECK-DAG:     %[[TWO:.*]] = torch.constant.int 2
// CHECK-DAG:     %[[ROWS:.*]] = torch.aten.size.int %x, %int0
// CHECK-DAG:     %[[LEN:.*]] = torch.aten.len.Tensor %x
// CHECK:         func.return %[[FOUR]], %[[TWO]], %[[ROWS]], %[[LEN]]
func.func @shapes(%x: !torch.vtensor<[?,4],f32>) -> (!torch.int, !torch.int, !torch.int, !torch.int) {
  %int0 = torch.constant.int 0
  %int_m1 = torch.constant.int -1
  %a = torch.aten.size.int %x, %int_m1 : !torch.vtensor<[?,4],f32>, !torch.int -> !torch.int
  %b = torch.aten.dim %x : !torch.vtensor<[?,4],f32> -> !torch.int
  %c = torch.aten.size.int %x, %int0 : !torch.vtensor<[?,4],f32>, !torch.int -> !torch.int
  %d = torch.aten.len.Tensor %x : !torch.vtensor<[?,4],f32> -> !torch.int
  func.return %a, %b, %c, %d : !torch.int, !torch.int, !torch.int, !torch.int
}

// prim.If on a folded condition is the taken branch; the types are refined after the fold
// (the branch's [3] replaces the If's [?]).
// CHECK-LABEL: func.func @constant_if
// CHECK-SAME:    -> !torch.vtensor<[3],f32>
// CHECK-NOT:     torch.prim.If
// CHECK:         %[[T:.*]] = torch.aten.tanh %x
// CHECK-NEXT:    func.return %[[T]] : !torch.vtensor<[3],f32>
func.func @constant_if(%x: !torch.vtensor<[3],f32>, %y: !torch.vtensor<[?],f32>) -> !torch.vtensor<[?],f32> {
  %int0 = torch.constant.int 0
  %int2 = torch.constant.int 2
  %c = torch.aten.gt.int %int2, %int0 : !torch.int, !torch.int -> !torch.bool
  %r = torch.prim.If %c -> (!torch.vtensor<[?],f32>) {
    %t = torch.aten.tanh %x : !torch.vtensor<[3],f32> -> !torch.vtensor<[3],f32>
    torch.prim.If.yield %t : !torch.vtensor<[3],f32>
  } else {
    torch.prim.If.yield %y : !torch.vtensor<[?],f32>
  }
  func.return %r : !torch.vtensor<[?],f32>
}

// A result both branches give as the same outer value is that value.
// CHECK-LABEL: func.func @same_branches
// CHECK:         %[[R:.*]], %{{.*}} = torch.prim.If %c -> (!torch.vtensor<[?],f32>, !torch.vtensor<[?],f32>)
// CHECK:         func.return %[[R]], %x
func.func @same_branches(%x: !torch.vtensor<[?],f32>, %c: !torch.bool) -> (!torch.vtensor<[?],f32>, !torch.vtensor<[?],f32>) {
  %r:2 = torch.prim.If %c -> (!torch.vtensor<[?],f32>, !torch.vtensor<[?],f32>) {
    %t = torch.aten.tanh %x : !torch.vtensor<[?],f32> -> !torch.vtensor<[?],f32>
    torch.prim.If.yield %t, %x : !torch.vtensor<[?],f32>, !torch.vtensor<[?],f32>
  } else {
    torch.prim.If.yield %x, %x : !torch.vtensor<[?],f32>, !torch.vtensor<[?],f32>
  }
  func.return %r#0, %r#1 : !torch.vtensor<[?],f32>, !torch.vtensor<[?],f32>
}

// A loop that runs zero times gives its initial values; so does a false initial condition.
// CHECK-LABEL: func.func @loops_that_never_run
// CHECK-NOT:     torch.prim.Loop
// CHECK:         func.return %x, %x
func.func @loops_that_never_run(%x: !torch.vtensor<[?],f32>, %n: !torch.int) -> (!torch.vtensor<[?],f32>, !torch.vtensor<[?],f32>) {
  %true = torch.constant.bool true
  %false = torch.constant.bool false
  %int0 = torch.constant.int 0
  %int5 = torch.constant.int 5
  %count = torch.aten.__range_length %int5, %int0, %int5 : !torch.int, !torch.int, !torch.int -> !torch.int
  %a = torch.prim.Loop %count, %true, init(%x) {
  ^bb0(%i: !torch.int, %h: !torch.vtensor<[?],f32>):
    %e = torch.aten.exp %h : !torch.vtensor<[?],f32> -> !torch.vtensor<[?],f32>
    torch.prim.Loop.condition %true, iter(%e : !torch.vtensor<[?],f32>)
  } : (!torch.int, !torch.bool, !torch.vtensor<[?],f32>) -> !torch.vtensor<[?],f32>
  %b = torch.prim.Loop %n, %false, init(%a) {
  ^bb0(%i: !torch.int, %h: !torch.vtensor<[?],f32>):
    %e = torch.aten.exp %h : !torch.vtensor<[?],f32> -> !torch.vtensor<[?],f32>
    torch.prim.Loop.condition %true, iter(%e : !torch.vtensor<[?],f32>)
  } : (!torch.int, !torch.bool, !torch.vtensor<[?],f32>) -> !torch.vtensor<[?],f32>
  func.return %a, %b : !torch.vtensor<[?],f32>, !torch.vtensor<[?],f32>
}

// A carried value the body passes on unchanged is its initial value, inside and after.
// CHECK-LABEL: func.func @invariant_carried
// CHECK:         %[[R:.*]], %{{.*}} = torch.prim.Loop %n, %true, init(%x, %y) {
// CHECK-NEXT:    ^{{.*}}(%i: !torch.int, %h: !torch.vtensor<[?],f32>, %k: !torch.vtensor<[?],f32>):
// CHECK-NEXT:      torch.aten.mul.Tensor %h, %y
// CHECK:         func.return %[[R]], %y
func.func @invariant_carried(%x: !torch.vtensor<[?],f32>, %y: !torch.vtensor<[?],f32>, %n: !torch.int) -> (!torch.vtensor<[?],f32>, !torch.vtensor<[?],f32>) {
  %true = torch.constant.bool true
  %r:2 = torch.prim.Loop %n, %true, init(%x, %y) {
  ^bb0(%i: !torch.int, %h: !torch.vtensor<[?],f32>, %k: !torch.vtensor<[?],f32>):
    %m = torch.aten.mul.Tensor %h, %k : !torch.vtensor<[?],f32>, !torch.vtensor<[?],f32> -> !torch.vtensor<[?],f32>
    torch.prim.Loop.condition %true, iter(%m, %k : !torch.vtensor<[?],f32>, !torch.vtensor<[?],f32>)
  } : (!torch.int, !torch.bool, !torch.vtensor<[?],f32>, !torch.vtensor<[?],f32>) -> (!torch.vtensor<[?],f32>, !torch.vtensor<[?],f32>)
  func.return %r#0, %r#1 : !torch.vtensor<[?],f32>, !torch.vtensor<[?],f32>
}

// Scalars read from tensor literals (traced weights) fold too: `bool(t)`, `float(t)`, `int(t)`.
// CHECK-LABEL: func.func @literals
// CHECK-DAG:     %[[B:.*]] = torch.constant.bool true
// CHECK-DAG:     %[[F:.*]] = torch.constant.float 2.500000e+00
// CHECK-DAG:     %[[I:.*]] = torch.constant.int 0
// CHECK-NOT:     torch.aten
// CHECK:         func.return %[[B]], %[[F]], %[[I]]
func.func @literals() -> (!torch.bool, !torch.float, !torch.int) {
  %t = torch.vtensor.literal(dense<[2.5]> : tensor<1xf32>) : !torch.vtensor<[1],f32>
  %z = torch.vtensor.literal(dense<0> : tensor<1x1xsi64>) : !torch.vtensor<[1,1],si64>
  %b = torch.aten.Bool.Tensor %t : !torch.vtensor<[1],f32> -> !torch.bool
  %f = torch.aten.Float.Tensor %t : !torch.vtensor<[1],f32> -> !torch.float
  %i = torch.aten.Int.Tensor %z : !torch.vtensor<[1,1],si64> -> !torch.int
  func.return %b, %f, %i : !torch.bool, !torch.float, !torch.int
}
