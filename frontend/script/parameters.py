"""The scripted function's signature (`scripter.parameters`): which parameters are run-time
arguments, their annotations and types, and which are constants of the graph.

Unannotated parameters take the call site's type (a tensor by default); annotated ones take
the annotation's types, which a call's types must match; `str` parameters and an entry
function's `bool` flags are constants, their defaults giving the default graph. A method's
first parameter is bound to its module (`self_value`).

Interface: `parameters()` (the parameters without `self`), `default_constants(parameters)`,
`broadcast_constants(parameters, constants)` (`BroadcastingListN` numbers as lists),
`argument_types(arg)`, `annotation(arg)`, `parameter_specs()`.
"""

from __future__ import annotations

import ast
from typing import Any

from xdsl.ir import Attribute

from dialects.torch.types import ValueTensorType
from frontend.ir.builder import kind_of_type
from frontend.script.annotations import (
    ArgSpec,
    ListLength,
    VarArgs,
    admits,
    broadcast_list,
    parse_annotation,
)
from frontend.script.collaborator import Collaborator
from frontend.script.dicts import DictKeys


class Parameters(Collaborator):
    """The function's parameters, their annotations and types."""

    def default_constants(self, parameters: list[ast.arg]) -> dict[str, Any]:
        """`str` arguments and an entry function's flags are constants: the default graph
        uses their default value."""
        defaults = self.parameter_defaults()
        out: dict[str, Any] = {}
        for arg in parameters:
            spec = self.annotation(arg)
            if (
                arg.arg in self.scripter.constants
                or spec is None
                or spec.kind not in ("str", "flag")
            ):
                continue
            default = defaults.get(arg.arg)
            if spec.kind == "str" and not (
                isinstance(default, ast.Constant) and isinstance(default.value, str)
            ):
                raise self.error(
                    arg,
                    f"the str argument `{arg.arg}` needs a default value",
                    "the graph is specialized on the string; its default gives `.graph`",
                )
            out[arg.arg] = default.value  # type: ignore[union-attr]
        return out

    def broadcast_constants(
        self, parameters: list[ast.arg], constants: dict[str, Any]
    ) -> dict[str, Any]:
        """A number given for a `BroadcastingListN[int]` parameter is N copies of it."""
        out = dict(constants)
        for arg in parameters:
            spec = self.annotation(arg) if arg.arg in out else None
            if spec is not None and spec.kind == "list" and spec.broadcast:
                value = broadcast_list(spec, out[arg.arg])
                out[arg.arg] = list(value) if isinstance(value, tuple) else value
        return out

    def parameter_defaults(self) -> dict[str, ast.expr]:
        args = self.scripter.node.args
        if not args.defaults:
            return {}
        return dict(zip([a.arg for a in args.args][-len(args.defaults) :], args.defaults))

    def parameters(self) -> list[ast.arg]:
        """The function's arguments, without `self` for a method."""
        args = self.scripter.node.args
        method = self.scripter.self_value is not None and args.kwarg is None
        for extra, what in ((args.vararg, "*args"), (args.kwarg, "**kwargs")):
            if extra is not None and not (method and what == "*args"):
                raise self.error(
                    extra,
                    f"{what} is not supported in scripted functions",
                    "list every argument explicitly",
                )
        if args.kwonlyargs or args.posonlyargs:
            node = (args.kwonlyargs or args.posonlyargs)[0]
            raise self.error(
                node,
                "keyword-only and positional-only arguments are not supported",
                "use plain positional arguments",
            )
        if self.scripter.self_value is None:
            return list(args.args)
        if not args.args:
            raise self.error(
                self.scripter.node, f"method {self.scripter.node.name}() has no `self` argument"
            )
        self.scripter.env[args.args[0].arg] = self.scripter.self_value
        return list(args.args[1:]) + ([args.vararg] if args.vararg is not None else [])

    def argument_types(self, arg: ast.arg) -> tuple[list[Attribute], bool]:
        """The function arguments for `arg` and whether they form a tuple.

        Unannotated: the call site's type, else a tensor. Annotated: the annotation's types,
        which a call site's types must match.
        """
        spec = self.annotation(arg)
        given = self.scripter.call_types.get(arg.arg)
        collected = self.scripter.constants.get(arg.arg)
        if spec is not None and spec.kind == "varargs":  # `*args`: as many as this call gives
            count = collected.count if isinstance(collected, VarArgs) else 0
            return spec.items[0].default_types() * count, True
        if spec is not None and spec.kind == "list" and isinstance(collected, ListLength):
            return spec.items[0].default_types() * collected.count, True
        if given is None:
            if spec is None:
                return [UNKNOWN_TENSOR], False
            if spec.kind == "dict":
                keys = self.scripter.constants.get(arg.arg)
                count = len(keys.keys) if isinstance(keys, DictKeys) else 0
                return spec.items[0].default_types() * count, True
            inner = spec.items[0] if spec.kind == "optional" else spec
            return spec.default_types(), inner.kind == "tuple"
        types = given if isinstance(given, list) else [given]
        if spec is not None and not admits(spec, types):
            shown = ", ".join(kind_of_type(t) for t in types)
            raise self.error(
                arg, f"argument `{arg.arg}` is declared {spec} but the call passes {shown}"
            )
        return types, isinstance(given, list)

    def annotation(self, arg: ast.arg) -> ArgSpec | None:
        """The argument's annotation; an entry function's flag (a `bool` parameter, annotated
        or not, with a `True`/`False` default) is `ArgSpec("flag")`."""
        spec = None if arg.annotation is None else self.parsed_annotation(arg.annotation)
        if arg is self.scripter.node.args.vararg:
            return ArgSpec("varargs", (spec or ArgSpec("Tensor"),))
        if self.scripter.entry and (spec is None or spec.kind == "bool"):
            default = self.parameter_defaults().get(arg.arg)
            if isinstance(default, ast.Constant) and isinstance(default.value, bool):
                return ArgSpec("flag")
        return spec

    def parsed_annotation(self, annotation: ast.expr) -> ArgSpec:
        return parse_annotation(
            annotation,
            lambda node, message: self.error(
                node,
                message,
                "use Tensor, int, float, bool, str, List[int], Tuple[...], Optional[...] "
                "or X | None",
            ),
        )

    def parameter_specs(self) -> list[tuple[str, ArgSpec | None]]:
        """Each parameter (without `self`) and its annotation, for entry-call specialization."""
        return [(a.arg, self.annotation(a)) for a in self.parameters()]


UNKNOWN_TENSOR = ValueTensorType(None, None)
