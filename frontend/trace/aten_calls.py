"""Traced calls of `torch.ops.aten.*` / `prims.*` / `prim.*` objects and of `out=` arguments.

A packet (`torch.ops.aten.add`) is first resolved by PyTorch itself on the real arguments
(`torch._C._jit_resolve_packet`); the overload is then its registry ops
(`frontend/ir/aten_namespace.py`) or a composition of ops (`frontend/ir/aten_aliases.py`),
run on the mirrors, which records them. An in-place overload (`add_.Tensor`) writes the
functional result into its first argument and an `out=` overload into `out`, both in the
destination's dtype, as PyTorch does (`write_back`, `write_out`).
"""

from __future__ import annotations

from typing import Any

from frontend.ir.aten_namespace import (
    AtenTarget,
    ResolvedOps,
    functional_composition,
    missing_message,
    named_arguments,
    overload_ops,
    resolve_packet,
)
from frontend.torch.dispatch import current, dispatch
from frontend.torch.methods import cast, write_back
from frontend.torch.tensor import Tensor
from frontend.trace.errors import TraceError, user_line


def record_aten_call(
    target: AtenTarget, args: Any, kwargs: dict[str, Any], mirrors: Any, options: dict[str, Any]
) -> Any:
    """The mirror result of the `torch.ops` call `target(*args, **kwargs)` (PyTorch values),
    its ops recorded on `mirrors` / `options` (the same arguments as frontend values)."""
    if target.overload is None:
        target = resolve_packet(target, args, kwargs)
    if target.overload is None:
        raise TraceError(f"{user_line()}: no overload of {target.label} matches these arguments")
    destination = options.pop("out", None) if target.writes_out else None
    ops = overload_ops(target)
    if ops:
        result = dispatch(ResolvedOps(ops), mirrors, options)
    else:
        composition = functional_composition(target)
        if composition is None:
            raise TraceError(f"{user_line()}: cannot trace {target.label}: "
                             f"{missing_message(target)}")  # fmt: skip
        result = composition(**named_arguments(target, mirrors, options))
    if target.in_place:
        return write_back(mirrors[0], result, target.label)
    if isinstance(destination, Tensor):
        return write_out(destination, result, target.label)
    return result


def write_out(destination: Tensor, result: Any, name: str) -> Tensor:
    """`out=destination`: `destination` holds `result` in its own dtype (resized to the
    result's shape, as PyTorch resizes it); a result of a higher dtype category (a float into
    an int tensor) is PyTorch's RuntimeError."""
    if not isinstance(result, Tensor):
        raise TypeError(f"{name}: out= of an op that does not produce one tensor")
    if result.dtype.category > destination.dtype.category:
        raise RuntimeError(
            f"{name}: result type {result.dtype} can't be cast to the desired output type "
            f"{destination.dtype}"
        )
    value = cast(result, destination.dtype) if result.dtype != destination.dtype else result
    current().updated(destination, value)
    destination.data = value.numpy().copy()
    return destination
