"""The ordered stages of tsjit and the passes between them: `lower(module, to=Stage.LOOPS)`."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from typing import IO, ClassVar

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.transforms.canonicalize import CanonicalizePass
from xdsl.transforms.common_subexpression_elimination import (
    CommonSubexpressionElimination,
)
from xdsl.utils.target import Target

from lowering import compile_log, contracts


class Stage(Enum):
    """The IR levels, in order. The values are the `--emit` names and `tests/lit/` folders."""

    TORCH = "torch"
    TORCH_OPT = "torch-opt"
    LINALG = "linalg"
    MEMREF = "memref"
    LOOPS = "loops"
    PYTHON = "python"

    @property
    def index(self) -> int:
        return list(Stage).index(self)

    @staticmethod
    def parse(name: str | Stage) -> Stage:
        if isinstance(name, Stage):
            return name
        try:
            return Stage(name)
        except ValueError:
            names = ", ".join(s.value for s in Stage)
            raise ValueError(f"unknown stage {name!r}; the stages are {names}") from None


class PipelineError(Exception):
    """A pass failed; the message names it and gives the command that reproduces it."""


def make_context() -> Context:
    """A context with every upstream dialect and the torch dialect registered."""
    from xdsl.universe import Universe

    ctx = Context()
    for name, factory in Universe.get_multiverse().all_dialects.items():
        ctx.register_dialect(name, factory)
    return ctx


def stage_passes(stage: Stage, signature: str) -> list[ModulePass]:
    """The passes that produce `stage` from the stage before it."""
    from lowering.bufferize.bufferize import LinalgBufferizePass
    from lowering.bufferize.unbatch_contractions import MemrefUnbatchContractionsPass
    from lowering.linalg_opt.accumulate_sums import LinalgAccumulateSumsPass
    from lowering.linalg_opt.fuse_elementwise import LinalgFuseElementwisePass
    from lowering.linalg_opt.hoist_row_contractions import LinalgHoistRowContractionsPass
    from lowering.loops.expand_math import ExpandMathPass
    from lowering.loops.hoist_invariant_loads import ScfHoistInvariantLoadsPass
    from lowering.loops.library_call_pairs import LibraryCallPairsPass
    from lowering.loops.library_calls import ConvertLinalgToLibraryCallsPass
    from lowering.loops.outline_kernels import ScfOutlineKernelsPass
    from lowering.loops.parallel_loop_fusion import ScfParallelLoopFusionPass
    from lowering.loops.parallel_loops import ConvertLinalgToParallelLoopsPass
    from lowering.loops.row_views import MemrefRowViewsPass
    from lowering.loops.split_reductions import ScfSplitReductionsPass
    from lowering.loops.vectorize_reductions import ScfVectorizeReductionsPass
    from lowering.torch_opt import torch_optimization_passes
    from lowering.torch_opt.emulate_half import TorchEmulateHalfPass
    from lowering.torch_opt.inline import TorchInlinePass
    from lowering.torch_opt.refine_types import TorchRefineTypesPass
    from lowering.torch_to_linalg import ConvertTorchToLinalgPass

    table: dict[Stage, list[ModulePass]] = {
        Stage.TORCH_OPT: [
            TorchInlinePass(),
            TorchRefineTypesPass(signature=signature),
            TorchEmulateHalfPass(),
            *torch_optimization_passes(),
        ],
        Stage.LINALG: [
            ConvertTorchToLinalgPass(),
            CanonicalizePass(),
            CommonSubexpressionElimination(),
            LinalgHoistRowContractionsPass(),
            LinalgAccumulateSumsPass(),
            LinalgFuseElementwisePass(),
            CommonSubexpressionElimination(),
        ],
        Stage.MEMREF: [LinalgBufferizePass(), MemrefUnbatchContractionsPass()],
        Stage.LOOPS: [
            ConvertLinalgToLibraryCallsPass(),
            MemrefRowViewsPass(),
            LibraryCallPairsPass(),
            ConvertLinalgToParallelLoopsPass(),
            ExpandMathPass(),
            CanonicalizePass(),
            CommonSubexpressionElimination(),
            ScfParallelLoopFusionPass(),
            ScfHoistInvariantLoadsPass(),
            ScfVectorizeReductionsPass(),
            ScfSplitReductionsPass(),
            ScfOutlineKernelsPass(),
        ],
    }
    return table.get(stage, [])


CONTRACTS: dict[Stage, Callable[[ModuleOp], None]] = {
    Stage.TORCH_OPT: contracts.verify_torch_opt_contract,
    Stage.LINALG: contracts.verify_linalg_contract,
    Stage.MEMREF: contracts.verify_memref_contract,
    Stage.LOOPS: contracts.verify_loops_contract,
}


def lower(module: ModuleOp, to: Stage | str, signature: str = "") -> ModuleOp:
    """A copy of `module` (stage `torch`) lowered to `to`; `signature` specializes torch-opt.

    Stage `python` is not IR: use `emit_python(lower(m, Stage.LOOPS))`.
    """
    target = Stage.parse(to)
    if target == Stage.PYTHON:
        raise ValueError("the python stage is source text: lower to 'loops' and call emit_python")
    with compile_log.timed("context (dialects) and pass imports"):
        ctx = make_context()
        stages = list(Stage)[1 : target.index + 1]
        passes = {stage: stage_passes(stage, signature) for stage in stages}
    current = module.clone()
    done: list[ModulePass] = []
    for stage in stages:
        for pass_ in passes[stage]:
            with compile_log.timed(f"pass {pass_.name}"):
                run_pass(ctx, pass_, current, lambda: input_of(module, done))
            done.append(pass_)
        with compile_log.timed(f"{stage.value} contract and verify"):
            CONTRACTS[stage](current)
            current.verify()
    return current


def input_of(module: ModuleOp, done: list[ModulePass]) -> str:
    """The IR that the pass after `done` got: `module` through `done` again (for a repro)."""
    ctx = make_context()
    current = module.clone()
    for pass_ in done:
        pass_.apply(ctx, current)
    return str(current)


def run_pass(
    ctx: Context, pass_: ModulePass, module: ModuleOp, before: Callable[[], str] | None = None
) -> None:
    """Applies `pass_`; on failure raises a `PipelineError` with a repro of its input IR
    (`before()`, computed only then: printing every input costs seconds for big modules,
    minutes with weights as literals)."""
    snapshot = None if before is not None else str(module)
    try:
        pass_.apply(ctx, module)
    except Exception as err:
        try:
            ir = snapshot if snapshot is not None else before()  # type: ignore[misc]
        except Exception:  # the failure again: show the IR as the pass left it
            ir = str(module)
        raise PipelineError(_repro_message(pass_, ir, err)) from err


def _repro_message(pass_: ModulePass, ir: str, err: Exception) -> str:
    fd, path = tempfile.mkstemp(prefix=f"tsjit-{pass_.name}-", suffix=".mlir")
    with os.fdopen(fd, "w") as f:
        f.write(ir)
    spec = str(pass_.pipeline_pass_spec())
    return f"pass '{pass_.name}' failed: {err}\n  reproduce with: xdsl-opt {path} -p '{spec}'"


# ---- the stages as named passes and the python target from any stage ----


def lower_in_place(module: ModuleOp, to: Stage, signature: str = "") -> None:
    """Lower `module` (of whatever stage `contracts.stage_of` finds) to `to` in place, through
    the stages between, checking each stage's contract."""
    stage = contracts.stage_of(module)
    found = Stage.TORCH if stage == "torch-opt" else Stage.parse(stage)  # torch-opt runs again
    if found.index > to.index:
        raise contracts.StageError(
            f"tsjit-to-{to.value}: this input is already at stage '{found.value}'"
        )
    ctx = make_context()
    for stage in list(Stage)[found.index + 1 : to.index + 1]:
        for pass_ in stage_passes(stage, signature):
            run_pass(ctx, pass_, module)
        try:
            CONTRACTS[stage](module)
        except contracts.OpenTypeError as err:
            raise contracts.StageError(
                f"tsjit-to-{to.value}: {err}; give the argument types with "
                f"-p 'tsjit-to-{to.value}{{signature=\"f32[?]\"}}' (one entry per argument)"
            ) from None


@dataclass(frozen=True)
class LowerToStagePass(ModulePass):
    """Runs the default pipeline from the stage of its input to `target`, with the contracts
    checked (`xdsl-opt f.mlir -p 'tsjit-to-loops{signature="f32[?,4]"}'`).

    **Expects:** IR of any stage before `target` (`contracts.stage_of` finds which);
    `signature` gives the argument types of torch IR whose types are unknown.
    **Produces:** IR of stage `target`.
    """

    name = "tsjit-to-stage"
    target: ClassVar[Stage] = Stage.LOOPS

    signature: str = ""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        lower_in_place(op, self.target, self.signature)


@dataclass(frozen=True)
class LowerToTorchOptPass(LowerToStagePass):
    name = "tsjit-to-torch-opt"
    target: ClassVar[Stage] = Stage.TORCH_OPT


@dataclass(frozen=True)
class LowerToLinalgPass(LowerToStagePass):
    name = "tsjit-to-linalg"
    target: ClassVar[Stage] = Stage.LINALG


@dataclass(frozen=True)
class LowerToMemrefPass(LowerToStagePass):
    name = "tsjit-to-memref"
    target: ClassVar[Stage] = Stage.MEMREF


@dataclass(frozen=True)
class LowerToLoopsPass(LowerToStagePass):
    name = "tsjit-to-loops"
    target: ClassVar[Stage] = Stage.LOOPS


class PythonTarget(Target):
    """`xdsl-opt -t python`: the numba source of a module of any stage. IR before `loops` is
    first lowered by the default pipeline (torch IR needs its types known: otherwise a one-line
    error names the `tsjit-to-loops{signature=...}` pipeline)."""

    name = "python"

    def emit(self, ctx: Context, module: ModuleOp, output: IO[str]) -> None:
        from lowering.python_target import emit_python

        if contracts.stage_of(module) != "loops":
            lower_in_place(module, Stage.LOOPS)
        output.write(emit_python(module))
