"""Ops that reorder elements or dims: flip (fliplr, flipud), roll, movedim / moveaxis,
swapaxes, rot90, and pixel_shuffle / pixel_unshuffle (channel blocks to spatial blocks).

flip and roll have their own lowerings (`lowering/torch_to_linalg/reorder.py`: one copy whose
source index is `size - 1 - i` / `(i - shift) mod size`); the others decompose into flip,
permute and transpose. Dims and shifts must be constant ints.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.ir import Attribute
from xdsl.irdl import operand_def, result_def

from dialects.torch.meta import ShapeError, TensorMeta, normalize_dim
from dialects.torch.op_base import Sample, TorchOp, arg_value, torch_op
from dialects.torch.op_base import T as Tn
from dialects.torch.ops.op_sequence import OpSequence, known_rank
from dialects.torch.ops.scalars import AtenFloordivIntOp, AtenMulIntOp
from dialects.torch.ops.shapes import size_list
from dialects.torch.ops.views import AtenCloneOp, AtenPermuteOp, AtenTransposeIntOp, AtenViewOp
from dialects.torch.types import DYN, IntType, ListType, ValueTensorType


def constant_dims(op_name: str, arg_name: str, dims: Any, rank: int | None) -> list[int] | None:
    """`dims` (an int or an int list of constants) made non-negative; None while the rank is
    unknown. ShapeError for a dim out of range or repeated, as torch."""
    values = size_list(op_name, arg_name, dims)
    if not all(isinstance(d, int) for d in values):
        raise TypeError(f"{op_name}: `{arg_name}` must be constant ints")
    if rank is None:
        return None
    normalized = [normalize_dim(d, rank) for d in values]  # type: ignore[arg-type]
    if len(set(normalized)) != len(normalized):
        raise ShapeError(f"dim {normalized[0]} appears multiple times in the list of dims")
    return normalized


def _same(x: TensorMeta) -> list[Attribute]:
    return [ValueTensorType(x.shape, x.dtype)]


@torch_op
class AtenFlipOp(TorchOp):
    """`torch.flip(x, dims)`: the elements in reverse order along each of `dims`."""

    name = "torch.aten.flip"
    SCHEMA = "aten::flip(Tensor self, int[] dims) -> Tensor"
    PY_NAMES = ("torch.flip", "Tensor.flip")
    SAMPLES = (Sample(Tn((3, 4)), [1]), Sample(Tn((2, 3, 2), "int64"), [0, -1]))
    self_ = operand_def(ValueTensorType)
    dims = operand_def(ListType)
    result = result_def(ValueTensorType)

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        x, dims = args
        constant_dims("flip", "dims", dims, x.rank)
        return _same(x)

    @staticmethod
    def eager(x: Any, dims: Any) -> Any:
        return np.flip(x, [d % max(x.ndim, 1) for d in dims]).copy() if x.ndim else x.copy()


class _FlipOneDim(TorchOp):
    """fliplr / flipud: `flip` of one dim of a tensor of at least `MIN_RANK` dims."""

    DIM = 0
    MIN_RANK = 1

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        (x,) = args
        if x.rank is not None and x.rank < cls.MIN_RANK:
            raise ShapeError(f"Input must be >= {cls.MIN_RANK}-d.")
        return _same(x)

    @classmethod
    def eager(cls, x: Any) -> Any:
        cls.infer(TensorMeta.of_array(x))
        return np.flip(x, cls.DIM).copy()

    def decompose(self) -> Any:
        seq = OpSequence()
        seq.call(AtenFlipOp, self.operands[0], [self.DIM])
        return seq.ops


@torch_op
class AtenFliplrOp(_FlipOneDim):
    """`torch.fliplr(x)`: flips dim 1 (x must be at least 2-D)."""

    name = "torch.aten.fliplr"
    SCHEMA = "aten::fliplr(Tensor self) -> Tensor"
    PY_NAMES = ("torch.fliplr", "Tensor.fliplr")
    SAMPLES = (Sample(Tn((3, 4))),)
    DIM, MIN_RANK = 1, 2
    self_ = operand_def(ValueTensorType)
    result = result_def(ValueTensorType)


@torch_op
class AtenFlipudOp(_FlipOneDim):
    """`torch.flipud(x)`: flips dim 0 (x must be at least 1-D)."""

    name = "torch.aten.flipud"
    SCHEMA = "aten::flipud(Tensor self) -> Tensor"
    PY_NAMES = ("torch.flipud", "Tensor.flipud")
    SAMPLES = (Sample(Tn((3, 2), "int32")),)
    self_ = operand_def(ValueTensorType)
    result = result_def(ValueTensorType)


@torch_op
class AtenRollOp(TorchOp):
    """`torch.roll(x, shifts, dims)`: element i moves to (i + shift) mod size along each dim;
    with no dims, the flattened tensor rolls (and keeps its shape)."""

    name = "torch.aten.roll"
    SCHEMA = "aten::roll(Tensor self, int[] shifts, int[] dims=[]) -> Tensor"
    PY_NAMES = ("torch.roll", "Tensor.roll")
    SAMPLES = (Sample(Tn((3, 4)), [1, -5], [1, 0]), Sample(Tn((2, 3), "int64"), 2))
    self_ = operand_def(ValueTensorType)
    shifts = operand_def(ListType)
    dims = operand_def(ListType)
    result = result_def(ValueTensorType)

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        x, shifts, dims = args
        amounts = size_list("roll", "shifts", shifts)
        if not all(isinstance(s, int) for s in amounts):
            raise TypeError("roll: `shifts` must be constant ints")
        rank = x.rank
        count = len(size_list("roll", "dims", dims))
        if count == 0 and len(amounts) != 1:
            raise ShapeError(f"shifts and dimensions must align. shifts: {len(amounts)}, dims:0")
        if count and count != len(amounts):
            raise ShapeError(
                f"shifts and dimensions must align. shifts: {len(amounts)}, dims:{count}"
            )
        constant_dims("roll", "dims", dims, rank)
        return _same(x)

    @staticmethod
    def eager(x: Any, shifts: Any, dims: Any = ()) -> Any:
        shifts = [shifts] if isinstance(shifts, int) else list(shifts)
        dims = [dims] if isinstance(dims, int) else list(dims)
        if not dims:
            return np.roll(x.reshape(-1), shifts[0]).reshape(x.shape)
        return np.roll(x, shifts, dims)

    def decompose(self) -> Any:
        """No dims: `roll(x.view(-1), shift, 0).view(x.shape)`."""
        rank = known_rank(self.self_)
        dims = size_list("roll", "dims", _value_of(self.dims))
        if dims or rank is None:
            return None
        seq = OpSequence()
        flat = seq.call(AtenViewOp, self.self_, [-1])
        rolled = seq.call(
            AtenRollOp, flat, size_list("roll", "shifts", _value_of(self.shifts)), [0]
        )
        seq.call(AtenViewOp, rolled, seq.sizes(self.self_))
        return seq.ops


def _value_of(value: Any) -> Any:
    from dialects.torch.op_base import arg_value

    return arg_value(value)


def moved_order(op_name: str, source: Any, destination: Any, rank: int) -> list[int]:
    """The permutation that moves dims `source` to positions `destination` (torch's movedim:
    the other dims keep their order)."""
    if rank == 0:  # torch: a 0-d tensor's dims are 0 and -1, moving them changes nothing
        rank_one = moved_order(op_name, source, destination, 1)
        return [d for d in rank_one if d != 0]
    src = constant_dims(op_name, "source", source, rank)
    dst = constant_dims(op_name, "destination", destination, rank)
    assert src is not None and dst is not None
    if len(src) != len(dst):
        raise ShapeError(
            f"movedim: Invalid source or destination dims: source ({list(src)} dims) should "
            f"contain the same number of dims as destination ({list(dst)} dims)"
        )
    order: list[int | None] = [None] * rank
    for s, d in zip(src, dst):
        order[d] = s
    rest = iter(d for d in range(rank) if d not in src)
    return [next(rest) if o is None else o for o in order]


class _MovedimOp(TorchOp):
    """`torch.movedim(x, source, destination)`: a permute."""

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        x, source, destination = args
        if x.rank is None:
            return _same(x)
        order = moved_order("movedim", source, destination, x.rank)
        shape = None if x.shape is None else tuple(x.shape[d] for d in order)
        return [ValueTensorType(shape, x.dtype)]

    @staticmethod
    def eager(x: Any, source: Any, destination: Any) -> Any:
        if x.ndim == 0:
            moved_order("movedim", source, destination, 0)  # the dims' checks
            return x.copy()
        return np.moveaxis(x, source, destination).copy()

    def decompose(self) -> Any:
        x, source, destination = self.operands
        rank = known_rank(x)
        if rank is None:
            return None
        order = moved_order("movedim", _value_of(source), _value_of(destination), rank)
        seq = OpSequence()
        seq.call(AtenPermuteOp, x, order)
        return seq.ops


@torch_op
class AtenMovedimIntOp(_MovedimOp):
    """`torch.movedim(x, 1, -1)`: moves one dim."""

    name = "torch.aten.movedim.int"
    SCHEMA = "aten::movedim.int(Tensor self, int source, int destination) -> Tensor"
    PY_NAMES = ("torch.movedim", "Tensor.movedim", "torch.moveaxis", "Tensor.moveaxis")
    SAMPLES = (Sample(Tn((2, 3, 4)), 0, -1),)
    self_ = operand_def(ValueTensorType)
    source = operand_def(IntType)
    destination = operand_def(IntType)
    result = result_def(ValueTensorType)


@torch_op
class AtenMovedimIntlistOp(_MovedimOp):
    """`torch.movedim(x, (0, 1), (2, 0))`: moves several dims."""

    name = "torch.aten.movedim.intlist"
    SCHEMA = "aten::movedim.intlist(Tensor self, int[] source, int[] destination) -> Tensor"
    PY_NAMES = ("torch.movedim", "Tensor.movedim", "torch.moveaxis", "Tensor.moveaxis")
    SAMPLES = (Sample(Tn((2, 3, 4), "int64"), [0, 1], [2, 0]),)
    self_ = operand_def(ValueTensorType)
    source = operand_def(ListType)
    destination = operand_def(ListType)
    result = result_def(ValueTensorType)


@torch_op
class AtenSwapaxesOp(TorchOp):
    """`torch.swapaxes(x, a, b)` / `torch.swapdims`: `x.transpose(a, b)`."""

    name = "torch.aten.swapaxes"
    SCHEMA = "aten::swapaxes(Tensor self, int axis0, int axis1) -> Tensor"
    PY_NAMES = ("torch.swapaxes", "Tensor.swapaxes", "torch.swapdims", "Tensor.swapdims")
    SAMPLES = (Sample(Tn((2, 3, 4)), 0, 2),)
    self_ = operand_def(ValueTensorType)
    axis0 = operand_def(IntType)
    axis1 = operand_def(IntType)
    result = result_def(ValueTensorType)

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        return AtenTransposeIntOp.infer(*args)

    @staticmethod
    def eager(x: Any, axis0: int, axis1: int) -> Any:
        return AtenTransposeIntOp.eager(x, axis0, axis1)

    def decompose(self) -> Any:
        seq = OpSequence()
        seq.call(AtenTransposeIntOp, *self.operands)
        return seq.ops


def rotation_dims(dims: Any, rank: int) -> tuple[int, int]:
    """The two dims, non-negative, with torch's checks and messages."""
    if not isinstance(dims, list | tuple):
        raise TypeError("rot90: `dims` must be a constant list of two ints")
    if len(dims) != 2:
        raise ShapeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if rank < 2:
        raise ShapeError(f"expected total dims >= 2, but got total dims = {rank}")
    first, second = (normalize_dim(d, rank) for d in dims)
    if first == second:
        raise ShapeError(
            f"expected rotation dims to be different, but got dim0 = {first} and dim1 = {second}"
        )
    return first, second


@torch_op
class AtenRot90Op(TorchOp):
    """`torch.rot90` / `x.rot90(k, dims)`: k % 4 quarter turns (k may be negative)."""

    name = "torch.aten.rot90"
    SCHEMA = "aten::rot90(Tensor self, int k=1, int[] dims=[0,1]) -> Tensor"
    PY_NAMES = ("torch.rot90", "Tensor.rot90", "np.rot90")
    SAMPLES = (Sample(Tn((2, 3, 4)), -3, [2, 0]),)
    self_ = operand_def(ValueTensorType)
    k = operand_def(IntType)
    dims = operand_def(ListType)
    result = result_def(ValueTensorType)

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        x, k, dims = args
        if x.rank is None:
            return [ValueTensorType(None, x.dtype)]
        first, second = rotation_dims(dims, x.rank)
        if not isinstance(k, int):
            raise TypeError("rot90: `k` must be a constant")
        shape = list(x.shape)
        if k % 2:
            shape[first], shape[second] = shape[second], shape[first]
        return [ValueTensorType(tuple(shape), x.dtype)]

    @staticmethod
    def eager(x: Any, k: int = 1, dims: Any = (0, 1)) -> Any:
        return np.rot90(x, k, axes=tuple(dims)).copy()

    def decompose(self) -> Any:
        """torch's: k=1 flips the second dim then transposes, k=2 flips both, k=3 flips the
        first then transposes, k=0 is a copy."""
        x, k, dims = self.operands
        rank = known_rank(x)
        if rank is None:
            return None
        first, second = rotation_dims(arg_value(dims), rank)
        turns = arg_value(k) % 4
        seq = OpSequence()
        if turns == 0:
            seq.call(AtenCloneOp, x, None)
        elif turns == 2:
            seq.call(AtenFlipOp, x, [first, second])
        else:
            flipped = seq.call(AtenFlipOp, x, [second if turns == 1 else first])
            seq.call(AtenTransposeIntOp, flipped, first, second)
        return seq.ops


def _factor(op_name: str, value: Any) -> int:
    if not isinstance(value, int):
        raise TypeError(f"{op_name}: the factor must be a constant int")
    if value <= 0:
        raise ShapeError(f"{op_name} expects its factor to be greater than zero, but got {value}")
    return value


def _times(a: int, b: int) -> int:
    return DYN if a == DYN else a * b


def _over(a: int, b: int) -> int:
    return DYN if a == DYN else a // b


class _ShuffleOp(TorchOp):
    """(*, C * r * r, H, W) <-> (*, C, H * r, W * r); `UP` says which way."""

    UP = True

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        x, factor = args
        op_name = cls.name.removeprefix("torch.aten.")
        r = _factor(op_name, factor)
        if x.shape is None:
            return [ValueTensorType(None, x.dtype)]
        if len(x.shape) < 3:
            raise ShapeError(
                f"{op_name} expects input to have at least 3 dimensions, but got input with "
                f"{len(x.shape)} dimension(s)"
            )
        *batch, c, h, w = x.shape
        if cls.UP:
            if c != DYN and c % (r * r):
                raise ShapeError(
                    "pixel_shuffle expects its input's 'channel' dimension to be divisible by "
                    f"the square of upscale_factor, but input.size(-3)={c} is not divisible by "
                    f"{r * r}"
                )
            shape = (*batch, _over(c, r * r), _times(h, r), _times(w, r))
        else:
            for name, n in (("height", h), ("width", w)):
                if n != DYN and n % r:
                    raise ShapeError(
                        f"pixel_unshuffle expects {name} to be divisible by downscale_factor, "
                        f"but input.size({-2 if name == 'height' else -1})={n} is not "
                        f"divisible by {r}"
                    )
            shape = (*batch, _times(c, r * r), _over(h, r), _over(w, r))
        return [ValueTensorType(shape, x.dtype)]

    @classmethod
    def eager(cls, x: Any, factor: int) -> Any:
        cls.infer(TensorMeta.of_array(x), factor)
        *batch, c, h, w = x.shape
        r, lead = factor, list(range(len(batch)))
        b = len(batch)
        if cls.UP:
            blocks = x.reshape(*batch, c // (r * r), r, r, h, w)
            moved = blocks.transpose(*lead, b, b + 3, b + 1, b + 4, b + 2)
            return moved.reshape(*batch, c // (r * r), h * r, w * r).copy()
        blocks = x.reshape(*batch, c, h // r, r, w // r, r)
        moved = blocks.transpose(*lead, b, b + 2, b + 4, b + 1, b + 3)
        return moved.reshape(*batch, c * r * r, h // r, w // r).copy()

    def decompose(self) -> Any:
        x, factor = self.operands
        rank = known_rank(x)
        if rank is None:
            return None
        r, b = arg_value(factor), rank - 3
        seq = OpSequence()
        *batch, c, h, w = seq.sizes(x)
        lead = list(range(b))

        def mul(a: Any, k: int) -> Any:
            return a * k if isinstance(a, int) else seq.call(AtenMulIntOp, a, k)

        def div(a: Any, k: int) -> Any:
            return a // k if isinstance(a, int) else seq.call(AtenFloordivIntOp, a, k)

        if self.UP:
            channels = div(c, r * r)
            blocks = seq.call(AtenViewOp, x, [*batch, channels, r, r, h, w])
            moved = seq.call(AtenPermuteOp, blocks, [*lead, b, b + 3, b + 1, b + 4, b + 2])
            seq.call(AtenViewOp, moved, [*batch, channels, mul(h, r), mul(w, r)])
        else:
            rows, cols = div(h, r), div(w, r)
            blocks = seq.call(AtenViewOp, x, [*batch, c, rows, r, cols, r])
            moved = seq.call(AtenPermuteOp, blocks, [*lead, b, b + 2, b + 4, b + 1, b + 3])
            seq.call(AtenViewOp, moved, [*batch, mul(c, r * r), rows, cols])
        return seq.ops


@torch_op
class AtenPixelShuffleOp(_ShuffleOp):
    """`F.pixel_shuffle(x, r)`: (*, C * r * r, H, W) -> (*, C, H * r, W * r)."""

    name = "torch.aten.pixel_shuffle"
    SCHEMA = "aten::pixel_shuffle(Tensor self, int upscale_factor) -> Tensor"
    PY_NAMES = ("F.pixel_shuffle", "torch.pixel_shuffle")
    SAMPLES = (Sample(Tn((1, 8, 2, 3)), 2), Sample(Tn((9, 2, 2), "int64"), 3))
    self_ = operand_def(ValueTensorType)
    upscale_factor = operand_def(IntType)
    result = result_def(ValueTensorType)


@torch_op
class AtenPixelUnshuffleOp(_ShuffleOp):
    """`F.pixel_unshuffle(x, r)`: (*, C, H * r, W * r) -> (*, C * r * r, H, W)."""

    name = "torch.aten.pixel_unshuffle"
    SCHEMA = "aten::pixel_unshuffle(Tensor self, int downscale_factor) -> Tensor"
    PY_NAMES = ("F.pixel_unshuffle", "torch.pixel_unshuffle")
    SAMPLES = (Sample(Tn((2, 2, 4, 6)), 2),)
    UP = False
    self_ = operand_def(ValueTensorType)
    downscale_factor = operand_def(IntType)
    result = result_def(ValueTensorType)


@torch_op
class AtenChannelShuffleOp(TorchOp):
    """`F.channel_shuffle(x, groups)` / `nn.ChannelShuffle`: (N, g * k, *) -> channels in the
    order (0, k, 2k, ..., 1, k + 1, ...): a view as (N, g, k, *), dims 1 and 2 swapped."""

    name = "torch.aten.channel_shuffle"
    SCHEMA = "aten::channel_shuffle(Tensor self, int groups) -> Tensor"
    PY_NAMES = ("F.channel_shuffle", "torch.channel_shuffle", "F.native_channel_shuffle",
                "torch.native_channel_shuffle")  # fmt: skip
    SAMPLES = (Sample(Tn((2, 6, 3, 2)), 3), Sample(Tn((1, 4, 5), "int64"), 2))
    self_ = operand_def(ValueTensorType)
    groups = operand_def(IntType)
    result = result_def(ValueTensorType)

    @classmethod
    def infer(cls, x: TensorMeta, groups: Any) -> list[Attribute]:
        if not isinstance(groups, int):
            raise TypeError("channel_shuffle: `groups` must be a constant int")
        if groups <= 0:
            raise ShapeError(
                f"Number of groups to divide channels in must be positive. Value of groups:{groups}"
            )
        if x.shape is None:
            return [ValueTensorType(None, x.dtype)]
        if len(x.shape) <= 2:
            raise ShapeError(
                f"channel_shuffle expects input with > 2 dims, but got input with sizes "
                f"{list(x.shape)}"
            )
        c = x.shape[1]
        if c != DYN and c % groups:
            raise ShapeError(
                f"Number of channels must be divisible by groups. Got {c} channels and "
                f"{groups} groups."
            )
        return [ValueTensorType(x.shape, x.dtype)]

    @classmethod
    def eager(cls, x: Any, groups: int) -> Any:
        cls.infer(TensorMeta.of_array(x), groups)
        n, c, *rest = x.shape
        blocks = x.reshape(n, groups, c // groups, *rest)
        return blocks.swapaxes(1, 2).reshape(x.shape).copy()

    def decompose(self) -> Any:
        x, groups = self.operands
        if known_rank(x) is None:
            return None
        g = arg_value(groups)
        seq = OpSequence()
        n, c, *rest = seq.sizes(x)
        per_group = c // g if isinstance(c, int) else seq.call(AtenFloordivIntOp, c, g)
        blocks = seq.call(AtenViewOp, x, [n, g, per_group, *rest])
        swapped = seq.call(AtenTransposeIntOp, blocks, 1, 2)
        seq.call(AtenViewOp, swapped, [n, c, *rest])
        return seq.ops


OPS = (
    AtenChannelShuffleOp,
    AtenFlipOp,
    AtenFliplrOp,
    AtenFlipudOp,
    AtenRollOp,
    AtenMovedimIntOp,
    AtenMovedimIntlistOp,
    AtenSwapaxesOp,
    AtenRot90Op,
    AtenPixelShuffleOp,
    AtenPixelUnshuffleOp,
)
