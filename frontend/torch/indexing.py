"""`x[key]` as registry ops, like the script frontend spells it: an int is `aten.select.int`, a
slice `aten.slice.Tensor`, `None` `aten.unsqueeze`, `...` skips dims; an integer index tensor
(or list of ints) per dim it indexes, or a bool mask over one or more dims, are one
`aten.index.Tensor` (picked after the other items, as in PyTorch)."""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from dialects.torch.registry import BY_NAME, BY_PY_NAME
from frontend.torch.dispatch import dispatch
from frontend.torch.tensor import Tensor

SELECT = (BY_NAME["torch.aten.select.int"],)
SLICE = (BY_NAME["torch.aten.slice.Tensor"],)
INDEX = (BY_NAME["torch.aten.index.Tensor"],)


def index(tensor: Tensor, key: Any) -> Tensor:
    """PyTorch indexing by ints, slices, None, `...` and integer index tensors (applied last,
    together, so ints after them still select first); IndexError with torch's wording for
    bad keys."""
    items = list(key) if isinstance(key, tuple) else [key]
    ellipses = [i for i, item in enumerate(items) if item is Ellipsis]
    if len(ellipses) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    consumed = sum(
        _span(item) if _is_index_tensor(item) else 1
        for item in items
        if item is not None and item is not Ellipsis
    )
    if consumed > tensor.ndim:
        raise IndexError(f"too many indices for tensor of dimension {tensor.ndim} (got {consumed})")
    tensors = [i for i, item in enumerate(items) if _is_index_tensor(item)]
    split = ellipses[0] if ellipses else len(items)
    value, dim, picked = tensor, 0, {}
    for i in range(split):
        if i in tensors:
            picked[i] = dim
        value, kept = _index_one(value, items[i], dim)
        dim += kept
    kept_after = 0  # after `...`, dims count from the end, rightmost first
    for i in reversed(range(split + 1, len(items))):
        if i in tensors:
            picked[i] = -(kept_after + _span(items[i]))
        value, kept = _index_one(value, items[i], -(kept_after + 1))
        kept_after += kept
    if not picked:
        return value
    return _index_by_tensors(value, [(items[i], dim) for i, dim in picked.items()])


def _is_index_tensor(item: Any) -> bool:
    """An index tensor (any rank above 0) or a bool mask (a 0-d one too: `x[t]` of a 0-d bool
    `t` adds a dim of size 1 or 0)."""
    if not isinstance(item, Tensor | np.ndarray | list):
        return False
    values = _values(item)
    return values.ndim > 0 or values.dtype == np.bool_


def _index_one(value: Tensor, item: Any, dim: int) -> tuple[Tensor, int]:
    """Apply one index item at `dim`; also return how many dims it keeps (0 or 1). An index
    tensor keeps its dim here (`_index_select` applies it last)."""
    if isinstance(item, slice):
        return _slice(value, item, dim), 1
    if item is None:
        return _unsqueeze(value, dim), 1
    if _is_index_tensor(item):
        return value, _span(item)
    try:
        position = operator.index(item)
    except TypeError:
        raise IndexError(
            "only integers, slices (`:`), ellipsis (`...`), None and integer tensors are valid "
            f"indices (got {type(item).__name__})"
        ) from None
    size = value.shape[dim]
    if not -size <= position < size:
        raise IndexError(
            f"index {position} is out of bounds for dimension {dim % value.ndim} with size {size}"
        )
    return dispatch(SELECT, (value, dim, position), {}), 0


def _span(item: Any) -> int:
    """How many dims an index tensor indexes: a bool mask its rank, an integer index one."""
    values = _values(item)
    return values.ndim if values.dtype == np.bool_ else 1


def _slice(value: Tensor, item: slice, dim: int) -> Tensor:
    if item == slice(None):
        return value
    step = 1 if item.step is None else operator.index(item.step)
    if step <= 0:
        raise ValueError("step must be greater than zero")
    bounds = [None if b is None else operator.index(b) for b in (item.start, item.stop)]
    return dispatch(SLICE, (value, dim, *bounds, step), {})


def _unsqueeze(value: Tensor, dim: int) -> Tensor:
    candidates = BY_PY_NAME.get("Tensor.unsqueeze")
    if candidates is None:
        raise NotImplementedError("indexing with None needs the unsqueeze op (not registered)")
    return dispatch(candidates, (value, dim), {})


def _index_by_tensors(value: Tensor, picked: list[tuple[Any, int]]) -> Tensor:
    """`value[:, i, j]` with integer index tensors (or one bool mask) at the dims given
    (negative: from the end): one `aten.index.Tensor`, None for the other dims before the last
    (negative indices count from the end; index tensors broadcast together and take PyTorch's
    placement; a mask picks the elements of the dims it covers where it is True)."""
    at: dict[int, Tensor] = {}
    for item, dim in picked:
        values = _values(item)
        if values.dtype.kind not in "iub":
            raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
        if isinstance(item, Tensor):
            indices = item
        else:
            indices = Tensor.wrap(values if values.dtype == np.bool_ else values.astype(np.int64))
        at[dim % max(value.ndim, 1)] = indices
    entries = [at.get(d) for d in range(max(at) + 1)]
    return dispatch(INDEX, (value, entries), {})


def _values(item: Any) -> np.ndarray:  # type: ignore[type-arg]
    return item.numpy() if isinstance(item, Tensor) else np.asarray(item)
