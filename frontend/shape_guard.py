"""Finds calls that code compiled for the general signature would get wrong.

A call signature keeps every dim `?` except size-1 dims, and the compiled code assumes a `?`
dim is not 1: two `?` dims of a broadcast are taken to be equal, `squeeze()` keeps a `?` dim.
An intermediate value can still have a `?` dim that is 1 for some concrete input shapes (a
slice `x[2:3]`, a chunk, a reshape of the input's size). `needs_exact_shapes` refines the
program's types for the general signature and for the call's exact shapes, side by side,
and reports whether such a dim meets an op that would broadcast or squeeze it; the caller
then compiles (once per shape set) for the exact shapes instead.

Dims that come from `int` arguments (`x[:n]`) stay `?` in both and are not seen here.
"""

from __future__ import annotations

from collections.abc import Iterator

from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Attribute, Operation

from dialects.torch.types import DYN, ValueTensorType
from lowering.pipeline import make_context
from lowering.torch_inline import TorchInlinePass
from lowering.torch_refine_types import TorchRefineTypesPass


def refined(module: ModuleOp, signature: str) -> ModuleOp:
    """A copy of `module` with calls inlined and every type refined for `signature`."""
    ctx = make_context()
    copy = module.clone()
    TorchInlinePass().apply(ctx, copy)
    TorchRefineTypesPass(signature=signature).apply(ctx, copy)
    return copy


def needs_exact_shapes(general: ModuleOp, exact: ModuleOp) -> bool:
    """Whether some op sees a `?` dim of `general` that is 1 in `exact` and broadcasts it
    (the op's result is larger there) or drops it (the result rank differs)."""
    for g_op, e_op in zip(_ops(general), _ops(exact), strict=False):
        if g_op.name != e_op.name:
            return True  # the two refinements differ in structure: trust neither
        if _squeezes(g_op, e_op) or _broadcasts(g_op, e_op):
            return True
    return False


def _ops(module: ModuleOp) -> Iterator[Operation]:
    return iter(module.walk())


def _shape(t: Attribute) -> tuple[int, ...] | None:
    return tuple(t.sizes) if isinstance(t, ValueTensorType) and t.sizes is not None else None


def _squeezes(g_op: Operation, e_op: Operation) -> bool:
    for g, e in zip(g_op.result_types, e_op.result_types):
        gs, es = _shape(g), _shape(e)
        if gs is not None and es is not None and len(gs) != len(es):
            return True
    return False


def _broadcasts(g_op: Operation, e_op: Operation) -> bool:
    results = [_shape(t) for t in e_op.result_types]
    for g_in, e_in in zip(g_op.operand_types, e_op.operand_types):
        gs, es = _shape(g_in), _shape(e_in)
        if gs is None or es is None or len(gs) != len(es):
            continue
        for axis, (g, e) in enumerate(zip(gs, es)):
            if g == DYN and e == 1 and _grows(results, len(es) - axis):
                return True
    return False


def _grows(results: list[tuple[int, ...] | None], from_end: int) -> bool:
    """Whether a result has a size above 1 at the dim `from_end` places from its end."""
    return any(
        shape is not None and len(shape) >= from_end and shape[-from_end] not in (0, 1)
        for shape in results
    )
