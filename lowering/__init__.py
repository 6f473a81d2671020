"""tsjit's passes and targets, registered lazily by name (for `xdsl-opt` and the stage pipeline)."""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable

from xdsl.passes import ModulePass
from xdsl.utils.target import Target

if os.environ.get("TSJIT_CPU"):  # before any numba function is defined: numba's target CPU
    import lowering.machine  # noqa: F401

PASSES: dict[str, str] = {
    "torch-inline": "lowering.torch_opt.inline:TorchInlinePass",
    "torch-refine-types": "lowering.torch_opt.refine_types:TorchRefineTypesPass",
    "torch-emulate-half": "lowering.torch_opt.emulate_half:TorchEmulateHalfPass",
    "torch-canonicalize": "lowering.torch_opt:TorchCanonicalizePass",
    "torch-dce": "lowering.torch_opt:TorchDeadCodeEliminationPass",
    "torch-unroll-loops": "lowering.torch_opt:TorchUnrollLoopsPass",
    "torch-decompose": "lowering.torch_opt:TorchDecomposePass",
    "torch-fold-conv-bn": "lowering.torch_opt:TorchFoldConvBatchNormPass",
    "torch-check-indices": "lowering.torch_opt:TorchCheckIndicesPass",
    "torch-check-value-sized": "lowering.torch_opt:TorchCheckValueSizedPass",
    "convert-torch-to-linalg": "lowering.torch_to_linalg:ConvertTorchToLinalgPass",
    "linalg-fuse-elementwise": "lowering.linalg_opt.fuse_elementwise:LinalgFuseElementwisePass",
    "linalg-hoist-row-contractions": (
        "lowering.linalg_opt.hoist_row_contractions:LinalgHoistRowContractionsPass"
    ),
    "linalg-accumulate-sums": "lowering.linalg_opt.accumulate_sums:LinalgAccumulateSumsPass",
    "linalg-bufferize": "lowering.bufferize.bufferize:LinalgBufferizePass",
    "memref-unbatch-contractions": (
        "lowering.bufferize.unbatch_contractions:MemrefUnbatchContractionsPass"
    ),
    "memref-row-views": "lowering.loops.row_views:MemrefRowViewsPass",
    "library-call-pairs": "lowering.loops.library_call_pairs:LibraryCallPairsPass",
    "convert-linalg-to-parallel-loops": (
        "lowering.loops.parallel_loops:ConvertLinalgToParallelLoopsPass"
    ),
    "convert-linalg-to-library-calls": (
        "lowering.loops.library_calls:ConvertLinalgToLibraryCallsPass"
    ),
    "expand-math": "lowering.loops.expand_math:ExpandMathPass",
    "scf-parallel-loop-fusion": "lowering.loops.parallel_loop_fusion:ScfParallelLoopFusionPass",
    "scf-hoist-invariant-loads": "lowering.loops.hoist_invariant_loads:ScfHoistInvariantLoadsPass",
    "scf-vectorize-reductions": "lowering.loops.vectorize_reductions:ScfVectorizeReductionsPass",
    "scf-split-reductions": "lowering.loops.split_reductions:ScfSplitReductionsPass",
    "scf-outline-kernels": "lowering.loops.outline_kernels:ScfOutlineKernelsPass",
    # the stages as named pipelines: the default passes from the input's stage on
    "tsjit-to-torch-opt": "lowering.pipeline:LowerToTorchOptPass",
    "tsjit-to-linalg": "lowering.pipeline:LowerToLinalgPass",
    "tsjit-to-memref": "lowering.pipeline:LowerToMemrefPass",
    "tsjit-to-loops": "lowering.pipeline:LowerToLoopsPass",
}
"""Every project pass, once: its name and where its class lives (`module:Class`)."""


def _lazy(path: str) -> Callable[[], type[ModulePass]]:
    module, _, name = path.partition(":")

    def load() -> type[ModulePass]:
        return getattr(importlib.import_module(module), name)

    return load


def get_all_passes() -> dict[str, Callable[[], type[ModulePass]]]:
    """Pass name -> lazy class (xDSL's plugin protocol: nothing is imported until used)."""
    return {name: _lazy(path) for name, path in PASSES.items()}


def get_all_targets() -> dict[str, Callable[[], type[Target]]]:
    """Target name -> lazy class: `xdsl-opt -t python` writes the numba source."""

    def python() -> type[Target]:
        from lowering.pipeline import PythonTarget

        return PythonTarget

    return {"python": python}
