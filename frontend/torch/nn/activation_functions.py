"""`F.elu`, `F.selu`, `F.celu`, `F.hardtanh`, `F.relu6`, `F.hardswish`, `F.hardsigmoid`,
`F.mish`, `F.silu`, `F.leaky_relu`, `F.rrelu`, `F.threshold`, `F.softsign`, `F.tanhshrink` and
`F.softmin` with PyTorch's Python signatures.

These take arguments their ATen op does not (`inplace`; `F.elu(input, alpha, inplace)` against
`aten::elu(self, alpha, scale, input_scale)`), or have no op at all (softsign, tanhshrink,
softmin), so each is a Python function calling the registered ops (`torch.elu`, ...). Being
Python functions of frontend.torch, they are also what a script of the PyTorch function runs
(`frontend_twin`) and what a trace of it records.

`inplace=True`: run as Python (frontend.torch, and traces, which record the update), the
result is also written into `input`, as in PyTorch (`_writes_input_if_inplace`); a script runs
the function's own source, where tensors are values: the call gives the result and `input`
keeps its value (a scripted `nn.ReLU6(inplace=True)` layer computes what PyTorch's does; only
code reading the layer's input again afterwards could tell).
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any, Optional

from frontend.torch import functions as _torch
from frontend.torch.methods import write_back
from frontend.torch.tensor import Tensor


def _writes_input_if_inplace(fn: Callable[..., Any]) -> Callable[..., Any]:
    """`fn` that, called as Python with `inplace=True`, writes its result into `input` and
    returns `input`. Scripting reads `fn`'s own source (`inspect` follows `__wrapped__`)."""
    signature = inspect.signature(fn)

    @functools.wraps(fn)
    def function(*args: Any, **kwargs: Any) -> Any:
        result = fn(*args, **kwargs)
        bound = signature.bind(*args, **kwargs)
        if not bound.arguments.get("inplace", False):
            return result
        target = bound.arguments["input"]
        if not isinstance(target, Tensor):
            raise TypeError(f"{fn.__name__}(inplace=True) needs a Tensor input")
        return write_back(target, result, f"{fn.__name__}_")

    return function


@_writes_input_if_inplace
def elu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    return _torch.elu(input, alpha)


@_writes_input_if_inplace
def selu(input: Tensor, inplace: bool = False) -> Tensor:
    return _torch.selu(input)


@_writes_input_if_inplace
def celu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    return _torch.celu(input, alpha)


@_writes_input_if_inplace
def hardtanh(
    input: Tensor, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False
) -> Tensor:
    return _torch.hardtanh(input, min_val, max_val)


@_writes_input_if_inplace
def relu6(input: Tensor, inplace: bool = False) -> Tensor:
    return _torch.hardtanh(input, 0.0, 6.0)


@_writes_input_if_inplace
def hardswish(input: Tensor, inplace: bool = False) -> Tensor:
    return _torch.hardswish(input)


@_writes_input_if_inplace
def hardsigmoid(input: Tensor, inplace: bool = False) -> Tensor:
    return _torch.hardsigmoid(input)


@_writes_input_if_inplace
def mish(input: Tensor, inplace: bool = False) -> Tensor:
    return _torch.mish(input)


@_writes_input_if_inplace
def silu(input: Tensor, inplace: bool = False) -> Tensor:
    return _torch.silu(input)


@_writes_input_if_inplace
def leaky_relu(input: Tensor, negative_slope: float = 0.01, inplace: bool = False) -> Tensor:
    return _torch.leaky_relu(input, negative_slope)


@_writes_input_if_inplace
def threshold(input: Tensor, threshold: float, value: float, inplace: bool = False) -> Tensor:
    return _torch.threshold(input, threshold, value)


@_writes_input_if_inplace
def rrelu(
    input: Tensor,
    lower: float = 1.0 / 8,
    upper: float = 1.0 / 3,
    training: bool = False,
    inplace: bool = False,
) -> Tensor:
    """Randomized leaky relu: in evaluation, `leaky_relu` with the mean slope; random slopes
    (training=True) are not supported."""
    if training:
        raise NotImplementedError("F.rrelu(training=True) draws random slopes: not supported")
    return _torch.leaky_relu(input, (lower + upper) / 2)


_threshold = threshold  # PyTorch's F.threshold is a function named `_threshold` (`frontend_twin`)


def softsign(input: Tensor) -> Tensor:
    """`input / (1 + |input|)`."""
    return input / (input.abs() + 1)


def tanhshrink(input: Tensor) -> Tensor:
    """`input - tanh(input)`."""
    return input - input.tanh()


def softmin(input: Tensor, dim: Optional[int] = None, _stacklevel: int = 3, dtype=None) -> Tensor:  # noqa: UP045
    """`softmax(-input, dim)`; `dim` is required (PyTorch's implicit choice is deprecated)."""
    if dim is None:
        raise ValueError("F.softmin: pass `dim` (the implicit dim choice is not supported)")
    return _torch.softmax(-input, dim, dtype)


__all__ = [
    "celu", "elu", "hardsigmoid", "hardswish", "hardtanh", "leaky_relu", "mish", "relu6", "rrelu",
    "selu", "silu", "softmin", "softsign", "tanhshrink", "threshold", "_threshold",
]  # fmt: skip
