"""Lists grown by `append` in a loop decided at run time (an RNN collecting its outputs):

    outs = []
    for t in range(x.size(0)):
        h = cell(x[t], h)
        outs.append(h)
    return torch.stack(outs)

The loop's first iteration is scripted before it (peeled): its appended value `v0` gives the
element's type and sizes, so the rows are one tensor `[n, *v0.shape]` made from `v0`, and the
loop (over the other n - 1 iterations) writes iteration i's value at row i
(`select_scatter`, which the lowering writes in place). After the loop the list is a
`GrownList`: `torch.stack` / `torch.cat` of it, `len()` and indexing work; other uses are
located errors. A loop that runs no iteration raises RuntimeError at run time (the peeled
iteration cannot be skipped).

Only an `append` at the top level of the loop body, once per list and iteration, in a body
without `break`/`continue`, grows a list this way (else `list_append`'s located error).
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from xdsl.ir import Block, SSAValue

from dialects.torch.ops.prim import PrimIfYieldOp, PrimRaiseExceptionOp
from dialects.torch.registry import BY_NAME
from frontend.ir.builder import Value
from frontend.script.collaborator import Collaborator

NO_ITERATION = "a list grown in a loop needs at least one iteration (the loop ran none)"
USES = "stacked or concatenated (torch.stack / torch.cat), indexed, or measured with len()"


@dataclass
class GrownList:
    """A list after a loop that grew it: `prefix` (its items before the loop), then one row of
    `rows` per iteration (`count` of them)."""

    prefix: list[Value]
    rows: SSAValue
    count: Value


@dataclass
class Growing:
    """A list being grown by the loop being scripted: the hidden variable carrying its rows
    and the loop's iteration number (0 for the loop's first, i.e. the list's second row)."""

    rows_name: str
    iteration: list[SSAValue] = field(default_factory=list)


def _op(name: str) -> Any:
    return BY_NAME[f"torch.aten.{name}"]


def appended_names(body: list[ast.stmt]) -> set[str]:
    """Names `x` of every `x.append(...)` in `body` (nested statements included)."""
    return {
        n.func.value.id
        for stmt in body
        for n in ast.walk(stmt)
        if isinstance(n, ast.Call)
        and isinstance(n.func, ast.Attribute)
        and n.func.attr == "append"
        and isinstance(n.func.value, ast.Name)
    }


def top_level_appends(body: list[ast.stmt], name: str) -> int:
    """How many statements of `body` itself are `name.append(...)`."""
    return sum(
        1
        for stmt in body
        if isinstance(stmt, ast.Expr)
        and isinstance(stmt.value, ast.Call)
        and isinstance(stmt.value.func, ast.Attribute)
        and stmt.value.func.attr == "append"
        and isinstance(stmt.value.func.value, ast.Name)
        and stmt.value.func.value.id == name
    )


def leaves_loop_early(body: list[ast.stmt]) -> bool:
    """A `break`, `continue` or `return` of this loop (not of loops nested in it)."""
    stack: list[ast.AST] = list(body)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Break | ast.Continue | ast.Return):
            return True
        if not isinstance(node, ast.For | ast.While | ast.FunctionDef | ast.Lambda):
            stack.extend(ast.iter_child_nodes(node))
    return False


class GrownLists(Collaborator):
    """Lists grown in run-time loops. Interface: `growable_lists(loop)`, `grown_loop`, `grow`,
    `grown_list_call`, `grown_list_item`, `grown_list_length`."""

    def growable_lists(self, node: ast.For) -> list[str]:
        """The lists this run-time loop grows the peeled way (module docstring); [] if none
        or if some append does not qualify (then `list_append` reports it)."""
        names = [
            n
            for n in sorted(appended_names(node.body))
            if isinstance(self.scripter.env.get(n), list)
        ]
        if not names or leaves_loop_early(node.body):
            return []
        if any(top_level_appends(node.body, n) != 1 for n in names):
            return []
        return names

    def grown_loop(
        self,
        node: ast.For,
        trip: Value,
        names: list[str],
        target: str,
        first: Callable[[], Value],
        later: Callable[[SSAValue], Value],
    ) -> None:
        """The loop with its first iteration peeled and each list in `names` grown as rows."""
        self.check_some_iteration(node, trip)
        self.scripter.env[target] = first()
        self.scripter.unusable.pop(target, None)
        sizes = {name: len(self.scripter.env[name]) for name in names}  # type: ignore[arg-type]
        for stmt in node.body:
            self.scripter.statements.statement(stmt)
        states = [self.start_rows(node, name, sizes[name], trip) for name in names]

        def loop_variable(iteration: SSAValue) -> Value:
            for state in states:
                state.iteration[:] = [iteration]
            return later(iteration)

        rest = (
            trip - 1
            if isinstance(trip, int)
            else self.scripter.values.scalar_binop(node, "sub", trip, 1)
        )
        extra = [state.rows_name for state in states]
        self.scripter.loops.loop(node, rest, True, lambda: True, (target, loop_variable), extra)
        for name, state in zip(names, states):
            items = self.scripter.env[name]
            assert isinstance(items, list)
            del self.scripter.growing[id(items)]
            self.scripter.env[name] = GrownList(
                list(items), self.scripter.env.pop(state.rows_name), trip
            )  # type: ignore[arg-type]

    def check_some_iteration(self, node: ast.For, trip: Value) -> None:
        """RuntimeError at run time when the loop runs no iteration (its first is peeled)."""
        if isinstance(trip, int):
            if trip < 1:
                raise self.error(node, NO_ITERATION)
            return
        none = self.scripter.values.scalar_binop(node, "lt", trip, 1)
        blocks = (Block(), Block())
        blocks[0].add_ops([PrimRaiseExceptionOp("RuntimeError", NO_ITERATION), PrimIfYieldOp([])])
        blocks[1].add_op(PrimIfYieldOp([]))
        self.scripter.control.build_if(none, [], blocks)

    def start_rows(self, node: ast.For, name: str, size_before: int, trip: Value) -> Growing:
        """After the peeled iteration: the list's rows, each the peeled value to start with."""
        items = self.scripter.env[name]
        assert isinstance(items, list)
        if len(items) != size_before + 1:
            raise self.error(node, f"`{name}` must be appended to once per iteration")
        first = items.pop()
        row = self.scripter.ops.emit(node, (_op("unsqueeze"),), [first, 0], {})[0]
        rows = self.scripter.ops.emit(
            node, (_op("repeat_interleave.self_int"),), [row, trip, 0], {}
        )[0]
        state = Growing(f"__rows_{name}_{id(node)}")
        self.scripter.env[state.rows_name] = rows
        self.scripter.growing[id(items)] = state
        return state

    def grow(self, node: ast.Call, items: list[Value], value: Value) -> bool:
        """`items.append(value)` in the loop growing `items`: writes the row; False if
        `items` is not being grown."""
        state = self.scripter.growing.get(id(items))
        if state is None:
            return False
        row = self.scripter.values.scalar_binop(node, "add", state.iteration[0], 1)
        rows = self.scripter.env[state.rows_name]
        self.scripter.env[state.rows_name] = self.scripter.ops.emit(
            node, (_op("select_scatter"),), [rows, value, 0, row], {}
        )[0]
        return True

    # ---- uses after the loop ----

    def grown_list_call(
        self, node: ast.AST, candidates: Any, args: list[Value], kwargs: dict[str, Value]
    ) -> list[SSAValue]:
        """`torch.stack(outs, dim)` / `torch.cat(outs, dim)` of a grown list."""
        names = {c.name for c in candidates}
        grown = args[0] if args else kwargs.get("tensors")
        kind = (
            "stack" if "torch.aten.stack" in names else "cat" if "torch.aten.cat" in names else ""
        )
        if not kind or not isinstance(grown, GrownList):
            raise self.error(node, f"a list grown in a loop decided at run time can only be {USES}")
        dim = args[1] if len(args) > 1 else kwargs.get("dim", 0)
        if not isinstance(dim, int) or isinstance(dim, bool):
            raise self.error(node, f"torch.{kind} of a grown list needs a constant dim")
        if kind == "stack":  # the rows' dim moves to `dim` of the result
            rows = self.scripter.ops.emit(node, (_op("movedim.int"),), [grown.rows, 0, dim], {})[0]
        else:  # the rows' dim goes just before the elements' `dim`, then the two merge
            start = dim if dim >= 0 else dim - 1
            rows = self.scripter.ops.emit(node, (_op("movedim.int"),), [grown.rows, 0, start], {})[
                0
            ]
            rows = self.scripter.ops.emit(
                node, (_op("flatten.using_ints"),), [rows, start, start + 1], {}
            )[0]
        if not grown.prefix:
            return [rows]
        first = self.scripter.ops.emit(node, (_op(kind),), [list(grown.prefix), dim], {})[0]
        return self.scripter.ops.emit(node, (_op("cat"),), [[first, rows], dim], {})

    def grown_list_length(self, node: ast.AST, grown: GrownList) -> Value:
        return self.scripter.values.scalar_binop(node, "add", grown.count, len(grown.prefix))

    def grown_list_item(self, node: ast.Subscript, grown: GrownList, index: Value) -> Value:
        """`outs[i]`: a prefix item for a constant i inside the prefix, else a row (negative
        indices count from the end, which is in the rows)."""
        if isinstance(index, int) and 0 <= index < len(grown.prefix):
            return grown.prefix[index]
        if isinstance(index, int) and index >= 0:
            index -= len(grown.prefix)
        elif not isinstance(index, int) and grown.prefix:
            index = self.scripter.values.scalar_binop(node, "sub", index, len(grown.prefix))
        return self.scripter.ops.emit(node, (_op("select.int"),), [grown.rows, 0, index], {})[0]
