"""tsjit's passes and targets, registered lazily by name (for `xdsl-opt` and the stage pipeline)."""

from __future__ import annotations

from collections.abc import Callable

from xdsl.passes import ModulePass
from xdsl.utils.target import Target


def get_all_passes() -> dict[str, Callable[[], type[ModulePass]]]:
    """Pass name -> lazy class. Every project pass is listed here once."""

    def torch_inline() -> type[ModulePass]:
        from lowering.torch_inline import TorchInlinePass

        return TorchInlinePass

    def torch_refine_types() -> type[ModulePass]:
        from lowering.torch_refine_types import TorchRefineTypesPass

        return TorchRefineTypesPass

    def torch_pass(class_name: str) -> Callable[[], type[ModulePass]]:
        def load() -> type[ModulePass]:
            import lowering.torch_passes

            return getattr(lowering.torch_passes, class_name)

        return load

    def convert_torch_to_linalg() -> type[ModulePass]:
        from lowering.torch_to_linalg import ConvertTorchToLinalgPass

        return ConvertTorchToLinalgPass

    def linalg_bufferize() -> type[ModulePass]:
        from lowering.linalg_bufferize import LinalgBufferizePass

        return LinalgBufferizePass

    def linalg_to_parallel_loops() -> type[ModulePass]:
        from lowering.linalg_to_parallel_loops import ConvertLinalgToParallelLoopsPass

        return ConvertLinalgToParallelLoopsPass

    def linalg_fuse_elementwise() -> type[ModulePass]:
        from lowering.linalg_fuse_elementwise import LinalgFuseElementwisePass

        return LinalgFuseElementwisePass

    def scf_parallel_loop_fusion() -> type[ModulePass]:
        from lowering.scf_parallel_loop_fusion import ScfParallelLoopFusionPass

        return ScfParallelLoopFusionPass

    def scf_hoist_invariant_loads() -> type[ModulePass]:
        from lowering.scf_hoist_invariant_loads import ScfHoistInvariantLoadsPass

        return ScfHoistInvariantLoadsPass

    def linalg_to_library_calls() -> type[ModulePass]:
        from lowering.linalg_to_library_calls import ConvertLinalgToLibraryCallsPass

        return ConvertLinalgToLibraryCallsPass

    def expand_math() -> type[ModulePass]:
        from lowering.expand_math import ExpandMathPass

        return ExpandMathPass

    return {
        "torch-inline": torch_inline,
        "torch-refine-types": torch_refine_types,
        "torch-canonicalize": torch_pass("TorchCanonicalizePass"),
        "torch-dce": torch_pass("TorchDeadCodeEliminationPass"),
        "torch-unroll-loops": torch_pass("TorchUnrollLoopsPass"),
        "torch-decompose": torch_pass("TorchDecomposePass"),
        "torch-fold-conv-bn": torch_pass("TorchFoldConvBatchNormPass"),
        "convert-torch-to-linalg": convert_torch_to_linalg,
        "linalg-fuse-elementwise": linalg_fuse_elementwise,
        "linalg-bufferize": linalg_bufferize,
        "convert-linalg-to-parallel-loops": linalg_to_parallel_loops,
        "convert-linalg-to-library-calls": linalg_to_library_calls,
        "expand-math": expand_math,
        "scf-parallel-loop-fusion": scf_parallel_loop_fusion,
        "scf-hoist-invariant-loads": scf_hoist_invariant_loads,
    }


def get_all_targets() -> dict[str, Callable[[], type[Target]]]:
    """Target name -> lazy class: `xdsl-opt -t python` writes the numba source."""

    def python() -> type[Target]:
        from lowering.python_target import PythonTarget

        return PythonTarget

    return {"python": python}
