"""Padding: `torch.constant_pad_nd`, and `F.pad` (`aten::pad`) in every mode: "constant"
decomposes into `constant_pad_nd`; "reflect", "replicate" and "circular" into one
`index_select` per padded dim at a constant index (the source element of each output
position). That index needs the padded dims' sizes: while they are unknown the result type
stays open, so the frontend compiles such calls for their exact shapes."""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.ir import Attribute
from xdsl.irdl import operand_def, result_def

from dialects.torch.families import ScalarOperand
from dialects.torch.meta import Dynamic, ShapeError
from dialects.torch.op_base import Sample, TorchOp, torch_op
from dialects.torch.op_base import T as Tn
from dialects.torch.ops.indexing import AtenIndexSelectOp
from dialects.torch.ops.op_sequence import OpSequence
from dialects.torch.ops.prim import ValueTensorLiteralOp
from dialects.torch.types import DYN, FloatType, ListType, NoneType, StrType, ValueTensorType


def pad_amounts(pad: Any, rank: int | None) -> list[tuple[int, int]]:
    """(before, after) for each dim from the last, as `pad` gives them (torch's order:
    last dim first); negative amounts crop. They must be ints known while scripting."""
    if not isinstance(pad, list | tuple) or any(
        isinstance(p, Dynamic) or not isinstance(p, int) for p in pad
    ):
        raise TypeError("constant_pad_nd: `pad` must be ints known while scripting")
    if len(pad) % 2:
        raise ShapeError("Padding length must be divisible by 2")
    if rank is not None and len(pad) // 2 > rank:
        raise ShapeError(
            "Padding length should be less than or equal to two times the input dimension"
        )
    return [(pad[i], pad[i + 1]) for i in range(0, len(pad), 2)]


@torch_op
class AtenConstantPadNdOp(TorchOp):
    """`torch.constant_pad_nd(x, pad, value)`: `pad` = (before, after) pairs from the last dim
    backwards; new elements are `value`, negative amounts crop.

    ```mlir
    %r = torch.aten.constant_pad_nd %x, %pad, %float0 : !torch.vtensor<[2,3],f32>, !torch.list<int>, !torch.float -> !torch.vtensor<[2,6],f32>
    ```
    """

    name = "torch.aten.constant_pad_nd"
    SCHEMA = "aten::constant_pad_nd(Tensor self, int[] pad, Scalar value=0) -> Tensor"
    PY_NAMES = ("torch.constant_pad_nd",)
    SAMPLES = (
        Sample(Tn((2, 3)), [1, 2]),
        Sample(Tn((2, 3, 4)), [1, 0, 2, 1], 1.5),
        Sample(Tn((3, 5), "int64"), [-1, 2], 7),
    )
    self_ = operand_def(ValueTensorType)
    pad = operand_def(ListType)
    value = operand_def(ScalarOperand)
    result = result_def(ValueTensorType)

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        x, pad = args[0], args[1]
        amounts = pad_amounts(pad, x.rank)
        if x.shape is None:
            return [ValueTensorType(None, x.dtype)]
        shape = list(x.shape)
        for k, (before, after) in enumerate(amounts):
            d = len(shape) - 1 - k
            if shape[d] != DYN:
                shape[d] += before + after
                if shape[d] < 0:
                    raise ShapeError(f"constant_pad_nd: the padded size of dim {d} is negative")
        return [ValueTensorType(shape, x.dtype)]

    @staticmethod
    def eager(x: Any, pad: Any, value: Any = 0) -> Any:
        amounts = pad_amounts(pad, x.ndim)
        widths = [(0, 0)] * x.ndim
        crop = [slice(None)] * x.ndim
        for k, (before, after) in enumerate(amounts):
            d = x.ndim - 1 - k
            widths[d] = (max(before, 0), max(after, 0))
            crop[d] = slice(max(-before, 0), x.shape[d] - max(-after, 0))
        padded = np.pad(x[tuple(crop)], widths, constant_values=np.asarray(value).astype(x.dtype))
        return padded.astype(x.dtype)


_NUMPY_MODES = {"reflect": "reflect", "replicate": "edge", "circular": "wrap"}


def source_index(mode: str, size: int, before: int, after: int) -> np.ndarray:  # type: ignore[type-arg]
    """The input position each of the `before + size + after` output positions copies."""
    j = np.arange(-before, size + after)
    if mode == "reflect":
        j = np.abs(j)
        return np.where(j >= size, 2 * (size - 1) - j, j)
    if mode == "replicate":
        return np.clip(j, 0, size - 1)
    return j % size  # circular


def check_mode_padding(mode: Any, amounts: list[tuple[int, int]], shape: Any, value: Any) -> None:
    """torch's checks of `F.pad` in a non-constant mode."""
    if mode not in _NUMPY_MODES:
        raise ShapeError(f"Unrecognised padding mode {mode}")
    if value is not None:
        raise ShapeError(f'Padding mode "{mode}" doesn\'t take in value argument')
    rank = None if shape is None else len(shape)
    if len(amounts) > 3 or (rank is not None and rank not in (len(amounts) + 1, len(amounts) + 2)):
        raise NotImplementedError(
            f"Padding size {2 * len(amounts)} is not supported for {rank}D input tensor (non-"
            "constant padding pads the last dim of a 2D or 3D input, the last 2 of a 3D or 4D "
            "one, the last 3 of a 4D or 5D one)"
        )
    for k, (before, after) in enumerate(amounts):
        size = DYN if shape is None else shape[len(shape) - 1 - k]
        if min(before, after) < 0:
            raise ShapeError(f"F.pad(mode={mode!r}): negative padding is not supported")
        too_big = max(before, after) >= size if mode == "reflect" else max(before, after) > size
        if size != DYN and mode != "replicate" and too_big:
            raise ShapeError(
                f"Padding size should be less than{'' if mode == 'reflect' else ' or equal to'} "
                f"the corresponding input dimension, but got: padding ({before}, {after}) at "
                f"dimension {len(shape) - 1 - k} of input {list(shape)}"
            )


@torch_op
class AtenPadOp(TorchOp):
    """`F.pad(x, pad, mode="constant", value=None)`: `pad` = (before, after) pairs from the
    last dim backwards. "constant" fills with `value` (0) and may crop; "reflect" mirrors the
    input without repeating the edge, "replicate" repeats the edge, "circular" wraps around
    (these pad 1 to 3 dims of a batched or unbatched input)."""

    name = "torch.aten.pad"
    SCHEMA = 'aten::pad(Tensor self, int[] pad, str mode="constant", float? value=None) -> Tensor'
    PY_NAMES = ("F.pad",)
    SAMPLES = (
        Sample(Tn((2, 3, 4)), [2, 1, 1, 2], "reflect"),
        Sample(Tn((1, 2, 3, 4), "int64"), [1, 3, 2, 0], "replicate"),
        Sample(Tn((2, 5)), [2, 3], "circular"),
        Sample(Tn((2, 3)), [1, -1], "constant", 2.5),
    )
    self_ = operand_def(ValueTensorType)
    pad = operand_def(ListType)
    mode = operand_def(StrType)
    value = operand_def(FloatType | NoneType)
    result = result_def(ValueTensorType)

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        x, pad, mode, value = args
        if mode == "constant":
            return AtenConstantPadNdOp.infer(x, pad, 0.0 if value is None else value)
        amounts = pad_amounts(pad, x.rank)
        check_mode_padding(mode, amounts, x.shape, value)
        if x.shape is None or DYN in x.shape[len(x.shape) - len(amounts) :]:
            # the code indexes with constants: left open, the call is compiled for its sizes
            return [ValueTensorType(None, x.dtype)]
        return AtenConstantPadNdOp.infer(x, pad, 0.0)

    @staticmethod
    def eager(x: Any, pad: Any, mode: str = "constant", value: Any = None) -> Any:
        if mode == "constant":
            return AtenConstantPadNdOp.eager(x, pad, 0 if value is None else value)
        widths = [(0, 0)] * x.ndim
        for k, amounts in enumerate(pad_amounts(pad, x.ndim)):
            widths[x.ndim - 1 - k] = amounts
        return np.pad(x, widths, mode=_NUMPY_MODES[mode])

    def decompose(self) -> Any:
        x, pad, mode, value = self.arg_values()
        if mode == "constant":
            s = OpSequence()
            s.call(AtenConstantPadNdOp, self.self_, self.pad, 0.0 if value is None else value)
            return s.ops
        shape = x.shape
        if shape is None:
            return None
        amounts = pad_amounts(pad, len(shape))
        if any(shape[len(shape) - 1 - k] == DYN for k in range(len(amounts))):
            return None  # the index needs the size (left for a later specialization)
        s = OpSequence()
        out = self.self_
        for k, (before, after) in enumerate(amounts):
            dim = len(shape) - 1 - k
            index = source_index(mode, shape[dim], before, after).astype(np.int64)
            literal = s.add(ValueTensorLiteralOp(index)).results[0]
            out = s.call(AtenIndexSelectOp, out, dim, literal)
        return s.ops


OPS = (
    AtenConstantPadNdOp,
    AtenPadOp,
)
