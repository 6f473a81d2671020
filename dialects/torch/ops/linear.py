"""Matrix products: mm, bmm, addmm, matmul in every rank combination, linear, and bilinear
(`y[..., o] = x1[..., i] W[o, i, j] x2[..., j] + b[o]`).

bilinear: `torch-decompose` writes it as the outer product of the two inputs' last dims
(`x1.unsqueeze(-1) * x2.unsqueeze(-2)`, flattened to `[..., I*J]`) multiplied by the weight
flattened to `[O, I*J]` with `linear` (which adds the bias).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.ir import Attribute
from xdsl.irdl import operand_def, result_def

from dialects.torch.dtypes import INT32
from dialects.torch.meta import ShapeError, TensorMeta, broadcast_shapes
from dialects.torch.op_base import Sample, TorchOp, torch_op
from dialects.torch.op_base import T as Tn
from dialects.torch.ops.arithmetic import AtenMulTensorOp
from dialects.torch.ops.casts import AtenToDtypeOp
from dialects.torch.ops.op_sequence import OpSequence, known_rank
from dialects.torch.ops.views import AtenFlattenUsingIntsOp, AtenUnsqueezeOp
from dialects.torch.types import DYN, BoolType, FloatType, IntType, NoneType, ValueTensorType

ScalarOperand = IntType | FloatType | BoolType


def _same_dtype(name: str, *metas: TensorMeta) -> Any:
    """The one dtype of all operands; torch has no bool matrix product."""
    dtypes = {m.dtype for m in metas}
    if None in dtypes:
        return None
    if len(dtypes) > 1:
        names = " and ".join(str(m.dtype.name) for m in metas if m.dtype is not None)
        raise TypeError(f"{name}: expected both operands to have the same dtype, got {names}")
    dtype = dtypes.pop()
    if dtype.is_bool:
        raise TypeError(f"{name}: not implemented for 'Bool'")
    return dtype


def _check_inner(name: str, k1: int, k2: int, a: TensorMeta, b: TensorMeta) -> None:
    if DYN not in (k1, k2) and k1 != k2:
        raise ShapeError(
            f"{name}: shapes {list(a.shape or ())} and {list(b.shape or ())} cannot be multiplied ({k1} != {k2})"
        )


def check_expandable(name: str, shape: tuple[int, ...], target: tuple[int, ...]) -> None:
    """`shape` broadcasts to `target` without growing it (torch's `expand` rule)."""
    offset = len(target) - len(shape)
    fits = offset >= 0 and all(
        d in (1, DYN, target[offset + i]) or target[offset + i] == DYN for i, d in enumerate(shape)
    )
    if not fits:
        raise ShapeError(
            f"{name}: the expanded size of the tensor must match the existing size. "
            f"Target sizes: {list(target)}.  Tensor sizes: {list(shape)}"
        )


def matmul_shape(a: TensorMeta, b: TensorMeta) -> tuple[int, ...] | None:
    """torch.matmul's result shape: 1-D operands gain and lose a dim; batch dims broadcast."""
    if a.shape is None or b.shape is None:
        return None
    if len(a.shape) == 0 or len(b.shape) == 0:
        raise ShapeError("matmul: both arguments need at least 1 dimension")
    sa = a.shape if len(a.shape) > 1 else (1, *a.shape)
    sb = b.shape if len(b.shape) > 1 else (*b.shape, 1)
    _check_inner("matmul", sa[-1], sb[-2], a, b)
    batch = broadcast_shapes([sa[:-2], sb[:-2]])
    assert batch is not None
    rows = (sa[-2],) if len(a.shape) > 1 else ()
    cols = (sb[-1],) if len(b.shape) > 1 else ()
    return (*batch, *rows, *cols)


@torch_op
class AtenMmOp(TorchOp):
    """Matrix product of two 2-D tensors (`torch.mm`)."""

    name = "torch.aten.mm"
    SCHEMA = "aten::mm(Tensor self, Tensor mat2) -> Tensor"
    PY_NAMES = ("torch.mm", "Tensor.mm")
    SAMPLES = (Sample(Tn((3, 4)), Tn((4, 5))), Sample(Tn((1, 8)), Tn((8, 1))),
               Sample(Tn((2, 3), "int64"), Tn((3, 2), "int64")))  # fmt: skip
    self_ = operand_def(ValueTensorType)
    mat2 = operand_def(ValueTensorType)
    result = result_def(ValueTensorType)

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        a, b = args
        dtype = _same_dtype("mm", a, b)
        if a.shape is None or b.shape is None:
            return [ValueTensorType((DYN, DYN), dtype)]
        if len(a.shape) != 2 or len(b.shape) != 2:
            raise ShapeError(f"mm: expected 2-D tensors, got {len(a.shape)}-D and {len(b.shape)}-D")
        _check_inner("mm", a.shape[1], b.shape[0], a, b)
        return [ValueTensorType((a.shape[0], b.shape[1]), dtype)]

    @staticmethod
    def eager(a: Any, b: Any) -> Any:
        return a @ b


@torch_op
class AtenBmmOp(TorchOp):
    """Batched matrix product of two 3-D tensors with equal batch sizes (`torch.bmm`)."""

    name = "torch.aten.bmm"
    SCHEMA = "aten::bmm(Tensor self, Tensor mat2) -> Tensor"
    PY_NAMES = ("torch.bmm", "Tensor.bmm")
    SAMPLES = (Sample(Tn((2, 3, 4)), Tn((2, 4, 5))),
               Sample(Tn((3, 2, 2), "int32"), Tn((3, 2, 1), "int32")))  # fmt: skip
    self_ = operand_def(ValueTensorType)
    mat2 = operand_def(ValueTensorType)
    result = result_def(ValueTensorType)

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        a, b = args
        dtype = _same_dtype("bmm", a, b)
        if a.shape is None or b.shape is None:
            return [ValueTensorType((DYN, DYN, DYN), dtype)]
        if len(a.shape) != 3 or len(b.shape) != 3:
            raise ShapeError(
                f"bmm: batch1 must be a 3D tensor, got {len(a.shape)}-D and {len(b.shape)}-D"
            )
        batch, k = a.shape[0], a.shape[2]
        if any(x != y and DYN not in (x, y) for x, y in ((batch, b.shape[0]), (k, b.shape[1]))):
            raise ShapeError(
                f"Expected size for first two dimensions of batch2 tensor to be: "
                f"[{batch}, {k}] but got: [{b.shape[0]}, {b.shape[1]}]."
            )
        return [
            ValueTensorType((batch if batch != DYN else b.shape[0], a.shape[1], b.shape[2]), dtype)
        ]

    @staticmethod
    def eager(a: Any, b: Any) -> Any:
        return np.matmul(a, b)


@torch_op
class AtenAddmmOp(TorchOp):
    """`beta * self + alpha * (mat1 @ mat2)`; `self` broadcasts to the product's shape and is
    ignored when beta is 0; integer tensors truncate alpha and beta (`torch.addmm`)."""

    name = "torch.aten.addmm"
    SCHEMA = (
        "aten::addmm(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1) "
        "-> Tensor"
    )
    PY_NAMES = ("torch.addmm", "Tensor.addmm")
    SAMPLES = (
        Sample(Tn((3,)), Tn((2, 4)), Tn((4, 3))),
        Sample(Tn((2, 3), "float64"), Tn((2, 4), "float64"), Tn((4, 3), "float64"),
               beta=0.5, alpha=2.0),
        Sample(Tn((1, 2), "int64"), Tn((3, 2), "int64"), Tn((2, 2), "int64"), beta=2, alpha=3),
        Sample(Tn((2, 2)), Tn((2, 2)), Tn((2, 2)), beta=0),
    )  # fmt: skip
    self_ = operand_def(ValueTensorType)
    mat1 = operand_def(ValueTensorType)
    mat2 = operand_def(ValueTensorType)
    beta = operand_def(ScalarOperand)
    alpha = operand_def(ScalarOperand)
    result = result_def(ValueTensorType)

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        bias, a, b = args[:3]
        (product,) = AtenMmOp.infer(a, b)
        dtype = _same_dtype("addmm", bias, a, b)
        assert isinstance(product, ValueTensorType)
        shape = product.sizes
        if bias.shape is not None and shape is not None:
            check_expandable("addmm", bias.shape, shape)
        return [ValueTensorType(shape, dtype)]

    @staticmethod
    def eager(bias: Any, a: Any, b: Any, beta: Any = 1, alpha: Any = 1) -> Any:
        scalar = bias.dtype.type
        product = scalar(alpha) * np.matmul(a, b)
        if beta == 0:
            return product
        return scalar(beta) * bias + product


@torch_op
class AtenMatmulOp(TorchOp):
    """Matrix product with torch's rank rules: dot, matrix-vector, batched (`torch.matmul`, `@`)."""

    name = "torch.aten.matmul"
    SCHEMA = "aten::matmul(Tensor self, Tensor other) -> Tensor"
    PY_NAMES = ("torch.matmul", "Tensor.matmul", "operator.matmul", "np.matmul")
    SAMPLES = (
        Sample(Tn((3, 4)), Tn((4, 5))), Sample(Tn((4,)), Tn((4,))), Sample(Tn((3, 4)), Tn((4,))),
        Sample(Tn((4,)), Tn((4, 2))), Sample(Tn((2, 3, 4)), Tn((4, 5))),
        Sample(Tn((2, 1, 3, 4)), Tn((5, 4, 2))), Sample(Tn((3,), "int64"), Tn((2, 3, 2), "int64")),
        Sample(Tn((2, 2, 3), "float64"), Tn((3,), "float64")),
    )  # fmt: skip
    self_ = operand_def(ValueTensorType)
    other = operand_def(ValueTensorType)
    result = result_def(ValueTensorType)

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        a, b = args
        return [ValueTensorType(matmul_shape(a, b), _same_dtype("matmul", a, b))]

    @staticmethod
    def eager(a: Any, b: Any) -> Any:
        return np.matmul(a, b)


@torch_op
class AtenLinearOp(TorchOp):
    """`input @ weight.T + bias` (`torch.nn.functional.linear`)."""

    name = "torch.aten.linear"
    SCHEMA = "aten::linear(Tensor input, Tensor weight, Tensor? bias=None) -> Tensor"
    PY_NAMES = ("F.linear",)
    SAMPLES = (Sample(Tn((3, 4)), Tn((5, 4)), Tn((5,))), Sample(Tn((2, 3, 4)), Tn((5, 4)), None),
               Sample(Tn((4,)), Tn((2, 4)), Tn((2,))))  # fmt: skip
    input = operand_def(ValueTensorType)
    weight = operand_def(ValueTensorType)
    bias = operand_def(ValueTensorType | NoneType)
    result = result_def(ValueTensorType)

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        x, w, bias = args
        metas = [x, w] + ([bias] if isinstance(bias, TensorMeta) else [])
        dtype = _same_dtype("linear", *metas)
        if x.shape is None or w.shape is None:
            return [ValueTensorType(None, dtype)]
        if len(w.shape) != 2 or len(x.shape) == 0:
            raise ShapeError(
                f"linear: weight must be 2-D and input at least 1-D, got {list(w.shape)} and {list(x.shape)}"
            )
        _check_inner("linear", x.shape[-1], w.shape[1], x, w)
        return [ValueTensorType((*x.shape[:-1], w.shape[0]), dtype)]

    @staticmethod
    def eager(x: Any, w: Any, bias: Any = None) -> Any:
        out = np.matmul(x, w.T)
        return out if bias is None else out + bias


def _torch_dtype(meta: TensorMeta) -> str:
    names = {"float32": "float", "float64": "double", "int64": "long", "int32": "int"}
    return names.get(meta.dtype.name, meta.dtype.name)  # type: ignore[union-attr]


def _one_dtype(named: dict[str, TensorMeta]) -> Any:
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
        dtype = _one_dtype(named)
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
        rows = s.call(AtenUnsqueezeOp, self.input1, -1)
        columns = s.call(AtenUnsqueezeOp, self.input2, -2)
        outer = s.call(AtenMulTensorOp, rows, columns)
        pairs = s.call(AtenFlattenUsingIntsOp, outer, -2, -1)
        weight = s.call(AtenFlattenUsingIntsOp, self.weight, 1, 2)
        s.call(AtenLinearOp, pairs, weight, self.bias)
        return s.ops


@torch_op
class AtenIntMmOp(TorchOp):
    """`torch._int_mm(a, b)`: int8 (or uint8) `a` times int8 `b`, summed in int32; decomposes
    into `mm` of the operands converted to int32."""

    name = "torch.aten._int_mm"
    SCHEMA = "aten::_int_mm(Tensor self, Tensor mat2) -> Tensor"
    PY_NAMES = ("torch._int_mm",)
    SAMPLES = (
        Sample(Tn((17, 8), "int8", -128, 127), Tn((8, 16), "int8", -128, 127)),
        Sample(Tn((3, 5), "uint8", 0, 255), Tn((5, 2), "int8", -128, 127)),
    )
    self_ = operand_def(ValueTensorType)
    mat2 = operand_def(ValueTensorType)
    result = result_def(ValueTensorType)

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        a, b = args
        where = "int_mm_out_cpu"
        if a.dtype is not None and a.dtype.name not in ("int8", "uint8"):
            raise TypeError(
                f"{where}: Expected self dtype to be int8 or uint8 but got {a.dtype.name}"
            )
        if b.dtype is not None and b.dtype.name != "int8":
            raise TypeError(
                f"{where}: Expected mat2 dtype to be of type int8 but got {b.dtype.name}"
            )
        for what, m in (("self", a), ("mat2", b)):
            if m.shape is not None and len(m.shape) != 2:
                raise ShapeError(
                    f"{where}: Expected {what} to be of dimension 2 but got {len(m.shape)}"
                )
        if a.shape is None or b.shape is None:
            return [ValueTensorType((DYN, DYN), INT32)]
        if DYN not in (a.shape[1], b.shape[0]) and a.shape[1] != b.shape[0]:
            raise ShapeError(
                f"{where}: self.size(1) needs to match mat2.size(0) but got {a.shape[1]} and "
                f"{b.shape[0]}"
            )
        return [ValueTensorType((a.shape[0], b.shape[1]), INT32)]

    @staticmethod
    def eager(a: Any, b: Any) -> Any:
        return a.astype(np.int32) @ b.astype(np.int32)

    def decompose(self) -> Any:
        s = OpSequence()
        a, b = (
            s.call(AtenToDtypeOp, v, INT32.scalar_type, False, False, None)
            for v in (self.self_, self.mat2)
        )
        s.call(AtenMmOp, a, b)
        return s.ops


def _batch(x1: tuple[int, ...], x2: tuple[int, ...]) -> tuple[int, ...]:
    """The inputs' leading dims, a size known from either input."""
    return tuple(a if a != DYN else b for a, b in zip(x1[:-1], x2[:-1]))


OPS = (
    AtenMmOp,
    AtenBmmOp,
    AtenAddmmOp,
    AtenMatmulOp,
    AtenLinearOp,
    AtenBilinearOp,
    AtenIntMmOp,
)
