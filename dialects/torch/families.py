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

# ---- elementwise ----


class ElementwiseOp(TorchOp):
    """An op applied element by element after torch broadcasting; lowered from `payload`."""

    FLOAT_RESULT: ClassVar[bool] = False  # integer inputs give a float32 result (tanh, div)
    DTYPE_ARGS: ClassVar[tuple[str, ...]] = ("self", "other")  # arguments that promote

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
            _to_dtype(a, compute) if name in cls.DTYPE_ARGS or name == "alpha" else a
            for a, name in zip(args, named)
        ]
        return super().run_eager(*cast)

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


class ReductionOp(TorchOp):
    """Folds `combiner` over some dims, starting from `identity`; `keepdim` keeps them as 1s."""

    @classmethod
    def reduced_dims(cls, named: dict[str, Any], rank: int) -> tuple[int, ...]:
        """The dims folded away; `dim` of None or [] means all of them (torch semantics)."""
        dim = named.get("dim")
        if dim is None or dim == []:
            return tuple(range(rank))
        dims = [dim] if isinstance(dim, int) else list(dim)
        normalized = tuple(sorted(normalize_dim(d, rank) for d in dims))
        if len(set(normalized)) != len(normalized):
            raise ShapeError(f"dim {dims} appears multiple times in the list of dims")
        return normalized

    @classmethod
    def result_element(cls, named: dict[str, Any], input_dtype: DType | None) -> DType | None:
        return input_dtype

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        named = {a.name: v for a, v in zip(cls.parsed_schema().arguments, args)}
        x: TensorMeta = named["self"]
        dtype = cls.result_element(named, x.dtype)
        if x.shape is None:
            return [ValueTensorType(None, dtype) for _ in cls.parsed_schema().returns]
        reduced = cls.reduced_dims(named, len(x.shape))
        keep = bool(named.get("keepdim", False))
        shape = tuple(
            1 if i in reduced else d for i, d in enumerate(x.shape) if keep or i not in reduced
        )
        types = [ValueTensorType(shape, dtype)]
        if len(cls.parsed_schema().returns) == 2:
            types.append(ValueTensorType(shape, INT64))
        return types

    def reduction_args(self) -> tuple[tuple[int, ...], bool]:
        """(reduced dims, keepdim) of this op instance; the rank must be known."""
        args = self.arg_values()
        named = {a.name: v for a, v in zip(self.parsed_schema().arguments, args)}
        rank = named["self"].rank
        assert rank is not None, f"{self.name}: reduction of a tensor of unknown rank"
        return self.reduced_dims(named, rank), bool(named.get("keepdim", False))

    @staticmethod
    def identity(dtype: DType) -> float | int | bool:
        raise NotImplementedError

    @staticmethod
    def combiner(b: ScalarBuilder, x: SSAValue, acc: SSAValue) -> SSAValue:
        raise NotImplementedError


class SumMixin:
    """Sums widen bool and integer inputs to int64, or to an explicit `dtype`."""

    @classmethod
    def result_element(cls, named: dict[str, Any], input_dtype: DType | None) -> DType | None:
        code = named.get("dtype")
        if isinstance(code, int):
            return dtype_of_code(code)
        if input_dtype is not None and not input_dtype.is_float:
            return INT64
        return input_dtype

    @staticmethod
    def identity(dtype: DType) -> float | int | bool:
        return 0

    @staticmethod
    def combiner(b: ScalarBuilder, x: SSAValue, acc: SSAValue) -> SSAValue:
        return b.add(acc, x)


class MaxMixin:
    """Maximum, propagating NaN like torch."""

    @staticmethod
    def identity(dtype: DType) -> float | int | bool:
        if dtype.is_float:
            return float("-inf")
        return False if dtype.is_bool else int(np.iinfo(dtype.numpy).min)

    @staticmethod
    def combiner(b: ScalarBuilder, x: SSAValue, acc: SSAValue) -> SSAValue:
        return b.maximum(acc, x)
