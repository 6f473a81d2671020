// RUN: xdsl-opt %s -p convert-torch-to-linalg,canonicalize,cse | filecheck %s
// Pooling: one parallel generic over the output whose body loops over the in-bounds part of
// each window (scf.for with the accumulator carried), so padding is never materialized.

// Kernel 3, stride 2, padding 1, ceil_mode: the output size drops the last window if it would
// start in the right padding; the taps are clipped to the input.
// CHECK-LABEL: func.func @torch.aten.max_pool2d
// CHECK: %[[OH:.*]] = arith.select %{{.*}}, %{{.*}}, %{{.*}} : index
// CHECK: linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
// CHECK: %[[I:.*]] = linalg.index 2 : index
// CHECK: %[[SCALED:.*]] = arith.muli %[[I]], %{{.*}} : index
// CHECK: %[[START:.*]] = arith.subi %[[SCALED]], %{{.*}} : index
// CHECK: %[[NEG:.*]] = arith.subi %{{.*}}, %[[START]] : index
// CHECK: %[[LOW:.*]] = arith.maxsi %[[NEG]], %{{.*}} : index
// CHECK: %[[LEFT:.*]] = arith.subi %{{.*}}, %[[START]] : index
// CHECK: %[[HIGH:.*]] = arith.minsi %[[LEFT]], %{{.*}} : index
// CHECK: %[[INIT:.*]] = arith.constant 0xff800000 : f32
// CHECK: scf.for %[[KH:.*]] = %[[LOW]] to %[[HIGH]] step %{{.*}} iter_args(%{{.*}} = %[[INIT]]) -> (f32) {
// CHECK: scf.for
// CHECK: %[[ROW:.*]] = arith.addi %[[START]], %[[KH]] : index
// CHECK: tensor.extract %x[%{{.*}}, %{{.*}}, %[[ROW]], %{{.*}}]
// CHECK: arith.maximumf
func.func @torch.aten.max_pool2d(%x: !torch.vtensor<[?,?,?,?],f32>) -> !torch.vtensor<[?,?,?,?],f32> {
  %int3 = torch.constant.int 3
  %int2 = torch.constant.int 2
  %int1 = torch.constant.int 1
  %true = torch.constant.bool true
  %0 = torch.aten.max_pool2d %x, %int3, %int2, %int1, %int1, %true : !torch.vtensor<[?,?,?,?],f32>, !torch.int, !torch.int, !torch.int, !torch.int, !torch.bool -> !torch.vtensor<[?,?,?,?],f32>
  func.return %0 : !torch.vtensor<[?,?,?,?],f32>
}

// Adaptive windows [floor(o * H / OH), ceil((o + 1) * H / OH)); the sum is divided by the
// window's element count.
// CHECK-LABEL: func.func @torch.aten.adaptive_avg_pool2d
// CHECK: %[[SUM:.*]] = scf.for
// CHECK: arith.addf
// CHECK: %[[COUNT:.*]] = arith.muli %{{.*}}, %{{.*}} : index
// CHECK: %[[C64:.*]] = arith.index_cast %[[COUNT]] : index to i64
// CHECK: %[[CF:.*]] = arith.sitofp %[[C64]] : i64 to f32
// CHECK: arith.divf %[[SUM]], %[[CF]] : f32
func.func @torch.aten.adaptive_avg_pool2d(%x: !torch.vtensor<[?,?,?],f32>) -> !torch.vtensor<[?,1,1],f32> {
  %int1 = torch.constant.int 1
  %0 = torch.aten.adaptive_avg_pool2d %x, %int1 : !torch.vtensor<[?,?,?],f32>, !torch.int -> !torch.vtensor<[?,1,1],f32>
  func.return %0 : !torch.vtensor<[?,1,1],f32>
}
