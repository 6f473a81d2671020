// RUN: xdsl-opt %s -p convert-torch-to-linalg,canonicalize,cse | filecheck %s
// `x[index]`: the index tensor's element picks the row, a negative one counting from the end.

// CHECK-LABEL: func.func @torch.aten.index.Tensor
// CHECK:      tensor.empty(%{{.*}}, %{{.*}}) : tensor<?x?x4xf32>
// CHECK:      %[[I:.*]] = linalg.index 0 : index
// CHECK-NEXT: %[[J:.*]] = linalg.index 1 : index
// CHECK-NEXT: %[[K:.*]] = linalg.index 2 : index
// CHECK-NEXT: %[[E:.*]] = tensor.extract %i[%[[I]], %[[J]]] : tensor<?x?xi64>
// CHECK-NEXT: %[[AT:.*]] = arith.index_cast %[[E]] : i64 to index
// CHECK-NEXT: %[[NEG:.*]] = arith.cmpi slt, %[[AT]], %{{.*}} : index
// CHECK-NEXT: %[[UP:.*]] = arith.addi %[[AT]], %{{.*}} : index
// CHECK-NEXT: %[[ROW:.*]] = arith.select %[[NEG]], %[[UP]], %[[AT]] : index
// CHECK:      cf.assert %{{.*}}, "IndexError: index is out of bounds for dimension 0"
// CHECK-NEXT: tensor.extract %x[%[[ROW]], %[[K]]] : tensor<?x4xf32>
func.func @torch.aten.index.Tensor(%x: !torch.vtensor<[?,4],f32>, %i: !torch.vtensor<[?,?],si64>) -> !torch.vtensor<[?,?,4],f32> {
  %l = torch.prim.ListConstruct %i : (!torch.vtensor<[?,?],si64>) -> !torch.list<vtensor<[?,?],si64>>
  %0 = torch.aten.index.Tensor %x, %l : !torch.vtensor<[?,4],f32>, !torch.list<vtensor<[?,?],si64>> -> !torch.vtensor<[?,?,4],f32>
  func.return %0 : !torch.vtensor<[?,?,4],f32>
}

// constant_pad_nd: a padded dim shifts its index, checks it and clamps the read; a dim
// without padding reads its own index; the padded size of a `?` dim is computed.
// CHECK-LABEL: func.func @torch.aten.constant_pad_nd
// CHECK:      %[[SIZE:.*]] = arith.addi %{{.*}}, %{{.*}} : index
// CHECK-NEXT: tensor.empty(%[[SIZE]]) : tensor<2x?xf32>
// CHECK:      %[[FILL:.*]] = arith.constant 5.000000e-01 : f32
// CHECK:      %[[ROW:.*]] = linalg.index 0 : index
// CHECK-NEXT: %[[COL:.*]] = linalg.index 1 : index
// CHECK-NEXT: %[[SHIFTED:.*]] = arith.subi %[[COL]], %{{.*}} : index
// CHECK:      %[[INSIDE:.*]] = arith.andi
// CHECK:      %[[READ:.*]] = tensor.extract %x[%[[ROW]], %{{.*}}] : tensor<2x?xf32>
// CHECK-NEXT: arith.select %[[INSIDE]], %[[READ]], %[[FILL]] : f32
func.func @torch.aten.constant_pad_nd(%x: !torch.vtensor<[2,?],f32>) -> !torch.vtensor<[2,?],f32> {
  %int1 = torch.constant.int 1
  %int2 = torch.constant.int 2
  %p = torch.prim.ListConstruct %int1, %int2 : (!torch.int, !torch.int) -> !torch.list<int>
  %float = torch.constant.float 0.5
  %0 = torch.aten.constant_pad_nd %x, %p, %float : !torch.vtensor<[2,?],f32>, !torch.list<int>, !torch.float -> !torch.vtensor<[2,?],f32>
  func.return %0 : !torch.vtensor<[2,?],f32>
}
