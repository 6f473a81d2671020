// RUN: xdsl-opt %s -p torch-canonicalize | filecheck %s
// Data movement that undoes itself or changes nothing folds away (the ops' `fold` hooks).

// CHECK-LABEL: func.func @double_transpose
// CHECK-NEXT:    func.return %x, %x, %x
func.func @double_transpose(%x: !torch.vtensor<[2,3,4],f32>) -> (!torch.vtensor<[2,3,4],f32>, !torch.vtensor<[2,3,4],f32>, !torch.vtensor<[2,3,4],f32>) {
  %int0 = torch.constant.int 0
  %int2 = torch.constant.int 2
  %int_m1 = torch.constant.int -1
  %a = torch.aten.transpose.int %x, %int0, %int2 : !torch.vtensor<[2,3,4],f32>, !torch.int, !torch.int -> !torch.vtensor<[4,3,2],f32>
  %b = torch.aten.transpose.int %a, %int_m1, %int0 : !torch.vtensor<[4,3,2],f32>, !torch.int, !torch.int -> !torch.vtensor<[2,3,4],f32>
  %c = torch.aten.transpose.int %x, %int2, %int_m1 : !torch.vtensor<[2,3,4],f32>, !torch.int, !torch.int -> !torch.vtensor<[2,3,4],f32>
  %d = torch.aten.contiguous %c, %int0 : !torch.vtensor<[2,3,4],f32>, !torch.int -> !torch.vtensor<[2,3,4],f32>
  func.return %b, %c, %d : !torch.vtensor<[2,3,4],f32>, !torch.vtensor<[2,3,4],f32>, !torch.vtensor<[2,3,4],f32>
}

// Different dim pairs do not cancel.
// CHECK-LABEL: func.func @transposes_that_stay
// CHECK-COUNT-2: torch.aten.transpose.int
func.func @transposes_that_stay(%x: !torch.vtensor<[2,3,4],f32>) -> !torch.vtensor<[3,4,2],f32> {
  %int0 = torch.constant.int 0
  %int1 = torch.constant.int 1
  %int2 = torch.constant.int 2
  %a = torch.aten.transpose.int %x, %int0, %int1 : !torch.vtensor<[2,3,4],f32>, !torch.int, !torch.int -> !torch.vtensor<[3,2,4],f32>
  %b = torch.aten.transpose.int %a, %int1, %int2 : !torch.vtensor<[3,2,4],f32>, !torch.int, !torch.int -> !torch.vtensor<[3,4,2],f32>
  func.return %b : !torch.vtensor<[3,4,2],f32>
}

// permute(permute(x, p), q) is x when q undoes p; t(t(x)) is x; t of a vector is the vector.
// CHECK-LABEL: func.func @permutes
// CHECK:         %[[P:.*]] = torch.aten.permute %x
// CHECK-NOT:     torch.aten.permute
// CHECK-NOT:     torch.aten.t {{.*}}
// CHECK:         func.return %x, %[[P]], %m, %v
func.func @permutes(%x: !torch.vtensor<[2,3,4],f32>, %m: !torch.vtensor<[?,5],f32>, %v: !torch.vtensor<[?],f32>) -> (!torch.vtensor<[2,3,4],f32>, !torch.vtensor<[4,2,3],f32>, !torch.vtensor<[?,5],f32>, !torch.vtensor<[?],f32>) {
  %int0 = torch.constant.int 0
  %int1 = torch.constant.int 1
  %int2 = torch.constant.int 2
  %p = torch.prim.ListConstruct %int2, %int0, %int1 : (!torch.int, !torch.int, !torch.int) -> !torch.list<int>
  %q = torch.prim.ListConstruct %int1, %int2, %int0 : (!torch.int, !torch.int, !torch.int) -> !torch.list<int>
  %a = torch.aten.permute %x, %p : !torch.vtensor<[2,3,4],f32>, !torch.list<int> -> !torch.vtensor<[4,2,3],f32>
  %b = torch.aten.permute %a, %q : !torch.vtensor<[4,2,3],f32>, !torch.list<int> -> !torch.vtensor<[2,3,4],f32>
  %mt = torch.aten.t %m : !torch.vtensor<[?,5],f32> -> !torch.vtensor<[5,?],f32>
  %mtt = torch.aten.t %mt : !torch.vtensor<[5,?],f32> -> !torch.vtensor<[?,5],f32>
  %vt = torch.aten.t %v : !torch.vtensor<[?],f32> -> !torch.vtensor<[?],f32>
  func.return %b, %a, %mtt, %vt : !torch.vtensor<[2,3,4],f32>, !torch.vtensor<[4,2,3],f32>, !torch.vtensor<[?,5],f32>, !torch.vtensor<[?],f32>
}

// reshape(reshape(x, s1), s2) is reshape(x, s2); a reshape to x's own shape is x.
// CHECK-LABEL: func.func @reshapes
// CHECK:         %[[R:.*]] = torch.aten.reshape %x, %{{.*}} : !torch.vtensor<[?,4],f32>, !torch.list<int> -> !torch.vtensor<[2,?],f32>
// CHECK-NOT:     torch.aten.view
// CHECK:         func.return %[[R]], %x
func.func @reshapes(%x: !torch.vtensor<[?,4],f32>) -> (!torch.vtensor<[2,?],f32>, !torch.vtensor<[?,4],f32>) {
  %int_m1 = torch.constant.int -1
  %int2 = torch.constant.int 2
  %int4 = torch.constant.int 4
  %flat = torch.prim.ListConstruct %int_m1 : (!torch.int) -> !torch.list<int>
  %two = torch.prim.ListConstruct %int2, %int_m1 : (!torch.int, !torch.int) -> !torch.list<int>
  %back = torch.prim.ListConstruct %int_m1, %int4 : (!torch.int, !torch.int) -> !torch.list<int>
  %a = torch.aten.view %x, %flat : !torch.vtensor<[?,4],f32>, !torch.list<int> -> !torch.vtensor<[?],f32>
  %b = torch.aten.reshape %a, %two : !torch.vtensor<[?],f32>, !torch.list<int> -> !torch.vtensor<[2,?],f32>
  %c = torch.aten.view %x, %back : !torch.vtensor<[?,4],f32>, !torch.list<int> -> !torch.vtensor<[?,4],f32>
  func.return %b, %c : !torch.vtensor<[2,?],f32>, !torch.vtensor<[?,4],f32>
}

// With two `?` dims equal types do not prove equal shapes: the reshape stays.
// CHECK-LABEL: func.func @reshape_that_stays
// CHECK:         torch.aten.reshape %x
func.func @reshape_that_stays(%x: !torch.vtensor<[?,?],f32>, %n: !torch.int) -> !torch.vtensor<[?,?],f32> {
  %int_m1 = torch.constant.int -1
  %s = torch.prim.ListConstruct %n, %int_m1 : (!torch.int, !torch.int) -> !torch.list<int>
  %r = torch.aten.reshape %x, %s : !torch.vtensor<[?,?],f32>, !torch.list<int> -> !torch.vtensor<[?,?],f32>
  func.return %r : !torch.vtensor<[?,?],f32>
}
