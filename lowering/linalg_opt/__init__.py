"""Optimizations on linalg-on-tensors IR (stage `linalg`, after `convert-torch-to-linalg`).

**Expects:** the output of `convert-torch-to-linalg`: `func.func`s on builtin tensors holding
linalg (`generic`, `fill`), tensor (`empty`, `dim`), arith and math ops; no torch op or type.
**Produces:** the same dialects (the `linalg` contract of `lowering/contracts.py`), with
- `linalg-hoist-row-contractions` (`hoist_row_contractions.py`): a loop's per-step `x[t] @ W`
  of an invariant `x` and `W` computed for all steps at once in front of the loop;
- `linalg-accumulate-sums` (`accumulate_sums.py`): a contraction started from the terms added
  to its result instead of from zeros;
- `linalg-fuse-elementwise` (`fuse_elementwise.py`): elementwise producers fused into their
  consumers.

The stage list (`lowering/pipeline.py`) runs `convert-torch-to-linalg` and these passes as one
stage, `linalg`: the conversion lives in `lowering/torch_to_linalg/` because it is split by op
family like `dialects/torch/ops/`, the optimizations here because they read only linalg.
"""
