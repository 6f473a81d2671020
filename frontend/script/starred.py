"""Starred assignment: `b, *rest = x.shape`, `first, *others = items`, `*init, last = x.size()`.

The names before and after the star take one item each; the starred name takes the items in
between as a list. Of a shape whose rank is not known while scripting, the items are sizes
counted from either end (`x.size(0)`, `x.size(-1)`) and the list is `torch.aten.slice.t` of the
whole shape; a list of tensors needs its length while scripting (`x.split([2, 4])`, a chunk
of a known size).
"""

from __future__ import annotations

import ast

from xdsl.ir import SSAValue

from dialects.torch.ops.data_movement import AtenSliceTOp
from frontend.ir.builder import Value, kind_of
from frontend.script.collaborator import Collaborator
from frontend.script.tensor_methods import known_tensor_type
from frontend.script.value_kinds import ShapeValue


def has_star(target: ast.expr) -> bool:
    return isinstance(target, ast.Tuple | ast.List) and any(
        isinstance(e, ast.Starred) for e in target.elts
    )


class Starred(Collaborator):
    """Starred assignments. Interface: `assign_starred(target, value)`."""

    def assign_starred(self, target: ast.Tuple | ast.List, value: Value) -> None:
        """`a, *rest, z = value`: one item for each plain name, a list for the starred one."""
        before = next(i for i, e in enumerate(target.elts) if isinstance(e, ast.Starred))
        after = len(target.elts) - before - 1
        if isinstance(value, ShapeValue):
            parts = self.starred_shape(target, value, before, after)
        else:
            parts = self.starred_items(target, self.known_items(target, value), before, after)
        for element, part in zip(target.elts, parts):
            self.scripter.statements.assign(
                element.value if isinstance(element, ast.Starred) else element, part
            )

    def known_items(self, target: ast.expr, value: Value) -> list[Value]:
        """The items of a tuple, a list, or a list of tensors of a count known while
        scripting."""
        if isinstance(value, tuple | list):
            return list(value)
        if kind_of(value) == "list[Tensor]" and isinstance(value, SSAValue):
            items = self.scripter.iteration.tensor_list_sequence(target, value, True)
            if isinstance(items, list):
                return items
            raise self.error(
                target,
                "a starred assignment of a list of tensors whose length is known only at run "
                "time is not supported",
                "unpack every piece (a, b, c = ...), or index it with constants",
            )
        raise self.error(
            target,
            f"cannot unpack {kind_of(value)} with a starred assignment",
            "unpack a tuple, a list, a shape or a list of tensors",
        )

    def starred_items(
        self, target: ast.expr, items: list[Value], before: int, after: int
    ) -> list[Value]:
        if len(items) < before + after:
            raise self.error(
                target,
                f"not enough values to unpack (expected at least {before + after}, got "
                f"{len(items)})",
            )
        middle = self.scripter.expressions.new_list(items[before : len(items) - after])
        return [*items[:before], middle, *items[len(items) - after :]]

    def starred_shape(
        self, target: ast.expr, shape: ShapeValue, before: int, after: int
    ) -> list[Value]:
        """`b, *rest = x.shape`: sizes from either end, and the rest a list of sizes."""
        known = known_tensor_type(shape.tensor)
        if known is not None and known.rank is not None:
            items = list(self.scripter.values.shape_tuple(target, shape))
            return self.starred_items(target, items, before, after)
        firsts = [self.scripter.values.shape_element(target, shape, d) for d in range(before)]
        lasts = [self.scripter.values.shape_element(target, shape, d - after) for d in range(after)]
        whole = self.scripter.values.shape_value(target, shape)
        end = -after if after else None
        middle = self.scripter.ops.emit(target, (AtenSliceTOp,), [whole, before, end, 1], {})[0]
        return [*firsts, middle, *lasts]
