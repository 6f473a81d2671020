// RUN: xdsl-opt %s -p convert-torch-to-linalg,canonicalize,cse | filecheck %s
// `x[i, :, j]` with index tensors at separated dims (PyTorch puts their broadcast shape
// first): one generic over the result reads x at the wrapped indices (i broadcast along j's
// dim), each index checked in range where it is read (a cf.assert: IndexError), no pass of
// its own over the index tensors.

// CHECK-LABEL: func.func @separated
// CHECK-NOT:  iterator_types = ["reduction"
// CHECK:      %[[ZERO:.*]] = arith.constant 0 : index
// CHECK:      tensor.empty(%{{.*}}) : tensor<?x5x3xf32>
// CHECK:      %[[B0:.*]] = linalg.index 0 : index
// CHECK-NEXT: %[[B1:.*]] = linalg.index 1 : index
// CHECK-NEXT: %[[K:.*]] = linalg.index 2 : index
// CHECK-NEXT: %[[EI:.*]] = tensor.extract %i[%[[B0]], %[[ZERO]]] : tensor<?x1xi64>
// CHECK-NEXT: %[[AI:.*]] = arith.index_cast %[[EI]] : i64 to index
// CHECK-NEXT: %[[NI:.*]] = arith.cmpi slt, %[[AI]], %[[ZERO]] : index
// CHECK-NEXT: %[[UI:.*]] = arith.addi %[[AI]], %{{.*}} : index
// CHECK-NEXT: %[[I:.*]] = arith.select %[[NI]], %[[UI]], %[[AI]] : index
// CHECK-NEXT: %[[LI:.*]] = arith.cmpi sge, %[[I]], %[[ZERO]] : index
// CHECK-NEXT: %[[HI:.*]] = arith.cmpi slt, %[[I]], %{{.*}} : index
// CHECK-NEXT: %[[OKI:.*]] = arith.andi %[[LI]], %[[HI]] : i1
// CHECK-NEXT: cf.assert %[[OKI]], "IndexError: index is out of bounds for dimension 0 with size 4"
// CHECK-NEXT: %[[EJ:.*]] = tensor.extract %j[%[[B1]]] : tensor<5xi32>
// CHECK-NEXT: %[[AJ:.*]] = arith.index_cast %[[EJ]] : i32 to index
// CHECK-NEXT: %[[NJ:.*]] = arith.cmpi slt, %[[AJ]], %[[ZERO]] : index
// CHECK-NEXT: %[[UJ:.*]] = arith.addi %[[AJ]], %{{.*}} : index
// CHECK-NEXT: %[[J:.*]] = arith.select %[[NJ]], %[[UJ]], %[[AJ]] : index
// CHECK:      cf.assert %{{.*}}, "IndexError: index is out of bounds for dimension 2"
// CHECK-NEXT: tensor.extract %x[%[[I]], %[[K]], %[[J]]] : tensor<4x3x?xf32>
func.func @separated(%x: !torch.vtensor<[4,3,?],f32>, %i: !torch.vtensor<[?,1],si64>, %j: !torch.vtensor<[5],si32>) -> !torch.vtensor<[?,5,3],f32> {
  %none = torch.constant.none
  %l = torch.prim.ListConstruct %i, %none, %j : (!torch.vtensor<[?,1],si64>, !torch.none, !torch.vtensor<[5],si32>) -> !torch.list<vtensor<[?,1],si64>>
  %0 = torch.aten.index.Tensor %x, %l : !torch.vtensor<[4,3,?],f32>, !torch.list<vtensor<[?,1],si64>> -> !torch.vtensor<[?,5,3],f32>
  func.return %0 : !torch.vtensor<[?,5,3],f32>
}

// Adjacent index dims `x[:, i, j]`: the broadcast shape replaces them in place; a 0-d index
// is checked and read once, before the loops.
// CHECK-LABEL: func.func @adjacent
// CHECK:      %[[E:.*]] = tensor.extract %j[] : tensor<i64>
// CHECK-NEXT: %[[AT:.*]] = arith.index_cast %[[E]] : i64 to index
// CHECK:      cf.assert %{{.*}}, "IndexError: index is out of bounds for dimension 2 with size 5"
// CHECK:      tensor.empty() : tensor<2x3xf32>
// CHECK:      %[[R:.*]] = linalg.index 0 : index
// CHECK-NEXT: %[[B:.*]] = linalg.index 1 : index
// CHECK:      tensor.extract %i[%[[B]]] : tensor<3xi64>
// CHECK:      cf.assert %{{.*}}, "IndexError: index is out of bounds for dimension 1 with size 4"
// CHECK-NOT:  tensor.extract %j
// CHECK:      tensor.extract %x[%[[R]], %{{.*}}, %{{.*}}] : tensor<2x4x5xf32>
func.func @adjacent(%x: !torch.vtensor<[2,4,5],f32>, %i: !torch.vtensor<[3],si64>, %j: !torch.vtensor<[],si64>) -> !torch.vtensor<[2,3],f32> {
  %none = torch.constant.none
  %l = torch.prim.ListConstruct %none, %i, %j : (!torch.none, !torch.vtensor<[3],si64>, !torch.vtensor<[],si64>) -> !torch.list<vtensor<[3],si64>>
  %0 = torch.aten.index.Tensor %x, %l : !torch.vtensor<[2,4,5],f32>, !torch.list<vtensor<[3],si64>> -> !torch.vtensor<[2,3],f32>
  func.return %0 : !torch.vtensor<[2,3],f32>
}

// Two `?` index sizes: the first gives the result's size, the second is checked against it
// (sizes computed inside a program are not checked when the call starts).
// CHECK-LABEL: func.func @run_time_sizes
// CHECK:      %[[I:.*]] = tensor.dim %i, %{{.*}} : tensor<?xi64>
// CHECK-NEXT: %[[J:.*]] = tensor.dim %j, %{{.*}} : tensor<?xi32>
// CHECK-NEXT: %[[SAME:.*]] = arith.cmpi eq, %[[J]], %[[I]] : index
// CHECK-NEXT: cf.assert %[[SAME]], "IndexError: shape mismatch: indexing tensors could not be broadcast together"
// CHECK-NOT:  cf.assert
// CHECK:      tensor.empty(%[[I]]) : tensor<?xf32>
func.func @run_time_sizes(%x: !torch.vtensor<[4,5],f32>, %i: !torch.vtensor<[?],si64>, %j: !torch.vtensor<[?],si32>) -> !torch.vtensor<[?],f32> {
  %l = torch.prim.ListConstruct %i, %j : (!torch.vtensor<[?],si64>, !torch.vtensor<[?],si32>) -> !torch.list<vtensor<[?],si64>>
  %0 = torch.aten.index.Tensor %x, %l : !torch.vtensor<[4,5],f32>, !torch.list<vtensor<[?],si64>> -> !torch.vtensor<[?],f32>
  func.return %0 : !torch.vtensor<[?],f32>
}
