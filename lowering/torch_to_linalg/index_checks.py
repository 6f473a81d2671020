"""Run-time range checks of index tensors, with torch's exception and rule for negative
indices (`dialects/torch/ops/index_rules.py`): a `cf.assert` that the python target raises as
torch's exception (`RAISE_SEPARATOR`) before any memory is touched through a bad index.

- Ops that read the source at the index (index_select, gather, embedding, `x[idx]`) check each
  element where the loop reads it (`checked_reader`): one load, a compare and a cold raise in
  the loop body, no second pass over the index. A 0-d index is read and checked once, before
  the loops.
- Ops that only compare the index with positions (scatter*, index_add / copy / fill) never
  address memory with it; their check is one fold over the index before the op
  (`check_in_range`), so that they raise as torch does.
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.dialects import cf, tensor
from xdsl.dialects.builtin import IndexType, TensorType, i1
from xdsl.ir import SSAValue
from xdsl.ir.affine import AffineMap
from xdsl.pattern_rewriter import PatternRewriter

from dialects.torch.ops.index_rules import IndexRule, rule_of
from dialects.torch.scalar_builder import ScalarBuilder
from dialects.torch.types import DYN
from lowering.ir_marks import RAISE_SEPARATOR
from lowering.torch_to_linalg.reduction import fold
from lowering.torch_to_linalg.scalars import build_scalars
from lowering.torch_to_linalg.utils import static_shape

Reader = Callable[[ScalarBuilder, list[SSAValue]], SSAValue]


def assert_message(op_name: str, source: SSAValue, dim: int) -> str:
    """The `cf.assert` message of `op_name`'s rule for an index past `source`'s `dim`."""
    rule = rule_of(op_name)
    shape = static_shape(source.type)
    size = shape[dim] if dim < len(shape) else 1
    text = rule.fixed_message(dim, None if size == DYN else size)
    return f"{rule.kind.__name__}{RAISE_SEPARATOR}{text}"


def _position(b: ScalarBuilder, value: SSAValue, size: SSAValue, rule: IndexRule) -> SSAValue:
    """The element as an `index`, plus `size` when negative if the rule wraps."""
    at = b.index_cast(value, IndexType())
    if not rule.wraps:
        return at
    zero = b.const(0, IndexType())
    return b.select(b.cmp("lt", at, zero), b.add(at, size), at)


def _inside(b: ScalarBuilder, at: SSAValue, size: SSAValue) -> SSAValue:
    return b.and_(b.cmp("ge", at, b.const(0, IndexType())), b.cmp("lt", at, size))


def checked_reader(
    rewriter: PatternRewriter, index: SSAValue, size: SSAValue, op_name: str, message: str
) -> Reader:
    """`read(b, indices)`: an element of the integer tensor `index` as an `index` value in
    `[0, size)` (wrapped when `op_name`'s rule wraps), with a `cf.assert` after the load that
    raises `message` (`assert_message`) otherwise. A 0-d index is read and checked once,
    before the loops (numba cannot index a 0-d array inside `prange`)."""
    assert isinstance(index.type, TensorType)
    element = index.type.element_type
    rule = rule_of(op_name)

    def read(b: ScalarBuilder, indices: list[SSAValue]) -> SSAValue:
        at = _position(b, b.emit(tensor.ExtractOp(index, indices, element)), size, rule)
        b.block.add_op(cf.AssertOp(_inside(b, at, size), message))
        return at

    if index.type.get_num_dims():
        return read
    value = build_scalars(rewriter, lambda b: read(b, []))
    return lambda b, indices: value


def check_in_range(
    rewriter: PatternRewriter, index: SSAValue, size: SSAValue, op_name: str, message: str
) -> None:
    """Insert `cf.assert` that every element of the integer tensor `index` is in `[0, size)`
    (`[-size, size)` when `op_name`'s rule wraps): `message` (`assert_message`) is raised
    otherwise."""
    rule = rule_of(op_name)

    def inside(b: ScalarBuilder, value: SSAValue) -> SSAValue:
        return _inside(b, _position(b, value, size, rule), size)

    assert isinstance(index.type, TensorType)
    element = index.type.element_type
    rank = index.type.get_num_dims()
    if rank == 0:
        ok = build_scalars(
            rewriter, lambda b: inside(b, b.emit(tensor.ExtractOp(index, [], element)))
        )
    else:
        identity = AffineMap.identity(rank)
        folded = fold(
            rewriter, [index], [identity], list(range(rank)), False, [(i1, True)],
            lambda b, args: [b.and_(args[1], inside(b, args[0]))],
        )[0]  # fmt: skip
        ok = build_scalars(rewriter, lambda b: b.emit(tensor.ExtractOp(folded, [], i1)))
    rewriter.insert(cf.AssertOp(ok, message))
