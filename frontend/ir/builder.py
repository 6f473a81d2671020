"""Emits torch-dialect ops for the script and trace frontends: constants, lists, op calls."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from xdsl.ir import Attribute, Block, Operation, SSAValue

from dialects.torch.dtypes import DType
from dialects.torch.op_base import TorchOp
from dialects.torch.ops.prim import ConstantIntOp, PrimListConstructOp, constant_op_for
from dialects.torch.types import (
    BoolType,
    FloatType,
    IntType,
    ListType,
    NoneType,
    StrType,
    TupleType,
    ValueTensorType,
)
from frontend.ir.binding import DEFAULT, bind

Value = Any  # an SSAValue, or a Python constant not yet materialized (int, float, bool, None, list)


def kind_of(value: Value) -> str:
    """The binding kind of a value: "Tensor", "int", "float", "bool", "None", "list[int]", ..."""
    if isinstance(value, SSAValue):
        return kind_of_type(value.type)
    if isinstance(value, DType):
        return "DType"
    if value is None:
        return "None"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "float"
    if isinstance(value, str):
        return "str"
    if isinstance(value, dict):
        return "dict"
    if isinstance(value, list | tuple):
        inner = {kind_of(v) for v in value}  # type: ignore[union-attr]
        return f"list[{inner.pop() if len(inner) == 1 else 'int' if not inner else '?'}]"
    return type(value).__name__


def kind_of_type(t: Attribute) -> str:
    if isinstance(t, ValueTensorType):
        return "Tensor"
    if isinstance(t, ListType):
        return f"list[{kind_of_type(t.element_type)}]"
    if isinstance(t, TupleType):
        return "tuple"
    names = {
        IntType(): "int", FloatType(): "float", BoolType(): "bool", NoneType(): "None",
        StrType(): "str",
    }  # fmt: skip
    return names.get(t, str(t))


class IRBuilder:
    """Appends torch ops to a block; Python constants become `torch.constant.*` on use."""

    def __init__(self, block: Block) -> None:
        self.block = block

    def insert(self, op: Operation) -> Operation:
        self.block.add_op(op)
        return op

    def materialize(self, value: Value) -> SSAValue:
        if isinstance(value, SSAValue):
            return value
        if isinstance(value, DEFAULT):
            value = value.value
        if isinstance(value, DType):
            value = value.scalar_type
        if isinstance(value, list | tuple):
            return self.list_of([self.materialize(v) for v in value])  # type: ignore[union-attr]
        result = self.insert(constant_op_for(value)).results[0]
        result.name_hint = _constant_name(value)
        return result

    def list_of(self, elements: Sequence[SSAValue]) -> SSAValue:
        """A list of its elements' type (None entries may join tensors: ATen's `Tensor?[]`)."""
        typed = [e.type for e in elements if not isinstance(e.type, NoneType)]
        element_type = typed[0] if typed else elements[0].type if elements else IntType()
        constant_ints = all(
            e.type != IntType() or isinstance(e.owner, ConstantIntOp) for e in elements
        )
        if FloatType() in typed and set(typed) <= {IntType(), FloatType()} and constant_ints:
            element_type = FloatType()  # (2, 0.5): a float list, its ints converted
            elements = [
                self.materialize(float(e.owner.python_value()))  # type: ignore[union-attr]
                if e.type == IntType() else e
                for e in elements
            ]  # fmt: skip
        return self.insert(PrimListConstructOp(list(elements), element_type)).results[0]

    def call(
        self, candidates: Sequence[type[TorchOp]], args: Sequence[Value], kwargs: dict[str, Value]
    ) -> list[SSAValue]:
        """Bind to the first matching overload, materialize arguments, emit the op.

        Raises BindError (a TypeError) or the shape rule's ShapeError/TypeError.
        """
        op_class, arguments, values = bind(candidates, args, kwargs, kind_of)
        operands = [
            self.materialize(_as_schema_type(a.type, v)) for a, v in zip(arguments, values)
        ]
        op = op_class.build(operands)
        self.insert(op)
        return list(op.results)


def _as_schema_type(schema_type: str, value: Value) -> Value:
    """`torch.sum(x, 1)`: an int where the schema takes int[] is a one-element list;
    `x.isclose(y, 0, 3)`: an int constant where it takes a float is that float."""
    if schema_type == "int[]" and kind_of(value) == "int":
        return [value]
    if schema_type in ("float", "float?") and type(value) is int:
        return float(value)
    return value


def _constant_name(value: Any) -> str:
    """torch-mlir's names for constants: %int2, %float, %true, %none."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return f"int{value}" if value >= 0 else f"int_m{-value}"
    if isinstance(value, str):
        return "str"
    return "float"
