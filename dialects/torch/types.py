"""Types of the torch dialect, spelled as in torch-mlir: !torch.vtensor<[2,?],f32>, !torch.int."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import ArrayAttr, IntAttr, NoneAttr
from xdsl.ir import Attribute, ParametrizedAttribute, TypeAttribute
from xdsl.irdl import irdl_attr_definition
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from dialects.torch.dtypes import ALL_DTYPES, DType, dtype_of_attr

DYN = -1  # an unknown dimension, printed `?`


@irdl_attr_definition
class ValueTensorType(ParametrizedAttribute, TypeAttribute):
    """A tensor with value semantics: `!torch.vtensor<[3,?],f32>`, `<*,f32>`, `<[2],unk>`.

    `shape` is an ArrayAttr of sizes (-1 = `?`) or NoneAttr for an unknown rank (`*`);
    `dtype` is a torch element type (f32, f64, si64, si32, i1) or NoneAttr for `unk`.
    """

    name = "torch.vtensor"
    shape: Attribute
    dtype: Attribute

    def __init__(self, shape: Sequence[int] | None, dtype: DType | Attribute | None) -> None:
        shape_attr = NoneAttr() if shape is None else ArrayAttr([IntAttr(d) for d in shape])
        if isinstance(dtype, DType):
            dtype = dtype.torch_attr
        super().__init__(shape_attr, NoneAttr() if dtype is None else dtype)

    @property
    def sizes(self) -> tuple[int, ...] | None:
        """The dims (-1 for `?`), or None when the rank is unknown."""
        if isinstance(self.shape, NoneAttr):
            return None
        assert isinstance(self.shape, ArrayAttr)
        return tuple(d.data for d in self.shape.data)  # type: ignore[union-attr]

    @property
    def rank(self) -> int | None:
        sizes = self.sizes
        return None if sizes is None else len(sizes)

    @property
    def element(self) -> DType | None:
        """The element DType, or None when it is `unk`."""
        return None if isinstance(self.dtype, NoneAttr) else dtype_of_attr(self.dtype)

    @property
    def is_fully_known(self) -> bool:
        return self.sizes is not None and self.element is not None

    def verify(self) -> None:
        if not isinstance(self.shape, NoneAttr | ArrayAttr):
            raise VerifyException(f"!torch.vtensor shape must be a list or `*`, got {self.shape}")
        for d in self.sizes or ():
            if d < DYN:
                raise VerifyException(f"!torch.vtensor has a negative dimension {d}")
        allowed = {d.torch_attr for d in ALL_DTYPES}
        if not isinstance(self.dtype, NoneAttr) and self.dtype not in allowed:
            raise VerifyException(f"!torch.vtensor has unsupported element type {self.dtype}")

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> list[Attribute]:
        with parser.in_angle_brackets():
            if parser.parse_optional_punctuation("*"):
                shape: Attribute = NoneAttr()
            else:
                dims = parser.parse_comma_separated_list(
                    parser.Delimiter.SQUARE, lambda: _parse_dim(parser)
                )
                shape = ArrayAttr(dims)
            parser.parse_punctuation(",")
            dtype: Attribute = (
                NoneAttr() if parser.parse_optional_keyword("unk") else (parser.parse_type())
            )
        return [shape, dtype]

    def print_parameters(self, printer: Printer) -> None:
        sizes = self.sizes
        shape = (
            "*"
            if sizes is None
            else "[" + ",".join("?" if d == DYN else str(d) for d in sizes) + "]"
        )
        printer.print_string(f"<{shape},")
        if isinstance(self.dtype, NoneAttr):
            printer.print_string("unk")
        else:
            printer.print_attribute(self.dtype)
        printer.print_string(">")


def _parse_dim(parser: AttrParser) -> IntAttr:
    if parser.parse_optional_punctuation("?"):
        return IntAttr(DYN)
    return IntAttr(parser.parse_integer(allow_boolean=False, allow_negative=False))


@irdl_attr_definition
class IntType(ParametrizedAttribute, TypeAttribute):
    """A Python int (64-bit): `!torch.int`."""

    name = "torch.int"


@irdl_attr_definition
class FloatType(ParametrizedAttribute, TypeAttribute):
    """A Python float (64-bit): `!torch.float`."""

    name = "torch.float"


@irdl_attr_definition
class BoolType(ParametrizedAttribute, TypeAttribute):
    """A Python bool: `!torch.bool`."""

    name = "torch.bool"


@irdl_attr_definition
class StrType(ParametrizedAttribute, TypeAttribute):
    """A Python str, for string-valued arguments (`approximate="tanh"`): `!torch.str`."""

    name = "torch.str"


@irdl_attr_definition
class NoneType(ParametrizedAttribute, TypeAttribute):
    """Python None, for absent optional arguments: `!torch.none`."""

    name = "torch.none"


@irdl_attr_definition
class ListType(ParametrizedAttribute, TypeAttribute):
    """A list of one element type: `!torch.list<int>`, `!torch.list<vtensor>`."""

    name = "torch.list"
    element_type: Attribute

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> list[Attribute]:
        with parser.in_angle_brackets():
            return [_parse_short_type(parser)]

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string("<")
        _print_short_type(printer, self.element_type)
        printer.print_string(">")


@irdl_attr_definition
class TupleType(ParametrizedAttribute, TypeAttribute):
    """A fixed-size tuple: `!torch.tuple<vtensor<[2],f32>, int>`."""

    name = "torch.tuple"
    element_types: ArrayAttr[Attribute]

    def __init__(self, types: Sequence[Attribute]) -> None:
        super().__init__(ArrayAttr(types))

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> list[Attribute]:
        types = parser.parse_comma_separated_list(
            parser.Delimiter.ANGLE, lambda: _parse_short_type(parser)
        )
        return [ArrayAttr(types)]

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string("<")
        printer.print_list(self.element_types.data, lambda t: _print_short_type(printer, t))
        printer.print_string(">")


# Inside list<> and tuple<> torch-mlir drops the `!torch.` prefix: `!torch.list<int>`.
_SHORT_TYPES: dict[str, type[ParametrizedAttribute]] = {
    "int": IntType,
    "float": FloatType,
    "bool": BoolType,
    "none": NoneType,
    "str": StrType,
}


def _parse_short_type(parser: AttrParser) -> Attribute:
    for keyword, cls in _SHORT_TYPES.items():
        if parser.parse_optional_keyword(keyword):
            return cls()
    if parser.parse_optional_keyword("vtensor"):
        return ValueTensorType.new(ValueTensorType.parse_parameters(parser))
    if parser.parse_optional_keyword("list"):
        return ListType.new(ListType.parse_parameters(parser))
    if parser.parse_optional_keyword("tuple"):
        return TupleType.new(TupleType.parse_parameters(parser))
    return parser.parse_type()


def _print_short_type(printer: Printer, attr: Attribute) -> None:
    if isinstance(attr, (*_SHORT_TYPES.values(), ValueTensorType, ListType, TupleType)):
        printer.print_string(attr.name.removeprefix("torch."))
        attr.print_parameters(printer)
        return
    printer.print_attribute(attr)


SCALAR_TYPES = (IntType, FloatType, BoolType)
ALL_TYPES = (
    ValueTensorType, IntType, FloatType, BoolType, NoneType, StrType, ListType, TupleType,
)  # fmt: skip


def scalar_kind(attr: Attribute) -> str | None:
    """'int', 'float' or 'bool' for a torch scalar type, else None."""
    return {IntType: "int", FloatType: "float", BoolType: "bool"}.get(type(attr))  # type: ignore[arg-type]
