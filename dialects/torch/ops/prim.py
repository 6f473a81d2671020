"""Constants, lists, tuples and structured control flow: `torch.constant.*` and `torch.prim.*`."""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.dialects.builtin import (
    BytesAttr,
    DenseIntOrFPElementsAttr,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    StringAttr,
    TensorType,
    f64,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    lazy_traits_def,
    operand_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import ConstantLike, HasParent, IsTerminator, Pure, RecursiveMemoryEffect
from xdsl.utils.exceptions import VerifyException

from dialects.torch.dtypes import dtype_of_attr, dtype_of_numpy
from dialects.torch.op_base import ConstantLikeOp
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


@irdl_op_definition
class ConstantIntOp(ConstantLikeOp):
    """A Python int: `%int2 = torch.constant.int 2`."""

    name = "torch.constant.int"
    value = prop_def(IntegerAttr)
    result = result_def(IntType)
    traits = traits_def(Pure(), ConstantLike())

    def __init__(self, value: int) -> None:
        super().__init__(properties={"value": IntegerAttr(value, i64)}, result_types=[IntType()])

    def python_value(self) -> int:
        return int(self.value.value.data)

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.python_value()}")

    @classmethod
    def parse(cls, parser: Parser) -> ConstantIntOp:
        return cls(parser.parse_integer(allow_boolean=False))


@irdl_op_definition
class ConstantFloatOp(ConstantLikeOp):
    """A Python float: `%float2 = torch.constant.float 2.000000e+00`."""

    name = "torch.constant.float"
    value = prop_def(FloatAttr)
    result = result_def(FloatType)
    traits = traits_def(Pure(), ConstantLike())

    def __init__(self, value: float) -> None:
        super().__init__(properties={"value": FloatAttr(value, f64)}, result_types=[FloatType()])

    def python_value(self) -> float:
        return float(self.value.value.data)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_float(self.python_value(), f64)

    @classmethod
    def parse(cls, parser: Parser) -> ConstantFloatOp:
        return cls(parser.parse_float())


@irdl_op_definition
class ConstantBoolOp(ConstantLikeOp):
    """A Python bool: `%true = torch.constant.bool true`."""

    name = "torch.constant.bool"
    value = prop_def(IntegerAttr[IntegerType])
    result = result_def(BoolType)
    traits = traits_def(Pure(), ConstantLike())

    def __init__(self, value: bool) -> None:
        attr = IntegerAttr(int(value), IntegerType(1))
        super().__init__(properties={"value": attr}, result_types=[BoolType()])

    def python_value(self) -> bool:
        return bool(self.value.value.data)

    def print(self, printer: Printer) -> None:
        printer.print_string(" true" if self.python_value() else " false")

    @classmethod
    def parse(cls, parser: Parser) -> ConstantBoolOp:
        return cls(parser.parse_boolean())


@irdl_op_definition
class ConstantStrOp(ConstantLikeOp):
    """A Python str: `%str = torch.constant.str "tanh"`.

    Strings only select behaviour at compile time (`approximate="tanh"`, `padding="same"`);
    the op that reads one is lowered away, so no string survives to the linalg stage.
    """

    name = "torch.constant.str"
    value = prop_def(StringAttr)
    result = result_def(StrType)
    traits = traits_def(Pure(), ConstantLike())

    def __init__(self, value: str) -> None:
        super().__init__(properties={"value": StringAttr(value)}, result_types=[StrType()])

    def python_value(self) -> str:
        return self.value.data

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_string_literal(self.python_value())

    @classmethod
    def parse(cls, parser: Parser) -> ConstantStrOp:
        return cls(parser.parse_str_literal())


@irdl_op_definition
class ConstantNoneOp(ConstantLikeOp):
    """Python None: `%none = torch.constant.none`."""

    name = "torch.constant.none"
    result = result_def(NoneType)
    traits = traits_def(Pure(), ConstantLike())
    assembly_format = "attr-dict"

    def __init__(self) -> None:
        super().__init__(result_types=[NoneType()])

    def python_value(self) -> None:
        return None


@irdl_op_definition
class ValueTensorLiteralOp(ConstantLikeOp):
    """A constant tensor, such as a traced module's weight.

    ```mlir
    %w = torch.vtensor.literal(dense<[1.0, 2.0]> : tensor<2xf32>) : !torch.vtensor<[2],f32>
    ```
    """

    name = "torch.vtensor.literal"
    value = prop_def(DenseIntOrFPElementsAttr)
    result = result_def(ValueTensorType)
    traits = traits_def(Pure(), ConstantLike())
    assembly_format = "`(` $value `)` attr-dict `:` type($result)"

    def __init__(self, array: Any) -> None:
        dtype = dtype_of_numpy(array.dtype)
        data = BytesAttr(np.ascontiguousarray(array).tobytes())
        attr = DenseIntOrFPElementsAttr(TensorType(dtype.signless_attr, array.shape), data)
        result = ValueTensorType(list(array.shape), dtype)
        super().__init__(properties={"value": attr}, result_types=[result])

    def python_value(self) -> Any:
        """The tensor as a (fresh, writable) numpy array."""
        typ = self.value.type
        dtype = dtype_of_attr(typ.get_element_type())  # type: ignore[attr-defined]
        flat = np.frombuffer(self.value.data.data, dtype.numpy)
        return flat.reshape(typ.get_shape()).copy()  # type: ignore[attr-defined]

    def verify_(self) -> None:
        typ = self.value.type
        expected = ValueTensorType(list(typ.get_shape()), dtype_of_attr(typ.get_element_type()))  # type: ignore[attr-defined]
        if self.result.type != expected:
            raise VerifyException(
                f"torch.vtensor.literal: a value of type {typ} cannot have type {self.result.type}"
            )


@irdl_op_definition
class PrimListConstructOp(ConstantLikeOp):
    """A list from its elements: `torch.prim.ListConstruct %a, %b : (!torch.int, !torch.int) -> !torch.list<int>`."""

    name = "torch.prim.ListConstruct"
    elements = var_operand_def()
    result = result_def(ListType)
    traits = traits_def(Pure())
    assembly_format = "$elements attr-dict `:` functional-type($elements, $result)"

    def __init__(self, elements: list[SSAValue], element_type: Attribute) -> None:
        super().__init__(operands=[elements], result_types=[ListType(element_type)])

    def python_value(self) -> Any:
        """The list's Python value when every element is a constant, else Dynamic."""
        from dialects.torch.op_base import arg_value

        return [arg_value(e) for e in self.elements]

    def verify_(self) -> None:
        expected = self.result.type.element_type  # type: ignore[attr-defined]
        for e in self.elements:
            if isinstance(expected, ValueTensorType) and isinstance(
                e.type, ValueTensorType | NoneType
            ):  # a `Tensor?[]` (`x[:, index]` lists None for `:`)
                continue
            if e.type != expected:
                raise VerifyException(
                    f"torch.prim.ListConstruct: element of type {e.type} in a list of {expected}"
                )


@irdl_op_definition
class PrimTupleConstructOp(IRDLOperation):
    """A tuple from its elements (several return values)."""

    name = "torch.prim.TupleConstruct"
    elements = var_operand_def()
    result = result_def(TupleType)
    traits = traits_def(Pure())
    assembly_format = "$elements attr-dict `:` functional-type($elements, $result)"

    def __init__(self, elements: list[SSAValue]) -> None:
        super().__init__(operands=[elements], result_types=[TupleType([e.type for e in elements])])


@irdl_op_definition
class PrimTupleUnpackOp(IRDLOperation):
    """The elements of a tuple."""

    name = "torch.prim.TupleUnpack"
    tuple_ = operand_def(TupleType)
    results_ = var_result_def()
    traits = traits_def(Pure())
    assembly_format = "$tuple_ attr-dict `:` type($tuple_) `->` type($results_)"

    def __init__(self, value: SSAValue) -> None:
        assert isinstance(value.type, TupleType)
        super().__init__(operands=[value], result_types=[list(value.type.element_types.data)])


@irdl_op_definition
class PrimListUnpackOp(IRDLOperation):
    """The elements of a list whose length the program fixes: `a, b = x.chunk(2)`.

    ```mlir
    %l = torch.aten.chunk %x, %int2, %int0 : !torch.vtensor<[4,6],f32>, !torch.int, !torch.int -> !torch.list<vtensor<[2,6],f32>>
    %a, %b = torch.prim.ListUnpack %l : !torch.list<vtensor<[2,6],f32>> -> !torch.vtensor<[2,6],f32>, !torch.vtensor<[2,6],f32>
    ```
    Each result has the list's element type, or the exact type of that element when the
    list's producer knows it (`piece_types`, e.g. the short last piece of a chunk).
    """

    name = "torch.prim.ListUnpack"
    list_ = operand_def(ListType)
    results_ = var_result_def()
    traits = traits_def(Pure())
    assembly_format = "$list_ attr-dict `:` type($list_) `->` type($results_)"

    def __init__(self, value: SSAValue, count: int) -> None:
        assert isinstance(value.type, ListType)
        super().__init__(operands=[value], result_types=[[value.type.element_type] * count])

    def inferred_types(self) -> list[Attribute]:
        """One type per result, from the producer's `piece_types()` when it has them."""
        owner = self.list_.owner
        if isinstance(owner, PrimListConstructOp):
            pieces: list[Attribute] | None = [e.type for e in owner.elements]
        else:
            piece_types = getattr(owner, "piece_types", None)
            pieces = piece_types() if piece_types is not None else None
        if pieces is None:
            return [self.list_.type.element_type] * len(self.results_)  # type: ignore[attr-defined]
        if len(pieces) != len(self.results_):
            raise VerifyException(
                f"torch.prim.ListUnpack: cannot unpack a list of {len(pieces)} elements into "
                f"{len(self.results_)} values"
            )
        return pieces

    def verify_(self) -> None:
        self.inferred_types()


@irdl_op_definition
class PrimIfOp(IRDLOperation):
    """`if`/`else` with results, like TorchScript's prim::If.

    ```mlir
    %r = torch.prim.If %cond -> (!torch.vtensor<[?],f32>) {
      torch.prim.If.yield %x : !torch.vtensor<[?],f32>
    } else {
      torch.prim.If.yield %y : !torch.vtensor<[?],f32>
    }
    ```
    """

    name = "torch.prim.If"
    condition = operand_def(BoolType)
    results_ = var_result_def()
    then_region = region_def("single_block")
    else_region = region_def("single_block")
    traits = traits_def(RecursiveMemoryEffect())
    assembly_format = (
        "$condition attr-dict `->` `(` type($results_) `)` $then_region `else` $else_region"
    )

    def verify_(self) -> None:
        for region in (self.then_region, self.else_region):
            last = region.block.last_op
            if not isinstance(last, PrimIfYieldOp):
                raise VerifyException("torch.prim.If: each region must end in torch.prim.If.yield")
            got = [v.type for v in last.values]
            if len(got) != len(self.results_):
                raise VerifyException(
                    f"torch.prim.If: a branch yields {len(got)} values but the op has "
                    f"{len(self.results_)} results"
                )


@irdl_op_definition
class PrimIfYieldOp(IRDLOperation):
    """Ends a torch.prim.If branch with its values."""

    name = "torch.prim.If.yield"
    values = var_operand_def()
    traits = lazy_traits_def(lambda: (IsTerminator(), HasParent(PrimIfOp), Pure()))
    assembly_format = "attr-dict ($values^ `:` type($values))?"

    def __init__(self, values: list[SSAValue]) -> None:
        super().__init__(operands=[values])


@irdl_op_definition
class PrimLoopOp(IRDLOperation):
    """TorchScript's loop: at most `max_trip_count` iterations while the condition holds.

    The body takes `(%iter: !torch.int, %carried...)` and ends in
    `torch.prim.Loop.condition %continue, iter(%carried_next...)`.
    ```mlir
    %h = torch.prim.Loop %n, %true, init(%h0) {
    ^bb0(%i: !torch.int, %h: !torch.vtensor<[?,4],f32>):
      ...
      torch.prim.Loop.condition %true, iter(%h1 : !torch.vtensor<[?,4],f32>)
    } : (!torch.int, !torch.bool, !torch.vtensor<[?,4],f32>) -> !torch.vtensor<[?,4],f32>
    ```
    """

    name = "torch.prim.Loop"
    max_trip_count = operand_def(IntType)
    initial_condition = operand_def(BoolType)
    iter_args = var_operand_def()
    results_ = var_result_def()
    body = region_def("single_block")
    traits = traits_def(RecursiveMemoryEffect())
    assembly_format = (
        "$max_trip_count `,` $initial_condition `,` `init` `(` $iter_args `)` $body attr-dict "
        "`:` functional-type(operands, results)"
    )

    def verify_(self) -> None:
        args = self.body.block.args
        if len(args) != 1 + len(self.iter_args) or args[0].type != IntType():
            raise VerifyException(
                "torch.prim.Loop: the body takes the iteration number (!torch.int) and one "
                "argument per carried value"
            )
        if not isinstance(self.body.block.last_op, PrimLoopConditionOp):
            raise VerifyException("torch.prim.Loop: the body must end in torch.prim.Loop.condition")


@irdl_op_definition
class PrimLoopConditionOp(IRDLOperation):
    """Ends a torch.prim.Loop body: whether to go on, and the next carried values."""

    name = "torch.prim.Loop.condition"
    should_continue = operand_def(BoolType)
    iter_args = var_operand_def()
    traits = lazy_traits_def(lambda: (IsTerminator(), HasParent(PrimLoopOp), Pure()))
    assembly_format = (
        "$should_continue `,` `iter` `(` ($iter_args^ `:` type($iter_args))? `)` attr-dict"
    )

    def __init__(self, should_continue: SSAValue, values: list[SSAValue]) -> None:
        super().__init__(operands=[should_continue, values])


def constant_op_for(value: Any) -> Operation:
    """The torch.constant op holding a Python scalar or None."""
    if value is None:
        return ConstantNoneOp()
    if isinstance(value, bool):
        return ConstantBoolOp(value)
    if isinstance(value, int):
        return ConstantIntOp(value)
    if isinstance(value, float):
        return ConstantFloatOp(value)
    if isinstance(value, str):
        return ConstantStrOp(value)
    raise TypeError(f"no torch constant for {type(value).__name__} {value!r}")


@irdl_op_definition
class PrimListGetItemOp(IRDLOperation):
    """`parts[i]` of a list of tensors (`torch.split(x, [2, 4], 1)[1]`), TorchScript's
    aten::__getitem__.t for a constant index. Its type is the element's once the list's
    producer knows it (`piece_types`); `torch-canonicalize` replaces it by the element
    (of a `prim.ListConstruct`, or of a `prim.ListUnpack` of the producer's pieces).

    ```mlir
    %p = torch.aten.__getitem__.t %l, %int1 : !torch.list<vtensor<*,f32>>, !torch.int -> !torch.vtensor<*,f32>
    ```
    """

    name = "torch.aten.__getitem__.t"
    list_ = operand_def(ListType)
    index = operand_def(IntType)
    result = result_def()
    traits = traits_def(Pure())
    assembly_format = (
        "$list_ `,` $index attr-dict `:` type($list_) `,` type($index) `->` type($result)"
    )

    def __init__(self, value: SSAValue, index: SSAValue) -> None:
        assert isinstance(value.type, ListType)
        super().__init__(operands=[value, index], result_types=[value.type.element_type])

    def pieces(self) -> list[Attribute] | None:
        """The types of the list's elements when its producer knows how many there are."""
        owner = self.list_.owner
        if isinstance(owner, PrimListConstructOp):
            return [e.type for e in owner.elements]
        piece_types = getattr(owner, "piece_types", None)
        return piece_types() if piece_types is not None else None

    def position(self) -> int | None:
        """The index, wrapped when negative, if constant and inside the known list."""
        owner = self.index.owner
        pieces = self.pieces()
        if not isinstance(owner, ConstantIntOp) or pieces is None:
            return None
        index = owner.value.value.data
        if not -len(pieces) <= index < len(pieces):
            raise VerifyException(
                f"torch.aten.__getitem__.t: index {index} is out of range for a list of "
                f"{len(pieces)} tensors"
            )
        return index % len(pieces)

    def inferred_types(self) -> list[Attribute]:
        position, pieces = self.position(), self.pieces()
        if position is None or pieces is None:
            return [self.list_.type.element_type]  # type: ignore[attr-defined]
        return [pieces[position]]


RAISABLE = ("ValueError", "RuntimeError", "TypeError", "IndexError", "KeyError", "AssertionError",
            "NotImplementedError", "ZeroDivisionError", "OverflowError", "ArithmeticError",
            "LookupError", "Exception")  # fmt: skip
"""Python exceptions a compiled program raises as themselves; others raise RuntimeError."""


@irdl_op_definition
class PrimRaiseExceptionOp(IRDLOperation):
    """Raises `kind(message)` when reached, like TorchScript's prim::RaiseException (a script's
    `raise` or failed `assert` under a run-time condition). Not pure: never erased or moved.

    ```mlir
    torch.prim.RaiseException "ValueError" "expected a 2-D input"
    ```
    """

    name = "torch.prim.RaiseException"
    kind = prop_def(StringAttr)
    message = prop_def(StringAttr)
    assembly_format = "$kind $message attr-dict"

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(properties={"kind": StringAttr(kind), "message": StringAttr(message)})

    def verify_(self) -> None:
        if self.kind.data not in RAISABLE:
            raise VerifyException(f"torch.prim.RaiseException: cannot raise {self.kind.data}")


@irdl_op_definition
class PrimPythonCallOp(IRDLOperation):
    """A call that stays Python (`@frontend.ignore`): compiled code stops before it, Python
    calls the function registered under `callee`, and compiled code resumes with its results.

    ```mlir
    %r = torch.prim.PythonCall "debug_stats#1" (%x) : (!torch.vtensor<*,unk>) -> !torch.vtensor<*,unk>
    ```
    Not pure: it is never erased, moved or merged.
    """

    name = "torch.prim.PythonCall"
    callee = prop_def(StringAttr)
    args = var_operand_def()
    results_ = var_result_def()
    assembly_format = "$callee `(` $args `)` attr-dict `:` functional-type($args, $results_)"

    def __init__(self, callee: str, args: list[SSAValue], result_types: list[Attribute]) -> None:
        super().__init__(
            operands=[args], result_types=[result_types], properties={"callee": StringAttr(callee)}
        )


def raise_if(condition: SSAValue, kind: str, message: str) -> PrimIfOp:
    """`torch.prim.If %condition` whose true branch raises `kind(message)` at run time (a check
    a lowering or a decomposition adds where torch would raise)."""
    raising = Block()
    raising.add_ops([PrimRaiseExceptionOp(kind, message), PrimIfYieldOp([])])
    passing = Block()
    passing.add_op(PrimIfYieldOp([]))
    return PrimIfOp(
        operands=[condition], result_types=[[]], regions=[Region(raising), Region(passing)]
    )


OPS = (
    ConstantIntOp,
    ConstantFloatOp,
    ConstantBoolOp,
    ConstantStrOp,
    ConstantNoneOp,
    ValueTensorLiteralOp,
    PrimListConstructOp,
    PrimTupleConstructOp,
    PrimTupleUnpackOp,
    PrimListUnpackOp,
    PrimListGetItemOp,
    PrimIfOp,
    PrimIfYieldOp,
    PrimLoopOp,
    PrimLoopConditionOp,
    PrimRaiseExceptionOp,
    PrimPythonCallOp,
)
