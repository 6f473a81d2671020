"""Tensor constructors: `tensor`, `zeros`, `ones`, `full`, `arange`, `rand`, `*_like`, ...

Sizes come either way PyTorch takes them (`zeros(2, 3)` or `zeros((2, 3))`); dtypes follow
torch: float data gives the default float dtype (float32), int data int64, bool data bool.
A constructor the registry declares (`torch.zeros` as `aten.zeros`, ...) runs through that op
after the sizes are normalized, so its values are the op's; the others are built here.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from dialects.torch.registry import BY_PY_NAME
from frontend.torch.dispatch import current, dispatch
from frontend.torch.dtype import as_dtype, bool_, dtype, get_default_dtype, int64
from frontend.torch.random import Generator, rng
from frontend.torch.tensor import NO_AUTOGRAD, Tensor, _unwrap

# ---- argument normalization ----


def _sizes(size: Sequence[Any]) -> tuple[int, ...]:
    """`(2, 3)` from `(2, 3)` or `((2, 3),)`; RuntimeError for a negative size."""
    if len(size) == 1 and isinstance(size[0], Sequence):
        size = tuple(size[0])
    try:
        sizes = tuple(int(s) for s in size)
    except TypeError:
        raise TypeError(f"sizes must be ints, got {tuple(size)!r}") from None
    if any(s < 0 for s in sizes):
        raise RuntimeError(f"Trying to create tensor with negative dimension: {list(sizes)}")
    return sizes


def _options(dtype_arg: Any, device: Any = None, requires_grad: bool = False) -> dtype | None:
    if requires_grad:
        raise NotImplementedError(NO_AUTOGRAD)
    if device is not None and str(device) != "cpu":
        raise RuntimeError(f"frontend.torch only has the cpu device, not {device!r}")
    return None if dtype_arg is None else as_dtype(dtype_arg)


def _python_dtype(values: np.ndarray) -> dtype:  # type: ignore[type-arg]
    """torch's dtype for data given as Python numbers: bool, int64 or the default float."""
    if values.dtype == np.bool_:
        return bool_
    if values.dtype.kind in "iu":
        return int64
    if values.dtype.kind == "f":
        return get_default_dtype()
    raise TypeError(f"cannot make a tensor from data of numpy dtype {values.dtype}")


def _via_registry(spelling: str, args: tuple[Any, ...], d: dtype | None) -> Tensor | None:
    """The registered constructor op's result, or None if the registry has no such spelling."""
    candidates = BY_PY_NAME.get(spelling)
    if candidates is None:
        return None
    return dispatch(candidates, args, {} if d is None else {"dtype": d})


# ---- from data ----


def tensor(
    data: Any,
    *,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    pin_memory: bool = False,
) -> Tensor:
    """A new tensor holding a copy of `data` (nested lists, numbers, numpy arrays, Tensors)."""
    d = _options(dtype, device, requires_grad)
    if isinstance(data, Tensor):
        current().converting(data, "a new constant tensor (torch.tensor copies the values)")
    if isinstance(data, Tensor | np.ndarray | np.generic):
        values = np.array(_unwrap(data))
        natural = as_dtype(values.dtype)
    else:
        values = np.array(_unwrap(data))
        natural = _python_dtype(values)
    return Tensor.wrap(values.astype((d or natural).numpy, copy=False))


def as_tensor(data: Any, dtype: Any = None, device: Any = None) -> Tensor:
    """`data` itself when it already is a tensor (or numpy array) of that dtype, else a copy."""
    d = _options(dtype, device)
    if isinstance(data, Tensor) and d in (None, data.dtype):
        return data
    if isinstance(data, np.ndarray) and d in (None, as_dtype(data.dtype)):
        return Tensor.wrap(data)
    return tensor(data, dtype=d)


def from_numpy(array: np.ndarray) -> Tensor:  # type: ignore[type-arg]
    """A tensor sharing `array`'s memory."""
    if not isinstance(array, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(array).__name__})")
    return Tensor.wrap(array)


# ---- filled ----


def full(
    size: Sequence[int],
    fill_value: Any,
    *,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    d = _options(dtype, device, requires_grad)
    sizes = _sizes((size,))
    registered = _via_registry("torch.full", (list(sizes), fill_value), d)
    if registered is not None:
        return registered
    d = d or _python_dtype(np.asarray(_unwrap(fill_value)))
    return Tensor.wrap(np.full(sizes, _unwrap(fill_value), dtype=d.numpy))


def _filled(
    name: str, value: int, size: Sequence[Any], dtype_arg: Any, device: Any, requires_grad: bool
) -> Tensor:
    d = _options(dtype_arg, device, requires_grad)
    sizes = _sizes(size)
    registered = _via_registry(f"torch.{name}", (list(sizes),), d)
    if registered is not None:
        return registered
    return Tensor.wrap(np.full(sizes, value, dtype=(d or get_default_dtype()).numpy))


def zeros(*size: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    return _filled("zeros", 0, size, dtype, device, requires_grad)


def ones(*size: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    return _filled("ones", 1, size, dtype, device, requires_grad)


def empty(*size: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    """Uninitialized in PyTorch; zeros here."""
    return _filled("empty", 0, size, dtype, device, requires_grad)


def arange(
    start: Any,
    end: Any = None,
    step: Any = 1,
    *,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    """`[start, end)` by `step`: int64 when every bound is an int, else the default float."""
    d = _options(dtype, device, requires_grad)
    if end is None:
        start, end = 0, start
    bounds = [_unwrap(b) for b in (start, end, step)]
    if bounds[2] == 0:
        raise RuntimeError("step must be nonzero")
    registered = _via_registry("torch.arange", tuple(_python_number(b) for b in bounds), d)
    if registered is not None:
        return registered
    length = max(0, math.ceil((bounds[1] - bounds[0]) / bounds[2]))
    all_ints = all(
        isinstance(b, int | np.integer) or np.asarray(b).dtype.kind in "iu" for b in bounds
    )
    d = d or (int64 if all_ints else get_default_dtype())
    values = (
        bounds[0] + np.arange(length, dtype=np.float64 if not all_ints else np.int64) * bounds[2]
    )
    return Tensor.wrap(values.astype(d.numpy))


def _python_number(value: Any) -> Any:
    return value.item() if isinstance(value, np.ndarray | np.generic) else value


def linspace(
    start: float,
    end: float,
    steps: int,
    *,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    """`steps` evenly spaced values from `start` to `end` (the op `aten.linspace`)."""
    d = _options(dtype, device, requires_grad)
    bounds = (_python_number(_unwrap(start)), _python_number(_unwrap(end)), int(steps))
    return _registered("torch.linspace", bounds, d)


def logspace(
    start: float,
    end: float,
    steps: int,
    base: float = 10.0,
    *,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    """`base ** linspace(start, end, steps)` (the op `aten.logspace`)."""
    d = _options(dtype, device, requires_grad)
    bounds = (_python_number(_unwrap(start)), _python_number(_unwrap(end)), int(steps))
    return _registered("torch.logspace", (*bounds, float(base)), d)


def eye(
    n: int,
    m: int | None = None,
    *,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    """The identity matrix, n x m (the op `aten.eye` / `aten.eye.m`)."""
    d = _options(dtype, device, requires_grad)
    return _registered("torch.eye", (int(n),) if m is None else (int(n), int(m)), d)


def _registered(spelling: str, args: tuple[Any, ...], d: dtype | None) -> Tensor:
    result = _via_registry(spelling, args, d)
    assert result is not None, f"{spelling} is a registered op"
    return result


# ---- random ----


def _float_dtype(d: dtype | None, name: str) -> dtype:
    d = d or get_default_dtype()
    if not d.is_float:
        raise TypeError(f"{name}: expected a floating point dtype, got {d}")
    return d


def rand(
    *size: Any,
    generator: Generator | None = None,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    """Uniform on [0, 1)."""
    d = _float_dtype(_options(dtype, device, requires_grad), "rand")
    return Tensor.wrap(rng(generator).random(_sizes(size)).astype(d.numpy))


def randn(
    *size: Any,
    generator: Generator | None = None,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    """Standard normal."""
    d = _float_dtype(_options(dtype, device, requires_grad), "randn")
    return Tensor.wrap(rng(generator).standard_normal(_sizes(size)).astype(d.numpy))


def randint(
    *args: Any,
    generator: Generator | None = None,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    """`randint(high, size)` or `randint(low, high, size)`: uniform ints in [low, high)."""
    if len(args) == 2:
        low, (high, size) = 0, args
    elif len(args) == 3:
        low, high, size = args
    else:
        raise TypeError("randint() takes (high, size) or (low, high, size)")
    d = _options(dtype, device, requires_grad) or int64
    if high <= low:
        raise RuntimeError(
            f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}"
        )
    values = rng(generator).integers(low, high, size=_sizes((size,)))
    return Tensor.wrap(values.astype(d.numpy))


def randperm(n: int, *, generator: Generator | None = None, dtype: Any = None) -> Tensor:
    d = _options(dtype) or int64
    return Tensor.wrap(rng(generator).permutation(n).astype(d.numpy))


# ---- *_like ----


def _like_dtype(input: Tensor, dtype_arg: Any) -> dtype:
    return as_dtype(dtype_arg) if dtype_arg is not None else input.dtype


def _like(name: str, input: Tensor, dtype_arg: Any, make: Any) -> Tensor:
    registered = _via_registry(
        f"torch.{name}", (input,), None if dtype_arg is None else as_dtype(dtype_arg)
    )
    if registered is not None:
        return registered
    return make(tuple(input.shape), _like_dtype(input, dtype_arg))


def zeros_like(input: Tensor, *, dtype: Any = None, device: Any = None) -> Tensor:
    _options(None, device)
    return _like("zeros_like", input, dtype, lambda s, d: zeros(s, dtype=d))


def ones_like(input: Tensor, *, dtype: Any = None, device: Any = None) -> Tensor:
    _options(None, device)
    return _like("ones_like", input, dtype, lambda s, d: ones(s, dtype=d))


def empty_like(input: Tensor, *, dtype: Any = None, device: Any = None) -> Tensor:
    _options(None, device)
    return _like("empty_like", input, dtype, lambda s, d: empty(s, dtype=d))


def full_like(input: Tensor, fill_value: Any, *, dtype: Any = None, device: Any = None) -> Tensor:
    _options(None, device)
    candidates = BY_PY_NAME.get("torch.full_like")
    if candidates is not None:
        kwargs = {} if dtype is None else {"dtype": as_dtype(dtype)}
        return dispatch(candidates, (input, fill_value), kwargs)
    return full(tuple(input.shape), fill_value, dtype=_like_dtype(input, dtype))


def rand_like(input: Tensor, *, dtype: Any = None, generator: Generator | None = None) -> Tensor:
    return rand(tuple(input.shape), dtype=_like_dtype(input, dtype), generator=generator)


def randn_like(input: Tensor, *, dtype: Any = None, generator: Generator | None = None) -> Tensor:
    return randn(tuple(input.shape), dtype=_like_dtype(input, dtype), generator=generator)
