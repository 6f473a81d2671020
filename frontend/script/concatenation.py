"""`torch.cat([f(c) for c in x.split(n)], dim)`: a list comprehension concatenated.

Over a sequence known while scripting the comprehension unrolls into a list as anywhere else.
Over a sequence whose length is known only at run time (`script_iteration.py`) a grown list
would need items of one shape (its rows); concatenated, the items may differ in length along
`dim` (the short last piece of `x.split(n)`: `torch.cat([model(b) for b in x.split(64)])`):
the first item's value is made before a loop (at least one item is needed, else RuntimeError at
run time), and the loop over the others concatenates each one's value to it.
"""

from __future__ import annotations

import ast

from xdsl.ir import Block

from dialects.torch.ops.prim import PrimIfYieldOp, PrimRaiseExceptionOp
from frontend.ir.builder import Value, kind_of
from frontend.ir.resolve import is_torch_function
from frontend.script.collaborator import Collaborator
from frontend.script.iteration import RunTimeSequence

NOT_CONCATENATED = object()
"""`concatenated_comprehension`'s answer for a call that is not torch.cat of a comprehension."""

_NAMES = ("cat", "concat", "concatenate")


def _called_name(func: ast.expr) -> str | None:
    if isinstance(func, ast.Attribute):
        return func.attr
    return func.id if isinstance(func, ast.Name) else None


class Concatenation(Collaborator):
    """`torch.cat` of a comprehension over a run-time sequence. Interface:
    `concatenated_comprehension(node)` (`NOT_CONCATENATED` for other calls)."""

    def concatenated_comprehension(self, node: ast.Call) -> Value:
        """`torch.cat([f(c) for c in x.split(n)], dim)`: over a run-time sequence, a loop
        concatenating each f(c) to the ones before (so the pieces may differ in length along
        `dim`, unlike a grown list's rows); NOT_CONCATENATED if `node` is no such call."""
        comprehension = node.args[0] if node.args else None
        if not (
            isinstance(comprehension, ast.ListComp)
            and len(comprehension.generators) == 1
            and _called_name(node.func) in _NAMES
        ):
            return NOT_CONCATENATED
        callee = self.scripter.expressions.expr(
            node.func
        )  # a name or attribute: evaluated again if not torch.cat
        function = getattr(callee, "obj", None)
        if not any(is_torch_function(function, n) for n in _NAMES):
            return NOT_CONCATENATED
        generator = comprehension.generators[0]
        items = self.scripter.loops.comprehension_items(generator)
        rest = [self.scripter.expressions.expr(a) for a in node.args[1:]]
        kwargs = {
            k.arg: self.scripter.expressions.expr(k.value)
            for k in node.keywords
            if k.arg is not None
        }
        if isinstance(items, list):
            pieces = self.scripter.loops.unrolled_comprehension(comprehension, generator, items)
            return self.scripter.call_sites.call_value(node, callee, [pieces, *rest], kwargs)
        dim = rest[0] if rest else kwargs.get("dim", 0)
        if set(kwargs) - {"dim"} or len(rest) > 1 or kind_of(dim) != "int":
            raise self.error(node, "torch.cat of a comprehension takes a constant `dim` here")
        return self.concatenation_loop(comprehension, generator, items, callee, dim)

    def concatenation_loop(
        self,
        node: ast.ListComp,
        generator: ast.comprehension,
        sequence: RunTimeSequence,
        cat: Value,
        dim: int,
    ) -> Value:
        """The first item's value (peeled, so at least one item is needed: RuntimeError at
        run time otherwise), then a loop over the others concatenating theirs to it."""
        if generator.ifs:
            raise self.error(
                generator.ifs[0],
                f"a list comprehension with `if` over {sequence.what} (its length is known only "
                "at run time) is not supported",
                "keep every item, or loop over a range of a number known while scripting",
            )
        joined, function = f"__joined_{id(node)}", f"__cat_{id(node)}"
        pair = ast.List([ast.Name(id=joined, ctx=ast.Load()), node.elt], ast.Load())
        call = ast.Call(ast.Name(id=function, ctx=ast.Load()), [pair, ast.Constant(dim)], [])
        update = ast.Assign(targets=[ast.Name(id=joined, ctx=ast.Store())], value=call)
        loop = ast.For(target=generator.target, iter=generator.iter, body=[update], orelse=[])
        for new in ast.walk(ast.Module([loop], [])):
            if new is not node.elt and not hasattr(new, "lineno"):
                ast.copy_location(new, node)
        with self.scripter.iteration.comprehension_scope(generator):
            self.check_some_items(node, sequence)
            self.scripter.statements.assign(generator.target, sequence.item(0))
            self.scripter.env[joined], self.scripter.env[function] = (
                self.scripter.expressions.expr(node.elt),
                cat,
            )
            rest = RunTimeSequence(
                self.scripter.iteration.int_op(node, ast.Sub(), sequence.length, 1),
                lambda i: sequence.item(self.scripter.iteration.int_op(node, ast.Add(), i, 1)),
                sequence.what,
            )
            self.scripter.iteration.sequence_loop(loop, rest)
            result = self.scripter.env.pop(joined)
            self.scripter.env.pop(function)
            self.scripter.unusable.pop(joined, None)
        return result

    def check_some_items(self, node: ast.AST, sequence: RunTimeSequence) -> None:
        """RuntimeError at run time when the sequence is empty."""
        message = f"torch.cat of a comprehension over {sequence.what} needs at least one item"
        if isinstance(sequence.length, int):
            if sequence.length < 1:
                raise self.error(node, message)
            return
        empty = self.scripter.values.scalar_binop(node, "lt", sequence.length, 1)
        blocks = (Block(), Block())
        blocks[0].add_ops([PrimRaiseExceptionOp("RuntimeError", message), PrimIfYieldOp([])])
        blocks[1].add_op(PrimIfYieldOp([]))
        self.scripter.control.build_if(empty, [], blocks)
