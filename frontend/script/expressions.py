"""Expressions (`scripter.expressions`): the dispatch of one expression to the collaborator
that scripts its kind, and the kinds that are not another concern's: constants, names
(variables, globals, builtins), tuples, lists, attributes and call expressions.

A call expression evaluates its callee and arguments here (`*args` spread; `torch.cat` of a
comprehension is the concatenation's) and hands them to the call sites
(`frontend/script/call_sites.py`).

Interface: `expr(node)` (a `Value`), `lookup(name_node)`, `new_list(items)` (a Python list
that `append` may grow in the block that made it).
"""

from __future__ import annotations

import ast
import builtins
from collections.abc import Callable
from functools import cached_property
from typing import Any

from xdsl.ir import SSAValue

from dialects.torch.dtypes import DType
from frontend.ir.builder import Value, kind_of
from frontend.script.collaborator import Collaborator
from frontend.script.concatenation import NOT_CONCATENATED
from frontend.script.shape_lists import SpreadSizes
from frontend.script.value_kinds import ModuleValue, PyObject, ShapeValue


class Expressions(Collaborator):
    """Expressions: dispatch by kind (`handlers`), names, literals, attributes, calls."""

    @cached_property
    def handlers(self) -> dict[type[ast.expr], Callable[[Any], Value]]:
        """Which collaborator scripts each kind of expression."""
        s = self.scripter
        return {
            ast.Constant: self.expr_Constant,
            ast.Name: self.expr_Name,
            ast.Tuple: self.expr_Tuple,
            ast.List: self.expr_List,
            ast.Attribute: self.expr_Attribute,
            ast.Call: self.expr_Call,
            ast.Subscript: s.values.expr_Subscript,
            ast.UnaryOp: s.operators.expr_UnaryOp,
            ast.BinOp: s.operators.expr_BinOp,
            ast.Compare: s.operators.expr_Compare,
            ast.IfExp: s.control.expr_IfExp,
            ast.BoolOp: s.control.expr_BoolOp,
            ast.ListComp: s.loops.expr_ListComp,
            ast.Dict: s.dicts.expr_Dict,
            ast.Lambda: s.lambdas.expr_Lambda,
            ast.JoinedStr: s.printing.expr_JoinedStr,
        }

    def expr(self, node: ast.expr) -> Value:
        """The value of `node`, scripted by the collaborator for its kind (`handlers`)."""
        method = self.handlers.get(type(node))
        if method is None:
            raise self.error(
                node,
                f"`{type(node).__name__}` expressions are not supported in scripted functions",
                _EXPRESSION_HINTS.get(type(node), ""),
            )
        return method(node)

    def expr_Constant(self, node: ast.Constant) -> Value:  # noqa: N802
        if node.value is None or isinstance(node.value, bool | int | float | str):
            return node.value
        raise self.error(
            node,
            f"constant {node.value!r} of type {type(node.value).__name__} is not supported",
            "use int, float, bool, str or None",
        )

    def expr_Name(self, node: ast.Name) -> Value:  # noqa: N802
        return self.lookup(node)

    def lookup(self, node: ast.Name) -> Value:
        if node.id in self.scripter.env or node.id in self.scripter.unusable:
            return self.scripter.values.read_variable(node.id, node)
        if node.id in self.scripter.globals:
            return self.python_value(node, self.scripter.globals[node.id])
        if hasattr(builtins, node.id):
            return PyObject(getattr(builtins, node.id))
        raise self.error(node, f"undefined name `{node.id}`")

    def python_value(self, node: ast.AST, obj: Any) -> Value:
        """Numbers and strings named from outside the function are constants; anything else a
        PyObject."""
        if isinstance(obj, bool | int | float | str) or obj is None:
            return obj
        if isinstance(obj, DType):  # frontend.torch.float64
            return obj
        if type(obj).__name__ == "dtype" and type(obj).__module__ == "torch":  # torch.float64
            from frontend.torch.dtype import as_dtype

            return as_dtype(obj)
        if type(obj).__name__ == "memory_format" and type(obj).__module__ == "torch":
            return MEMORY_FORMATS.get(str(obj), PyObject(obj))  # an int, as in TorchScript
        return PyObject(obj)

    def expr_Tuple(self, node: ast.Tuple) -> Value:  # noqa: N802
        return tuple(self.expr(e) for e in node.elts)

    def expr_List(self, node: ast.List) -> Value:  # noqa: N802
        return self.new_list([self.expr(e) for e in node.elts])

    def new_list(self, items: list[Value]) -> list[Value]:
        """A Python list of values, which `append` may grow in the block that made it."""
        self.scripter.list_blocks[id(items)] = self.scripter.builder.block
        return items

    def expr_Attribute(self, node: ast.Attribute) -> Value:  # noqa: N802
        base = self.expr(node.value)
        if isinstance(base, ModuleValue):
            return self.scripter.modules.module_attribute(node, base)
        if isinstance(base, PyObject):
            if not hasattr(base.obj, node.attr):
                raise self.error(
                    node, f"`{ast.unparse(node.value)}` has no attribute `{node.attr}`"
                )
            return self.python_value(node, getattr(base.obj, node.attr))
        if kind_of(base) == "Tensor":
            return self.scripter.values.tensor_attribute(node, base)
        if isinstance(base, tuple) and len(base) == 2 and node.attr in ("values", "indices"):
            return base[0 if node.attr == "values" else 1]  # `x.max(1).values`
        raise self.error(node, f"attribute `{node.attr}` of a {kind_of(base)} is not supported")

    def expr_Call(self, node: ast.Call) -> Value:  # noqa: N802
        if any(k.arg is None for k in node.keywords):
            raise self.error(node, "`**kwargs` in calls are not supported")
        concatenated = self.scripter.concatenation.concatenated_comprehension(
            node
        )  # torch.cat([... for ...])
        if concatenated is not NOT_CONCATENATED:
            return concatenated
        args = self.call_args(node.args)
        kwargs = {k.arg: self.expr(k.value) for k in node.keywords if k.arg is not None}
        if isinstance(node.func, ast.Attribute):
            receiver = self.expr(node.func.value)
            if isinstance(receiver, ModuleValue):
                return self.scripter.call_sites.call_value(
                    node, self.scripter.modules.module_attribute(node.func, receiver), args, kwargs
                )
            if node.func.attr == "size" and kind_of(receiver) == "Tensor":
                shape = self.scripter.values.size_call(node, receiver)
                if shape is not None:
                    return shape
            if not isinstance(receiver, PyObject):
                return self.scripter.call_sites.method_call(
                    node, receiver, node.func.attr, args, kwargs
                )
        return self.scripter.call_sites.call_value(node, self.expr(node.func), args, kwargs)

    def call_args(self, nodes: list[ast.expr]) -> list[Value]:
        """The positional arguments, `*t` of a tuple, list or shape spread into them."""
        args: list[Value] = []
        for arg in nodes:
            if not isinstance(arg, ast.Starred):
                args.append(self.expr(arg))
                continue
            value = self.expr(arg.value)
            if isinstance(value, ShapeValue):
                value = self.scripter.values.shape_value(arg, value)
            if kind_of(value) == "list[int]" and isinstance(value, SSAValue):
                args.append(SpreadSizes(value))  # its length is known once types are
                continue
            if not isinstance(value, tuple | list):
                raise self.error(arg, f"`*` of a {kind_of(value)} is not supported")
            args.extend(value)
        if any(isinstance(a, SpreadSizes) for a in args):
            return self.scripter.shape_lists.sizes_joined(nodes[0] if nodes else None, args)
        return args


_EXPRESSION_HINTS: dict[type[ast.expr], str] = {
    ast.ListComp: "write the loop out explicitly",
    ast.DictComp: "write the loop out explicitly",
    ast.GeneratorExp: "write the loop out explicitly",
}


MEMORY_FORMATS = {
    "torch.contiguous_format": 0, "torch.preserve_format": 1, "torch.channels_last": 2,
    "torch.channels_last_3d": 3,
}  # fmt: skip
"""TorchScript's codes of `torch.memory_format` values (`memory_format=` of `clone`, ...):
layouts, so no-ops for the values a script computes."""
