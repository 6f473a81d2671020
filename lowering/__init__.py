"""tsjit's passes and targets, registered lazily by name (for `xdsl-opt` and the stage pipeline)."""

from __future__ import annotations

import importlib
from collections.abc import Callable

from xdsl.passes import ModulePass
from xdsl.utils.target import Target

PASSES: dict[str, str] = {
    "torch-inline": "lowering.torch_inline:TorchInlinePass",
    "torch-refine-types": "lowering.torch_refine_types:TorchRefineTypesPass",
    "torch-canonicalize": "lowering.torch_passes:TorchCanonicalizePass",
    "torch-dce": "lowering.torch_passes:TorchDeadCodeEliminationPass",
    "torch-unroll-loops": "lowering.torch_passes:TorchUnrollLoopsPass",
    "torch-decompose": "lowering.torch_passes:TorchDecomposePass",
    "torch-fold-conv-bn": "lowering.torch_passes:TorchFoldConvBatchNormPass",
    "torch-check-value-sized": "lowering.torch_passes:TorchCheckValueSizedPass",
    "convert-torch-to-linalg": "lowering.torch_to_linalg:ConvertTorchToLinalgPass",
    "linalg-fuse-elementwise": "lowering.linalg_fuse_elementwise:LinalgFuseElementwisePass",
    "linalg-hoist-row-contractions": (
        "lowering.linalg_hoist_row_contractions:LinalgHoistRowContractionsPass"
    ),
    "linalg-accumulate-sums": "lowering.linalg_accumulate_sums:LinalgAccumulateSumsPass",
    "linalg-bufferize": "lowering.linalg_bufferize:LinalgBufferizePass",
    "memref-unbatch-contractions": (
        "lowering.memref_unbatch_contractions:MemrefUnbatchContractionsPass"
    ),
    "memref-row-views": "lowering.memref_row_views:MemrefRowViewsPass",
    "library-call-pairs": "lowering.library_call_pairs:LibraryCallPairsPass",
    "convert-linalg-to-parallel-loops": (
        "lowering.linalg_to_parallel_loops:ConvertLinalgToParallelLoopsPass"
    ),
    "convert-linalg-to-library-calls": (
        "lowering.linalg_to_library_calls:ConvertLinalgToLibraryCallsPass"
    ),
    "expand-math": "lowering.expand_math:ExpandMathPass",
    "scf-parallel-loop-fusion": "lowering.scf_parallel_loop_fusion:ScfParallelLoopFusionPass",
    "scf-hoist-invariant-loads": "lowering.scf_hoist_invariant_loads:ScfHoistInvariantLoadsPass",
    "scf-vectorize-reductions": "lowering.scf_vectorize_reductions:ScfVectorizeReductionsPass",
    "scf-split-reductions": "lowering.scf_split_reductions:ScfSplitReductionsPass",
    "scf-outline-kernels": "lowering.scf_outline_kernels:ScfOutlineKernelsPass",
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
        from lowering.python_target import PythonTarget

        return PythonTarget

    return {"python": python}
