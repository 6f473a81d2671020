"""From tensors to buffers (stage `memref`).

**Expects:** the `linalg` stage: linalg / tensor / arith / math / scf on builtin tensors.
**Produces:** the same ops on memrefs (`memref.alloc`, `memref.dim`, views): each buffer is
written once, when created; function results are fresh buffers. Then
`memref-unbatch-contractions` (`unbatch_contractions.py`) turns a batched matmul into a
parallel loop over its batch around a 2-D matmul of `memref.subview`s.

- `linalg-bufferize` (`bufferize.py`): tensor -> memref (xDSL has no one-shot bufferization).
"""
