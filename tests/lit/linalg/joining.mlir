// RUN: xdsl-opt %s -p convert-torch-to-linalg,canonicalize,cse | filecheck %s
// cat picks its input with scf.if along the joined dim; unpacked chunks are slice copies.

// The second input starts where the first ends; its int64 elements convert to f32.
// CHECK-LABEL: func.func @torch.aten.cat
// CHECK: %[[TWO:.*]] = arith.constant 2 : index
// CHECK: %[[J:.*]] = linalg.index 1 : index
// CHECK: %[[FIRST:.*]] = arith.cmpi slt, %[[J]], %[[TWO]] : index
// CHECK: scf.if %[[FIRST]] -> (f32) {
// CHECK: tensor.extract %a[%{{.*}}, %[[J]]] : tensor<?x2xf32>
// CHECK: } else {
// CHECK: %[[LOCAL:.*]] = arith.subi %[[J]], %[[TWO]] : index
// CHECK: %[[B:.*]] = tensor.extract %b[%{{.*}}, %[[LOCAL]]] : tensor<?x3xi64>
// CHECK: arith.sitofp %[[B]] : i64 to f32
func.func @torch.aten.cat(%a: !torch.vtensor<[?,2],f32>, %b: !torch.vtensor<[?,3],si64>) -> !torch.vtensor<[?,5],f32> {
  %int1 = torch.constant.int 1
  %list = torch.prim.ListConstruct %a, %b : (!torch.vtensor<[?,2],f32>, !torch.vtensor<[?,3],si64>) -> !torch.list<vtensor<[?,?],unk>>
  %0 = torch.aten.cat %list, %int1 : !torch.list<vtensor<[?,?],unk>>, !torch.int -> !torch.vtensor<[?,5],f32>
  func.return %0 : !torch.vtensor<[?,5],f32>
}

// Chunks of a dynamic dim: pieces of ceil(n / 2), the last one clamped to what is left.
// CHECK-LABEL: func.func @torch.aten.chunk
// CHECK: %[[N:.*]] = tensor.dim %x, %{{.*}} : tensor<?x4xf32>
// CHECK: %[[STEP:.*]] = arith.ceildivsi %[[N]], %{{.*}} : index
// CHECK: %[[LEFT:.*]] = arith.subi %[[N]], %[[STEP]] : index
// CHECK: %[[POS:.*]] = arith.maxsi %[[LEFT]], %{{.*}} : index
// CHECK: %[[LAST:.*]] = arith.minsi %[[POS]], %[[STEP]] : index
// CHECK: %a = linalg.generic
// CHECK: tensor.empty(%[[LAST]]) : tensor<?x4xf32>
// CHECK: %b = linalg.generic
// CHECK: %[[ROW:.*]] = arith.addi %{{.*}}, %[[STEP]] : index
// CHECK: tensor.extract %x[%[[ROW]], %{{.*}}] : tensor<?x4xf32>
func.func @torch.aten.chunk(%x: !torch.vtensor<[?,4],f32>) -> (!torch.vtensor<[?,4],f32>, !torch.vtensor<[?,4],f32>) {
  %int2 = torch.constant.int 2
  %int0 = torch.constant.int 0
  %l = torch.aten.chunk %x, %int2, %int0 : !torch.vtensor<[?,4],f32>, !torch.int, !torch.int -> !torch.list<vtensor<[?,4],f32>>
  %a, %b = torch.prim.ListUnpack %l : !torch.list<vtensor<[?,4],f32>> -> !torch.vtensor<[?,4],f32>, !torch.vtensor<[?,4],f32>
  func.return %a, %b : !torch.vtensor<[?,4],f32>, !torch.vtensor<[?,4],f32>
}
