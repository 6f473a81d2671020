"""Runs torch-dialect IR with PyTorch's own aten ops: the eager tier for torch tensors.

`run_with_aten(module, "f", args)` is `interpreter.run_torch_ir` with every op spelled
`torch.aten.<name>[.<overload>]` called as `torch.ops.aten.<name>.<overload>` (`default` when
the IR name has no overload) on torch tensors, so a program called with torch tensors gets
PyTorch's kernels and results on the eager tier. Arguments are bound by the overload's schema:
positional ones in order, keyword-only ones (`dtype=`, `layout=`, ...) by name, trailing ones
the IR leaves out at their defaults; a dtype code
becomes its `torch.dtype`, layout, device and memory-format values are PyTorch's defaults.

An op runs its numpy eager reference instead (on zero-copy numpy views of its tensors) when
its values are not a function of its operands (`empty*`, random draws, dropout: the compiled
code's values), when it has no aten counterpart (`prim` ops the registry knows, tsjit's own
ops), when the overload does not take its arguments, when the aten call raises (the reference
then raises the error the other tiers raise, or computes what they compute), or when the aten
result disagrees with the op's IR type. Arguments and results are numpy arrays, as for
`run_torch_ir`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Attribute, Operation

from dialects.torch.dtypes import dtype_of_code
from dialects.torch.interpreter import (
    HANDLERS,
    Env,
    TorchInterpreter,
    TorchInterpreterError,
    check_value,
    run_eager_op,
)
from dialects.torch.op_base import ConstantLikeOp, TorchOp

Binder = Callable[[list[Any]], tuple[list[Any], dict[str, Any]]]
NOT_ATEN = None  # a cached "this op name has no usable aten overload"


def run_with_aten(module: ModuleOp, function_name: str, args: Sequence[Any]) -> Any:
    """Run `@function_name` of `module` on `args` with aten ops: its one result, or a tuple."""
    import torch

    with torch.no_grad():
        results = AtenInterpreter(module).call(function_name, [to_torch(a) for a in args])
    results = [to_numpy(r) for r in results]
    return results[0] if len(results) == 1 else tuple(results)


class AtenInterpreter(TorchInterpreter):
    """The torch interpreter whose tensors are torch tensors and whose ops are aten's."""

    def run_op(self, op: Operation, env: Env) -> Sequence[Any]:
        if type(op) in HANDLERS or not isinstance(op, TorchOp) or isinstance(op, ConstantLikeOp):
            return super().run_op(op, env)
        args = [env[v] for v in op.operands]
        outputs = self.run_aten(op, args)
        if outputs is None:
            eager = run_eager_op(op, [to_numpy_deep(a) for a in args])
            outputs = [to_torch_deep(o) for o in eager]
        return outputs

    def run_aten(self, op: TorchOp, args: list[Any]) -> list[Any] | None:
        """The op's aten overload on `args`; None when it has none, or it does not take
        them, raises, or gives a result its IR type does not allow."""
        overload, bind = aten_overload(op.name, len(args))
        if overload is None:
            return None
        try:
            positional, keywords = bind(args)
            out = overload(*positional, **keywords)
        except Exception:  # noqa: BLE001 - the reference decides: it raises or computes
            return None
        outputs = list(out) if isinstance(out, tuple | list) and len(op.results) > 1 else [out]
        if len(outputs) != len(op.results):
            return None
        try:
            for result, value in zip(op.results, outputs):
                self.check(value, result.type, op.name)
        except TorchInterpreterError:
            return None
        return outputs

    def check(self, value: Any, typ: Attribute, where: str) -> None:
        check_value(to_numpy_deep(value), typ, where)


# ops whose values are not a function of their operands (uninitialized memory, random draws):
# the references give what the compiled code gives
NOT_FUNCTIONS_OF_INPUTS = (
    "empty", "rand", "bernoulli", "normal", "uniform", "dropout", "multinomial",
    "exponential", "poisson", "cauchy", "geometric",
)  # fmt: skip
_OVERLOADS: dict[tuple[str, int], tuple[Any, Binder | None]] = {}


def aten_overload(name: str, arity: int) -> tuple[Any, Binder | None]:
    """`torch.ops.aten.<name>.<overload>` for the IR op name `torch.aten.<name>[.<overload>]`
    called with `arity` operands, and the function binding the operands to its schema; (None,
    None) when there is none."""
    key = (name, arity)
    if key not in _OVERLOADS:
        _OVERLOADS[key] = _resolve(name, arity)
    return _OVERLOADS[key]


def _resolve(name: str, arity: int) -> tuple[Any, Binder | None]:
    import torch

    parts = name.split(".")
    if len(parts) not in (3, 4) or parts[:2] != ["torch", "aten"]:
        return None, None
    if any(word in parts[2] for word in NOT_FUNCTIONS_OF_INPUTS):
        return None, None
    packet = getattr(torch.ops.aten, parts[2], None)
    overload = getattr(packet, parts[3] if len(parts) == 4 else "default", None)
    schema = getattr(overload, "_schema", None)
    if schema is None or not _takes(schema.arguments, arity):
        return None, None
    arguments = schema.arguments[:arity]
    converters = [_converter(str(argument.type)) for argument in arguments]
    keyword_names = [a.name if a.kwarg_only else None for a in arguments]

    def bind(args: list[Any]) -> tuple[list[Any], dict[str, Any]]:
        positional, keywords = [], {}
        for value, convert, keyword in zip(args, converters, keyword_names):
            value = convert(value)
            if keyword is None:
                positional.append(value)
            else:
                keywords[keyword] = value
        return positional, keywords

    return overload, bind


def _takes(arguments: Sequence[Any], arity: int) -> bool:
    """Whether `arity` operands fill the schema's first arguments, the rest having defaults
    (tsjit's ops leave out trailing `layout`, `device`, `pin_memory`)."""
    return len(arguments) >= arity and all(a.has_default_value() for a in arguments[arity:])


def _converter(type_text: str) -> Callable[[Any], Any]:
    """How an interpreter value becomes an argument of schema type `type_text`."""
    if "ScalarType" in type_text:
        return _to_dtype
    if any(kind in type_text for kind in ("Layout", "Device", "MemoryFormat")):
        return lambda value: None  # the defaults: strided, CPU, contiguous
    return lambda value: value


def _to_dtype(value: Any) -> Any:
    import torch

    if isinstance(value, int) and not isinstance(value, bool):
        return getattr(torch, dtype_of_code(value).name)
    return value


# ---- values: numpy at the boundary, torch inside ----


def to_torch(value: Any) -> Any:
    import torch

    if isinstance(value, np.ndarray):
        if not value.flags.writeable:  # torch.from_numpy warns about read-only arrays
            value = value.copy()
        return torch.from_numpy(value)
    return value


def to_numpy(value: Any) -> Any:
    import torch

    if isinstance(value, torch.Tensor):
        return value.detach().numpy()
    return value


def to_torch_deep(value: Any) -> Any:
    if isinstance(value, list | tuple):
        return type(value)(to_torch_deep(v) for v in value)
    return to_torch(value)


def to_numpy_deep(value: Any) -> Any:
    if isinstance(value, list | tuple):
        return type(value)(to_numpy_deep(v) for v in value)
    return to_numpy(value)
