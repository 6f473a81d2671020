"""Custom ops: torch op classes made at run time from a library's schema, eager and shape functions.

`make_custom_op("my_ops::warp_perspective(Tensor src, Tensor M) -> Tensor", eager, shape)`
returns a `CustomOp` subclass named `torch.my_ops.warp_perspective` with one operand per schema
argument, like a hand-written op (docs/design.md, "The op declaration"). Its hooks come from
the user's functions:

- `eager(*args)`: the numpy reference, arguments in schema order (tensors as arrays);
- `shape(*args)`: the shape rule. It gets each tensor as a `TensorMeta` (`shape` with -1 for a
  size known only at run time, `dtype` a `DType`) and each scalar as its Python value (or a
  `Dynamic` when only known at run time), and returns, per result, a `TensorMeta` or a
  `(shape, dtype)` pair (dtype: a `DType`, numpy dtype or name); several results as a tuple.
  It raises ValueError / TypeError for arguments the op rejects. It is only called once every
  tensor argument has a known rank and dtype (until then the result type is unknown).

A result size that is unknown at compile time (-1) must be one of the argument sizes, passed
through (`return src`, `(src.shape[0], 4)`): the lowering reads it from that argument at run
time (see `dynamic_size_sources`).
Custom ops take `Tensor`, `int`, `float` and `bool` arguments (defaults allowed) and return
tensors: that is what a compiled kernel can receive and write.
"""

from __future__ import annotations

import keyword
from collections.abc import Callable, Sequence
from typing import Any, ClassVar

import numpy as np
from xdsl.ir import Attribute
from xdsl.irdl import irdl_op_definition, operand_def, result_def

from dialects.torch.dtypes import DType, dtype_of_name, dtype_of_numpy
from dialects.torch.meta import ShapeError, TensorMeta
from dialects.torch.op_base import TorchOp
from dialects.torch.schema import Schema, parse_schema
from dialects.torch.types import DYN, BoolType, FloatType, IntType, ValueTensorType

OPERAND_TYPES: dict[str, Any] = {
    "Tensor": ValueTensorType,
    "int": IntType | BoolType,
    "float": FloatType | IntType | BoolType,
    "bool": BoolType,
}
"""Schema argument type -> IRDL operand constraint (ints and bools pass where torch takes them)."""


class RuntimeSize(int):
    """An argument size known only at run time: equal to -1 (`?`) for the shape rule, but it
    remembers which argument dim it is, so a result dim that passes it through is traced back."""

    source: tuple[int, int]

    def __new__(cls, arg_index: int, dim: int) -> RuntimeSize:
        size = super().__new__(cls, DYN)
        size.source = (arg_index, dim)
        return size


class CustomOp(TorchOp):
    """An op defined by a library at run time (see the module docstring). Lowered to a call of
    its registered kernel, which writes each result into a buffer the caller allocates."""

    SHAPE_FN: ClassVar[Callable[..., Any]]
    KERNEL_NAME: ClassVar[str]  # `my_ops.warp_perspective`: the key of its compiled kernel

    @classmethod
    def result_count(cls) -> int:
        return len(cls.parsed_schema().returns)

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        tensors = [a for a in args if isinstance(a, TensorMeta)]
        if any(t.rank is None or t.dtype is None for t in tensors):
            return [ValueTensorType(None, None)] * cls.result_count()
        return [ValueTensorType(shape, dtype) for shape, dtype in cls.call_shape_fn(args)]

    @classmethod
    def call_shape_fn(cls, args: Sequence[Any]) -> list[tuple[tuple[int, ...], DType]]:
        """The user's shape rule on `args`, its results checked and normalized."""
        try:
            out = cls.SHAPE_FN(*args)
        except (ShapeError, TypeError) as err:
            raise type(err)(f"{cls.SCHEMA}: {err}") from err
        except ValueError as err:
            raise ShapeError(f"{cls.SCHEMA}: {err}") from err
        except Exception as err:
            raise TypeError(
                f"{cls.SCHEMA}: its shape function failed: {type(err).__name__}: {err}"
            ) from err
        results = out if isinstance(out, list) or _is_result_tuple(out) else [out]
        if len(results) != cls.result_count():
            raise TypeError(
                f"{cls.SCHEMA}: its shape function gave {len(results)} results for "
                f"{cls.result_count()}"
            )
        return [_normalize_result(cls.SCHEMA, r) for r in results]

    @classmethod
    def run_eager(cls, *args: Any) -> Any:
        """The eager reference, checked against the shape rule (a mismatch names the op)."""
        out = super().run_eager(*args)
        results = out if isinstance(out, tuple) else (out,)
        expected = cls.call_shape_fn([_meta_of(a) for a in args])
        for index, (result, (shape, _)) in enumerate(zip(results, expected, strict=True)):
            if tuple(np.shape(result)) != shape:
                raise ShapeError(
                    f"{cls.SCHEMA}: the eager function gave result #{index} the shape "
                    f"{list(np.shape(result))}, but its shape function gives {list(shape)}"
                )
        return out

    @classmethod
    def dynamic_size_sources(cls, args: Sequence[Any]) -> list[list[tuple[int, int] | None]]:
        """For each result dim: the (argument index, dim) whose run-time size it has, or None.

        The shape rule runs once more with each `?` argument size as a `RuntimeSize`; a result
        dim that is one of them comes from that argument dim. A static result dim, or a `?` the
        rule computed itself, gives None.
        """
        traced: list[Any] = []
        for index, arg in enumerate(args):
            if isinstance(arg, TensorMeta) and arg.shape is not None:
                sizes = [RuntimeSize(index, d) if s == DYN else s for d, s in enumerate(arg.shape)]
                arg = TensorMeta(tuple(sizes), arg.dtype)
            traced.append(arg)
        return [
            [d.source if isinstance(d, RuntimeSize) else None for d in shape]
            for shape, _ in cls.call_shape_fn(traced)
        ]


def _is_result_tuple(out: Any) -> bool:
    """A tuple of results, not one `(shape, dtype)` pair."""
    return isinstance(out, tuple) and all(isinstance(r, TensorMeta | tuple) for r in out)


def _normalize_result(schema: str, result: Any) -> tuple[tuple[int, ...], DType]:
    if isinstance(result, TensorMeta):
        shape, dtype = result.shape, result.dtype
    elif isinstance(result, tuple | list) and len(result) == 2:
        shape, dtype = result
    else:
        raise TypeError(
            f"{schema}: its shape function must return a TensorMeta or a (shape, dtype) pair "
            f"per result, got {result!r}"
        )
    if not isinstance(shape, tuple | list) or not all(_is_size(d) for d in shape):
        raise TypeError(f"{schema}: its shape function gave the shape {shape!r}: expected ints")
    sizes = tuple(d if isinstance(d, int) else int(d) for d in shape)  # keeps RuntimeSizes
    return sizes, _as_dtype(schema, dtype)


def _is_size(value: Any) -> bool:
    return isinstance(value, int | np.integer) and not isinstance(value, bool) and value >= DYN


def _as_dtype(schema: str, dtype: Any) -> DType:
    if isinstance(dtype, DType):
        return dtype
    try:
        return dtype_of_name(dtype) if isinstance(dtype, str) else dtype_of_numpy(dtype)
    except TypeError as err:
        raise TypeError(f"{schema}: its shape function gave dtype {dtype!r}: {err}") from None


def _meta_of(value: Any) -> Any:
    return TensorMeta.of_array(value) if isinstance(value, np.ndarray) else value


# ---- making the op class ----


# Class attributes of the op made for a schema: no argument may take one of these names.
_RESERVED_FIELDS = frozenset({"name", "SCHEMA", "PY_NAMES", "KERNEL_NAME", "SHAPE_FN"})


def check_custom_schema(schema: Schema) -> None:
    """ValueError unless `schema` only uses what a custom op supports (module docstring)."""
    for argument in schema.arguments:
        if argument.type not in OPERAND_TYPES or argument.optional:
            optional = "?" if argument.optional else ""
            raise ValueError(
                f"{schema.namespace}::{schema.name}: argument {argument.name!r} has type "
                f"{argument.type}{optional}; custom ops take Tensor, int, float and bool arguments"
            )
        if not argument.name.isidentifier() or keyword.iskeyword(argument.name):
            raise ValueError(
                f"{schema.namespace}::{schema.name}: bad argument name {argument.name!r}"
            )
        if argument.field_name in _RESERVED_FIELDS or hasattr(CustomOp, argument.field_name):
            raise ValueError(
                f"{schema.namespace}::{schema.name}: the argument name {argument.name!r} is "
                "reserved (an attribute of every op); rename it"
            )
    names = [a.name for a in schema.arguments]
    if len(set(names)) != len(names):
        raise ValueError(f"{schema.namespace}::{schema.name}: duplicate argument names")
    if not schema.returns or any(r != "Tensor" for r in schema.returns):
        raise ValueError(
            f"{schema.namespace}::{schema.name}: custom ops return one or more Tensors, "
            f"not {', '.join(schema.returns) or 'nothing'}"
        )


def result_field_names(schema: Schema) -> list[str]:
    """`result`, or `result0`, `result1`, ...; never an argument's name."""
    count = len(schema.returns)
    names = ["result"] if count == 1 else [f"result{i}" for i in range(count)]
    taken = {a.field_name for a in schema.arguments}
    return [f"{n}_" if n in taken else n for n in names]


def make_custom_op(
    schema_text: str, eager: Callable[..., Any], shape: Callable[..., Any]
) -> type[CustomOp]:
    """A new `CustomOp` class for `schema_text` (namespace included). ValueError if the schema
    is malformed or uses what custom ops do not support. The op is not registered here."""
    schema = parse_schema(schema_text)
    check_custom_schema(schema)
    hooks = {
        "SCHEMA": schema_text,
        "PY_NAMES": (f"ops.{schema.namespace}.{schema.name}",),
        "KERNEL_NAME": schema.qualified_name,
        "SHAPE_FN": staticmethod(shape),
    }
    body: dict[str, Any] = {
        **hooks,
        # Not `torch_op`: it would take an operand named in capitals (`Tensor M`) for a hook.
        "__annotations__": dict.fromkeys(hooks, ClassVar),
        "__doc__": f"The custom op `{schema_text}`, defined by library `{schema.namespace}`.",
        "__module__": __name__,
        "name": f"torch.{schema.qualified_name}",
        "eager": staticmethod(eager),
    }
    for argument in schema.arguments:
        body[argument.field_name] = operand_def(OPERAND_TYPES[argument.type])
    for name in result_field_names(schema):
        body[name] = result_def(ValueTensorType)
    class_name = "".join(p.title() for p in schema.qualified_name.replace(".", "_").split("_"))
    return irdl_op_definition(type(f"{class_name}Op", (CustomOp,), body))
