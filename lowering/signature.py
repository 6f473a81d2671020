"""Call signatures as text: `f32[?,4],f32[1,4],int` <-> torch types, for `torch-refine-types`."""

from __future__ import annotations

import re

from xdsl.ir import Attribute

from dialects.torch.dtypes import dtype_of_name
from dialects.torch.types import (
    DYN,
    BoolType,
    FloatType,
    IntType,
    NoneType,
    ValueTensorType,
)

_SCALARS: dict[str, Attribute] = {
    "int": IntType(),
    "float": FloatType(),
    "bool": BoolType(),
    "none": NoneType(),
}
_TENSOR = re.compile(r"^(\w+)\[([^\]]*)\]$")


def parse_signature(text: str) -> list[Attribute]:
    """`f32[?,4],int` -> [!torch.vtensor<[?,4],f32>, !torch.int]; ValueError names a bad entry."""
    return [_parse_entry(entry) for entry in _split(text)]


def format_signature(types: list[Attribute]) -> str:
    return ",".join(_format_entry(t) for t in types)


def _split(text: str) -> list[str]:
    entries: list[str] = []
    depth, current = 0, ""
    for ch in text.replace(" ", ""):
        depth += ch == "["
        depth -= ch == "]"
        if ch == "," and depth == 0:
            entries.append(current)
            current = ""
        else:
            current += ch
    return entries + ([current] if current else [])


def _parse_entry(entry: str) -> Attribute:
    if entry in _SCALARS:
        return _SCALARS[entry]
    match = _TENSOR.match(entry)
    if match is None:
        raise ValueError(
            f"bad signature entry {entry!r}: expected e.g. f32[?,4], si64[], int, float or bool"
        )
    dtype_name, dims_text = match.groups()
    try:
        dtype = dtype_of_name(dtype_name)
    except TypeError as err:
        raise ValueError(f"bad signature entry {entry!r}: {err}") from None
    dims = [DYN if d == "?" else int(d) for d in dims_text.split(",") if d]
    return ValueTensorType(dims, dtype)


def _format_entry(t: Attribute) -> str:
    if isinstance(t, ValueTensorType):
        dims = ",".join("?" if d == DYN else str(d) for d in t.sizes or ())
        return f"{t.dtype}[{dims}]"
    for name, attr in _SCALARS.items():
        if attr == t:
            return name
    raise ValueError(f"no signature spelling for {t}")
