// RUN: xdsl-opt %s -p convert-torch-to-linalg,canonicalize,cse | filecheck %s
// Constructors: tensor.empty sized by runtime ints, then linalg.fill or an index generic.

// A runtime size and a runtime fill value: the float truncates to the int64 element type.
// CHECK-LABEL: func.func @torch.aten.full
// CHECK: %[[N:.*]] = arith.index_cast %n : i64 to index
// CHECK: %[[INIT:.*]] = tensor.empty(%[[N]]) : tensor<?x3xi64>
// CHECK: %[[V:.*]] = arith.fptosi %v : f64 to i64
// CHECK: linalg.fill ins(%[[V]] : i64) outs(%[[INIT]] : tensor<?x3xi64>)
func.func @torch.aten.full(%n: !torch.int, %v: !torch.float) -> !torch.vtensor<[?,3],si64> {
  %int3 = torch.constant.int 3
  %int4 = torch.constant.int 4
  %sizes = torch.prim.ListConstruct %n, %int3 : (!torch.int, !torch.int) -> !torch.list<int>
  %0 = torch.aten.full %sizes, %v, %int4 : !torch.list<int>, !torch.float, !torch.int -> !torch.vtensor<[?,3],si64>
  func.return %0 : !torch.vtensor<[?,3],si64>
}

// arange with a float step: the length is ceil((end - start) / step) in f64, the values are
// computed in f64 and rounded to f32 once.
// CHECK-LABEL: func.func @torch.aten.arange.start_step
// CHECK: %[[SPAN:.*]] = arith.divf %{{.*}}, %{{.*}} : f64
// CHECK: %[[CEIL:.*]] = math.ceil %[[SPAN]] : f64
// CHECK: %[[LEN:.*]] = arith.fptosi %[[CEIL]] : f64 to i64
// CHECK: arith.maxsi %[[LEN]], %{{.*}} : i64
// CHECK: linalg.index 0 : index
// CHECK: arith.mulf %{{.*}}, %{{.*}} : f64
// CHECK: arith.truncf %{{.*}} : f64 to f32
func.func @torch.aten.arange.start_step(%end: !torch.int) -> !torch.vtensor<[?],f32> {
  %float = torch.constant.float 0.5
  %int1 = torch.constant.int 1
  %none = torch.constant.none
  %0 = torch.aten.arange.start_step %int1, %end, %float, %none : !torch.int, !torch.int, !torch.float, !torch.none -> !torch.vtensor<[?],f32>
  func.return %0 : !torch.vtensor<[?],f32>
}
