"""numba kernels that generated code calls by name for ops that are not loop nests: sorts,
selections and scans along a dim, `index_put` / `masked_scatter`, batched dense linear algebra,
and the two-pass kernels of value-sized results (`nonzero`)."""
