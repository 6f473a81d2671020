"""`x[key]` as registry ops, like the script frontend spells it: an int is `aten.select.int`, a
slice `aten.slice.Tensor`, `None` `aten.unsqueeze`, `...` skips dims; a 1-D integer index
tensor along one dim is `aten.index_select` when that op is registered."""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from dialects.torch.registry import BY_NAME, BY_PY_NAME
from frontend.torch.dispatch import dispatch
from frontend.torch.tensor import Tensor

SELECT = (BY_NAME["torch.aten.select.int"],)
SLICE = (BY_NAME["torch.aten.slice.Tensor"],)


def index(tensor: Tensor, key: Any) -> Tensor:
    """PyTorch basic indexing; IndexError with torch's wording for bad keys."""
    items = list(key) if isinstance(key, tuple) else [key]
    ellipses = [i for i, item in enumerate(items) if item is Ellipsis]
    if len(ellipses) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    consumed = sum(1 for item in items if item is not None and item is not Ellipsis)
    if consumed > tensor.ndim:
        raise IndexError(f"too many indices for tensor of dimension {tensor.ndim} (got {consumed})")
    split = ellipses[0] if ellipses else len(items)
    value, dim = tensor, 0
    for item in items[:split]:
        value, kept = _index_one(value, item, dim)
        dim += kept
    kept_after = 0  # after `...`, dims count from the end, rightmost first
    for item in reversed(items[split + 1 :]):
        value, kept = _index_one(value, item, -(kept_after + 1))
        kept_after += kept
    return value


def _index_one(value: Tensor, item: Any, dim: int) -> tuple[Tensor, int]:
    """Apply one index item at `dim`; also return how many dims it keeps (0 or 1)."""
    if isinstance(item, slice):
        return _slice(value, item, dim), 1
    if item is None:
        return _unsqueeze(value, dim), 1
    if isinstance(item, Tensor | np.ndarray | list) and np.ndim(_values(item)) > 0:
        return _index_select(value, item, dim), 1
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


def _index_select(value: Tensor, item: Any, dim: int) -> Tensor:
    values = _values(item)
    if values.dtype == np.bool_:
        raise NotImplementedError("indexing with a boolean mask is not supported")
    candidates = BY_PY_NAME.get("torch.index_select")
    if values.ndim != 1 or candidates is None:
        raise NotImplementedError(
            "indexing with a tensor needs a 1-D integer index and the index_select op"
        )
    indices = item if isinstance(item, Tensor) else Tensor.wrap(np.asarray(values, np.int64))
    return dispatch(candidates, (value, dim, indices), {})


def _values(item: Any) -> np.ndarray:  # type: ignore[type-arg]
    return item.numpy() if isinstance(item, Tensor) else np.asarray(item)
