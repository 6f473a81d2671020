// RUN: xdsl-opt %s -t python | filecheck %s

// A library declaration brings its kernel in a shared module of its own, named by its content
// (compiled once for every program that calls it): the helpers around the register-blocked
// tile (lowering/python_target/gemm_tile.py), a parallel (prange over chunks) and a serial
// (range) variant for numba callers, and for plain Python callers (hosts) a dispatcher that
// runs a serial row-range variant on threads (lowering/run/thread_chunks.py). The main module
// imports them; a function that calls a library kernel gets the two variants and the
// dispatcher, even without a loop of its own; each variant calls the kernel's variant of the
// same kind.
// CHECK:       # ==== module tsjit_[[LIB:[0-9a-f]+]] ====
// CHECK:       from lowering.python_target.gemm_tile import (
// CHECK:       def tsjit_matmul_chunk(lo, hi, a, b, transposed, c, bias, flags):
// CHECK:       @numba.njit(parallel=True, error_model="numpy", fastmath=FASTMATH, cache=True)
// CHECK-NEXT:  def tsjit_matmul_nt_f32_parallel(a, b, c):
// CHECK:           for t in prange(chunks):
// CHECK:               tsjit_matmul_chunk(lo, hi, a, b, True, work, bias, ACCUMULATE)
// CHECK:       def tsjit_matmul_nt_f32_serial(a, b, c):
// CHECK:           for t in range(chunks):
// CHECK:       def tsjit_matmul_nt_f32_rows(lo, hi, a, b, bias, c):
// CHECK:       def tsjit_matmul_nt_f32(a, b, c):
// CHECK:               run_in_chunks(tsjit_matmul_nt_f32_rows, 0, panels, (a, b, bias, work))
// CHECK:       # ==== main module ====
// CHECK:       from tsjit_[[LIB]] import tsjit_matmul_nt_f32, tsjit_matmul_nt_f32_parallel, tsjit_matmul_nt_f32_serial
// CHECK:       def mm_parallel(x, w, out):
// CHECK-NEXT:      wide_vectors()
// CHECK-NEXT:      tsjit_matmul_nt_f32_parallel(x, w, out)
// CHECK:       def mm_serial(x, w, out):
// CHECK-NEXT:      wide_vectors()
// CHECK-NEXT:      tsjit_matmul_nt_f32_serial(x, w, out)
// CHECK:       def mm(x, w, out):
// CHECK:           if x.size + w.size + out.size >= PARALLEL_GRAIN:
func.func private @tsjit.matmul_nt_f32(memref<?x?xf32>, memref<?x?xf32>, memref<?x?xf32>) -> () attributes {tsjit.library = "matmul_nt"}
func.func @mm(%x: memref<?x?xf32>, %w: memref<?x?xf32>, %out: memref<?x?xf32>) {
  func.call @tsjit.matmul_nt_f32(%x, %w, %out) : (memref<?x?xf32>, memref<?x?xf32>, memref<?x?xf32>) -> ()
  func.return
}
