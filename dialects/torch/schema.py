"""Parsed ATen schema strings: the argument names, types and defaults that every op declares."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from functools import cache

NO_DEFAULT = object()  # marks a required argument


@dataclass(frozen=True)
class Argument:
    """One schema argument: `int[1]? dim=None` is name 'dim', type 'int[]', optional, None."""

    name: str
    type: str  # base type without `?` and with list sizes dropped: Tensor, Scalar, int, int[], ...
    optional: bool
    default: object
    kwarg_only: bool

    @property
    def is_tensor(self) -> bool:
        return self.type == "Tensor"

    @property
    def has_default(self) -> bool:
        return self.default is not NO_DEFAULT

    @property
    def field_name(self) -> str:
        """The IRDL operand name: Python reserves `self`, so it becomes `self_`."""
        return "self_" if self.name == "self" else self.name


@dataclass(frozen=True)
class Schema:
    """`aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor`, parsed."""

    namespace: str
    name: str
    overload: str
    arguments: tuple[Argument, ...]
    returns: tuple[str, ...]

    @property
    def qualified_name(self) -> str:
        """`aten.add.Tensor`: the IR op name without the `torch.` prefix."""
        suffix = f".{self.overload}" if self.overload else ""
        return f"{self.namespace}.{self.name}{suffix}"


_SCHEMA = re.compile(r"^(\w+)::([\w]+)(?:\.(\w+))?\((.*)\)\s*->\s*(.+)$")


@cache
def parse_schema(text: str) -> Schema:
    """Parse a schema string; ValueError with the text on malformed input."""
    match = _SCHEMA.match(text.strip())
    if match is None:
        raise ValueError(f"malformed schema: {text!r}")
    namespace, name, overload, args_text, returns_text = match.groups()
    arguments: list[Argument] = []
    kwarg_only = False
    for piece in _split_top_level(args_text):
        if piece == "*":
            kwarg_only = True
            continue
        arguments.append(_parse_argument(piece, kwarg_only, text))
    returns = tuple(r.split()[0] for r in _split_top_level(returns_text.strip("() ")))
    return Schema(namespace, name, overload or "", tuple(arguments), returns)


def _parse_argument(piece: str, kwarg_only: bool, text: str) -> Argument:
    declaration, _, default_text = piece.partition("=")
    parts = declaration.split()
    if len(parts) != 2:
        raise ValueError(f"malformed argument {piece!r} in schema {text!r}")
    type_text, name = parts
    optional = type_text.endswith("?")
    base = re.sub(r"\[\d+\]", "[]", type_text.rstrip("?"))
    default = ast.literal_eval(default_text.strip()) if default_text else NO_DEFAULT
    return Argument(name, base, optional, default, kwarg_only)


def _split_top_level(text: str) -> list[str]:
    """Split on commas outside brackets: `int[2] a=[1, 1], bool b` -> two pieces."""
    pieces: list[str] = []
    depth = 0
    current = ""
    for ch in text:
        depth += ch in "[("
        depth -= ch in "])"
        if ch == "," and depth == 0:
            pieces.append(current.strip())
            current = ""
        else:
            current += ch
    if current.strip():
        pieces.append(current.strip())
    return pieces
