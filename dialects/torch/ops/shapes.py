"""Shape rules shared by the data movement ops: size lists, view / reshape sizes, expand rules.

A size list argument (`int[] size`) reaches a shape rule as a Python list whose elements are
ints or `Dynamic("int")` (sizes only known at run time, such as `x.size(0)`); a list that is
itself only known at run time cannot fix the result's rank and is rejected, but for the
sizes of a tensor whose rank is not known while scripting (`unknown_length`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from dialects.torch.meta import Dynamic, ShapeError
from dialects.torch.types import DYN

SizeList = list[int | Dynamic]


def size_list(op_name: str, arg_name: str, value: Any) -> SizeList:
    """The elements of an `int[]` argument; an int alone is a one-element list."""
    if isinstance(value, int) and not isinstance(value, bool):
        return [value]
    if not isinstance(value, list | tuple):
        raise TypeError(f"{op_name}: `{arg_name}` must be a list of ints with a known length")
    for element in value:
        if not (isinstance(element, Dynamic) and element.kind == "int") and not isinstance(
            element, int
        ):
            raise TypeError(f"{op_name}: `{arg_name}` must hold ints, got {element!r}")
    return list(value)


def unknown_length(value: Any) -> bool:
    """An `int[]` whose length is not known yet: `torch.aten.size` of a tensor whose rank is
    not known while scripting (`y.reshape(x.shape)`); the result's rank is then unknown until
    `torch-refine-types` expands that list for a call's argument types."""
    return isinstance(value, Dynamic) and value.kind == "list[int]"


def static_dims(sizes: SizeList) -> tuple[int, ...]:
    """Sizes as result dims: runtime sizes become `?`."""
    return tuple(DYN if isinstance(d, Dynamic) else d for d in sizes)


def numel(shape: Sequence[int]) -> int | None:
    """The element count, or None when a dim is `?`."""
    if DYN in shape:
        return None
    count = 1
    for d in shape:
        count *= d
    return count


def view_shape(source: tuple[int, ...], sizes: SizeList) -> tuple[int, ...]:
    """The result dims of `view` / `reshape` (torch's `infer_size`): one -1 takes the rest."""
    shown = [d if isinstance(d, int) else "?" for d in sizes]
    inferred = [i for i, d in enumerate(sizes) if d == -1]
    if len(inferred) > 1:
        raise ShapeError("only one dimension can be inferred")
    for i, d in enumerate(sizes):
        if isinstance(d, int) and d < -1:
            raise ShapeError(f"invalid shape dimension {d} at index {i} of shape {shown}")
    dims = list(static_dims(sizes))
    total = numel(source)
    others = numel([d for i, d in enumerate(dims) if i not in inferred])
    if inferred:
        if others == 0:
            raise ShapeError(
                f"cannot reshape tensor of 0 elements into shape {shown} because the "
                "unspecified dimension size -1 can be any value and is ambiguous"
            )
        if total is not None and others is not None:
            if total % others:
                raise ShapeError(f"shape '{shown}' is invalid for input of size {total}")
            dims[inferred[0]] = total // others
        else:
            dims[inferred[0]] = DYN
    elif total is not None and others is not None and total != others:
        raise ShapeError(f"shape '{shown}' is invalid for input of size {total}")
    return tuple(dims)


def expand_shape(source: tuple[int, ...], sizes: SizeList) -> tuple[int, ...]:
    """The result dims of `expand`: -1 keeps a dim, size-1 dims (and new leading dims) grow.

    A `?` source dim is taken to be larger than 1 (a size-1 dim is static in a specialized
    signature), so it must keep its size.
    """
    shown = [d if isinstance(d, int) else "?" for d in sizes]
    if len(sizes) < len(source):
        raise ShapeError(
            f"expand(size={shown}): the number of sizes provided ({len(sizes)}) must be greater "
            f"or equal to the number of dimensions in the tensor ({len(source)})"
        )
    offset = len(sizes) - len(source)
    out: list[int] = []
    for i in reversed(range(len(sizes))):  # torch reports the last mismatch first
        target = sizes[i]
        if i < offset:
            if target == -1:
                raise ShapeError(
                    f"The expanded size of the tensor (-1) isn't allowed in a leading, "
                    f"non-existing dimension {i}"
                )
            out.append(DYN if isinstance(target, Dynamic) else target)
            continue
        have = source[i - offset]
        if target == -1:
            out.append(have)
        elif isinstance(target, Dynamic):
            out.append(DYN if have == 1 else have)
        elif have in (1, target, DYN):
            out.append(target)
        else:
            raise ShapeError(
                f"The expanded size of the tensor ({target}) must match the existing size "
                f"({have}) at non-singleton dimension {i}.  Target sizes: {shown}.  "
                f"Tensor sizes: {list(source)}"
            )
    return tuple(reversed(out))
