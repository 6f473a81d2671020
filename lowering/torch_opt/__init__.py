"""Optimizations on the torch dialect (stage `torch-opt`), each a named pass for `xdsl-opt -p`.

- `torch-emulate-half` (`emulate_half.py`): float16 / bfloat16 tensors as float32 tensors,
  rounded to half after each op whose torch result is half (right after type refinement).
- `torch-canonicalize` (`canonicalize.py`): constant folding and the ops' `fold` hooks,
  branches on constants, loops that never run.
- `torch-dce` (`dce.py`): dead ops, unused `prim.If` results and loop-carried values.
- `torch-unroll-loops` (`unroll_loops.py`): `prim.Loop`s with a small constant trip count.
- `torch-decompose` (`decompose.py`): composite ops into the core set via `decompose` hooks.
- `torch-check-indices` (`check_indices.py`): run-time checks of int indices (`x[i]`,
  `select`, `narrow`) and of one_hot's classes, raising torch's exceptions.
- `torch-check-value-sized` (`check_value_sized.py`): run-time checks where a dim sized by
  the values (`nonzero`, `x[mask]`) meets another operand's dim in an elementwise op.
- `torch-fold-conv-bn` (`fold_conv_batch_norm.py`): conv2d + inference batch_norm with
  constant weights into one conv2d (run by `frontend.freeze`, not in the default pipeline).
CSE is xDSL's `cse`: torch ops are Pure and it already scopes through `prim` regions.
"""

from __future__ import annotations

from xdsl.passes import ModulePass
from xdsl.transforms.common_subexpression_elimination import CommonSubexpressionElimination

from lowering.torch_opt.canonicalize import TorchCanonicalizePass
from lowering.torch_opt.check_indices import TorchCheckIndicesPass
from lowering.torch_opt.check_value_sized import TorchCheckValueSizedPass
from lowering.torch_opt.dce import TorchDeadCodeEliminationPass
from lowering.torch_opt.decompose import TorchDecomposePass
from lowering.torch_opt.fold_conv_batch_norm import TorchFoldConvBatchNormPass
from lowering.torch_opt.unroll_loops import TorchUnrollLoopsPass

__all__ = [
    "TorchCanonicalizePass",
    "TorchCheckIndicesPass",
    "TorchCheckValueSizedPass",
    "TorchDeadCodeEliminationPass",
    "TorchDecomposePass",
    "TorchFoldConvBatchNormPass",
    "TorchUnrollLoopsPass",
    "torch_optimization_passes",
]


def torch_optimization_passes() -> list[ModulePass]:
    """The torch-opt stage after type refinement: fold, unroll, fold again, decompose, check
    the int indices before decomposing (narrow, one_hot), check the dims sized by the values
    where they meet others, clean up."""
    return [
        TorchCanonicalizePass(),
        TorchUnrollLoopsPass(),
        TorchCanonicalizePass(),
        TorchCheckIndicesPass(),
        TorchDecomposePass(),
        TorchCheckValueSizedPass(),
        CommonSubexpressionElimination(),
        TorchDeadCodeEliminationPass(),
    ]
