// RUN: xdsl-opt %s -p convert-torch-to-linalg | filecheck %s
// index_put (`y[idx] = v`): a generic gives each index position's flat offset in x (a
// negative index wrapped, -1 when out of range), another the offsets of the dims kept whole,
// a third the values broadcast to the indexed shape (all three 1-D, row-major); then a
// destination-passing call of the numba kernel tsjit.index_put writes the values (outer,
// count, inner, single, accumulate as i64) into a copy of x.

// CHECK-LABEL: func.func private @tsjit.index_put(tensor<?x4xf32>, tensor<12xf32>, tensor<3xi64>, tensor<4xi64>, i64, i64, i64, i64, i64, tensor<?x4xf32>) -> tensor<?x4xf32> attributes {tsjit.kernel = "tsjit.index_put"}
// CHECK-LABEL: func.func @torch.aten.index_put$rows
// CHECK: %[[ROWS:.*]] = tensor.dim %x, %{{.*}} : tensor<?x4xf32>
// CHECK: %[[OFFSETS:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<3xi64>)
// CHECK: %[[AT:.*]] = tensor.extract %i[%{{.*}}] : tensor<3xi64>
// CHECK: %[[POSITION:.*]] = arith.index_cast %[[AT]] : i64 to index
// CHECK: %[[NEGATIVE:.*]] = arith.cmpi slt, %[[POSITION]], %{{.*}} : index
// CHECK: %[[WRAPPED:.*]] = arith.addi %[[POSITION]], %[[ROWS]] : index
// CHECK: arith.select %[[NEGATIVE]], %[[WRAPPED]], %[[POSITION]] : index
// CHECK: %[[MISSING:.*]] = arith.constant -1 : i64
// CHECK: arith.select %{{.*}}, %{{.*}}, %[[MISSING]] : i64
// CHECK: %[[KEPT:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<4xi64>)
// CHECK: %[[VALUES:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<12xf32>)
// CHECK: tensor.extract %v[%{{.*}}, %{{.*}}] : tensor<3x4xf32>
// CHECK: %[[OUT:.*]] = tensor.empty(%{{.*}}) : tensor<?x4xf32>
// CHECK: %r = func.call @tsjit.index_put(%x, %[[VALUES]], %[[OFFSETS]], %[[KEPT]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[OUT]])
func.func @torch.aten.index_put$rows(%x: !torch.vtensor<[?,4],f32>, %i: !torch.vtensor<[3],si64>, %v: !torch.vtensor<[3,4],f32>) -> !torch.vtensor<[?,4],f32> {
  %l = torch.prim.ListConstruct %i : (!torch.vtensor<[3],si64>) -> !torch.list<vtensor<[3],si64>>
  %false = torch.constant.bool false
  %r = torch.aten.index_put %x, %l, %v, %false : !torch.vtensor<[?,4],f32>, !torch.list<vtensor<[3],si64>>, !torch.vtensor<[3,4],f32>, !torch.bool -> !torch.vtensor<[?,4],f32>
  func.return %r : !torch.vtensor<[?,4],f32>
}

// `y[:, i] = v` with v of shape [2] and the indexed shape [5, 2]: the values' generic reads
// v at the position's last index (the row index broadcasts).
// CHECK-LABEL: func.func @torch.aten.index_put$columns
// CHECK: %[[VALUES:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<10xf32>)
// CHECK: %[[ROW:.*]] = arith.floordivsi %{{.*}}, %{{.*}} : index
// CHECK: %[[COLUMN:.*]] = arith.subi
// CHECK: tensor.extract %v[%[[COLUMN]]] : tensor<2xf32>
// CHECK: func.call @tsjit.index_put_1(%x, %[[VALUES]],
func.func @torch.aten.index_put$columns(%x: !torch.vtensor<[5,4],f32>, %i: !torch.vtensor<[2],si64>, %v: !torch.vtensor<[2],f32>) -> !torch.vtensor<[5,4],f32> {
  %none = torch.constant.none
  %l = torch.prim.ListConstruct %none, %i : (!torch.none, !torch.vtensor<[2],si64>) -> !torch.list<vtensor<[2],si64>>
  %false = torch.constant.bool false
  %r = torch.aten.index_put %x, %l, %v, %false : !torch.vtensor<[5,4],f32>, !torch.list<vtensor<[2],si64>>, !torch.vtensor<[2],f32>, !torch.bool -> !torch.vtensor<[5,4],f32>
  func.return %r : !torch.vtensor<[5,4],f32>
}

// `y[mask] += v` with a bool mask: no kernel, one generic selecting x + v where the mask is
// set (a 0-d v read once, before the loops).
// CHECK-LABEL: func.func @torch.aten.index_put$mask
// CHECK: %[[VALUE:.*]] = tensor.extract %v[] : tensor<f32>
// CHECK: linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], {{.*}} ins(%x, %m : tensor<5x4xf32>, tensor<5xi1>)
// CHECK: ^bb0(%[[OLD:.*]]: f32, %[[SET:.*]]: i1, %{{.*}}: f32):
// CHECK: %[[SUM:.*]] = arith.addf %[[OLD]], %[[VALUE]] : f32
// CHECK: arith.select %[[SET]], %[[SUM]], %[[OLD]] : f32
func.func @torch.aten.index_put$mask(%x: !torch.vtensor<[5,4],f32>, %m: !torch.vtensor<[5],i1>, %v: !torch.vtensor<[],f32>) -> !torch.vtensor<[5,4],f32> {
  %l = torch.prim.ListConstruct %m : (!torch.vtensor<[5],i1>) -> !torch.list<vtensor<[5],i1>>
  %true = torch.constant.bool true
  %r = torch.aten.index_put %x, %l, %v, %true : !torch.vtensor<[5,4],f32>, !torch.list<vtensor<[5],i1>>, !torch.vtensor<[],f32>, !torch.bool -> !torch.vtensor<[5,4],f32>
  func.return %r : !torch.vtensor<[5,4],f32>
}
