"""Matches a call's arguments against the schemas of an op's overloads (torch's overload rules)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from dialects.torch.op_base import TorchOp
from dialects.torch.schema import Argument

# The kind of a call argument: "Tensor", "int", "float", "bool", "None", "list[int]", "DType"
KindOf = Callable[[Any], str]


class BindError(TypeError):
    """No overload accepts the arguments."""


def bind(
    candidates: Sequence[type[TorchOp]],
    args: Sequence[Any],
    kwargs: dict[str, Any],
    kind_of: KindOf,
) -> tuple[type[TorchOp], list[Argument], list[Any]]:
    """The first overload whose schema accepts the arguments, with every argument in order.

    Missing arguments are returned as their schema default (a Python value). Candidates that
    resolve themselves (a `torch.ops` packet: `frontend/ir/aten_namespace.py` `PacketOps`)
    are first narrowed to the overload PyTorch picks; then, as PyTorch converts it, an int
    passes for a `bool`.
    """
    resolve = getattr(candidates, "resolve", None)
    lenient = resolve is not None
    if resolve is not None:
        candidates = resolve(args, kwargs, kind_of)
    reasons: list[str] = []
    for op in candidates:
        schema = op.parsed_schema()
        try:
            values = _bind_one(schema.arguments, args, kwargs, kind_of, lenient)
        except BindError as err:
            reasons.append(f"  {op.SCHEMA}: {err}")
            continue
        return op, list(schema.arguments), values
    kinds = ", ".join([kind_of(a) for a in args] + [f"{k}={kind_of(v)}" for k, v in kwargs.items()])
    raise BindError(f"no overload accepts ({kinds}):\n" + "\n".join(reasons))


def _bind_one(
    arguments: Sequence[Argument], args: Sequence[Any], kwargs: dict[str, Any], kind_of: KindOf,
    lenient: bool = False,
) -> list[Any]:  # fmt: skip
    positional = [a for a in arguments if not a.kwarg_only]
    args = _packed_sizes(positional, args, kind_of)
    if len(args) > len(positional):
        raise BindError(f"takes at most {len(positional)} positional arguments, got {len(args)}")
    kwargs = without_harmless(arguments, kwargs)
    unknown = set(kwargs) - {a.name for a in arguments}
    if unknown:
        raise BindError(f"unexpected keyword argument {sorted(unknown)[0]!r}")
    values: list[Any] = []
    for index, argument in enumerate(arguments):
        if index < len(args) and not argument.kwarg_only:
            value = args[index]
            if argument.name in kwargs:
                raise BindError(f"got multiple values for argument {argument.name!r}")
        elif argument.name in kwargs:
            value = kwargs[argument.name]
        elif argument.has_default:
            values.append(DEFAULT(argument.default))
            continue
        else:
            raise BindError(f"missing argument {argument.name!r}")
        value = _python_value(argument, value, kind_of, lenient)
        if (
            argument.name == "memory_format"
            and argument.has_default
            and kind_of(value) in ("int", "None")
        ):  # a memory format changes strides, not values: the op gets its default
            values.append(DEFAULT(argument.default))
            continue
        if value is None and argument.type == "int[]" and argument.default == []:
            # `F.max_pool2d_with_indices(x, 2, stride=None)`: the F function's None is ATen's []
            values.append(DEFAULT(argument.default))
            continue
        if not accepts(argument, kind_of(value)):
            raise BindError(
                f"argument {argument.name!r} must be {argument.type}, not {kind_of(value)}"
            )
        values.append(value)
    return values


def _packed_sizes(
    positional: Sequence[Argument], args: Sequence[Any], kind_of: KindOf
) -> Sequence[Any]:
    """Sizes may come unpacked, as in PyTorch (`x.view(2, 3)`, `torch.zeros(n, 4)`): ints beyond
    the positional arguments fill a last positional `int[]` as one list; so do tensors for a
    last `Tensor[]` (`torch.meshgrid(a, b)`)."""
    if len(args) < len(positional) or not positional:
        return args
    element = {"int[]": "int", "Tensor[]": "Tensor"}.get(positional[-1].type)
    if len(args) == len(positional) and element != "Tensor":  # one int is an `int[]` already
        return args
    first = len(positional) - 1
    if element is None or not all(kind_of(v) == element for v in args[first:]):
        return args
    return [*args[:first], list(args[first:])]


class DEFAULT:
    """A schema default standing in for an argument the caller left out."""

    def __init__(self, value: Any) -> None:
        self.value = value


_ACCEPTS: dict[str, set[str]] = {
    "Tensor": {"Tensor"},
    "Scalar": {"int", "float", "bool"},
    "int": {"int", "bool"},
    "float": {"float", "int"},
    "bool": {"bool"},
    "int[]": {"list[int]", "int"},
    "float[]": {"list[float]", "list[int]", "list[?]", "float", "int"},  # scale_factors
    "ScalarType": {"DType", "int"},
    "MemoryFormat": {"int"},
    "Tensor[]": {"list[Tensor]"},
}


def accepts(argument: Argument, kind: str) -> bool:
    if kind == "None":
        return argument.optional
    return kind in _ACCEPTS.get(argument.type, {argument.type})


# ---- arguments PyTorch's schemas have and the registry's need not ----

HARMLESS: dict[str, tuple[Any, ...]] = {
    "layout": (None, "torch.strided"),
    "device": (None, "cpu"),
    "pin_memory": (None, False),
    "requires_grad": (None, False),
    "non_blocking": (None, False),
    "memory_format": (),  # any: a memory format changes strides, never values
}
"""Keywords a call may pass although an op's schema lacks them, with the values that change
nothing here (() for every value): `torch.ops.aten.zeros(..., layout=torch.strided,
device="cpu", pin_memory=False)`, `x.clone(memory_format=torch.channels_last)`."""

MEMORY_FORMATS = {
    "torch.contiguous_format": 0, "torch.preserve_format": 1, "torch.channels_last": 2,
    "torch.channels_last_3d": 3,
}  # fmt: skip
"""PyTorch's memory formats as ATen's `MemoryFormat` codes."""


def without_harmless(arguments: Sequence[Argument], kwargs: dict[str, Any]) -> dict[str, Any]:
    """`kwargs` without the HARMLESS keywords the schema lacks (at their harmless values)."""
    names = {a.name for a in arguments}
    return {
        k: v for k, v in kwargs.items()
        if k in names or k not in HARMLESS or not _is_harmless(HARMLESS[k], v)
    }  # fmt: skip


def _is_harmless(values: tuple[Any, ...], value: Any) -> bool:
    """`value` is one of `values` (None and bools by identity, others by their text: the
    device `cpu:0` is "cpu"); every value is when `values` is empty."""
    if not values:
        return True
    value = getattr(value, "obj", value) if type(value).__name__ == "PyObject" else value
    if value is None or isinstance(value, bool):
        return any(value is v for v in values)
    return str(value).split(":")[0] in values


def _python_value(argument: Argument, value: Any, kind_of: KindOf, lenient: bool) -> Any:
    """A PyTorch object as what the schema takes: a memory format as its code; for a resolved
    packet an int constant given for a `bool` as that bool (PyTorch converts it)."""
    obj = getattr(value, "obj", value) if type(value).__name__ == "PyObject" else value
    if type(obj).__name__ == "memory_format":
        return MEMORY_FORMATS.get(str(obj), value)
    if lenient and argument.type == "bool" and type(value) is int:
        return bool(value)
    return value
