"""`F.bilinear` / `torch.bilinear` (`nn.Bilinear`): `y[..., o] = x1[..., i] W[o, i, j] x2[..., j]
+ bias[o]`.

`torch-decompose` writes it as the outer product of the two inputs' last dims
(`x1.unsqueeze(-1) * x2.unsqueeze(-2)`, flattened to `[..., I*J]`) multiplied by the weight
flattened to `[O, I*J]` with `linear` (which adds the bias).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.ir import Attribute
from xdsl.irdl import operand_def, result_def

from dialects.torch.meta import ShapeError, TensorMeta
from dialects.torch.op_base import Sample, TorchOp, torch_op
from dialects.torch.op_base import T as Tn
from dialects.torch.ops.op_sequence import OpSequence, known_rank
from dialects.torch.types import DYN, NoneType, ValueTensorType


def _op(name: str) -> type[TorchOp]:
    from dialects.torch.registry import BY_NAME

    return BY_NAME[f"torch.aten.{name}"]


def _torch_dtype(meta: TensorMeta) -> str:
    names = {"float32": "float", "float64": "double", "int64": "long", "int32": "int"}
    return names.get(meta.dtype.name, meta.dtype.name)  # type: ignore[union-attr]


def _same_dtype(named: dict[str, TensorMeta]) -> Any:
    dtypes = {m.dtype for m in named.values()}
    if None in dtypes:
        return None
    if len(dtypes) > 1:
        shown = ", ".join(f"{name}: {_torch_dtype(m)}" for name, m in named.items())
        raise TypeError(f"All tensors must have the same dtype, got {shown}")
    dtype = dtypes.pop()
    if not dtype.is_float:
        raise TypeError(f"bilinear: expected floating point tensors, got {dtype.name}")
    return dtype


def _check_size(what: str, got: int, expected: int) -> None:
    if DYN not in (got, expected) and got != expected:
        raise ShapeError(
            f"bilinear(): {what} size does not match weight size: got {got} but expected {expected}"
        )


@torch_op
class AtenBilinearOp(TorchOp):
    """`torch.bilinear(input1, input2, weight, bias=None)`: inputs `[..., I]` and `[..., J]`
    with the same leading dims, weight `[O, I, J]`, bias `[O]`; the result is `[..., O]`."""

    name = "torch.aten.bilinear"
    SCHEMA = (
        "aten::bilinear(Tensor input1, Tensor input2, Tensor weight, Tensor? bias=None) -> Tensor"
    )
    PY_NAMES = ("torch.bilinear", "F.bilinear")
    SAMPLES = (
        Sample(Tn((3, 4)), Tn((3, 2)), Tn((5, 4, 2)), Tn((5,))),
        Sample(Tn((2, 3, 4), "float64"), Tn((2, 3, 3), "float64"), Tn((2, 4, 3), "float64")),
    )
    input1 = operand_def(ValueTensorType)
    input2 = operand_def(ValueTensorType)
    weight = operand_def(ValueTensorType)
    bias = operand_def(ValueTensorType | NoneType)
    result = result_def(ValueTensorType)

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        x1, x2, w, bias = args
        named = {"input1": x1, "input2": x2, "weight": w}
        if isinstance(bias, TensorMeta):
            named["bias"] = bias
        dtype = _same_dtype(named)
        if w.shape is not None and len(w.shape) != 3:
            raise ShapeError(f"bilinear(): expected a 3-D weight, got {list(w.shape)}")
        if isinstance(bias, TensorMeta) and bias.shape is not None:
            if len(bias.shape) != 1:
                raise ShapeError(f"bilinear(): expected a 1-D bias, got {list(bias.shape)}")
            if w.shape is not None:
                _check_size("bias", bias.shape[0], w.shape[0])
        if x1.shape is None or x2.shape is None or w.shape is None:
            return [ValueTensorType(None, dtype)]
        cls.check_inputs(x1.shape, x2.shape, w.shape)
        return [ValueTensorType((*_batch(x1.shape, x2.shape), w.shape[0]), dtype)]

    @staticmethod
    def check_inputs(x1: tuple[int, ...], x2: tuple[int, ...], w: tuple[int, ...]) -> None:
        if len(x1) != len(x2):
            raise ShapeError(
                f"bilinear(): input dimensions do not match: got {len(x1)} and {len(x2)}"
            )
        if not x1:
            raise ShapeError("bilinear(): the inputs must have at least one dim")
        for d, (a, b) in enumerate(zip(x1[:-1], x2[:-1])):
            if DYN not in (a, b) and a != b:
                raise ShapeError(
                    f"bilinear(): input batch dimensions do not match at dim {d}: got {a} and {b}"
                )
        _check_size("input1", x1[-1], w[1])
        _check_size("input2", x2[-1], w[2])

    @staticmethod
    def eager(x1: Any, x2: Any, w: Any, bias: Any = None) -> Any:
        out = np.einsum("...i,oij,...j->...o", x1, w, x2)
        return (out if bias is None else out + bias).astype(x1.dtype)

    def decompose(self) -> Any:
        rank = known_rank(self.input1)
        if rank is None or known_rank(self.weight) != 3:
            return None
        s = OpSequence()
        rows = s.call(_op("unsqueeze"), self.input1, -1)
        columns = s.call(_op("unsqueeze"), self.input2, -2)
        outer = s.call(_op("mul.Tensor"), rows, columns)
        pairs = s.call(_op("flatten.using_ints"), outer, -2, -1)
        weight = s.call(_op("flatten.using_ints"), self.weight, 1, 2)
        s.call(_op("linear"), pairs, weight, self.bias)
        return s.ops


def _batch(x1: tuple[int, ...], x2: tuple[int, ...]) -> tuple[int, ...]:
    """The inputs' leading dims, a size known from either input."""
    return tuple(a if a != DYN else b for a, b in zip(x1[:-1], x2[:-1]))


OPS = (AtenBilinearOp,)
