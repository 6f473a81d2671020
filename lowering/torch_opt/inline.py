"""Inlines calls between the functions of a module (`torch-inline`).

**Expects:** `func.func`s in the torch dialect; `func.call`s name functions of the same module,
and calls do not recurse (the script frontend rejects recursion).
**Produces:** the first function (the entry point) with every `func.call` in it, at any depth
and inside `torch.prim.If`/`torch.prim.Loop` regions, replaced by a copy of the callee's body;
the callees, now unused, are erased. Call results get the callee's return values; the callee's
types stay as written (unknown parts are refined later by `torch-refine-types`).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.utils.exceptions import PassFailedException

MAX_INLINED_CALLS = 10_000  # a guard against recursion that slipped through


@dataclass(frozen=True)
class TorchInlinePass(ModulePass):
    """Inline every call of the entry function; keep only the entry function."""

    name = "torch-inline"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        functions = {f.sym_name.data: f for f in op.ops if isinstance(f, func.FuncOp)}
        if not functions:
            return
        entry = next(iter(functions.values()))
        inline_calls(entry, functions)
        for function in functions.values():
            if function is not entry:
                Rewriter.erase_op(function)


def inline_calls(entry: func.FuncOp, functions: dict[str, func.FuncOp]) -> None:
    for _ in range(MAX_INLINED_CALLS):
        call = next((c for c in entry.walk() if isinstance(c, func.CallOp)), None)
        if call is None:
            return
        name = call.callee.string_value()
        callee = functions.get(name)
        if callee is None or callee is entry:
            raise PassFailedException(
                f"torch-inline: @{entry.sym_name.data} calls @{name}, "
                + ("itself" if callee is entry else "which is not in the module")
            )
        inline_call(call, callee)
    raise PassFailedException(f"torch-inline: more than {MAX_INLINED_CALLS} calls (recursion?)")


def inline_call(call: func.CallOp, callee: func.FuncOp) -> None:
    """Replace `call` by a copy of `callee`'s single block."""
    if len(callee.body.blocks) != 1:
        raise PassFailedException(f"torch-inline: @{callee.sym_name.data} has several blocks")
    body = callee.body.clone().block
    returned = body.last_op
    if not isinstance(returned, func.ReturnOp):
        raise PassFailedException(f"torch-inline: @{callee.sym_name.data} does not end in return")
    # a callee that returns one of its arguments gives the call's operand there
    position = {arg: i for i, arg in enumerate(body.args)}
    results = [
        call.operands[position[v]] if v in position else v  # type: ignore[index]
        for v in returned.operands
    ]
    Rewriter.erase_op(returned, safe_erase=False)
    hints = [v.name_hint for v in call.operands]  # inlining renames them after the parameters
    Rewriter.inline_block(body, InsertPoint.before(call), call.operands)
    for value, hint in zip(call.operands, hints):
        value.name_hint = hint
    for old, new in zip(call.results, results, strict=True):
        if new.name_hint is None:
            new.name_hint = old.name_hint
        old.replace_all_uses_with(new)
    Rewriter.erase_op(call)
