"""Argument annotations of scripted functions: `Tensor`, `int`, `float`, `bool`, `str`,
`List[int]`, `Tuple[...]`, `Optional[...]` and `X | None`, parsed from the `ast`.

How each kind reaches the IR:
- `Tensor`, `int`, `float`, `bool`: one function argument;
- `Tuple[A, B]`: one function argument per element (`%hx.0`, `%hx.1`), a tuple in the body;
- `Optional[X]` / `X | None`: the graph is specialized on whether the argument is None: a None
  argument is the constant `None` (so `x is None` is decided while scripting and the other
  branch disappears, like TorchScript's refinement), anything else is an `X`;
- `List[int]`, `List[float]`, `str`: specialized on the value (a constant in the graph), since
  lists are shapes and dims that shape rules need to know; TorchScript's
  `BroadcastingList1/2/3[int]` (`torch._jit_internal`) is a `List[int]` that a single number
  also gives (broadcast to N copies, `2` -> `[2, 2]`);
- `Dict[str, X]` (X: Tensor, int, float, bool; keys str or int): specialized on the keys, one
  function argument per value (`%batch.input`), a dict in the body;
- a method's `*args` (kind `varargs`, items: the element annotation, Tensor by default):
  specialized on how many it collects (`VarArgs`), one function argument each, a tuple in the
  body;
- a flag, a `bool` parameter with a `True`/`False` default of an entry function (annotated
  `bool` or not): specialized on the value like `str` (kind `flag`). Flags pick what a function
  computes and returns (`need_weights`, `batch_first`): as constants the other branch goes
  before shapes are inferred, and each value compiles once. A `bool` without a default, and
  every `bool` of a called function, stays a run-time value.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from xdsl.ir import Attribute

from dialects.torch.types import BoolType, FloatType, IntType, ListType, ValueTensorType
from frontend.script.dicts import DictKeys

UNKNOWN_TENSOR = ValueTensorType(None, None)
_SCALARS: dict[str, Attribute] = {"int": IntType(), "float": FloatType(), "bool": BoolType()}
_ALIASES = {"List": "list", "Tuple": "tuple", "Optional": "optional", "Dict": "dict"}
_DICT_VALUES = ("Tensor", "int", "float", "bool")
_BROADCASTING = {f"BroadcastingList{n}": n for n in (1, 2, 3)}  # torch._jit_internal's


@dataclass(frozen=True)
class VarArgs:
    """A method's `*args` in one specialization: how many arguments it collects."""

    count: int


@dataclass(frozen=True)
class ListLength:
    """The default graph of a `List[int]` argument whose body needs its length (`len(shape)`,
    `shape[0]`): that many run-time items, one function argument each (calls specialize on
    the list's value)."""

    count: int


@dataclass(frozen=True)
class ArgSpec:
    """An annotation: `kind` is Tensor, int, float, bool, flag, str, list, tuple, dict or
    optional (`items`: the element types; a dict's value type)."""

    kind: str
    items: tuple[ArgSpec, ...] = ()
    broadcast: int = 0  # TorchScript's BroadcastingListN[int]: a number stands for N copies

    def __str__(self) -> str:
        if not self.items:
            return self.kind
        inner = ", ".join(map(str, self.items))
        return {"list": f"List[{inner}]", "tuple": f"Tuple[{inner}]"}.get(
            self.kind, f"Optional[{inner}]"
        )

    @property
    def is_structured(self) -> bool:
        """Whether calls specialize on the argument (None-ness, list values, tuple shape)."""
        return self.kind in ("list", "tuple", "optional", "str", "flag", "dict", "varargs") or any(
            i.is_structured for i in self.items
        )

    def default_types(self) -> list[Attribute]:
        """The function arguments of the default graph (Optional as present, lists as lists)."""
        if self.kind == "Tensor":
            return [UNKNOWN_TENSOR]
        if self.kind in _SCALARS:
            return [_SCALARS[self.kind]]
        if self.kind == "tuple":
            return [t for i in self.items for t in i.default_types()]
        if self.kind == "optional":
            return self.items[0].default_types()
        if self.kind == "list":
            return [ListType(self.items[0].default_types()[0])]
        return []  # str and flags: constants; dicts: one argument per key of a call


Fail = Callable[[ast.AST, str], Exception]


def parse_annotation(node: ast.expr, fail: Fail) -> ArgSpec:
    """The ArgSpec of an annotation; `fail(node, message)` builds the error for bad ones."""
    if isinstance(node, ast.Constant) and node.value is None:
        return ArgSpec("None")
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return _optional(node, [node.left, node.right], fail)
    if isinstance(node, ast.Subscript):
        return _generic(node, fail)
    name = _dotted(node).split(".")[-1]
    if name in ("Tensor", "int", "float", "bool", "str"):
        return ArgSpec(name)
    raise fail(node, f"unsupported type annotation `{ast.unparse(node)}`")


def _generic(node: ast.Subscript, fail: Fail) -> ArgSpec:
    base = _dotted(node.value).split(".")[-1]
    base = _ALIASES.get(base, base)
    args = list(node.slice.elts) if isinstance(node.slice, ast.Tuple) else [node.slice]
    if base == "Union":
        return _optional(node, args, fail)
    items = tuple(parse_annotation(a, fail) for a in args)
    if base == "optional" and len(items) == 1:
        return ArgSpec("optional", items)
    if base == "tuple" and items and all(i.kind != "None" for i in items):
        return ArgSpec("tuple", items)
    if base == "list" and len(items) == 1 and items[0].kind in ("int", "float"):
        return ArgSpec("list", items)
    if base in _BROADCASTING and len(items) == 1 and items[0].kind in ("int", "float"):
        return ArgSpec("list", items, _BROADCASTING[base])
    if base == "dict" and len(items) == 2 and _dict_of_values(*items):
        return ArgSpec("dict", (items[1],))
    raise fail(
        node,
        f"unsupported type annotation `{ast.unparse(node)}`",
    )


def _dict_of_values(key: ArgSpec, value: ArgSpec) -> bool:
    return key.kind in ("str", "int") and value.kind in _DICT_VALUES


def _optional(node: ast.AST, parts: list[ast.expr], fail: Fail) -> ArgSpec:
    specs = [parse_annotation(p, fail) for p in parts]
    others = [s for s in specs if s.kind != "None"]
    if len(specs) == 2 and len(others) == 1:
        return ArgSpec("optional", (others[0],))
    raise fail(node, f"unsupported union `{ast.unparse(node)}`: only `X | None` is supported")


def _dotted(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return f"{_dotted(node.value)}.{node.attr}"
    return ast.unparse(node)


def admits(spec: ArgSpec, types: list[Attribute]) -> bool:
    """Whether a call site's argument types fit the annotation."""
    if spec.kind == "optional":
        return admits(spec.items[0], types)
    if spec.kind == "tuple":
        widths = [len(i.default_types()) for i in spec.items]
        return len(types) == sum(widths) and all(
            admits(item, [t]) for item, t in zip(spec.items, types)
        )
    if spec.kind == "dict":
        return all(admits(spec.items[0], [t]) for t in types)
    if len(types) != 1:
        return False
    if spec.kind == "Tensor":
        return isinstance(types[0], ValueTensorType)
    if spec.kind == "list":
        return isinstance(types[0], ListType)
    if spec.kind == "float":
        return types[0] in (FloatType(), IntType())
    return types[0] == _SCALARS.get(spec.kind)


# ---- matching actual values (entry calls) ----


def structure_of(spec: ArgSpec | None, value: Any) -> Any:
    """The part of `value` a graph is specialized on (hashable), or raise TypeError."""
    if spec is None or spec.kind in ("Tensor", *_SCALARS):
        return None
    if spec.kind == "optional":
        return "None" if value is None else ("some", structure_of(spec.items[0], value))
    if spec.kind == "tuple":
        if not isinstance(value, tuple | list) or len(value) != len(spec.items):
            raise TypeError(f"expected a tuple of {len(spec.items)}, got {_describe(value)}")
        return tuple(structure_of(s, v) for s, v in zip(spec.items, value))
    if spec.kind == "list":
        value = broadcast_list(spec, value)
        if not isinstance(value, list | tuple):
            raise TypeError(f"expected a list, got {_describe(value)}")
        return ("list", tuple(value))
    if spec.kind == "str":
        if not isinstance(value, str):
            raise TypeError(f"expected a str, got {_describe(value)}")
        return ("str", value)
    if spec.kind == "flag":
        return ("flag", flag_value(value))
    if spec.kind == "dict":
        return ("dict", dict_keys(value))
    if spec.kind == "varargs":
        return ("varargs", tuple(structure_of(spec.items[0], v) for v in value))
    return None


def broadcast_list(spec: ArgSpec, value: Any) -> Any:
    """A `BroadcastingListN` argument given one number: N copies of it (else the value)."""
    if spec.broadcast and isinstance(value, int | float) and not isinstance(value, bool):
        return [value] * spec.broadcast
    return value


def dict_keys(value: Any) -> tuple[Any, ...]:
    """A `Dict[...]` argument's keys (str or int), in order."""
    if not isinstance(value, dict):
        raise TypeError(f"expected a dict, got {_describe(value)}")
    bad = [k for k in value if not isinstance(k, str | int) or isinstance(k, bool)]
    if bad:
        raise TypeError(f"dict keys must be str or int, got {bad[0]!r}")
    return tuple(value)


def flag_value(value: Any) -> bool:
    """A flag argument's value (a Python or numpy bool, as TorchScript's `bool` takes)."""
    if isinstance(value, bool | np.bool_):
        return bool(value)
    raise TypeError(f"expected a bool, got {_describe(value)}")


def flatten(spec: ArgSpec | None, value: Any) -> list[Any]:
    """The function arguments that carry `value` (none for constants)."""
    if spec is None or spec.kind in ("Tensor", *_SCALARS):
        return [value]
    if spec.kind == "optional":
        return [] if value is None else flatten(spec.items[0], value)
    if spec.kind == "tuple":
        return [x for s, v in zip(spec.items, value) for x in flatten(s, v)]
    if spec.kind == "dict":
        return [x for v in value.values() for x in flatten(spec.items[0], v)]
    if spec.kind == "varargs":
        return [x for v in value for x in flatten(spec.items[0], v)]
    return []  # lists, strings and flags are constants of the specialized graph


def constant_of(spec: ArgSpec | None, value: Any) -> Any:
    """The value bound as a constant while scripting a specialization, or NotImplemented."""
    if spec is None:
        return NotImplemented
    if spec.kind == "optional" and value is None:
        return None
    if spec.kind == "list":
        return list(broadcast_list(spec, value))
    if spec.kind == "str":
        return value
    if spec.kind == "flag":
        return flag_value(value)
    if spec.kind == "dict":
        return DictKeys(tuple(value))
    if spec.kind == "varargs":
        return VarArgs(len(value))
    if spec.kind == "optional":
        return constant_of(spec.items[0], value)
    return NotImplemented


def _describe(value: Any) -> str:
    return type(value).__name__
