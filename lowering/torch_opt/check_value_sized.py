"""Run-time checks where a dim sized by the values meets another dim (`torch-check-value-sized`).

A dim whose size depends on the values (`torch.aten.nonzero`'s count, and everything built on
it: `x[mask]`, `masked_select`, `unique`) stays `?` for every argument shape, so the shape
guard (`frontend/run/shape_guard.py`) cannot check it before the call. The compiled code of an
elementwise op assumes, as for every `?` dim, that its operands' sizes agree (and that a `?`
is not a broadcast 1): `x[m] + y` with `y` of another size than `m.sum()` would read out of
bounds. This pass makes such a program raise torch's RuntimeError instead.

Matrix products (`mm`, `bmm`, `matmul`, `linear`: the contracted dims, and bmm's batch) and
`cat` (every dim but the joined one) get the same check where a `?` dim meets another dim.

**Expects:** `func.func`s in the torch dialect, typed and decomposed (the end of `torch-opt`).
**Produces:** in each function that computes `torch.aten.nonzero`, before every elementwise op
with two or more tensor operands, for each result dim that a `?` operand dim shares with
another operand dim (`?` or a static size above 1), and before every matrix product and `cat`
for each pair of dims that must be equal where one is `?`: `size.int` of both, `ne.int`, and
a `torch.prim.If` that raises RuntimeError when they differ. Other functions are unchanged.
```mlir
%a = torch.aten.size.int %x, %int0 : !torch.vtensor<[?],f32>, !torch.int -> !torch.int
%b = torch.aten.size.int %y, %int0 : !torch.vtensor<[?],f32>, !torch.int -> !torch.int
%differ = torch.aten.ne.int %a, %b : !torch.int, !torch.int -> !torch.bool
torch.prim.If %differ -> () {
  torch.prim.RaiseException "RuntimeError" "The size of tensor a must match ..."
  torch.prim.If.yield
} else {
  torch.prim.If.yield
}
```
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from dialects.torch.families import ElementwiseOp
from dialects.torch.op_base import arg_value
from dialects.torch.ops.data_movement import AtenSizeIntOp
from dialects.torch.ops.joining import AtenCatOp
from dialects.torch.ops.linear import AtenBmmOp, AtenLinearOp, AtenMatmulOp, AtenMmOp
from dialects.torch.ops.prim import ConstantIntOp, PrimListConstructOp, raise_if
from dialects.torch.ops.scalars import AtenNeIntOp
from dialects.torch.ops.value_sized import AtenNonzeroOp
from dialects.torch.types import DYN, ValueTensorType

MESSAGE = (
    "The size of tensor a must match the size of tensor b at non-singleton dimension {dim} "
    "(a size that depends on the values, which does not broadcast from 1)"
)

Size = SSAValue | int  # an operand dim's size: read at run time, or static


@dataclass(frozen=True)
class TorchCheckValueSizedPass(ModulePass):
    """Raise instead of reading out of bounds where a value-sized dim meets another dim."""

    name = "torch-check-value-sized"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for function in op.ops:
            if not isinstance(function, func.FuncOp):
                continue
            if not any(isinstance(o, AtenNonzeroOp) for o in function.walk()):
                continue
            for checked in list(function.walk()):
                if isinstance(checked, ElementwiseOp):
                    check_operand_sizes(checked)
                else:
                    check_equal_dims(checked)


def check_operand_sizes(op: Operation) -> None:
    """Insert the checks of `op`'s shared dims before it (see the module docstring)."""
    shapes = [
        (v, v.type.sizes)
        for v in op.operands
        if isinstance(v.type, ValueTensorType) and v.type.sizes
    ]
    if len(shapes) < 2:
        return
    rank = max(len(sizes) for _, sizes in shapes)
    for axis in range(rank):
        dims = [
            (value, len(sizes) - rank + axis, sizes[len(sizes) - rank + axis])
            for value, sizes in shapes
            if len(sizes) - rank + axis >= 0
        ]
        dynamic = [(v, d) for v, d, size in dims if size == DYN]
        static = [size for _, _, size in dims if size not in (DYN, 1)]
        if not dynamic or len(dynamic) + len(static) < 2:
            continue
        reference: tuple[SSAValue, int] | int = static[0] if static else dynamic[0]
        for value, dim in dynamic:
            if reference != (value, dim):
                _insert_check(op, (value, dim), reference, MESSAGE.format(dim=axis))


PRODUCT_MESSAGE = (
    "mat1 and mat2 shapes cannot be multiplied (a size that depends on the values does not "
    "match the other operand's)"
)
CAT_MESSAGE = (
    "Sizes of tensors must match except in the dimension being joined (a size that depends on "
    "the values does not match)"
)


def equal_dims(op: Operation) -> list[tuple[tuple[SSAValue, int], tuple[SSAValue, int]]]:
    """The pairs of (operand, dim) that `op` requires to be equal: the contracted dims of a
    matrix product (and bmm's batch dims), every dim but the joined one in `cat`."""
    ranks = [_rank(v) for v in op.operands]
    if isinstance(op, AtenMmOp | AtenMatmulOp) and min(ranks[:2], default=0) >= 1:
        a, b = op.operands[0], op.operands[1]
        return [((a, ranks[0] - 1), (b, ranks[1] - 2 if ranks[1] >= 2 else 0))]
    if isinstance(op, AtenBmmOp) and ranks[:2] == [3, 3]:
        a, b = op.operands[0], op.operands[1]
        return [((a, 0), (b, 0)), ((a, 2), (b, 1))]
    if isinstance(op, AtenLinearOp) and ranks[0] >= 1 and ranks[1] >= 1:
        return [((op.operands[0], ranks[0] - 1), (op.operands[1], ranks[1] - 1))]
    if isinstance(op, AtenCatOp):
        return _cat_pairs(op)
    return []


def _cat_pairs(op: AtenCatOp) -> list[tuple[tuple[SSAValue, int], tuple[SSAValue, int]]]:
    listed = op.tensors.owner
    dim = arg_value(op.dim) if isinstance(op.dim.owner, ConstantIntOp) else None
    if not isinstance(listed, PrimListConstructOp) or dim is None:
        return []
    items = [v for v in listed.operands if _rank(v) > 0]
    if len(items) < 2 or len({_rank(v) for v in items}) != 1:
        return []
    rank = _rank(items[0])
    joined = dim % rank
    return [((items[0], d), (other, d)) for other in items[1:] for d in range(rank) if d != joined]


def check_equal_dims(op: Operation) -> None:
    """Insert a check before `op` for each pair of `equal_dims` where one side is `?`."""
    message = CAT_MESSAGE if isinstance(op, AtenCatOp) else PRODUCT_MESSAGE
    for first, second in equal_dims(op):
        sizes = [_size(*first), _size(*second)]
        if DYN in sizes and 1 not in sizes:
            _insert_check(op, first, second, message)
        elif DYN in sizes:  # a static 1 against a `?`: the `?` must be 1 too
            dynamic = first if sizes[0] == DYN else second
            _insert_check(op, dynamic, 1, message)


def _rank(value: SSAValue) -> int:
    sizes = value.type.sizes if isinstance(value.type, ValueTensorType) else None
    return len(sizes) if sizes is not None else -1


def _size(value: SSAValue, dim: int) -> int:
    assert isinstance(value.type, ValueTensorType) and value.type.sizes is not None
    return value.type.sizes[dim]


def _insert_check(
    op: Operation,
    dim: tuple[SSAValue, int],
    reference: tuple[SSAValue, int] | int,
    message: str,
) -> None:
    ops: list[Operation] = []

    def size_of(source: tuple[SSAValue, int] | int) -> SSAValue:
        if isinstance(source, int):
            constant = ConstantIntOp(source)
            ops.append(constant)
            return constant.result
        value, index = source
        position = ConstantIntOp(index)
        read = AtenSizeIntOp.build([value, position.result])
        ops.extend([position, read])
        return read.results[0]

    differ = AtenNeIntOp.build([size_of(dim), size_of(reference)])
    check = raise_if(differ.results[0], "RuntimeError", message)
    Rewriter.insert_op([*ops, differ, check], InsertPoint.before(op))
