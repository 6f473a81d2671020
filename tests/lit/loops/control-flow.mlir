// RUN: xdsl-opt %s -p convert-torch-to-linalg,canonicalize,linalg-bufferize,convert-linalg-to-parallel-loops,canonicalize,cse | filecheck %s

// torch.prim.If with a tensor condition (aten.Bool.Tensor) -> tensor.extract -> memref.load,
// and scf.if yielding buffers.

// CHECK-LABEL: func.func @prim.If$tensor_condition
// CHECK-SAME:    (%[[X:.*]]: memref<?xf32>, %[[Y:.*]]: memref<?xf32>) -> memref<?xf32>
// CHECK:         %[[COND:.*]] = memref.load %{{.*}}[] : memref<i1>
// CHECK-NEXT:    %[[R:.*]] = scf.if %[[COND]] -> (memref<?xf32>) {
// CHECK-NEXT:      scf.yield %[[X]] : memref<?xf32>
// CHECK-NEXT:    } else {
// CHECK-NEXT:      scf.yield %[[Y]] : memref<?xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %[[R]] : memref<?xf32>
func.func @prim.If$tensor_condition(%x: !torch.vtensor<[?],f32>, %y: !torch.vtensor<[?],f32>) -> !torch.vtensor<[?],f32> {
  %a = torch.aten.max %x : !torch.vtensor<[?],f32> -> !torch.vtensor<[],f32>
  %b = torch.aten.max %y : !torch.vtensor<[?],f32> -> !torch.vtensor<[],f32>
  %c = torch.aten.gt.Tensor %a, %b : !torch.vtensor<[],f32>, !torch.vtensor<[],f32> -> !torch.vtensor<[],i1>
  %cond = torch.aten.Bool.Tensor %c : !torch.vtensor<[],i1> -> !torch.bool
  %r = torch.prim.If %cond -> (!torch.vtensor<[?],f32>) {
    torch.prim.If.yield %x : !torch.vtensor<[?],f32>
  } else {
    torch.prim.If.yield %y : !torch.vtensor<[?],f32>
  }
  func.return %r : !torch.vtensor<[?],f32>
}

// A for-range loop (both conditions constant true) -> scf.for over i64 carrying the buffer;
// `x[i]` reads the row through the loop counter, wrapped when negative.

// CHECK-LABEL: func.func @prim.Loop$for
// CHECK-SAME:    (%[[X:.*]]: memref<?x4xf32>, %[[H0:.*]]: memref<4xf32>) -> memref<4xf32>
// CHECK:         %[[N:.*]] = arith.index_cast %{{.*}} : index to i64
// CHECK:         %[[H:.*]] = scf.for %[[I:.*]] = %{{.*}} to %[[N]] step %{{.*}} iter_args(%[[HC:.*]] = %[[H0]]) -> (memref<4xf32>) : i64 {
// CHECK:           %[[IDX:.*]] = arith.index_cast %[[I]] : i64 to index
// CHECK:           %[[NEG:.*]] = arith.cmpi slt, %[[IDX]], %{{.*}} : index
// CHECK:           %[[ROW:.*]] = arith.select %[[NEG]], %{{.*}}, %[[IDX]] : index
// CHECK:           "scf.parallel"
// CHECK:             memref.load %[[X]][%[[ROW]], %{{.*}}] : memref<?x4xf32>
// CHECK:           math.tanh
// CHECK:           scf.yield %{{.*}} : memref<4xf32>
// CHECK:         func.return %[[H]] : memref<4xf32>
func.func @prim.Loop$for(%x: !torch.vtensor<[?,4],f32>, %h0: !torch.vtensor<[4],f32>) -> !torch.vtensor<[4],f32> {
  %true = torch.constant.bool true
  %int0 = torch.constant.int 0
  %int1 = torch.constant.int 1
  %n = torch.aten.size.int %x, %int0 : !torch.vtensor<[?,4],f32>, !torch.int -> !torch.int
  %h = torch.prim.Loop %n, %true, init(%h0) {
  ^bb0(%i: !torch.int, %hc: !torch.vtensor<[4],f32>):
    %xt = torch.aten.select.int %x, %int0, %i : !torch.vtensor<[?,4],f32>, !torch.int, !torch.int -> !torch.vtensor<[4],f32>
    %s = torch.aten.add.Tensor %xt, %hc, %int1 : !torch.vtensor<[4],f32>, !torch.vtensor<[4],f32>, !torch.int -> !torch.vtensor<[4],f32>
    %t = torch.aten.tanh %s : !torch.vtensor<[4],f32> -> !torch.vtensor<[4],f32>
    torch.prim.Loop.condition %true, iter(%t : !torch.vtensor<[4],f32>)
  } : (!torch.int, !torch.bool, !torch.vtensor<[4],f32>) -> !torch.vtensor<[4],f32>
  func.return %h : !torch.vtensor<[4],f32>
}

// A `while` loop (TorchScript's trip count INT64_MAX): scf.while carries the counter and the
// condition; the trip count is not compared.

// CHECK-LABEL: func.func @prim.Loop$while
// CHECK-SAME:    (%[[N:.*]]: i64) -> i64
// CHECK:         %[[C0:.*]] = arith.cmpi slt, %{{.*}}, %[[N]] : i64
// CHECK:         %{{.*}}, %[[R:.*]] = scf.while (%[[K:.*]] = %{{.*}}, %[[GO:.*]] = %[[C0]], %[[A:.*]] = %{{.*}}) : (i64, i1, i64) -> (i64, i64) {
// CHECK-NEXT:      scf.condition(%[[GO]]) %[[K]], %[[A]] : i64, i64
// CHECK-NEXT:    } do {
// CHECK-NEXT:    ^{{.*}}(%[[I:.*]]: i64, %[[ACC:.*]]: i64):
// CHECK:           %[[A2:.*]] = arith.addi %[[ACC]], %{{.*}} : i64
// CHECK:           %[[C:.*]] = arith.cmpi slt, %[[A2]], %[[N]] : i64
// CHECK:           %[[NEXT:.*]] = arith.addi %[[I]], %{{.*}} : i64
// CHECK:           scf.yield %[[NEXT]], %[[C]], %[[A2]] : i64, i1, i64
// CHECK:         func.return %[[R]] : i64
func.func @prim.Loop$while(%n: !torch.int) -> !torch.int {
  %int0 = torch.constant.int 0
  %int3 = torch.constant.int 3
  %max = torch.constant.int 9223372036854775807
  %c0 = torch.aten.lt.int %int0, %n : !torch.int, !torch.int -> !torch.bool
  %r = torch.prim.Loop %max, %c0, init(%int0) {
  ^bb0(%i: !torch.int, %acc: !torch.int):
    %a2 = torch.aten.add.int %acc, %int3 : !torch.int, !torch.int -> !torch.int
    %c = torch.aten.lt.int %a2, %n : !torch.int, !torch.int -> !torch.bool
    torch.prim.Loop.condition %c, iter(%a2 : !torch.int)
  } : (!torch.int, !torch.bool, !torch.int) -> !torch.int
  func.return %r : !torch.int
}

// A for-range loop with `break` (a computed continue flag) -> scf.while whose condition also
// checks the counter against the trip count.

// CHECK-LABEL: func.func @prim.Loop$for_break
// CHECK-SAME:    (%[[N:.*]]: i64, %[[X:.*]]: memref<3xf32>) -> memref<3xf32>
// CHECK:         scf.while (%[[K:.*]] = %{{.*}}, %[[GO:.*]] = %{{.*}}, %{{.*}} = %[[X]]) : (i64, i1, memref<3xf32>) -> (i64, memref<3xf32>) {
// CHECK-NEXT:      %[[IN:.*]] = arith.cmpi slt, %[[K]], %[[N]] : i64
// CHECK-NEXT:      %[[BOTH:.*]] = arith.andi %[[IN]], %[[GO]] : i1
// CHECK-NEXT:      scf.condition(%[[BOTH]])
func.func @prim.Loop$for_break(%n: !torch.int, %x: !torch.vtensor<[3],f32>) -> !torch.vtensor<[3],f32> {
  %true = torch.constant.bool true
  %int1 = torch.constant.int 1
  %int5 = torch.constant.int 5
  %r = torch.prim.Loop %n, %true, init(%x) {
  ^bb0(%i: !torch.int, %y: !torch.vtensor<[3],f32>):
    %y2 = torch.aten.add.Scalar %y, %int1, %int1 : !torch.vtensor<[3],f32>, !torch.int, !torch.int -> !torch.vtensor<[3],f32>
    %stop = torch.aten.ge.int %i, %int5 : !torch.int, !torch.int -> !torch.bool
    %go = torch.aten.__not__ %stop : !torch.bool -> !torch.bool
    torch.prim.Loop.condition %go, iter(%y2 : !torch.vtensor<[3],f32>)
  } : (!torch.int, !torch.bool, !torch.vtensor<[3],f32>) -> !torch.vtensor<[3],f32>
  func.return %r : !torch.vtensor<[3],f32>
}
