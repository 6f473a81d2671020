"""numpy functions called on Tensors: a registered `np.<name>` spelling runs its op (so a tracer
records it and the result is a Tensor); any other numpy function runs on the arrays and returns
numpy values, as it does for PyTorch tensors (a tracer is told the values left the graph)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from dialects.torch.registry import BY_PY_NAME
from frontend.ir.binding import BindError
from frontend.torch.dispatch import current, dispatch
from frontend.torch.tensor import Tensor

# numpy keyword names -> the schema's names
_KEYWORDS = {"axis": "dim", "keepdims": "keepdim"}


def array_ufunc(ufunc: Any, method: str, inputs: Sequence[Any], kwargs: dict[str, Any]) -> Any:
    """`np.tanh(x)`, `array + x`: the registered op when numpy spells one, else plain numpy."""
    candidates = BY_PY_NAME.get(f"np.{ufunc.__name__}")
    if candidates is not None and method == "__call__" and not kwargs:
        try:
            return dispatch(candidates, tuple(inputs), {})
        except BindError:
            pass
    return _plain_numpy(getattr(ufunc, method), f"np.{ufunc.__name__}", inputs, kwargs)


def array_function(func: Any, args: Sequence[Any], kwargs: dict[str, Any]) -> Any:
    """`np.sum(x, axis=1)`: the registered op when numpy spells one and it binds, else numpy."""
    candidates = BY_PY_NAME.get(f"np.{func.__name__}")
    if candidates is not None:
        renamed = {_KEYWORDS.get(k, k): v for k, v in kwargs.items()}
        try:
            return dispatch(candidates, tuple(args), renamed)
        except BindError:
            pass
    return _plain_numpy(func, f"np.{func.__name__}", args, kwargs)


def _plain_numpy(fn: Any, name: str, args: Sequence[Any], kwargs: dict[str, Any]) -> Any:
    for tensor in _tensors(args):
        current().converting(tensor, f"a NumPy array (for {name}, which is no registered op)")
    return fn(*_unwrapped(args), **{k: _unwrapped(v) for k, v in kwargs.items()})


def _tensors(values: Any) -> list[Tensor]:
    if isinstance(values, Tensor):
        return [values]
    if isinstance(values, list | tuple):
        return [t for v in values for t in _tensors(v)]
    return []


def _unwrapped(value: Any) -> Any:
    if isinstance(value, Tensor):
        return value.numpy()
    if isinstance(value, list | tuple):
        return type(value)(_unwrapped(v) for v in value)
    return value
