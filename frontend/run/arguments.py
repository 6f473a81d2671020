"""Call-time argument handling: signatures of actual arguments, checks, numpy/torch conversion."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Any

import numpy as np
from xdsl.ir import Attribute

from dialects.torch.dtypes import ALL_DTYPES, dtype_of_numpy
from dialects.torch.types import DYN, BoolType, FloatType, IntType, ValueTensorType
from frontend.run.half_values import HalfCarrier, from_numpy, from_torch
from lowering.signature import format_signature


@dataclass(frozen=True)
class Argument:
    """A declared argument of a compiled function: its name and captured type."""

    name: str
    type: Attribute


def _torch_tensor_type() -> Any:
    torch = sys.modules.get("torch")
    return None if torch is None else torch.Tensor


TORCH = "torch"  # the caller passed torch tensors: results are torch tensors
EAGER = "eager"  # the caller passed frontend.torch tensors: results are frontend.torch tensors


@dataclass(frozen=True)
class UnsupportedTensor:
    """A torch tensor numpy cannot view (bfloat16, on a GPU): `spec_of` names the argument.

    `reason` follows the argument's name: `has dtype bfloat16, which ...`."""

    reason: str


INT64_RANGE = (-(2**63), 2**63 - 1)


def unsupported_dtype(name: str) -> str:
    """`has dtype complex64, which tsjit does not support (...)`: the end of an argument error."""
    supported = ", ".join(d.name for d in ALL_DTYPES)
    return (
        f"has dtype {name.removeprefix('torch.')}, which tsjit does not support "
        f"(it supports {supported})"
    )


def to_array(value: Any) -> tuple[Any, str | None]:
    """(numpy view, the tensor kind it came as) for a tensor argument; others pass through."""
    tensor_type = _torch_tensor_type()
    if tensor_type is not None and isinstance(value, tensor_type):
        half = from_torch(value)  # float16 / bfloat16: float32 carrying the half values
        if half is not None:
            return half, TORCH
        try:
            return value.detach().numpy(), TORCH
        except (TypeError, RuntimeError) as err:  # bfloat16, quantized, on a GPU: no numpy view
            if value.device.type != "cpu":
                return UnsupportedTensor(f"is a torch tensor on {value.device} ({err})"), TORCH
            return UnsupportedTensor(unsupported_dtype(str(value.dtype))), TORCH
    if _is_eager_tensor(value):
        array = value.numpy()
        return from_numpy(array) if array.dtype == np.float16 else array, EAGER
    if isinstance(value, np.ndarray) and value.dtype == np.float16:
        return from_numpy(value), None
    return value, None


def _is_eager_tensor(value: Any) -> bool:
    module = sys.modules.get("frontend.torch.tensor")
    return module is not None and isinstance(value, module.Tensor)


def spec_of(fn_name: str, arg: Argument, value: Any) -> Attribute:
    """The signature entry of one actual argument; TypeError naming the argument if it is wrong.

    Tensors keep their rank and dtype; every dim is `?` except size-1 dims (they broadcast).
    """
    if isinstance(arg.type, ValueTensorType):
        return _tensor_spec(fn_name, arg, value)
    expected = {IntType(): (int,), FloatType(): (float, int), BoolType(): (bool,)}[arg.type]
    if isinstance(value, np.generic):
        value = value.item()
    if (isinstance(value, bool) and arg.type != BoolType()) or not isinstance(value, expected):
        raise TypeError(
            f"{fn_name}(): argument '{arg.name}' must be {_scalar_name(arg.type)}, "
            f"not {type(value).__name__}"
        )
    if isinstance(value, int) and not INT64_RANGE[0] <= value <= INT64_RANGE[1]:
        raise TypeError(f"{fn_name}(): argument '{arg.name}' does not fit in int64: {value}")
    return arg.type


def _tensor_spec(fn_name: str, arg: Argument, value: Any) -> Attribute:
    if isinstance(value, UnsupportedTensor):
        raise TypeError(f"{fn_name}(): argument '{arg.name}' {value.reason}")
    if not isinstance(value, np.ndarray):
        raise TypeError(
            f"{fn_name}(): argument '{arg.name}' must be a tensor (numpy array or torch tensor), "
            f"not {type(value).__name__}"
        )
    refused = refused_subclass(value)
    if refused is not None:
        raise TypeError(f"{fn_name}(): argument '{arg.name}' is {refused}")
    try:
        dtype = value.half if isinstance(value, HalfCarrier) else dtype_of_numpy(value.dtype)
    except TypeError:
        reason = unsupported_dtype(str(value.dtype))
        raise TypeError(f"{fn_name}(): argument '{arg.name}' {reason}") from None
    declared: ValueTensorType = arg.type  # type: ignore[assignment]
    if declared.rank is not None and declared.rank != value.ndim:
        raise TypeError(
            f"{fn_name}(): argument '{arg.name}' must have rank {declared.rank}, got shape "
            f"{list(value.shape)}"
        )
    if declared.sizes is not None and tuple(declared.sizes) == value.shape:
        return ValueTensorType(list(value.shape), dtype)  # a module's weight: its exact shape
    return ValueTensorType([1 if d == 1 else DYN for d in value.shape], dtype)


ARRAY_PROTOCOLS = ("__array_ufunc__", "__array_function__")


def refused_subclass(value: np.ndarray) -> str | None:
    """Why an ndarray subclass whose meaning differs from its data is refused (torch refuses
    them too), or None: a masked array (its mask would be ignored), `np.matrix` (`*` is a
    matrix product, every result 2-D) and any subclass overriding numpy's array protocols (a
    unit or lazy array type). Plain subclasses (`np.memmap`, one that only adds attributes)
    pass as the array of their data."""
    kind = type(value)
    if kind is np.ndarray:
        return None
    if isinstance(value, np.ma.MaskedArray):
        return (
            "a numpy masked array (numpy.ma.MaskedArray): its mask would be ignored; pass "
            "x.filled(value) or np.asarray(x)"
        )
    if isinstance(value, np.matrix):
        return "a numpy.matrix (its `*` is a matrix product): pass np.asarray(x)"
    for name in ARRAY_PROTOCOLS:
        if getattr(kind, name, None) is not getattr(np.ndarray, name):
            overrides = f"an ndarray subclass that overrides {name}"
            return f"a {kind.__name__} ({overrides}): pass np.asarray(x)"
    return None


def _scalar_name(t: Attribute) -> str:
    return {IntType(): "int", FloatType(): "float", BoolType(): "bool"}.get(t, str(t))


def describe(args: list[Argument], specs: list[Attribute]) -> str:
    return ", ".join(f"{a.name}: {format_signature([s])}" for a, s in zip(args, specs))


def prepare(value: Any) -> Any:
    """What the compiled code receives: C-contiguous arrays, plain Python scalars."""
    if isinstance(value, UnsupportedTensor):
        raise TypeError(f"cannot pass a tensor that {value.reason} to compiled code")
    if isinstance(value, np.ndarray):
        return np.require(value, requirements="C")  # unlike ascontiguousarray, keeps 0-d
    if isinstance(value, np.generic):
        return value.item()
    return value


def caller_kind(kinds: list[str | None]) -> str | None:
    """Results come back as torch tensors if any argument was one, else as the eager kind."""
    if TORCH in kinds:
        return TORCH
    return EAGER if EAGER in kinds else None


def to_caller_kind(result: Any, kind: str | None) -> Any:
    if isinstance(result, tuple | list):
        return type(result)(to_caller_kind(r, kind) for r in result)
    if isinstance(result, dict):
        return {key: to_caller_kind(value, kind) for key, value in result.items()}
    if not isinstance(result, np.ndarray) or kind is None:
        return result
    if kind == TORCH:
        import torch

        return torch.from_numpy(result if result.flags.writeable else result.copy())  # constants
    from frontend.torch.tensor import Tensor

    return Tensor.wrap(result)
