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

    Missing arguments are returned as their schema default (a Python value).
    """
    reasons: list[str] = []
    for op in candidates:
        schema = op.parsed_schema()
        try:
            values = _bind_one(schema.arguments, args, kwargs, kind_of)
        except BindError as err:
            reasons.append(f"  {op.SCHEMA}: {err}")
            continue
        return op, list(schema.arguments), values
    kinds = ", ".join([kind_of(a) for a in args] + [f"{k}={kind_of(v)}" for k, v in kwargs.items()])
    raise BindError(f"no overload accepts ({kinds}):\n" + "\n".join(reasons))


def _bind_one(
    arguments: Sequence[Argument], args: Sequence[Any], kwargs: dict[str, Any], kind_of: KindOf
) -> list[Any]:
    positional = [a for a in arguments if not a.kwarg_only]
    args = _packed_sizes(positional, args, kind_of)
    if len(args) > len(positional):
        raise BindError(f"takes at most {len(positional)} positional arguments, got {len(args)}")
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
    "Tensor[]": {"list[Tensor]"},
}


def accepts(argument: Argument, kind: str) -> bool:
    if kind == "None":
        return argument.optional
    return kind in _ACCEPTS.get(argument.type, {argument.type})
