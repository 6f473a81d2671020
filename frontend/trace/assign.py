"""`y[key] = v` on a traced tensor: the new value of `y` computed with registry ops.

The trace follows values, so an indexed assignment records what scripts record for it
(`frontend/script/assign_into.py`): ints and slices pick the part (`select` / `slice`, written
back by `select_scatter` / `slice_scatter`), index tensors (int positions or one bool mask)
write into it with `index_put`; `v` (a number or a tensor) is converted to `y`'s dtype. The
caller (`frontend/trace/torch_tensors.py`) then makes `y`'s mirror stand for the result.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dialects.torch.ops.data_movement import AtenSelectIntOp, AtenSliceTensorOp
from dialects.torch.ops.index_put import AtenIndexPutOp
from dialects.torch.ops.scatter import AtenSelectScatterOp, AtenSliceScatterOp
from dialects.torch.registry import BY_PY_NAME
from frontend.torch.dispatch import dispatch
from frontend.torch.tensor import Tensor
from frontend.trace.errors import TraceError, user_line


def assigned(tensor: Tensor, key: Any, value: Any) -> Tensor:
    """`tensor` with `tensor[key]` replaced by `value` (TraceError for an index it cannot
    express: None / a new axis, a bool, a float)."""
    items = list(key) if isinstance(key, tuple) else [key]
    ellipses = [i for i, item in enumerate(items) if item is Ellipsis]
    if len(ellipses) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    if ellipses:
        at = ellipses[0]
        named = sum(1 for item in items if item is not None and item is not Ellipsis)
        items[at : at + 1] = [slice(None)] * max(tensor.ndim - named, 0)
    return _scatter(tensor, [_as_index(item) for item in items], value, 0, {})


def _as_index(item: Any) -> Any:
    """A list of ints becomes an index tensor; everything else is checked by `_scatter`."""
    if isinstance(item, list) and all(isinstance(i, int | bool) for i in item):
        masks = item and all(isinstance(i, bool) for i in item)
        return Tensor.wrap(np.asarray(item, dtype=np.bool_ if masks else np.int64))
    return item


def _scatter(
    tensor: Tensor, items: list[Any], value: Any, dim: int, tensors: dict[int, Tensor]
) -> Tensor:
    if not items:
        return _index_put(tensor, tensors, value) if tensors else _filled(tensor, value)
    item, rest = items[0], items[1:]
    if isinstance(item, slice):
        if item == slice(None):
            return _scatter(tensor, rest, value, dim + 1, tensors)
        bounds = (item.start, item.stop, 1 if item.step is None else item.step)
        part = dispatch((AtenSliceTensorOp,), (tensor, dim, *bounds), {})
        updated = _scatter(part, rest, value, dim + 1, tensors)
        return dispatch((AtenSliceScatterOp,), (tensor, updated, dim, *bounds), {})
    if isinstance(item, Tensor):
        return _scatter(tensor, rest, value, dim + 1, {**tensors, dim: item})
    if isinstance(item, int) and not isinstance(item, bool):
        part = dispatch((AtenSelectIntOp,), (tensor, dim, item), {})
        updated = _scatter(part, rest, value, dim, tensors)
        return dispatch((AtenSelectScatterOp,), (tensor, updated, dim, item), {})
    raise TraceError(
        f"{user_line()}: an indexed assignment with the index {item!r} cannot be recorded; "
        "index with ints, slices, `...` and index tensors"
    )


def _filled(part: Tensor, value: Any) -> Tensor:
    """`value` as a tensor of `part`'s shape (the scatter converts the dtype)."""
    if isinstance(value, Tensor):
        return dispatch(BY_PY_NAME["Tensor.expand_as"], (value, part), {})
    return dispatch(BY_PY_NAME["torch.full_like"], (part, value), {})


def _index_put(tensor: Tensor, tensors: dict[int, Tensor], value: Any) -> Tensor:
    if isinstance(value, Tensor):
        value = dispatch(BY_PY_NAME["Tensor.type_as"], (value, tensor), {})
    else:
        value = dispatch(BY_PY_NAME["Tensor.new_full"], (tensor, [], value), {})
    indices = [tensors.get(d) for d in range(max(tensors) + 1)]
    return dispatch((AtenIndexPutOp,), (tensor, indices, value, False), {})
