"""The base of every torch op: schema, spellings, eager reference, shape rule, samples, syntax.

Concrete ops declare these hooks once (docs/design.md, "The op declaration"); the frontend,
the eager namespace, type refinement, the lowerings and the generated tests all read them from
here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, TypeVar

import numpy as np
from xdsl.dialects.builtin import DYNAMIC_INDEX, NoneAttr, TensorType
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import IRDLOperation, irdl_op_definition, traits_def
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from dialects.torch.dtypes import dtype_of_attr
from dialects.torch.meta import Dynamic, ShapeError, TensorMeta, kind_of_type
from dialects.torch.schema import Schema, parse_schema
from dialects.torch.types import DYN, IntType, ListType, ValueTensorType

# ---- sample inputs for generated tests ----


@dataclass(frozen=True)
class T:
    """A sample tensor argument: its shape and dtype name (random values, or `values`)."""

    shape: tuple[int, ...]
    dtype: str = "float32"
    low: float = -2.0
    high: float = 2.0


@dataclass(frozen=True)
class Sample:
    """One sample call: positional arguments in schema order (tensors as `T`), plus kwargs."""

    args: tuple[Any, ...]
    kwargs: dict[str, Any] = field(default_factory=dict[str, Any])

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        object.__setattr__(self, "args", args)
        object.__setattr__(self, "kwargs", kwargs)

    def make_inputs(self, rng: np.random.Generator) -> tuple[list[Any], dict[str, Any]]:
        """Concrete numpy arrays and Python values for this sample."""

        def make(a: Any) -> Any:
            if not isinstance(a, T):
                return a
            values = rng.uniform(a.low, a.high, size=a.shape)
            if a.dtype == "bool":
                return values > 0
            return values.astype(a.dtype)

        return [make(a) for a in self.args], dict(self.kwargs)


# ---- constants: ops whose result is a known Python value ----


class ConstantLikeOp(IRDLOperation):
    """An op whose single result has a compile-time Python value (constants, int lists)."""

    def python_value(self) -> Any:
        raise NotImplementedError


def arg_value(value: SSAValue) -> Any:
    """How a shape rule sees an IR value: TensorMeta, a Python constant, or Dynamic."""
    typ = value.type
    if isinstance(typ, ValueTensorType):
        return TensorMeta.of_type(typ)
    if isinstance(typ, TensorType):  # already lowered: builtin tensor<?x4xf32>
        shape = tuple(DYN if d == DYNAMIC_INDEX else d for d in typ.get_shape())
        return TensorMeta(shape, dtype_of_attr(typ.element_type))
    if isinstance(value.owner, ConstantLikeOp):
        return value.owner.python_value()
    if isinstance(typ, ListType) and typ.element_type == IntType():
        return Dynamic("list[int]")  # sizes of a rank not known yet (`torch.aten.size`)
    kind = kind_of_type(typ)
    return Dynamic(kind or "unknown")


# ---- the op base ----

OpT = TypeVar("OpT", bound=type[IRDLOperation])


def torch_op(cls: OpT) -> OpT:
    """`irdl_op_definition` that accepts the op hooks (UPPER_CASE class constants) unannotated.

    IRDL requires class constants to be annotated `ClassVar`; declaring that on every op and
    mixin would double each hook line, so it is added here for the whole MRO. An upper case
    schema argument (`vander`'s `N`, `linalg_solve`'s `A`) is an operand, not a hook.
    """
    schema = getattr(cls, "SCHEMA", None)
    operands = {a.name for a in parse_schema(schema).arguments} if schema else set()
    for klass in cls.mro():
        if klass in IRDLOperation.mro():
            continue
        upper = [
            n for n in vars(klass) if n.isupper() and not n.startswith("_") and n not in operands
        ]
        if upper:
            annotations = dict(vars(klass).get("__annotations__", {}))
            for n in upper:
                annotations.setdefault(n, ClassVar)
            klass.__annotations__ = annotations
    return irdl_op_definition(cls)


class TorchOp(IRDLOperation):
    """An ATen op with value semantics. Subclasses declare the hooks below (docs/design.md)."""

    traits = traits_def(Pure())
    SCHEMA: ClassVar[str]  # "aten::tanh(Tensor self) -> Tensor"
    PY_NAMES: ClassVar[tuple[str, ...]] = ()  # "torch.tanh", "Tensor.tanh", "np.tanh", ...
    SAMPLES: ClassVar[tuple[Sample, ...]] = ()  # inputs for the generated numerics tests
    XFAIL_STAGES: ClassVar[dict[str, str]] = {}  # stage name -> why it does not work yet

    @classmethod
    def parsed_schema(cls) -> Schema:
        return parse_schema(cls.SCHEMA)

    # ---- semantics hooks ----

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        """Result types from argument values (TensorMeta / Python value / Dynamic).

        Raises ShapeError (or TypeError) for arguments torch would reject.
        """
        raise NotImplementedError(f"{cls.name} declares no shape rule")

    @staticmethod
    def eager(*args: Any) -> Any:
        """The numpy reference implementation, arguments in schema order."""
        raise NotImplementedError

    @classmethod
    def run_eager(cls, *args: Any) -> Any:
        """Run `eager` and give each result the dtype that `infer` promises (torch semantics)."""
        metas = [_meta_of(a) for a in args]
        types = cls.infer(*metas)
        with np.errstate(all="ignore"):  # like PyTorch: inf - inf is nan, without a warning
            out = cls.eager(*args)
        results = out if isinstance(out, tuple) else (out,)
        cast = tuple(_cast_result(r, t) for r, t in zip(results, types, strict=True))
        return cast if isinstance(out, tuple) else cast[0]

    # ---- optimization hooks (read by torch-canonicalize and torch-decompose) ----

    def fold(self) -> Sequence[Any] | None:
        """Simpler values for this op's results, or None to keep the op.

        One entry per result: an existing SSA value whose type admits the result's, or a
        Python scalar that becomes a `torch.constant.*`. An op may instead update its own
        operands in place and return its own results (e.g. reshape of a reshape).
        """
        return None

    def decompose(self) -> Sequence[Operation] | None:
        """New ops computing this op from core ops (the last op's results replace it), or None."""
        return None

    # ---- IR helpers ----

    def arg_values(self) -> list[Any]:
        return [arg_value(v) for v in self.operands]

    def infer_result_types(self) -> list[Attribute]:
        try:
            return self.infer(*self.arg_values())
        except (ShapeError, TypeError) as err:
            raise VerifyException(f"{self.name}: {err}") from err

    @classmethod
    def build(cls, operands: Sequence[SSAValue]) -> TorchOp:
        """Create the op with result types from its shape rule."""
        metas = [arg_value(v) for v in operands]
        return cls.create(operands=list(operands), result_types=cls.infer(*metas))

    def verify_(self) -> None:
        inferred = self.infer_result_types()
        for index, (declared, expected) in enumerate(zip(self.result_types, inferred, strict=True)):
            if not types_compatible(declared, expected):
                raise VerifyException(
                    f"{self.name}: result #{index} has type {declared}, but the operands give "
                    f"{expected}"
                )

    # ---- syntax: `%r = torch.aten.add.Tensor %a, %b, %c : T1, T2, T3 -> R` ----

    def print(self, printer: Printer) -> None:
        if self.operands:
            printer.print_string(" ")
            printer.print_list(self.operands, printer.print_operand)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_list([v.type for v in self.operands], printer.print_attribute)
        printer.print_string(" -> ")
        printer.print_list(self.result_types, printer.print_attribute)

    @classmethod
    def parse(cls, parser: Parser) -> TorchOp:
        pos = parser.pos
        operands: list[UnresolvedOperand] = (
            parser.parse_optional_undelimited_comma_separated_list(
                parser.parse_optional_unresolved_operand, parser.parse_unresolved_operand
            )
            or []
        )
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        types: list[Attribute] = []
        if not parser.parse_optional_punctuation("->"):
            types = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)
            parser.parse_punctuation("->")
        results = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)
        resolved = parser.resolve_operands(operands, types, pos)
        return cls.create(operands=list(resolved), result_types=results, attributes=attributes)


def types_compatible(a: Attribute, b: Attribute) -> bool:
    """Whether two types can describe the same value (unknown parts match anything)."""
    if not (isinstance(a, ValueTensorType) and isinstance(b, ValueTensorType)):
        return a == b
    if not (isinstance(a.dtype, NoneAttr) or isinstance(b.dtype, NoneAttr) or a.dtype == b.dtype):
        return False
    sa, sb = a.sizes, b.sizes
    if sa is None or sb is None:
        return True
    return len(sa) == len(sb) and all(x == y or DYN in (x, y) for x, y in zip(sa, sb))


def _meta_of(value: Any) -> Any:
    """How a shape rule sees an eager argument: arrays (also in lists) as TensorMeta."""
    if isinstance(value, np.ndarray):
        return TensorMeta.of_array(value)
    if isinstance(value, list) and any(isinstance(v, np.ndarray) for v in value):
        return [_meta_of(v) for v in value]
    return value


def _cast_result(result: Any, typ: Attribute) -> Any:
    if isinstance(typ, ValueTensorType) and typ.element is not None:
        return np.asarray(result, dtype=typ.element.numpy)
    return result
