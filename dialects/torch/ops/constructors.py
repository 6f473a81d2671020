"""Tensor constructors: zeros, ones, full, empty, arange, the `*_like` and `new_*` forms, and
filling a tensor with one value (`fill_`, `zero_`).

Sizes are `int[]` lists whose elements may be known only at run time (`torch.zeros(x.size(0),
4)`); `dtype=` is a torch ScalarType code (6 float32, 7 float64, 4 int64, 3 int32, 11 bool).
`empty` gives zeros (its values are unspecified in torch).
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

import numpy as np
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import operand_def, result_def

from dialects.torch.dtypes import BOOL, DEFAULT_FLOAT, DEFAULT_INT, DType, dtype_of_code
from dialects.torch.families import ElementwiseOp, ScalarOperand, UnaryOp
from dialects.torch.meta import Dynamic, ShapeError, TensorMeta, kind_of_value
from dialects.torch.op_base import Sample, TorchOp, torch_op
from dialects.torch.op_base import T as Tn
from dialects.torch.ops.shapes import size_list, static_dims, unknown_length
from dialects.torch.scalar_builder import ScalarBuilder
from dialects.torch.types import IntType, ListType, NoneType, ValueTensorType

DTypeOperand = IntType | NoneType


def requested_dtype(code: Any, default: DType | None) -> DType | None:
    """The `dtype=` argument's DType, else `default`."""
    if code is None:
        return default
    if not isinstance(code, int):
        raise TypeError("`dtype` must be a constant ScalarType")
    return dtype_of_code(code)


def scalar_dtype(value: Any) -> DType:
    """torch's dtype for a tensor made from a Python scalar: bool, int64 or float32."""
    kind = kind_of_value(value)
    return {"bool": BOOL, "int": DEFAULT_INT}.get(kind or "float", DEFAULT_FLOAT)


def new_shape(op_name: str, size: Any) -> tuple[int, ...] | None:
    """The dims of a new tensor of `size` (None: the rank is not known yet)."""
    if unknown_length(size):
        return None
    sizes = size_list(op_name, "size", size)
    if any(isinstance(d, int) and d < 0 for d in sizes):
        raise ShapeError(f"{op_name}: Dimension size must be non-negative.")
    return static_dims(sizes)


class FilledOp(TorchOp):
    """A tensor of `size` filled with `fill_value(args)`; dtype from `dtype=` or the value.

    `SIZE` is the operand index of the size list (`full`'s value follows it); a `new_*`
    method (`x.new_zeros(size)`) has `self` first, whose dtype is the default."""

    FILL: ClassVar[float | None] = None  # the constant fill, or None for `full`'s argument
    SIZE: ClassVar[int] = 0

    @classmethod
    def fill_of(cls, args: tuple[Any, ...]) -> Any:
        return cls.FILL if cls.FILL is not None else args[cls.SIZE + 1]

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        shape = new_shape(cls.name.removeprefix("torch.aten."), args[cls.SIZE])
        return [ValueTensorType(shape, requested_dtype(args[-1], cls.default_dtype(args)))]

    @classmethod
    def default_dtype(cls, args: tuple[Any, ...]) -> DType | None:
        if cls.SIZE > 0:  # x.new_*(...): x's dtype
            return args[0].dtype  # type: ignore[no-any-return]
        return DEFAULT_FLOAT if cls.FILL is not None else scalar_dtype(args[1])

    @classmethod
    def eager(cls, *args: Any) -> Any:
        metas = (TensorMeta.of_array(args[0]), *args[1:]) if cls.SIZE > 0 else args
        (typ,) = cls.infer(*metas)
        assert isinstance(typ, ValueTensorType) and typ.element is not None
        return np.full(args[cls.SIZE], cls.fill_of(args), dtype=typ.element.numpy)


@torch_op
class AtenZerosOp(FilledOp):
    """`torch.zeros(size, dtype=None)`: zeros, float32 unless `dtype` says otherwise."""

    name = "torch.aten.zeros"
    SCHEMA = "aten::zeros(int[] size, *, ScalarType? dtype=None) -> Tensor"
    PY_NAMES = ("torch.zeros",)
    SAMPLES = (Sample([2, 3]), Sample([], dtype=11))
    FILL = 0
    size = operand_def(ListType)
    dtype = operand_def(DTypeOperand)
    result = result_def(ValueTensorType)


@torch_op
class AtenOnesOp(FilledOp):
    """`torch.ones(size, dtype=None)`: ones, float32 unless `dtype` says otherwise."""

    name = "torch.aten.ones"
    SCHEMA = "aten::ones(int[] size, *, ScalarType? dtype=None) -> Tensor"
    PY_NAMES = ("torch.ones",)
    SAMPLES = (Sample([3, 1]), Sample([2, 2], dtype=3))
    FILL = 1
    size = operand_def(ListType)
    dtype = operand_def(DTypeOperand)
    result = result_def(ValueTensorType)


@torch_op
class AtenEmptyMemoryFormatOp(FilledOp):
    """`torch.empty(size, dtype=None)`: unspecified values (zeros here)."""

    name = "torch.aten.empty.memory_format"
    SCHEMA = "aten::empty.memory_format(int[] size, *, ScalarType? dtype=None) -> Tensor"
    PY_NAMES = ("torch.empty",)
    SAMPLES = (Sample([2, 3]), Sample([3], dtype=7))
    ARBITRARY_VALUES = True  # PyTorch's values are garbage: compare shape and dtype only
    FILL = 0
    size = operand_def(ListType)
    dtype = operand_def(DTypeOperand)
    result = result_def(ValueTensorType)


@torch_op
class AtenFullOp(FilledOp):
    """`torch.full(size, fill_value, dtype=None)`: the dtype follows the value (bool, int64,
    float32) unless `dtype` is given; the value converts to it (floats truncate to ints)."""

    name = "torch.aten.full"
    SCHEMA = "aten::full(int[] size, Scalar fill_value, *, ScalarType? dtype=None) -> Tensor"
    PY_NAMES = ("torch.full",)
    SAMPLES = (Sample([2, 3], 1.5), Sample([2], 7), Sample([2, 2], 2.5, dtype=4))
    size = operand_def(ListType)
    fill_value = operand_def(ScalarOperand)
    dtype = operand_def(DTypeOperand)
    result = result_def(ValueTensorType)


@torch_op
class AtenNewZerosOp(FilledOp):
    """`x.new_zeros(size, dtype=None)`: zeros of `x`'s dtype unless `dtype` says otherwise."""

    name = "torch.aten.new_zeros"
    SCHEMA = "aten::new_zeros(Tensor self, int[] size, *, ScalarType? dtype=None) -> Tensor"
    PY_NAMES = ("Tensor.new_zeros",)
    SAMPLES = (Sample(Tn((3,)), [2, 3]), Sample(Tn((2,), "int64"), [4], dtype=6))
    FILL, SIZE = 0, 1
    self_ = operand_def(ValueTensorType)
    size = operand_def(ListType)
    dtype = operand_def(DTypeOperand)
    result = result_def(ValueTensorType)


@torch_op
class AtenNewOnesOp(FilledOp):
    """`x.new_ones(size, dtype=None)`: ones of `x`'s dtype unless `dtype` says otherwise."""

    name = "torch.aten.new_ones"
    SCHEMA = "aten::new_ones(Tensor self, int[] size, *, ScalarType? dtype=None) -> Tensor"
    PY_NAMES = ("Tensor.new_ones",)
    SAMPLES = (Sample(Tn((2, 2), "float64"), [3, 1]), Sample(Tn((1,), "int32"), []))
    FILL, SIZE = 1, 1
    self_ = operand_def(ValueTensorType)
    size = operand_def(ListType)
    dtype = operand_def(DTypeOperand)
    result = result_def(ValueTensorType)


@torch_op
class AtenNewEmptyOp(FilledOp):
    """`x.new_empty(size, dtype=None)`: unspecified values (zeros here) of `x`'s dtype."""

    name = "torch.aten.new_empty"
    SCHEMA = "aten::new_empty(Tensor self, int[] size, *, ScalarType? dtype=None) -> Tensor"
    PY_NAMES = ("Tensor.new_empty",)
    SAMPLES = (Sample(Tn((2,)), [2, 3]),)
    ARBITRARY_VALUES = True
    FILL, SIZE = 0, 1
    self_ = operand_def(ValueTensorType)
    size = operand_def(ListType)
    dtype = operand_def(DTypeOperand)
    result = result_def(ValueTensorType)


@torch_op
class AtenNewFullOp(FilledOp):
    """`x.new_full(size, fill_value, dtype=None)`: the value converted to `x`'s dtype (floats
    truncate to ints) unless `dtype` is given."""

    name = "torch.aten.new_full"
    SCHEMA = (
        "aten::new_full(Tensor self, int[] size, Scalar fill_value, *, ScalarType? dtype=None)"
        " -> Tensor"
    )
    PY_NAMES = ("Tensor.new_full",)
    SAMPLES = (Sample(Tn((3,)), [2, 2], 1.5), Sample(Tn((2,), "int64"), [3], 2.7),
               Sample(Tn((2,)), [2], 3, dtype=4))  # fmt: skip
    SIZE = 1
    self_ = operand_def(ValueTensorType)
    size = operand_def(ListType)
    fill_value = operand_def(ScalarOperand)
    dtype = operand_def(DTypeOperand)
    result = result_def(ValueTensorType)


class LikeOp(TorchOp):
    """A tensor shaped like `self`, of `self`'s dtype unless `dtype=` is given."""

    FILL: ClassVar[float | None] = None

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        x: TensorMeta = args[0]
        return [ValueTensorType(x.shape, requested_dtype(args[-1], x.dtype))]

    @classmethod
    def eager(cls, *args: Any) -> Any:
        (typ,) = cls.infer(TensorMeta.of_array(args[0]), *args[1:])
        assert isinstance(typ, ValueTensorType) and typ.element is not None
        value = cls.FILL if cls.FILL is not None else args[1]
        return np.full(args[0].shape, value, dtype=typ.element.numpy)


@torch_op
class AtenZerosLikeOp(LikeOp):
    """`torch.zeros_like(x, dtype=None)`."""

    name = "torch.aten.zeros_like"
    SCHEMA = "aten::zeros_like(Tensor self, *, ScalarType? dtype=None) -> Tensor"
    PY_NAMES = ("torch.zeros_like",)
    SAMPLES = (Sample(Tn((2, 3))), Sample(Tn((3,), "int64"), dtype=6))
    FILL = 0
    self_ = operand_def(ValueTensorType)
    dtype = operand_def(DTypeOperand)
    result = result_def(ValueTensorType)


@torch_op
class AtenOnesLikeOp(LikeOp):
    """`torch.ones_like(x, dtype=None)`."""

    name = "torch.aten.ones_like"
    SCHEMA = "aten::ones_like(Tensor self, *, ScalarType? dtype=None) -> Tensor"
    PY_NAMES = ("torch.ones_like",)
    SAMPLES = (Sample(Tn((2, 3), "float64")), Sample(Tn((2,), "bool")))
    FILL = 1
    self_ = operand_def(ValueTensorType)
    dtype = operand_def(DTypeOperand)
    result = result_def(ValueTensorType)


@torch_op
class AtenEmptyLikeOp(LikeOp):
    """`torch.empty_like(x, dtype=None)`: unspecified values (zeros here)."""

    name = "torch.aten.empty_like"
    SCHEMA = "aten::empty_like(Tensor self, *, ScalarType? dtype=None) -> Tensor"
    PY_NAMES = ("torch.empty_like",)
    SAMPLES = (Sample(Tn((2, 3))),)
    ARBITRARY_VALUES = True
    FILL = 0
    self_ = operand_def(ValueTensorType)
    dtype = operand_def(DTypeOperand)
    result = result_def(ValueTensorType)


@torch_op
class AtenFullLikeOp(LikeOp):
    """`torch.full_like(x, fill_value, dtype=None)`: the value converts to `x`'s dtype."""

    name = "torch.aten.full_like"
    SCHEMA = "aten::full_like(Tensor self, Scalar fill_value, *, ScalarType? dtype=None) -> Tensor"
    PY_NAMES = ("torch.full_like",)
    SAMPLES = (Sample(Tn((2, 3)), 2.5), Sample(Tn((3,), "int32"), 3.7),
               Sample(Tn((2,)), 1, dtype=4))  # fmt: skip
    self_ = operand_def(ValueTensorType)
    fill_value = operand_def(ScalarOperand)
    dtype = operand_def(DTypeOperand)
    result = result_def(ValueTensorType)


def arange_length(start: Any, end: Any, step: Any) -> int | None:
    """ceil((end - start) / step), or None while a bound is only known at run time."""
    if any(isinstance(v, Dynamic) for v in (start, end, step)):
        if isinstance(step, int | float) and step == 0:
            raise ShapeError("step must be nonzero")
        return None
    if step == 0:
        raise ShapeError("step must be nonzero")
    if (end - start) * step < 0:
        raise ShapeError("upper bound and lower bound inconsistent with step sign")
    return max(math.ceil((end - start) / step), 0)


class ArangeOp(TorchOp):
    """`torch.arange`: `start + i * step` for i < ceil((end - start) / step), computed in
    float64 for float results and in int64 (from truncated bounds) for integer ones."""

    @classmethod
    def bounds(cls, args: tuple[Any, ...]) -> tuple[Any, Any, Any]:
        """(start, end, step) from the overload's arguments."""
        raise NotImplementedError

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        start, end, step = cls.bounds(args)
        is_float = any(kind_of_value(v) == "float" for v in (start, end, step))
        dtype = requested_dtype(args[-1], DEFAULT_FLOAT if is_float else DEFAULT_INT)
        if dtype is not None and dtype.is_bool:
            raise TypeError("\"arange_cpu\" not implemented for 'Bool'")
        if dtype == DEFAULT_INT:
            start, end, step = cls.integer_bounds(start, end, step)
        length = arange_length(start, end, step)
        return [ValueTensorType((-1 if length is None else length,), dtype)]

    @staticmethod
    def integer_bounds(*bounds: Any) -> tuple[Any, ...]:
        """For int64 results torch truncates the bounds first: `arange(0, 2.5, 1,
        dtype=torch.int64)` is [0, 1], `arange(0.5, 0, -3, dtype=torch.int64)` is empty (int32
        and smaller count with the float bounds: [0, 1, 2] and [0]; the values all start at
        the truncated start)."""
        return tuple(int(v) if isinstance(v, float) else v for v in bounds)

    @classmethod
    def eager(cls, *args: Any) -> Any:
        start, _, step = cls.bounds(args)
        (typ,) = cls.infer(*args)
        assert isinstance(typ, ValueTensorType) and typ.element is not None
        count = np.arange(typ.sizes[0])
        if typ.element.is_float:
            return (float(start) + count * float(step)).astype(typ.element.numpy)
        return (int(start) + count * int(step)).astype(typ.element.numpy)


@torch_op
class AtenArangeOp(ArangeOp):
    """`torch.arange(end)`: 0, 1, ..., end - 1."""

    name = "torch.aten.arange"
    SCHEMA = "aten::arange(Scalar end, *, ScalarType? dtype=None) -> Tensor"
    PY_NAMES = ("torch.arange",)
    SAMPLES = (Sample(5), Sample(2.5))
    end = operand_def(ScalarOperand)
    dtype = operand_def(DTypeOperand)
    result = result_def(ValueTensorType)

    @classmethod
    def bounds(cls, args: tuple[Any, ...]) -> tuple[Any, Any, Any]:
        return 0, args[0], 1


@torch_op
class AtenArangeStartOp(ArangeOp):
    """`torch.arange(start, end)`."""

    name = "torch.aten.arange.start"
    SCHEMA = "aten::arange.start(Scalar start, Scalar end, *, ScalarType? dtype=None) -> Tensor"
    PY_NAMES = ("torch.arange",)
    SAMPLES = (Sample(2, 7), Sample(-1.5, 1.0, dtype=7))
    start = operand_def(ScalarOperand)
    end = operand_def(ScalarOperand)
    dtype = operand_def(DTypeOperand)
    result = result_def(ValueTensorType)

    @classmethod
    def bounds(cls, args: tuple[Any, ...]) -> tuple[Any, Any, Any]:
        return args[0], args[1], 1


@torch_op
class AtenArangeStartStepOp(ArangeOp):
    """`torch.arange(start, end, step)`; a negative step counts down."""

    name = "torch.aten.arange.start_step"
    SCHEMA = (
        "aten::arange.start_step(Scalar start, Scalar end, Scalar step=1, *, "
        "ScalarType? dtype=None) -> Tensor"
    )
    PY_NAMES = ("torch.arange",)
    SAMPLES = (Sample(10, 0, -3), Sample(0, 1, 0.1), Sample(0.5, 3, 1, dtype=4))
    start = operand_def(ScalarOperand)
    end = operand_def(ScalarOperand)
    step = operand_def(ScalarOperand)
    dtype = operand_def(DTypeOperand)
    result = result_def(ValueTensorType)

    @classmethod
    def bounds(cls, args: tuple[Any, ...]) -> tuple[Any, Any, Any]:
        return args[0], args[1], args[2]


class _Fill:
    """`value` everywhere, in self's dtype (a float into an int tensor truncates, like torch)."""

    PY_NAMES = ("torch.fill", "Tensor.fill")
    DTYPE_ARGS = ("self",)
    IN_PLACE = True  # `x.fill_(v)`: the result written back

    @classmethod
    def compute_dtype(cls, args: tuple[Any, ...]) -> DType | None:
        value = cls.named_args(args).get("value")  # type: ignore[attr-defined]
        if isinstance(value, TensorMeta) and value.rank not in (None, 0):
            raise ShapeError(
                "fill_ only supports 0-dimension value tensor but got tensor with "
                f"{value.rank} dimensions."
            )
        return super().compute_dtype(args)  # type: ignore[misc]

    @classmethod
    def infer(cls, *args: Any) -> list[Any]:
        return [ValueTensorType(args[0].shape, cls.compute_dtype(args))]

    @staticmethod
    def eager(x: Any, value: Any) -> Any:
        return np.full(x.shape, value, dtype=x.dtype)

    @staticmethod
    def payload(b: ScalarBuilder, x: SSAValue, value: SSAValue) -> SSAValue:
        return value


@torch_op
class AtenFillScalarOp(_Fill, ElementwiseOp):
    """`x.fill_(1.5)`, `torch.fill(x, 2)`: x's shape and dtype, every element `value`."""

    name = "torch.aten.fill.Scalar"
    SCHEMA = "aten::fill.Scalar(Tensor self, Scalar value) -> Tensor"
    SAMPLES = (Sample(Tn((5,), "int64", -3, 3), 2.7),)
    self_ = operand_def(ValueTensorType)
    value = operand_def(ScalarOperand)
    result = result_def(ValueTensorType)


@torch_op
class AtenFillTensorOp(_Fill, ElementwiseOp):
    """`x.fill_(t)` with a 0-d tensor `t` (other ranks are torch's RuntimeError)."""

    name = "torch.aten.fill.Tensor"
    SCHEMA = "aten::fill.Tensor(Tensor self, Tensor value) -> Tensor"
    SAMPLES = (Sample(Tn((2, 3), "float64"), Tn((), "int64")),)
    self_ = operand_def(ValueTensorType)
    value = operand_def(ValueTensorType)
    result = result_def(ValueTensorType)


@torch_op
class AtenZeroOp(UnaryOp):
    """`x.zero_()`: x's shape and dtype, all zeros (`Tensor.zero` is the functional form)."""

    name = "torch.aten.zero"
    SCHEMA = "aten::zero(Tensor self) -> Tensor"
    PY_NAMES = ("Tensor.zero",)
    IN_PLACE = True
    SAMPLES = (Sample(Tn((4,), "bool")),)

    @staticmethod
    def eager(x: Any) -> Any:
        return np.zeros_like(x)

    @staticmethod
    def payload(b: ScalarBuilder, x: SSAValue) -> SSAValue:
        return b.const(0, x)


OPS = (
    AtenZerosOp,
    AtenOnesOp,
    AtenEmptyMemoryFormatOp,
    AtenFullOp,
    AtenNewZerosOp,
    AtenNewOnesOp,
    AtenNewEmptyOp,
    AtenNewFullOp,
    AtenZerosLikeOp,
    AtenOnesLikeOp,
    AtenEmptyLikeOp,
    AtenFullLikeOp,
    AtenArangeOp,
    AtenArangeStartOp,
    AtenArangeStartStepOp,
    AtenFillScalarOp,
    AtenFillTensorOp,
    AtenZeroOp,
)
