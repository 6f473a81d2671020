"""Dicts in scripted code, known while scripting like tuples and lists: `{"a": x, "b": y}`
with keys known then (strings, ints, bools), `d["a"]`, `d["c"] = v` (in the block that made
the dict), `d.get(k, default)`, `len(d)`, `k in d`, and loops over `d`, `d.keys()`,
`d.values()` and `d.items()`, which unroll in insertion order. A function may return a dict
(its values are results; the caller gets a dict with the same keys) and pass one to a
function it calls (its values are arguments, its keys part of the callee's specialization).
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import Any

from xdsl.ir import SSAValue

from frontend.ir.builder import Value, kind_of
from frontend.script.collaborator import Collaborator

KEY_TYPES = (str, int, bool)


class ScriptDict(dict):  # type: ignore[type-arg]
    """A dict of values built while scripting (its keys are Python constants)."""


@dataclass(frozen=True)
class DictKeys:
    """A callee's dict parameter: the keys of the dict the call passes, whose values arrive
    as one function argument each (`%d.a`, `%d.b`) and become a `ScriptDict` again."""

    keys: tuple[Any, ...]


class OpenDict(ScriptDict):
    """A `Dict[str, X]` argument in the default graph (the one `.graph` shows before a call
    gives the keys): a value read by key (`d["a"]`, `d.get("a")`) becomes a new
    function argument `%d.a`; `in` and loops see the keys read so far. Calls never run this graph:
    each key set compiles a graph of its own."""

    def __init__(self, make_value: Any) -> None:
        super().__init__()
        self.make_value = make_value

    def open(self, key: Any) -> None:
        if key not in self:
            self[key] = self.make_value(key)


class Dicts(Collaborator):
    """Dicts. Interface: `dict_parameter`, `open_dict_parameter`, `dict_item`, `dict_store`,
    `dict_method`, and the handler `expr_Dict`."""

    def dict_parameter(self, name: str, keys: DictKeys, values: list[SSAValue]) -> ScriptDict:
        """The dict a callee's parameter `name` holds: one function argument per key."""
        for key, value in zip(keys.keys, values):
            value.name_hint = name + "." + re.sub(r"\W", "_", str(key))
        result = ScriptDict(zip(keys.keys, values))
        self.scripter.dict_blocks[id(result)] = self.scripter.entry_block
        return result

    def open_dict_parameter(self, name: str, spec: Any) -> OpenDict:
        """The default graph's `Dict[str, X]` parameter `name` (see `OpenDict`)."""
        (value_type,) = spec.items[0].default_types()

        def make_value(key: Any) -> SSAValue:
            block = self.scripter.entry_block
            value = block.insert_arg(value_type, len(block.args))
            value.name_hint = name + "." + re.sub(r"\W", "_", str(key))
            return value

        result = OpenDict(make_value)
        self.scripter.dict_blocks[id(result)] = self.scripter.entry_block
        return result

    def expr_Dict(self, node: ast.Dict) -> Value:  # noqa: N802
        result = ScriptDict()
        for key_node, value_node in zip(node.keys, node.values):
            if key_node is None:
                raise self.error(value_node, "`**` in a dict is not supported")
            result[self.dict_key(key_node)] = self.scripter.expressions.expr(value_node)
        self.scripter.dict_blocks[id(result)] = self.scripter.builder.block
        return result

    def dict_key(self, node: ast.expr) -> Any:
        key = self.scripter.expressions.expr(node)
        if not isinstance(key, KEY_TYPES):
            raise self.error(
                node,
                f"a dict key must be a string or a number known while scripting, not "
                f"{kind_of(key)}",
            )
        return key

    def dict_item(self, node: ast.Subscript, items: ScriptDict) -> Value:
        key = self.dict_key(node.slice)
        if isinstance(items, OpenDict):
            items.open(key)
        if key not in items:
            raise self.error(node, f"KeyError: {key!r} is not in the dict")
        return items[key]

    def dict_store(self, target: ast.Subscript, items: ScriptDict, value: Value) -> None:
        """`d[key] = value` in the block that made `d` (elsewhere the dict would change on
        paths that do not run)."""
        if self.scripter.dict_blocks.get(id(items)) is not self.scripter.builder.block:
            raise self.error(
                target,
                "assignment into a dict inside a branch or loop decided at run time is not "
                "supported",
                "build the dict where it is used, or assign a variable in the branch",
            )
        items[self.dict_key(target.slice)] = value

    def dict_method(self, node: ast.Call, items: ScriptDict, name: str, args: list[Value]) -> Value:
        """`keys()`, `values()`, `items()` (lists, to loop over) and `get(key, default)`."""
        if name in ("keys", "values", "items") and not args:
            parts = {"keys": list(items), "values": list(items.values()),
                     "items": list(items.items())}  # fmt: skip
            return self.scripter.expressions.new_list(parts[name])
        if name == "get" and 1 <= len(args) <= 2:
            if not isinstance(args[0], KEY_TYPES):
                raise self.error(node, "dict.get() needs a key known while scripting")
            if isinstance(items, OpenDict):
                items.open(args[0])
            return items.get(args[0], args[1] if len(args) == 2 else None)
        raise self.error(node, f"dict.{name}() is not supported in scripted functions")
