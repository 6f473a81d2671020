// RUN: xdsl-opt %s -t python | filecheck %s

// The header: imports and the fastmath flags (no nnan/ninf, so NaN and inf behave as in numpy;
// no reassoc, so x - x is NaN for inf).
// CHECK:      import math
// CHECK:      import numba
// CHECK-NEXT: import numpy as np
// CHECK-NEXT: from numba import prange
// CHECK:      FASTMATH = {"contract", "nsz"}
// CHECK:      PARALLEL_GRAIN = 16384

// Every numba function, and every prange body (numba compiles it as a function of its own),
// first asks for 512-bit vectors: `wide_vectors()` (lowering/python_target/wide_vectors.py).
// The outer dim of a top-level scf.parallel is a prange, the inner dims are ranges. A
// function with a prange also gets a serial twin, and a plain Python entry that picks one
// by the number of elements in its array arguments.
// CHECK-LABEL: @numba.njit(parallel=True, error_model="numpy", fastmath=FASTMATH, cache=True, no_cfunc_wrapper=True)
// CHECK-NEXT:  def scale_parallel(x, out):
// CHECK-NEXT:      wide_vectors()
// CHECK-NEXT:      n = x.shape[0]
// CHECK-NEXT:      for i in prange(n):
// CHECK-NEXT:          wide_vectors()
// CHECK-NEXT:          for j in range(4):
// CHECK-NEXT:              v = x[i, j]
// CHECK-NEXT:              w = v * np.float32(2.0)
// CHECK-NEXT:              out[i, j] = w
// CHECK-NEXT:      return
// CHECK:       @numba.njit(error_model="numpy", fastmath=FASTMATH, cache=True, no_cfunc_wrapper=True)
// CHECK-NEXT:  def scale_serial(x, out):
// CHECK-NEXT:      wide_vectors()
// CHECK-NEXT:      n = x.shape[0]
// CHECK-NEXT:      for i in range(n):
// CHECK:       def scale(x, out):
// CHECK:           if x.size + out.size >= PARALLEL_GRAIN:
// CHECK-NEXT:          return scale_parallel(x, out)
// CHECK-NEXT:      return scale_serial(x, out)
func.func @scale(%x: memref<?x4xf32>, %out: memref<?x4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %two = arith.constant 2.0 : f32
  %n = memref.dim %x, %c0 : memref<?x4xf32>
  "scf.parallel"(%c0, %c0, %n, %c4, %c1, %c1) <{operandSegmentSizes = array<i32: 2, 2, 2, 0>}> ({
  ^bb0(%i: index, %j: index):
    %v = memref.load %x[%i, %j] : memref<?x4xf32>
    %w = arith.mulf %v, %two : f32
    memref.store %w, %out[%i, %j] : memref<?x4xf32>
    scf.reduce
  }) : (index, index, index, index, index, index) -> ()
  func.return
}

// A parallel loop nested in another one is a range; a step other than 1 is a range too
// (prange has no step), and a nonzero lower bound is kept.
// CHECK-LABEL: def nested_parallel(x):
// CHECK:           for i in prange(1, n):
// CHECK-NEXT:          wide_vectors()
// CHECK-NEXT:          for j in range(0, n, 2):
// CHECK-NEXT:              x[i, j] = np.float32(0.0)
// CHECK:           for k in range(0, n, 2):
// CHECK-NEXT:          x[k, k] = np.float32(0.0)
func.func @nested(%x: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %zero = arith.constant 0.0 : f32
  %n = memref.dim %x, %c0 : memref<?x?xf32>
  "scf.parallel"(%c1, %n, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%i: index):
    "scf.parallel"(%c0, %n, %c2) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
    ^bb1(%j: index):
      memref.store %zero, %x[%i, %j] : memref<?x?xf32>
      scf.reduce
    }) : (index, index, index) -> ()
    scf.reduce
  }) : (index, index, index) -> ()
  "scf.parallel"(%c0, %n, %c2) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%k: index):
    memref.store %zero, %x[%k, %k] : memref<?x?xf32>
    scf.reduce
  }) : (index, index, index) -> ()
  func.return
}

// A parallel loop with reductions stays serial: the combiner region is inlined.
// A function without a prange is not marked parallel and has no variants.
// CHECK-NOT:   total_parallel
// CHECK-LABEL: def total(x):
// CHECK-NEXT:      wide_vectors()
// CHECK-NEXT:      n = x.shape[0]
// CHECK-NEXT:      sum = np.float32(0.0)
// CHECK-NEXT:      for i in range(n):
// CHECK-NEXT:          v = x[i]
// CHECK-NEXT:          s = sum + v
// CHECK-NEXT:          sum = s
// CHECK-NEXT:      return sum
func.func @total(%x: memref<?xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %n = memref.dim %x, %c0 : memref<?xf32>
  %sum = "scf.parallel"(%c0, %n, %c1, %zero) <{operandSegmentSizes = array<i32: 1, 1, 1, 1>}> ({
  ^bb0(%i: index):
    %v = memref.load %x[%i] : memref<?xf32>
    "scf.reduce"(%v) ({
    ^bb1(%lhs: f32, %rhs: f32):
      %s = arith.addf %lhs, %rhs : f32
      "scf.reduce.return"(%s) : (f32) -> ()
    }) : (f32) -> ()
  }) : (index, index, index, f32) -> f32
  func.return %sum : f32
}
