"""Abstract argument values shared by shape rules, the eager runner and type refinement.

A shape rule sees each schema argument as a `TensorMeta` (for tensors: shape with -1 for an
unknown dim, or None for an unknown rank, and dtype or None), a Python value (for a scalar,
list or None known at compile time) or a `Dynamic` (a scalar only known at run time).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from xdsl.ir import Attribute

from dialects.torch.dtypes import DType, dtype_of_numpy
from dialects.torch.types import DYN, ValueTensorType, scalar_kind


@dataclass(frozen=True)
class TensorMeta:
    """What is known about a tensor before it runs."""

    shape: tuple[int, ...] | None
    dtype: DType | None

    @property
    def rank(self) -> int | None:
        return None if self.shape is None else len(self.shape)

    def to_type(self) -> ValueTensorType:
        return ValueTensorType(self.shape, self.dtype)

    @staticmethod
    def of_type(t: ValueTensorType) -> TensorMeta:
        return TensorMeta(t.sizes, t.element)

    @staticmethod
    def of_array(a: np.ndarray) -> TensorMeta:  # type: ignore[type-arg]
        return TensorMeta(tuple(a.shape), dtype_of_numpy(a.dtype))


@dataclass(frozen=True)
class Dynamic:
    """A scalar argument whose value is only known at run time: `kind` is int/float/bool."""

    kind: str


def kind_of_value(value: object) -> str | None:
    """'int', 'float' or 'bool' for a Python or Dynamic scalar, else None."""
    if isinstance(value, Dynamic):
        return value.kind
    if isinstance(value, bool | np.bool_):
        return "bool"
    if isinstance(value, int | np.integer):
        return "int"
    if isinstance(value, float | np.floating):
        return "float"
    return None


def kind_of_type(attr: Attribute) -> str | None:
    """The scalar kind of a torch scalar type, or of the builtin type it lowers to (i64/f64/i1):
    torch-to-linalg reads the kinds of operands that it has already lowered."""
    from xdsl.dialects.builtin import f64, i1, i64

    return scalar_kind(attr) or {i64: "int", f64: "float", i1: "bool"}.get(attr)  # type: ignore[call-overload]


# ---- broadcasting ----


class ShapeError(ValueError):
    """Shapes that torch would reject (broadcast mismatch, dim out of range)."""


def broadcast_shapes(shapes: Sequence[tuple[int, ...] | None]) -> tuple[int, ...] | None:
    """torch broadcasting over known ranks; -1 (`?`) dims combine with any size."""
    if any(s is None for s in shapes):
        return None
    rank = max((len(s) for s in shapes if s is not None), default=0)
    out: list[int] = []
    for axis in range(rank):
        sizes = [
            s[len(s) - rank + axis] for s in shapes if s is not None and len(s) - rank + axis >= 0
        ]
        out.append(_broadcast_dim(sizes, shapes))
    return tuple(out)


def _broadcast_dim(sizes: list[int], shapes: object) -> int:
    known = {d for d in sizes if d not in (1, DYN)}
    if len(known) > 1:
        raise ShapeError(f"shapes {_fmt(shapes)} cannot be broadcast together")
    if known:
        return known.pop()
    return DYN if DYN in sizes else 1


def _fmt(shapes: object) -> str:
    return ", ".join(
        "[" + ",".join("?" if d == DYN else str(d) for d in s) + "]"
        for s in shapes  # type: ignore[attr-defined]
    )


def normalize_dim(dim: int, rank: int) -> int:
    """A dim index in [-rank, rank) made non-negative; ShapeError otherwise (torch wording)."""
    lo, hi = -max(rank, 1), max(rank, 1) - 1
    if not lo <= dim <= hi:
        raise ShapeError(
            f"Dimension out of range (expected to be in range of [{lo}, {hi}], but got {dim})"
        )
    return dim % max(rank, 1)
