"""Functions of several tensors, written `f(a, b, ...)` (`torch.functional`'s `*tensors`; the
binding packs them into the schema's `Tensor[]`): `torch.block_diag`, `torch.cartesian_prod`,
and `torch.atleast_1d` / `atleast_2d` / `atleast_3d` (one tensor, or several: a list)."""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import operand_def, result_def

from dialects.torch.dtypes import result_type
from dialects.torch.meta import ShapeError, TensorMeta
from dialects.torch.op_base import Sample, TorchOp, torch_op
from dialects.torch.op_base import T as Tn
from dialects.torch.ops.casts import AtenToDtypeOp
from dialects.torch.ops.constructors import AtenZerosOp
from dialects.torch.ops.joining import AtenCatOp, AtenStackOp
from dialects.torch.ops.op_sequence import OpSequence, known_rank
from dialects.torch.ops.pieces import PiecesOp
from dialects.torch.ops.prim import PrimListConstructOp
from dialects.torch.ops.scalars import AtenAddIntOp
from dialects.torch.ops.views import AtenCloneOp, AtenExpandOp, AtenReshapeOp, AtenViewOp
from dialects.torch.types import DYN, ListType, ValueTensorType


def listed(op: TorchOp) -> list[SSAValue] | None:
    """The tensors of the op's `Tensor[]` operand when it is a ListConstruct of known ranks."""
    owner = op.operands[0].owner
    if not isinstance(owner, PrimListConstructOp):
        return None
    tensors = list(owner.elements)
    return None if any(known_rank(t) is None for t in tensors) else tensors


def tensor_list(name: str, tensors: Any) -> list[TensorMeta]:
    if not isinstance(tensors, list) or not all(isinstance(t, TensorMeta) for t in tensors):
        raise TypeError(f"{name}: the tensors must be a list with a known length")
    return tensors


def _total(sizes: list[Any]) -> int:
    return DYN if DYN in sizes else sum(sizes)


def _sum_sizes(seq: OpSequence, sizes: list[Any]) -> Any:
    total: Any = 0
    for size in sizes:
        if isinstance(total, int) and isinstance(size, int):
            total += size
        else:
            total = seq.call(AtenAddIntOp, total, size)
    return total


def _as_matrix_shape(t: TensorMeta) -> tuple[int, int]:
    if t.rank == 0:
        return (1, 1)
    if t.rank == 1:
        return (1, t.shape[0])  # type: ignore[index]
    return t.shape  # type: ignore[return-value]


@torch_op
class AtenBlockDiagOp(TorchOp):
    """`torch.block_diag(a, b, ...)`: the tensors (0-d, 1-D as a row, or 2-D) on the diagonal
    of a zero matrix; dtypes promote."""

    name = "torch.aten.block_diag"
    SCHEMA = "aten::block_diag(Tensor[] tensors) -> Tensor"
    PY_NAMES = ("torch.block_diag",)
    SAMPLES = (Sample([Tn((2, 3)), Tn((3,), "int64", -5, 5), Tn((), "float32")]),)
    tensors = operand_def(ListType)
    result = result_def(ValueTensorType)

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        tensors = tensor_list("block_diag", args[0])
        for position, t in enumerate(tensors):
            if t.rank is not None and t.rank > 2:
                raise ShapeError(
                    f"torch.block_diag: Input tensors must have 2 or fewer dimensions. Input "
                    f"{position} has {t.rank} dimensions"
                )
        known = [(t.dtype, t.rank or 0) for t in tensors]
        dtype = None if any(d is None for d, _ in known) or not known else result_type(known, [])
        if any(t.shape is None for t in tensors):
            return [ValueTensorType((DYN, DYN), dtype)]
        shapes = [_as_matrix_shape(t) for t in tensors]
        return [
            ValueTensorType((_total([r for r, _ in shapes]), _total([c for _, c in shapes])), dtype)
        ]

    @staticmethod
    def eager(tensors: Any) -> Any:
        dtype = np.result_type(*tensors) if tensors else np.float32
        mats = [np.atleast_2d(t) for t in tensors]
        out = np.zeros((sum(m.shape[0] for m in mats), sum(m.shape[1] for m in mats)), dtype)
        r = c = 0
        for m in mats:
            out[r : r + m.shape[0], c : c + m.shape[1]] = m
            r, c = r + m.shape[0], c + m.shape[1]
        return out

    def decompose(self) -> Any:
        """Each piece as a matrix between zeros to the full width, the rows then stacked."""
        tensors = listed(self)
        if not tensors:
            return None
        seq = OpSequence()
        dtype = self.result.type.element.scalar_type  # type: ignore[attr-defined]
        rows: list[SSAValue] = []
        mats = []
        for t in tensors:
            rank = known_rank(t)
            mat = seq.call(AtenViewOp, t, [1, -1] if rank == 1 else [1, 1]) if rank != 2 else t
            mats.append(seq.call(AtenToDtypeOp, mat, dtype, False, False, None))
        widths = [seq.size(m, 1) for m in mats]
        for i, m in enumerate(mats):
            height = seq.size(m, 0)
            parts = []
            for width in (_sum_sizes(seq, widths[:i]), None, _sum_sizes(seq, widths[i + 1 :])):
                if width is None:
                    parts.append(m)
                elif width != 0:  # zeros beside the block (sizes may be known at run time only)
                    parts.append(seq.call(AtenZerosOp, [height, width], dtype))
            rows.append(seq.call(AtenCatOp, seq.list_of(parts), 1) if len(parts) > 1 else m)
        seq.call(AtenCatOp, seq.list_of(rows), 0)
        return seq.ops


@torch_op
class AtenCartesianProdOp(TorchOp):
    """`torch.cartesian_prod(a, b, ...)`: every combination of the 1-D inputs' elements, one
    per row ([n_a * n_b * ..., k]; one input is returned as it is)."""

    name = "torch.aten.cartesian_prod"
    SCHEMA = "aten::cartesian_prod(Tensor[] tensors) -> Tensor"
    PY_NAMES = ("torch.cartesian_prod",)
    SAMPLES = (Sample([Tn((2,), "int64", -5, 5), Tn((3,), "int64", -5, 5)]),)
    tensors = operand_def(ListType)
    result = result_def(ValueTensorType)

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        tensors = tensor_list("cartesian_prod", args[0])
        if any(t.rank is not None and t.rank != 1 for t in tensors):
            raise ShapeError("Expect a 1D vector, but got shape " + str(
                next(list(t.shape) for t in tensors if t.rank is not None and t.rank != 1)))  # type: ignore[arg-type]  # fmt: skip
        dtypes = {t.dtype for t in tensors} - {None}
        if len(dtypes) > 1:
            raise TypeError("meshgrid expects all tensors to have the same dtype")
        dtype = tensors[0].dtype if tensors else None
        if len(tensors) == 1:
            return [ValueTensorType(tensors[0].shape, dtype)]
        sizes = [t.shape[0] if t.shape is not None else DYN for t in tensors]
        count = DYN if DYN in sizes else int(np.prod(sizes))
        return [ValueTensorType((count, len(tensors)), dtype)]

    @staticmethod
    def eager(tensors: Any) -> Any:
        if len(tensors) == 1:
            return tensors[0].copy()
        grids = np.meshgrid(*tensors, indexing="ij")
        return np.stack([g.reshape(-1) for g in grids], 1)

    def decompose(self) -> Any:
        """The meshgrid of the inputs (views + expands), each flattened, stacked as columns."""
        tensors = listed(self)
        if not tensors:
            return None
        seq = OpSequence()
        if len(tensors) == 1:
            seq.call(AtenCloneOp, tensors[0], None)
            return seq.ops
        sizes = [seq.size(t, 0) for t in tensors]
        columns = []
        for i, t in enumerate(tensors):
            shape = [-1 if d == i else 1 for d in range(len(tensors))]
            grid = seq.call(AtenExpandOp, seq.call(AtenViewOp, t, shape), sizes, False)
            columns.append(seq.call(AtenReshapeOp, grid, [-1]))
        seq.call(AtenStackOp, seq.list_of(columns), 1)
        return seq.ops


def at_least(shape: tuple[int, ...], rank: int) -> tuple[int, ...]:
    """numpy's atleast_Nd shapes: [n] -> [1, n] (2-D), [1, n, 1] (3-D); [m, n] -> [m, n, 1]."""
    if len(shape) >= rank:
        return shape
    if len(shape) == 0:
        return (1,) * rank
    if len(shape) == 1:
        return (1, shape[0], 1) if rank == 3 else (1, shape[0])
    return (*shape, 1)


def _numpy_at_least(x: Any, rank: int) -> Any:
    return np.asarray(x).reshape(at_least(np.shape(x), rank)).copy()


def _lifted(seq: OpSequence, t: SSAValue, rank: int) -> SSAValue:
    current = known_rank(t)
    assert current is not None
    if current >= rank:
        return seq.call(AtenCloneOp, t, None)
    sizes = seq.sizes(t)
    return seq.call(AtenViewOp, t, list(at_least(tuple(sizes), rank)))


def _atleast(rank: int) -> tuple[Any, Any]:
    stem = f"atleast_{rank}d"

    @torch_op
    class One(TorchOp):
        __doc__ = f"`torch.{stem}(x)`: x viewed with at least {rank} dims (numpy's rule)."
        __qualname__ = f"AtenAtleast{rank}dOp"
        name = f"torch.aten.{stem}"
        SCHEMA = f"aten::{stem}(Tensor self) -> Tensor"
        PY_NAMES = (f"torch.{stem}",)
        SAMPLES = (Sample(Tn((3,) if rank > 1 else ())),)
        self_ = operand_def(ValueTensorType)
        result = result_def(ValueTensorType)

        @classmethod
        def infer(cls, *args: Any) -> list[Attribute]:
            x = args[0]
            return [ValueTensorType(None if x.shape is None else at_least(x.shape, rank), x.dtype)]

        @staticmethod
        def eager(x: Any) -> Any:
            return _numpy_at_least(x, rank)

        def decompose(self) -> Any:
            if known_rank(self.operands[0]) is None:
                return None
            seq = OpSequence()
            _lifted(seq, self.operands[0], rank)
            return seq.ops

    @torch_op
    class Many(PiecesOp):
        __doc__ = f"`torch.{stem}(a, b, ...)`: a list, each tensor as `torch.{stem}` makes it."
        __qualname__ = f"AtenAtleast{rank}dSequenceOp"
        name = f"torch.aten.{stem}.Sequence"
        SCHEMA = f"aten::{stem}.Sequence(Tensor[] tensors) -> Tensor[]"
        PY_NAMES = (f"torch.{stem}",)
        SAMPLES = (Sample([Tn((2,)), Tn((), "int64")]),)
        tensors = operand_def(ListType)
        result = result_def(ListType)

        @classmethod
        def pieces(cls, *args: Any) -> list[ValueTensorType] | None:
            tensors = tensor_list(stem, args[0])
            return [One.infer(t)[0] for t in tensors]  # type: ignore[misc]

        @staticmethod
        def eager(tensors: Any) -> Any:
            return [_numpy_at_least(t, rank) for t in tensors]

        def decompose(self) -> Any:
            tensors = listed(self)
            if tensors is None:
                return None
            seq = OpSequence()
            seq.list_of([_lifted(seq, t, rank) for t in tensors])
            return seq.ops

    One.__name__, Many.__name__ = One.__qualname__, Many.__qualname__
    return One, Many


AtenAtleast1dOp, AtenAtleast1dSequenceOp = _atleast(1)


AtenAtleast2dOp, AtenAtleast2dSequenceOp = _atleast(2)


AtenAtleast3dOp, AtenAtleast3dSequenceOp = _atleast(3)


OPS = (
    AtenBlockDiagOp,
    AtenCartesianProdOp,
    AtenAtleast1dOp,
    AtenAtleast1dSequenceOp,
    AtenAtleast2dOp,
    AtenAtleast2dSequenceOp,
    AtenAtleast3dOp,
    AtenAtleast3dSequenceOp,
)
