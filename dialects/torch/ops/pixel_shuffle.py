"""pixel_shuffle / pixel_unshuffle (`F.pixel_shuffle`, `nn.PixelShuffle`): channel blocks of
r * r moved into r x r spatial blocks and back. Each decomposes into view, permute, view.
"""

from __future__ import annotations

from typing import Any

from xdsl.ir import Attribute
from xdsl.irdl import operand_def, result_def

from dialects.torch.meta import ShapeError, TensorMeta
from dialects.torch.op_base import Sample, TorchOp, arg_value, torch_op
from dialects.torch.op_base import T as Tn
from dialects.torch.ops.op_sequence import OpSequence, known_rank
from dialects.torch.ops.scalar import AtenFloordivIntOp, AtenMulIntOp
from dialects.torch.ops.views import AtenPermuteOp, AtenViewOp
from dialects.torch.types import DYN, IntType, ValueTensorType


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


OPS = (AtenPixelShuffleOp, AtenPixelUnshuffleOp)
