"""Lists of sizes whose length scripting does not know (the rank of a tensor is known only
once a call fixes it): `x.shape[:-1] + (h, d)` and `x.view(*x.shape[:-1], h, d)` join them
with `torch.aten.add.t`, which `torch-decompose` folds once the shape is expanded."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Any

from xdsl.ir import SSAValue

from dialects.torch.ops.data_movement import AtenAddTOp
from frontend.ir.builder import Value, kind_of
from frontend.script.collaborator import Collaborator


@dataclass(frozen=True)
class SpreadSizes:
    """`*sizes` in a call, of a list of ints whose length is known only at run time."""

    sizes: SSAValue


class ShapeLists(Collaborator):
    """Joined lists of sizes. Interface: `join_sizes(node, parts)`, `sizes_joined(node,
    args)`."""

    def size_list(self, node: ast.AST, value: Value) -> Value:
        """`value` as a list of ints for `torch.aten.add.t`: an int-list value as is, a
        tuple or list of sizes as a list, a shape whole."""
        if type(value).__name__ == "ShapeValue":  # `x.shape` passed whole
            return self.scripter.values.shape_value(node, value)
        if isinstance(value, tuple | list):
            return list(value)
        if kind_of(value) != "list[int]":
            raise self.error(node, f"cannot join {kind_of(value)} with a list of sizes")
        return value

    def join_sizes(self, node: ast.AST, parts: list[Value]) -> Value:
        """The concatenation of lists of sizes: Python tuples joined while scripting, lists
        known only at run time by `torch.aten.add.t`."""
        joined: Value = []
        for part in parts:
            part = self.size_list(node, part)
            if isinstance(joined, list) and isinstance(part, list):
                joined = joined + part
            elif isinstance(joined, list) and not joined:
                joined = part
            else:
                joined = self.scripter.ops.emit(node, (AtenAddTOp,), [joined, part], {})[0]
        return joined

    def sizes_joined(self, node: Any, args: list[Value]) -> list[Value]:
        """Positional arguments holding `*sizes` of a length known only at run time
        (`x.view(*x.shape[:-1], h, d)`): the sizes from the first spread on, and the ints
        around it, become one list argument (`torch.aten.add.t`)."""
        first = next(i for i, a in enumerate(args) if isinstance(a, SpreadSizes))
        while first > 0 and kind_of(args[first - 1]) == "int":
            first -= 1
        parts: list[Value] = []
        for value in args[first:]:
            if isinstance(value, SpreadSizes):
                parts.append(value.sizes)
            elif kind_of(value) == "int":
                parts.append((value,))
            else:
                raise self.error(node, f"a {kind_of(value)} after `*sizes` is not supported")
        return [*args[:first], self.join_sizes(node, parts)]
