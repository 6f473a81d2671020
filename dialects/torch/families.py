"""Op families: defaults for elementwise (unary, binary, comparison) and reduction ops.

A concrete op names itself and overrides only what differs: an elementwise op adds `eager`
and `payload`, a reduction adds `eager`, `combiner` and `identity`.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import operand_def, result_def

from dialects.torch.dtypes import BOOL, FLOAT32, INT64, DType, dtype_of_code, result_type
from dialects.torch.meta import (
    Dynamic,
    ShapeError,
    TensorMeta,
    broadcast_shapes,
    kind_of_value,
    normalize_dim,
)
from dialects.torch.op_base import TorchOp
from dialects.torch.scalar_builder import ScalarBuilder
from dialects.torch.types import BoolType, FloatType, IntType, ValueTensorType

ScalarOperand = IntType | FloatType | BoolType
CATEGORY_NAMES = ("bool", "int", "float")  # DType.category -> name, for REJECTS

# ---- elementwise ----


class ElementwiseOp(TorchOp):
    """An op applied element by element after torch broadcasting; lowered from `payload`.

    The payload gets one value per schema argument, in order: a tensor argument's element
    and a numeric scalar argument, both converted to the compute dtype (the promotion of
    `DTYPE_ARGS`); a tensor in `RAW_ARGS` (masks, conditions) in its own dtype; and the
    Python value of an argument in `STATIC_ARGS`, of a string and of an absent optional
    argument (None), which must be known at compile time.
    """

    FLOAT_RESULT: ClassVar[bool] = False  # integer inputs give a float32 result (tanh, div)
    DTYPE_ARGS: ClassVar[tuple[str, ...]] = ("self", "other")  # arguments that promote
    RAW_ARGS: ClassVar[tuple[str, ...]] = ()  # tensors read in their own dtype
    STATIC_ARGS: ClassVar[tuple[str, ...]] = ()  # compile-time arguments, given as Python values
    REJECTS: ClassVar[tuple[str, ...]] = ()  # promoted categories torch refuses: "bool", "int"

    @classmethod
    def named_args(cls, args: tuple[Any, ...]) -> dict[str, Any]:
        return {a.name: v for a, v in zip(cls.parsed_schema().arguments, args)}

    @classmethod
    def compute_dtype(cls, args: tuple[Any, ...]) -> DType | None:
        """The dtype the payload computes in; None while an input dtype is unknown."""
        named = cls.named_args(args)
        tensors: list[tuple[DType, int]] = []
        kinds: list[str] = []
        for name in cls.DTYPE_ARGS:
            value = named.get(name)
            if isinstance(value, TensorMeta):
                if value.dtype is None or value.rank is None:
                    return None
                tensors.append((value.dtype, value.rank))
            elif (kind := kind_of_value(value)) is not None:
                kinds.append(kind)
        dtype = result_type(tensors, kinds)
        if CATEGORY_NAMES[dtype.category] in cls.REJECTS:
            raise TypeError(f"{cls.name}: {dtype.name} inputs are not supported (nor by torch)")
        return FLOAT32 if cls.FLOAT_RESULT and not dtype.is_float else dtype

    @classmethod
    def result_dtype(cls, args: tuple[Any, ...]) -> DType | None:
        return cls.compute_dtype(args)

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        shapes = [a.shape for a in args if isinstance(a, TensorMeta)]
        return [ValueTensorType(broadcast_shapes(shapes), cls.result_dtype(args))]

    @classmethod
    def run_eager(cls, *args: Any) -> Any:
        """Cast inputs to the compute dtype first, so numpy computes what the kernel computes."""
        metas = tuple(TensorMeta.of_array(a) if isinstance(a, np.ndarray) else a for a in args)
        compute = cls.compute_dtype(metas)
        named = cls.named_args(metas)
        cast = [
            a if name in (*cls.RAW_ARGS, *cls.STATIC_ARGS) else _to_dtype(a, compute)
            for a, name in zip(args, named)
        ]
        return super().run_eager(*cast)

    @classmethod
    def static_arg(cls, args: tuple[Any, ...], name: str) -> Any:
        """The compile-time value of argument `name`; TypeError when only known at run time."""
        value = cls.named_args(args).get(name)
        if isinstance(value, Dynamic):
            raise TypeError(f"{cls.name}: argument `{name}` must be a constant")
        return value

    @staticmethod
    def payload(b: ScalarBuilder, *elements: SSAValue) -> SSAValue:
        """The scalar body: one element (or scalar argument) per operand, in compute dtype."""
        raise NotImplementedError


def _to_dtype(value: Any, dtype: DType | None) -> Any:
    if dtype is None:
        return value
    if isinstance(value, np.ndarray):
        return value.astype(dtype.numpy, copy=False)
    if kind_of_value(value) is not None:
        return dtype.numpy.type(value)
    return value


class UnaryOp(ElementwiseOp):
    """`aten::<op>(Tensor self) -> Tensor`."""

    self_ = operand_def(ValueTensorType)
    result = result_def(ValueTensorType)


class BinaryOp(ElementwiseOp):
    """`aten::<op>.Tensor(Tensor self, Tensor other) -> Tensor`."""

    self_ = operand_def(ValueTensorType)
    other = operand_def(ValueTensorType)
    result = result_def(ValueTensorType)


class BinaryAlphaOp(ElementwiseOp):
    """`aten::<op>.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor`."""

    self_ = operand_def(ValueTensorType)
    other = operand_def(ValueTensorType)
    alpha = operand_def(ScalarOperand)
    result = result_def(ValueTensorType)


class BinaryScalarOp(ElementwiseOp):
    """`aten::<op>.Scalar(Tensor self, Scalar other) -> Tensor`."""

    self_ = operand_def(ValueTensorType)
    other = operand_def(ScalarOperand)
    result = result_def(ValueTensorType)


class BinaryScalarAlphaOp(ElementwiseOp):
    """`aten::<op>.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor`."""

    self_ = operand_def(ValueTensorType)
    other = operand_def(ScalarOperand)
    alpha = operand_def(ScalarOperand)
    result = result_def(ValueTensorType)


class ComparisonMixin:
    """Comparisons compute in the promoted dtype and give bool; `PREDICATE` names the test."""

    PREDICATE: ClassVar[str]

    @classmethod
    def result_dtype(cls, args: tuple[Any, ...]) -> DType | None:
        return BOOL

    @classmethod
    def payload(cls, b: ScalarBuilder, x: SSAValue, y: SSAValue) -> SSAValue:  # type: ignore[override]
        return b.cmp(cls.PREDICATE, x, y)


# ---- reductions ----


class ReduceDimsOp(TorchOp):
    """The shape rule of every reduction: `dim` (an int, a list, or None/[] for all dims) is
    folded away, or kept as size 1 with `keepdim`. A second result holds int64 indices."""

    NONEMPTY: ClassVar[bool] = False  # torch rejects reducing a dim of size 0 (max, argmax)
    FLOAT_ONLY: ClassVar[bool] = False  # torch rejects non-float results (mean, var)

    @classmethod
    def named_args(cls, args: tuple[Any, ...]) -> dict[str, Any]:
        return {a.name: v for a, v in zip(cls.parsed_schema().arguments, args)}

    @classmethod
    def reduced_dims(cls, named: dict[str, Any], rank: int) -> tuple[int, ...]:
        """The dims folded away; `dim` of None or [] means all of them (torch semantics)."""
        dim = named.get("dim")
        if dim is None or dim == []:
            return tuple(range(rank))
        dims = [dim] if isinstance(dim, int | Dynamic) else list(dim)
        if any(not isinstance(d, int) for d in dims):
            raise TypeError(f"{cls.name}: `dim` must be a constant int or list of ints")
        normalized = tuple(sorted(normalize_dim(d, rank) for d in dims))
        if len(set(normalized)) != len(normalized):
            raise ShapeError(f"dim {dims} appears multiple times in the list of dims")
        return normalized if rank else ()  # a 0-d tensor: dim 0 / -1 is the tensor itself

    @classmethod
    def result_element(cls, named: dict[str, Any], input_dtype: DType | None) -> DType | None:
        return input_dtype

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        named = cls.named_args(args)
        x: TensorMeta = named["self"]
        dtype = cls.result_element(named, x.dtype)
        if cls.FLOAT_ONLY and dtype is not None and not dtype.is_float:
            raise TypeError(f"{cls.name}: input dtype must be floating point, got {dtype.name}")
        returns = cls.parsed_schema().returns
        if x.shape is None:
            unknown = range(len(returns))
            return [ValueTensorType(None, cls.result_dtype_at(i, dtype)) for i in unknown]
        reduced = cls.reduced_dims(named, len(x.shape))
        if cls.NONEMPTY and any(x.shape[d] == 0 for d in reduced):
            raise ShapeError(f"{cls.name}: expected a non-empty reduction dim, got shape "
                             f"{list(x.shape)}")  # fmt: skip
        keep = bool(named.get("keepdim", False))
        shape = tuple(
            1 if i in reduced else d for i, d in enumerate(x.shape) if keep or i not in reduced
        )
        return [ValueTensorType(shape, cls.result_dtype_at(i, dtype)) for i in range(len(returns))]

    @classmethod
    def result_dtype_at(cls, index: int, values_dtype: DType | None) -> DType | None:
        return values_dtype if index == 0 else INT64

    def reduction_args(self) -> tuple[tuple[int, ...], bool]:
        """(reduced dims, keepdim) of this op instance; the rank must be known."""
        named = self.named_args(tuple(self.arg_values()))
        rank = named["self"].rank
        assert rank is not None, f"{self.name}: reduction of a tensor of unknown rank"
        return self.reduced_dims(named, rank), bool(named.get("keepdim", False))


class ReductionOp(ReduceDimsOp):
    """Folds `combiner` over the reduced dims, starting from `identity` (one linalg.generic).

    With `INDEX_PREDICATE` ("gt"/"lt") the fold also tracks the index of the first extreme
    element (NaN counts as extreme, like torch); `RESULTS` says which of the folded values
    ("values", "indices") are the op's results (default: one per schema return, in that
    order). `DIVIDE_BY_COUNT` turns a sum into a mean.
    """

    INDEX_PREDICATE: ClassVar[str | None] = None
    RESULTS: ClassVar[tuple[str, ...] | None] = None
    DIVIDE_BY_COUNT: ClassVar[bool] = False

    @classmethod
    def result_names(cls) -> tuple[str, ...]:
        if cls.RESULTS is not None:
            return cls.RESULTS
        return ("values", "indices")[: len(cls.parsed_schema().returns)]

    @staticmethod
    def identity(dtype: DType) -> float | int | bool:
        raise NotImplementedError

    @staticmethod
    def combiner(b: ScalarBuilder, x: SSAValue, acc: SSAValue) -> SSAValue:
        raise NotImplementedError


def explicit_dtype(named: dict[str, Any]) -> DType | None:
    """The `dtype=` argument of a reduction, or None."""
    code = named.get("dtype")
    if isinstance(code, Dynamic):
        raise TypeError("`dtype` must be a constant")
    return None if code is None else dtype_of_code(code)


class SumMixin:
    """Sums widen bool and integer inputs to int64, or to an explicit `dtype`."""

    @classmethod
    def result_element(cls, named: dict[str, Any], input_dtype: DType | None) -> DType | None:
        explicit = explicit_dtype(named)
        if explicit is not None:
            return explicit
        if input_dtype is not None and not input_dtype.is_float:
            return INT64
        return input_dtype

    @staticmethod
    def identity(dtype: DType) -> float | int | bool:
        return 0

    @staticmethod
    def combiner(b: ScalarBuilder, x: SSAValue, acc: SSAValue) -> SSAValue:
        return b.add(acc, x)


class ProdMixin(SumMixin):
    """Products widen like sums."""

    @staticmethod
    def identity(dtype: DType) -> float | int | bool:
        return 1

    @staticmethod
    def combiner(b: ScalarBuilder, x: SSAValue, acc: SSAValue) -> SSAValue:
        return b.mul(acc, x)


class MeanMixin:
    """The sum divided by the number of reduced elements, in the input or `dtype=` dtype,
    which must be floating point."""

    FLOAT_ONLY = True
    DIVIDE_BY_COUNT = True

    @classmethod
    def result_element(cls, named: dict[str, Any], input_dtype: DType | None) -> DType | None:
        return explicit_dtype(named) or input_dtype

    @staticmethod
    def identity(dtype: DType) -> float | int | bool:
        return 0

    @staticmethod
    def combiner(b: ScalarBuilder, x: SSAValue, acc: SSAValue) -> SSAValue:
        return b.add(acc, x)


class MaxMixin:
    """Maximum, propagating NaN like torch; with indices, the first maximum's index."""

    NONEMPTY = True
    INDEX_PREDICATE = "gt"

    @staticmethod
    def identity(dtype: DType) -> float | int | bool:
        if dtype.is_float:
            return float("-inf")
        return False if dtype.is_bool else int(np.iinfo(dtype.numpy).min)

    @staticmethod
    def combiner(b: ScalarBuilder, x: SSAValue, acc: SSAValue) -> SSAValue:
        return b.maximum(acc, x)


class MinMixin:
    """Minimum, propagating NaN like torch; with indices, the first minimum's index."""

    NONEMPTY = True
    INDEX_PREDICATE = "lt"

    @staticmethod
    def identity(dtype: DType) -> float | int | bool:
        if dtype.is_float:
            return float("inf")
        return True if dtype.is_bool else int(np.iinfo(dtype.numpy).max)

    @staticmethod
    def combiner(b: ScalarBuilder, x: SSAValue, acc: SSAValue) -> SSAValue:
        return b.minimum(acc, x)


class ArgMixin:
    """argmax / argmin: only the index of the first extreme element; bool is rejected."""

    RESULTS = ("indices",)

    @classmethod
    def result_element(cls, named: dict[str, Any], input_dtype: DType | None) -> DType | None:
        if input_dtype is not None and input_dtype.is_bool:
            raise TypeError(f"{cls.name}: bool input is not supported (nor by torch)")  # type: ignore[attr-defined]
        return input_dtype

    @classmethod
    def result_dtype_at(cls, index: int, values_dtype: DType | None) -> DType | None:
        return INT64


class AllMixin:
    """True when every element is nonzero; the result is bool."""

    @classmethod
    def result_element(cls, named: dict[str, Any], input_dtype: DType | None) -> DType | None:
        return BOOL

    @staticmethod
    def identity(dtype: DType) -> float | int | bool:
        return True

    @staticmethod
    def combiner(b: ScalarBuilder, x: SSAValue, acc: SSAValue) -> SSAValue:
        return b.and_(acc, x)


class AnyMixin(AllMixin):
    """True when some element is nonzero; the result is bool."""

    @staticmethod
    def identity(dtype: DType) -> float | int | bool:
        return False

    @staticmethod
    def combiner(b: ScalarBuilder, x: SSAValue, acc: SSAValue) -> SSAValue:
        return b.or_(acc, x)


class VarianceOp(ReduceDimsOp):
    """var / std: the sum of squared deviations from the mean over the reduced dims, divided
    by max(N - correction, 0) (torch: `unbiased=True` is correction 1); `SQRT` for std.
    Lowered in two passes (mean, then deviations), not by folding."""

    FLOAT_ONLY = True
    SQRT: ClassVar[bool] = False

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        cls.correction_of(cls.named_args(args))  # a run-time correction: refused while scripting
        return super().infer(*args)

    @classmethod
    def correction_of(cls, named: dict[str, Any]) -> float:
        if "correction" in named:
            value = named["correction"]
            if isinstance(value, Dynamic):
                raise TypeError(f"{cls.name}: `correction` must be a number known while scripting")
            return 1.0 if value is None else float(value)
        unbiased = named.get("unbiased", True)
        if isinstance(unbiased, Dynamic):
            raise TypeError(f"{cls.name}: `unbiased` must be a bool known while scripting")
        return 1.0 if unbiased else 0.0
