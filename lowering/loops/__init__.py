"""From linalg on buffers to explicit loops and library calls (stage `loops`).

**Expects:** the `memref` stage: linalg ops on memrefs, no tensors.
**Produces:** `scf.parallel` (parallel dims) / `scf.for` (reductions, the accumulator in
`iter_args`) over `memref.load/store` with arith / math, and `func.call`s of the library
kernels (matmul, convolution, matmul pairs) that the python target provides; float32
transcendental functions as polynomials; in a big function every top-level nest is an outlined
kernel (`tsjit.outlined`) called from a `tsjit.host` function. Checked by
`verify_loops_contract` (`lowering/contracts.py`).

Passes, in pipeline order: `convert-linalg-to-library-calls` (`library_calls.py`, with
`library_call_finish.py` for the fill / bias / relu folded into a call), `memref-row-views`
(`row_views.py`), `library-call-pairs`, `convert-linalg-to-parallel-loops`
(`parallel_loops.py`, `outer_reduction_loops.py`), `expand-math` (`expand_math.py`,
`math_polynomials.py`), `scf-parallel-loop-fusion`, `scf-hoist-invariant-loads`,
`scf-vectorize-reductions`, `scf-split-reductions`, `scf-outline-kernels`.
"""
