"""Generates `Tensor`'s op methods and Python operators from the op registry.

- every spelling `Tensor.<name>` becomes a method (`x.tanh()`, `x.sum(1)`, `x.view(2, 3)`);
- every `operator.<name>` becomes its dunder (`__add__`, `__matmul__`, `__gt__`, `__neg__`),
  with the reflected form (`2 - x`, `2 * x`) and, for elementwise ops, the in-place form
  (`x += y`); elementwise methods also get their in-place spelling (`x.add_(y)`, `x.relu_()`).

Methods written by hand in `tensor.py` win, except the ones marked `registry_fallback`, which
only stand in while the registry lacks the spelling. Everything runs through `dispatch`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from dialects.torch.dtypes import DType
from dialects.torch.families import ElementwiseOp
from dialects.torch.op_base import TorchOp
from dialects.torch.registry import BY_PY_NAME
from frontend.ir.binding import BindError
from frontend.torch.dispatch import current, dispatch
from frontend.torch.dtype import bool_, float32, float64, get_default_dtype, int32, int64
from frontend.torch.indexing import index
from frontend.torch.numpy_interop import array_function, array_ufunc
from frontend.torch.tensor import Tensor

Candidates = tuple[type[TorchOp], ...]
UNARY_OPERATORS = frozenset({"neg", "pos", "invert", "abs"})
NO_DUNDER = frozenset({"not_", "truth", "contains", "getitem", "index"})


def registry_fallback(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Mark a hand-written method to be replaced once the registry declares its spelling."""
    fn.__registry_fallback__ = True  # type: ignore[attr-defined]
    return fn


def _is_tensor_like(value: Any) -> bool:
    return isinstance(value, Tensor | np.ndarray | np.generic | int | float | bool)


def call_method(candidates: Candidates, self: Tensor, args: tuple[Any, ...], kwargs: Any) -> Any:
    """`x.name(*args)`; sizes may also come unpacked (`x.view(2, 3)` == `x.view((2, 3))`)."""
    try:
        return dispatch(candidates, (self, *args), kwargs)
    except BindError:
        packable = len(args) > 1 and all(type(a) is int for a in args)
        if not packable:
            raise
        return dispatch(candidates, (self, list(args)), kwargs)


def make_method(spelling: str, candidates: Candidates) -> Callable[..., Any]:
    name = spelling.split(".", 1)[1]

    def method(self: Tensor, *args: Any, **kwargs: Any) -> Any:
        return call_method(candidates, self, args, kwargs)

    method.__name__ = method.__qualname__ = name
    method.__doc__ = "\n".join(op.SCHEMA for op in candidates)
    return method


# ---- in-place forms: the functional op, then the values written back ----


def write_back(self: Tensor, result: Any, name: str) -> Tensor:
    """Store `result` into `self` like torch's in-place ops (same shape, castable dtype): the
    result is converted to `self`'s dtype, and so is what a trace records."""
    if not isinstance(result, Tensor):
        raise TypeError(f"{name}: the op does not produce a tensor")
    if result.shape != self.shape:
        raise RuntimeError(
            f"{name}: output with shape {list(self.shape)} doesn't match the broadcast shape "
            f"{list(result.shape)}"
        )
    if result.dtype.category > self.dtype.category:
        raise RuntimeError(
            f"{name}: result type {_torch_name(result.dtype)} can't be cast to the desired "
            f"output type {_torch_name(self.dtype)}"
        )
    if result.dtype != self.dtype:  # `a += b` of a float32 `a` and a float64 `b` is float32
        result = cast(result, self.dtype)
    current().updated(self, result)
    self.numpy()[...] = result.numpy()
    return self


def _torch_name(d: DType) -> str:
    return {"float32": "Float", "float64": "Double", "int64": "Long", "int32": "Int"}.get(
        d.name, d.name.capitalize()
    )


def make_inplace(name: str, candidates: Candidates) -> Callable[..., Any]:
    def method(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
        return write_back(self, call_method(candidates, self, args, kwargs), name)

    method.__name__ = method.__qualname__ = name
    return method


# ---- operators ----


def make_operator(candidates: Candidates, name: str) -> Callable[..., Any]:
    def operator(self: Tensor, other: Any) -> Any:
        if not _is_tensor_like(other) and not isinstance(other, list | tuple):
            return NotImplemented
        try:
            return dispatch(candidates, (self, other), {})
        except BindError:
            if name in ("__eq__", "__ne__"):
                return NotImplemented
            raise

    operator.__name__ = operator.__qualname__ = name
    return operator


def make_reflected(candidates: Candidates, name: str) -> Callable[..., Any]:
    """`other <op> self`: the same op, a Python scalar first becoming a 0-d tensor if needed."""

    def reflected(self: Tensor, other: Any) -> Any:
        if not _is_tensor_like(other):
            return NotImplemented
        try:
            return dispatch(candidates, (other, self), {})
        except BindError:
            if isinstance(other, Tensor | np.ndarray):
                raise
            return dispatch(candidates, (scalar_tensor(other), self), {})

    reflected.__name__ = reflected.__qualname__ = name
    return reflected


def scalar_tensor(value: Any) -> Tensor:
    """A Python number as the 0-d tensor torch would promote it like (int64/float32/bool)."""
    if isinstance(value, bool | np.bool_):
        dtype = bool_
    elif isinstance(value, int | np.integer):
        dtype = int64
    else:
        dtype = get_default_dtype()
    return Tensor.wrap(np.asarray(value, dtype=dtype.numpy))


def make_unary(candidates: Candidates, name: str) -> Callable[..., Any]:
    def unary(self: Tensor) -> Any:
        return dispatch(candidates, (self,), {})

    unary.__name__ = unary.__qualname__ = name
    return unary


def operator_methods() -> dict[str, Callable[..., Any]]:
    """Dunders for every registered `operator.<name>` spelling."""
    methods: dict[str, Callable[..., Any]] = {}
    for spelling, candidates in BY_PY_NAME.items():
        prefix, _, op_name = spelling.partition(".")
        if prefix != "operator" or op_name in NO_DUNDER:
            continue
        base = op_name.rstrip("_")
        if op_name in UNARY_OPERATORS:
            methods[f"__{base}__"] = make_unary(candidates, f"__{base}__")
            continue
        methods[f"__{base}__"] = make_operator(candidates, f"__{base}__")
        if base not in ("gt", "lt", "ge", "le", "eq", "ne"):  # Python mirrors comparisons itself
            methods[f"__r{base}__"] = make_reflected(candidates, f"__r{base}__")
        if issubclass(candidates[0], ElementwiseOp) and base not in (
            "gt",
            "lt",
            "ge",
            "le",
            "eq",
            "ne",
        ):
            methods[f"__i{base}__"] = make_inplace(f"__i{base}__", candidates)
    return methods


# ---- installation ----


def generated_methods() -> dict[str, Callable[..., Any]]:
    """Every registry-derived method of Tensor, by name (operators first, spellings win)."""
    methods = operator_methods()
    for spelling, candidates in BY_PY_NAME.items():
        prefix, _, name = spelling.partition(".")
        if prefix != "Tensor":
            continue
        methods[name] = make_method(spelling, candidates)
        inplace = name + "_"
        writes_self = issubclass(candidates[0], ElementwiseOp) or getattr(
            candidates[0], "IN_PLACE", False
        )  # elementwise ops, and ops declaring `IN_PLACE` (`x.scatter_(...)`)
        if writes_self and f"Tensor.{inplace}" not in BY_PY_NAME:
            methods[inplace] = make_inplace(inplace, candidates)
    return methods


def install_methods(cls: type) -> None:
    """Add the generated methods to `cls`, keeping hand-written ones that are not fallbacks."""
    for name, method in generated_methods().items():
        existing = cls.__dict__.get(name)
        if existing is None or getattr(existing, "__registry_fallback__", False):
            setattr(cls, name, method)


# ---- casts ----


def cast(tensor: Tensor, target: DType) -> Tensor:
    """`tensor.to(target)` through the registry's cast op (`Tensor.to`)."""
    candidates = BY_PY_NAME.get("Tensor.to")
    if candidates is None:
        raise NotImplementedError(
            f"casting a tensor to {target!r} needs a registered cast op (spelling Tensor.to)"
        )
    return dispatch(candidates, (tensor, target), {})


def _cast_method(target: DType) -> Callable[[Tensor], Tensor]:
    @registry_fallback
    def method(self: Tensor) -> Tensor:
        return self.to(target)

    method.__name__ = method.__qualname__ = str(target).removeprefix("torch.")
    return method


CAST_METHODS = {
    "float": _cast_method(float32),
    "double": _cast_method(float64),
    "long": _cast_method(int64),
    "int": _cast_method(int32),
    "bool": _cast_method(bool_),
}


# ---- methods composed of other methods ----


def _transposed(self: Tensor) -> Tensor:
    """`x.T`: all dims reversed (through the registry's permute)."""
    if self.ndim < 2:
        return self
    return self.permute(list(reversed(range(self.ndim))))  # type: ignore[attr-defined]


def _matrix_transposed(self: Tensor) -> Tensor:
    """`x.mT` (and `x.mH`: no complex numbers here): the last two dims swapped."""
    return self.transpose(-2, -1)  # type: ignore[attr-defined,no-any-return]


@registry_fallback
def view_as(self: Tensor, other: Tensor) -> Tensor:
    return self.view(list(other.shape))  # type: ignore[attr-defined]


@registry_fallback
def reshape_as(self: Tensor, other: Tensor) -> Tensor:
    return self.reshape(list(other.shape))  # type: ignore[attr-defined]


def _new(kind: str) -> Callable[..., Tensor]:
    def method(self: Tensor, *args: Any, dtype: Any = None, **kwargs: Any) -> Tensor:
        from frontend.torch import creation

        return getattr(creation, kind)(*args, dtype=dtype or self.dtype, **kwargs)

    method.__name__ = method.__qualname__ = f"new_{kind}"
    return method


COMPOSED_METHODS: dict[str, Any] = {
    **CAST_METHODS,
    "T": property(_transposed),
    "mT": property(_matrix_transposed),
    "mH": property(_matrix_transposed),
    "view_as": view_as,
    "reshape_as": reshape_as,
    "new_zeros": _new("zeros"),
    "new_ones": _new("ones"),
    "new_empty": _new("empty"),
    "new_full": _new("full"),
    "new_tensor": _new("tensor"),
}


def _array_ufunc(self: Tensor, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
    return array_ufunc(ufunc, method, inputs, kwargs)


def _array_function(self: Tensor, func: Any, types: Any, args: Any, kwargs: Any) -> Any:
    return array_function(func, args, kwargs)


PROTOCOL_METHODS: dict[str, Callable[..., Any]] = {
    "_cast": cast,  # `Tensor.to(dtype)` through the registry's cast op
    "__getitem__": index,  # `x[key]` as registry ops (indexing.py)
    # numpy functions on Tensors run the registered op when there is one (numpy_interop.py)
    "__array_ufunc__": _array_ufunc,
    "__array_function__": _array_function,
}
"""The Python protocols of `Tensor` that run registry ops: defined here, beside the generated
methods, so that `tensor.py` (which these modules import) imports none of them."""


def finish_tensor_class(cls: type) -> None:
    """Give `cls` (Tensor) its protocol, composed and generated methods; run once at import."""
    for name, method in {**PROTOCOL_METHODS, **COMPOSED_METHODS}.items():
        if name not in cls.__dict__:
            setattr(cls, name, method)
    install_methods(cls)
