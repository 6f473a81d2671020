// RUN: xdsl-opt %s -t python | filecheck %s

// A library declaration brings its kernel source: the shared panel helper, then a parallel
// (prange) and a serial (range) variant. A function that calls a library kernel gets the
// two variants and the dispatcher, even without a loop of its own; each variant calls the
// kernel's variant of the same kind.
// CHECK:       def tsjit_matmul_nt_panel(a, bt, c, j0, j1):
// CHECK:       @numba.njit(parallel=True, error_model="numpy", fastmath=FASTMATH, cache=True)
// CHECK-NEXT:  def tsjit_matmul_nt_f32_parallel(a, bt, c):
// CHECK:           for p in prange(
// CHECK:       def tsjit_matmul_nt_f32_serial(a, bt, c):
// CHECK:           for p in range(
// CHECK:       def mm_parallel(x, w, out):
// CHECK-NEXT:      tsjit_matmul_nt_f32_parallel(x, w, out)
// CHECK:       def mm_serial(x, w, out):
// CHECK-NEXT:      tsjit_matmul_nt_f32_serial(x, w, out)
// CHECK:       def mm(x, w, out):
// CHECK:           if x.size + w.size + out.size >= PARALLEL_GRAIN:
func.func private @tsjit.matmul_nt_f32(memref<?x?xf32>, memref<?x?xf32>, memref<?x?xf32>) -> () attributes {tsjit.library = "matmul_nt"}
func.func @mm(%x: memref<?x?xf32>, %w: memref<?x?xf32>, %out: memref<?x?xf32>) {
  func.call @tsjit.matmul_nt_f32(%x, %w, %out) : (memref<?x?xf32>, memref<?x?xf32>, memref<?x?xf32>) -> ()
  func.return
}
