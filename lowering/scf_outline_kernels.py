"""Moves each top-level loop nest of a function into its own function, shared when equal
(`scf-outline-kernels`).

numba's compile time grows faster than linearly with a function's size (its parfor passes
walk the whole function), so a model lowered to one function of thousands of lines (ResNet-18:
~2700) compiles in minutes. Outlined, every loop nest is a small kernel compiled on its own,
and nests that differ only in names (the same conv or elementwise loop at the same weight
shapes) become one kernel called several times.

**Expects:** the `loops` stage (`scf.parallel`/`scf.for`/`scf.if`/`scf.while` on memrefs).
**Produces:** the same functions where every top-level `scf.parallel` or `scf.for` of a function
with at least `min-nests` of them is a `func.call` of a new function `@<function>.k<n>` taking
the values the nest reads from outside (memrefs, indices, scalars; constants are copied in) and
returning its results; structurally equal kernels are created once. Declarations (external
library kernels) and smaller functions are left alone.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, func, scf
from xdsl.dialects.builtin import FunctionType, ModuleOp
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

NESTS = (scf.ParallelOp, scf.ForOp)


@dataclass(frozen=True)
class ScfOutlineKernelsPass(ModulePass):
    """Outline the entry function's top-level loop nests into shared kernels."""

    name = "scf-outline-kernels"
    min_nests: int = 8

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        functions = [f for f in op.ops if isinstance(f, func.FuncOp) and f.body.blocks]
        kernels: dict[str, func.FuncOp] = {}
        for function in functions:
            nests = [o for o in function.body.block.ops if isinstance(o, NESTS)]
            if len(nests) < self.min_nests:
                continue
            for nest in nests:
                outline(nest, function, kernels, op)


def outline(
    nest: Operation, entry: func.FuncOp, kernels: dict[str, func.FuncOp], module: ModuleOp
) -> None:
    """Replace `nest` by a call of its kernel (an equal existing kernel, else a new one)."""
    inputs = external_values(nest)
    kernel = build_kernel(nest, inputs, f"{entry.sym_name.data}.k{len(kernels)}")
    key = canonical_text(kernel)
    shared = kernels.get(key)
    if shared is None:
        kernels[key] = kernel
        module.body.block.add_op(kernel)
        shared = kernel
    call = func.CallOp(shared.sym_name.data, inputs, [r.type for r in nest.results])
    Rewriter.insert_op(call, InsertPoint.before(nest))
    for old, new in zip(nest.results, call.results):
        new.name_hint = old.name_hint
        old.replace_all_uses_with(new)
    Rewriter.erase_op(nest)


def external_values(nest: Operation) -> list[SSAValue]:
    """Values used inside `nest` but defined outside it, in first-use order (constants are
    copied into the kernel instead, so loop bounds stay known to numba)."""
    inside: set[SSAValue] = set()
    for op in nest.walk():
        inside.update(op.results)
        for region in op.regions:
            for block in region.blocks:
                inside.update(block.args)
    seen: dict[SSAValue, None] = {}
    for op in nest.walk():
        for operand in op.operands:
            if operand not in inside and not isinstance(operand.owner, arith.ConstantOp):
                seen.setdefault(operand)
    return list(seen)


def build_kernel(nest: Operation, inputs: list[SSAValue], name: str) -> func.FuncOp:
    block = Block(arg_types=[v.type for v in inputs])
    mapping: dict[SSAValue, SSAValue] = dict(zip(inputs, block.args))
    for value, arg in zip(inputs, block.args):
        arg.name_hint = value.name_hint
    for op in nest.walk():
        for operand in op.operands:
            if operand not in mapping and isinstance(operand.owner, arith.ConstantOp):
                constant = operand.owner.clone()
                block.add_op(constant)
                mapping[operand] = constant.result
    clone = nest.clone(value_mapper=mapping)
    block.add_op(clone)
    block.add_op(func.ReturnOp(*clone.results))
    ftype = FunctionType.from_lists([a.type for a in block.args], [r.type for r in clone.results])
    return func.FuncOp(name, ftype, Region(block))


def canonical_text(kernel: func.FuncOp) -> str:
    """The kernel's body and signature without its name or value names (for sharing)."""
    clone = kernel.clone()
    for op in clone.walk():
        for value in op.results:
            value.name_hint = None
        for region in op.regions:
            for block in region.blocks:
                for arg in block.args:
                    arg.name_hint = None
    clone.sym_name = kernel.sym_name.__class__("k")
    return str(clone)
