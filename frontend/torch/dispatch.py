"""The one entry point through which every `frontend.torch` op call runs.

`dispatch(candidates, args, kwargs)` binds a call to the first overload that accepts it (the
registry's overloads of one spelling, torch's rules), runs the op's numpy reference and wraps
the results as `Tensor`s. A tracer installs an `Interceptor` (`intercepting(...)`) to see every
call, and the few tensor events that are not op calls (conversions to Python values, in-place
updates, aliases), so the same eager code is also the recording code.
"""

from __future__ import annotations

import re
from collections import namedtuple
from collections.abc import Sequence
from functools import cache
from typing import Any

import numpy as np

from dialects.torch.dtypes import DType
from dialects.torch.meta import kind_of_value
from dialects.torch.op_base import TorchOp
from dialects.torch.schema import Argument
from frontend.ir.binding import DEFAULT, bind
from frontend.torch.interception import Interceptor, installed
from frontend.torch.tensor import Tensor

Candidates = Sequence[type[TorchOp]]


class BoundCall:
    """A call bound to one overload: every schema argument in order, defaults filled in."""

    def __init__(self, op: type[TorchOp], arguments: list[Argument], values: list[Any]) -> None:
        self.op = op
        self.arguments = arguments
        self.values = values


# ---- argument kinds and conversion ----


def _is_tensor(value: Any) -> bool:
    return isinstance(value, Tensor | np.ndarray)


def eager_kind(value: Any) -> str:
    """The binding kind of an eager argument: "Tensor", "int", "list[int]", "list[Tensor]", ..."""
    if _is_tensor(value):
        return "Tensor"
    if value is None:
        return "None"
    if isinstance(value, DType):
        return "DType"
    scalar = kind_of_value(value)
    if scalar is not None:
        return scalar
    if isinstance(value, list | tuple):
        if any(_is_tensor(v) for v in value) and all(_is_tensor(v) or v is None for v in value):
            return "list[Tensor]"  # None entries: ATen's `Tensor?[]` (`x[:, index]`)
        return "list[int]" if all(isinstance(v, int | np.integer) for v in value) else "list[?]"
    return type(value).__name__


def bind_call(candidates: Candidates, args: Sequence[Any], kwargs: dict[str, Any]) -> BoundCall:
    """Bind a call (numpy scalars count as 0-d tensors); BindError (a TypeError) if none fits."""
    args = tuple(np.asarray(a) if isinstance(a, np.generic) else a for a in args)
    op, arguments, values = bind(candidates, args, kwargs, eager_kind)
    plain = [v.value if isinstance(v, DEFAULT) else v for v in values]
    return BoundCall(op, arguments, plain)


def _eager_argument(argument: Argument, value: Any) -> Any:
    """What an op's numpy reference takes: arrays, ScalarType codes, int lists."""
    if isinstance(value, Tensor):
        return value.numpy()
    if isinstance(value, DType):
        return value.scalar_type
    if argument.type.startswith("int[") and isinstance(value, int):
        return [value]
    if isinstance(value, list | tuple):
        items = [v.numpy() if isinstance(v, Tensor) else v for v in value]
        return [int(v) if isinstance(v, np.integer) else v for v in items]
    return value


def run_bound(call: BoundCall) -> Any:
    """Run the bound op's numpy reference; tensors come back as `Tensor`s."""
    eager = [_eager_argument(a, v) for a, v in zip(call.arguments, call.values)]
    return wrap_result(call.op, call.op.run_eager(*eager))


def wrap_result(op: type[TorchOp], out: Any) -> Any:
    """Arrays become Tensors, tuples named tuples when the schema names its results."""
    if isinstance(out, np.ndarray):
        return Tensor.wrap(out)
    if isinstance(out, np.generic):
        return out.item()
    if isinstance(out, list):
        return tuple(wrap_result(op, o) for o in out)
    if isinstance(out, tuple):
        items = [wrap_result(op, o) for o in out]
        result_type = _result_tuple(op)
        return result_type(*items) if result_type is not None else tuple(items)
    return out


@cache
def _result_tuple(op: type[TorchOp]) -> Any:
    """`torch.return_types.max(values, indices)`-like named tuple, if the schema names results."""
    returns = op.SCHEMA.split("->", 1)[1].strip()
    names = re.findall(r"(?:Tensor|int|float|bool)\S*\s+(\w+)", returns)
    if not names or len(names) != returns.count(",") + 1:
        return None
    name = op.parsed_schema().name
    base = namedtuple(name, names)  # noqa: PYI024

    def __repr__(self: Any) -> str:
        fields = ",\n".join(f"{n}={v!r}" for n, v in zip(names, self))
        return f"torch.return_types.{name}(\n{fields})"

    return type(name, (base,), {"__repr__": __repr__, "__slots__": ()})


# ---- interception ----


class EagerInterceptor(Interceptor):
    """What runs when no tracer is installed: op calls run their numpy references."""

    def dispatch(self, candidates: Candidates, args: Sequence[Any], kwargs: dict[str, Any]) -> Any:
        return run_bound(bind_call(candidates, args, kwargs))


_EAGER = EagerInterceptor()


def current() -> Interceptor:
    """The innermost installed interceptor of this thread, else the eager one."""
    return installed() or _EAGER


def dispatch(candidates: Candidates, args: Sequence[Any], kwargs: dict[str, Any]) -> Any:
    """Call one of `candidates` (overloads of one spelling) with PyTorch's binding rules."""
    return current().dispatch(candidates, args, kwargs)
