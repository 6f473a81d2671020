"""Run-time checks of the indices given as ints and of one_hot's classes (`torch-check-indices`).

`x[i]` (`aten.select.int`) and `x.narrow(dim, start, length)` read at an int the shape rules
cannot check when it is known only at run time (an argument, a loop counter) or when the dim's
size is `?`: the compiled code would read out of bounds (`x[5]` of 3 rows), wrap where torch
raises (`x[-4]`), or return fewer rows (`narrow(0, 2, 2)` of 3 rows, which slicing clamps).
`one_hot` compares with `arange(num_classes)`, so a class out of range would give a row of
zeros where torch raises. This pass makes each raise torch's exception first. The index
tensors of `index_select`, `gather`, `embedding`, `scatter*`, `index_*` and `x[idx]` are
checked where they are lowered (`lowering/torch_to_linalg/index_checks.py`).

**Expects:** `func.func`s in the torch dialect, typed and canonicalized, before `torch-decompose`
(which turns `narrow` into a slice and `one_hot` into comparisons).
**Produces:** before each `select.int` whose index or dim size is not a constant: `size.int`
where the size is `?` and a `torch.prim.If` raising IndexError when the index is outside
`[-size, size)` (marked `RUN_TIME_CHECK`: it becomes a `cf.assert`). Before each `narrow`
whose start, length or size is not a constant: IndexError
when the start is outside `[-size, size]`, RuntimeError when the length is negative or
(start, wrapped) + length exceeds the size; a start known only at run time is replaced by its
wrapped value (`start + size` when negative), as torch counts it. Before each `one_hot`: its
input's `max` and `min` (`Int.Tensor`) and RuntimeError when a class is negative or not below
`num_classes`. Constant indices on static sizes are left to the shape rules (they raise when
the program is compiled), and so is the counter of a loop over the dim (`for t in
range(x.shape[0]): x[t]`).
```mlir
%n = torch.aten.size.int %x, %int0 : !torch.vtensor<[?,4],f32>, !torch.int -> !torch.int
%low = torch.aten.neg.int %n : !torch.int -> !torch.int
%below = torch.aten.lt.int %i, %low : !torch.int, !torch.int -> !torch.bool
%above = torch.aten.ge.int %i, %n : !torch.int, !torch.int -> !torch.bool
%outside = torch.aten.__or__.bool %below, %above : !torch.bool, !torch.bool -> !torch.bool
torch.prim.If %outside {tsjit.run_time_check} -> () {
  torch.prim.RaiseException "IndexError" "select(): index out of range for dimension 0 ..."
  torch.prim.If.yield
} else {
  torch.prim.If.yield
}
%r = torch.aten.select.int %x, %int0, %i : ...
```
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, UnitAttr
from xdsl.ir import BlockArgument, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from dialects.torch.meta import Dynamic
from dialects.torch.op_base import arg_value
from dialects.torch.ops.data_movement import AtenSelectIntOp, AtenSizeIntOp
from dialects.torch.ops.indexing import AtenOneHotOp
from dialects.torch.ops.op_sequence import OpSequence
from dialects.torch.ops.prim import PrimLoopOp, raise_if
from dialects.torch.ops.reduction import AtenMaxOp, AtenMinOp
from dialects.torch.ops.reshaping import AtenNarrowOp
from dialects.torch.ops.scalars import (
    AtenAddIntOp,
    AtenGeIntOp,
    AtenGtIntOp,
    AtenIntTensorOp,
    AtenLtIntOp,
    AtenMaxIntOp,
    AtenMinIntOp,
    AtenMulIntOp,
    AtenNegIntOp,
    AtenOrBoolOp,
)
from dialects.torch.types import DYN, ValueTensorType
from lowering.ir_marks import RUN_TIME_CHECK


@dataclass(frozen=True)
class TorchCheckIndicesPass(ModulePass):
    """Raise torch's exception where an int index, a narrow or a one_hot class is out of range."""

    name = "torch-check-indices"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for checked in list(op.walk()):
            if isinstance(checked, AtenSelectIntOp):
                check_select(checked)
            elif isinstance(checked, AtenNarrowOp):
                check_narrow(checked)
            elif isinstance(checked, AtenOneHotOp):
                check_one_hot(checked)


def _dim_and_size(x: SSAValue, dim: SSAValue) -> tuple[int, int] | None:
    """`dim` made non-negative and its static size (DYN when `?`); None if the rank is unknown."""
    sizes = x.type.sizes if isinstance(x.type, ValueTensorType) else None
    d = arg_value(dim)
    if not sizes or not isinstance(d, int):
        return None
    d %= len(sizes)
    return d, sizes[d]


def _known(value: SSAValue) -> int | None:
    known = arg_value(value)
    return None if isinstance(known, Dynamic) or not isinstance(known, int) else known


def _size_text(size: int) -> str:
    return f" with size {size}" if size != DYN else ""


def _raise(seq: OpSequence, condition: SSAValue, kind: str, message: str) -> None:
    check = raise_if(condition, kind, message)
    check.attributes[RUN_TIME_CHECK] = UnitAttr()  # lowered to a `cf.assert`
    seq.add(check)


def _outside(seq: OpSequence, value: Any, low: Any, high: Any, inclusive: bool) -> SSAValue:
    """`value < low or value > high` (`>=` unless `inclusive`)."""
    below = seq.call(AtenLtIntOp, value, low)
    above = seq.call(AtenGtIntOp if inclusive else AtenGeIntOp, value, high)
    return seq.call(AtenOrBoolOp, below, above)


def check_select(op: AtenSelectIntOp) -> None:
    """IndexError before `op` when its index is outside `[-size, size)`."""
    found = _dim_and_size(op.self_, op.dim)
    index = _known(op.index)
    if found is None or (index is not None and found[1] != DYN):
        return
    d, static = found
    if counts_up_to_size(op.index, op.self_, d):
        return
    seq = OpSequence()
    size = seq.size(op.self_, d)
    low = -size if isinstance(size, int) else seq.call(AtenNegIntOp, size)
    message = f"select(): index out of range for dimension {d}{_size_text(static)}"
    _raise(seq, _outside(seq, op.index, low, size, inclusive=False), "IndexError", message)
    Rewriter.insert_op(seq.ops, InsertPoint.before(op))


def counts_up_to_size(index: SSAValue, x: SSAValue, dim: int) -> bool:
    """Whether `index` is the counter of a `prim.Loop` of `x.size(dim)` iterations (`for t in
    range(x.shape[0]): x[t]`): always in range, nothing to check."""
    if not isinstance(index, BlockArgument) or index.index != 0:
        return False
    loop = index.block.parent_op()
    if not isinstance(loop, PrimLoopOp):
        return False
    count = loop.max_trip_count.owner
    return (
        isinstance(count, AtenSizeIntOp)
        and count.self_ is x
        and _dim_and_size(x, count.dim) is not None
        and _dim_and_size(x, count.dim)[0] == dim  # type: ignore[index]
    )


def check_narrow(op: AtenNarrowOp) -> None:
    """torch's three checks of narrow before `op`, and a run-time start wrapped."""
    found = _dim_and_size(op.self_, op.dim)
    start, length = _known(op.start), _known(op.length)
    if found is None or (start is not None and length is not None and found[1] != DYN):
        return
    d, static = found
    seq = OpSequence()
    size = seq.size(op.self_, d)
    low = -size if isinstance(size, int) else seq.call(AtenNegIntOp, size)
    shown = f"[{-static}, {static}]" if static != DYN else "[-size, size]"
    message = f"start out of range (expected to be in range of {shown})"
    _raise(seq, _outside(seq, op.start, low, size, inclusive=True), "IndexError", message)
    if length is None:
        negative = seq.call(AtenLtIntOp, op.length, 0)
        _raise(seq, negative, "RuntimeError", "narrow(): length must be non-negative.")
    first: Any = op.start
    if start is None:  # start + size when negative: min(max(-start, 0), 1) * size
        negative_part = seq.call(AtenMaxIntOp, seq.call(AtenNegIntOp, op.start), 0)
        shift = seq.call(AtenMulIntOp, seq.call(AtenMinIntOp, negative_part, 1), size)
        first = seq.call(AtenAddIntOp, op.start, shift)
    elif start < 0:
        first = start + size if isinstance(size, int) else seq.call(AtenAddIntOp, size, start)
    end = seq.call(AtenAddIntOp, first, op.length)
    shown_size = f" ({static})" if static != DYN else ""
    message = f"start + length exceeds dimension size{shown_size}."
    _raise(seq, seq.call(AtenGtIntOp, end, size), "RuntimeError", message)
    Rewriter.insert_op(seq.ops, InsertPoint.before(op))
    if start is None:
        op.operands[2] = first


def check_one_hot(op: AtenOneHotOp) -> None:
    """RuntimeError before `op` when a class is negative or not below `num_classes`."""
    x, classes = op.self_, _known(op.num_classes)
    sizes = x.type.sizes if isinstance(x.type, ValueTensorType) else None
    if classes is None or sizes is None or 0 in sizes:
        return
    seq = OpSequence()
    largest = seq.call(AtenIntTensorOp, seq.call(AtenMaxOp, x))
    smallest = seq.call(AtenIntTensorOp, seq.call(AtenMinOp, x))
    _raise(seq, seq.call(AtenLtIntOp, smallest, 0), "RuntimeError",
           "Class values must be non-negative.")  # fmt: skip
    _raise(seq, seq.call(AtenGeIntOp, largest, classes), "RuntimeError",
           "Class values must be smaller than num_classes.")  # fmt: skip
    Rewriter.insert_op(seq.ops, InsertPoint.before(op))
