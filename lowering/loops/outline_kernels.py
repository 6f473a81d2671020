"""Moves each top-level loop nest of a function into its own function, shared when equal
(`scf-outline-kernels`).

numba's compile time grows faster than linearly with a function's size (its parfor passes
walk the whole function), so a model lowered to one function of thousands of lines (ResNet-18:
~2700) compiles in minutes. Outlined, every loop nest is a small kernel compiled on its own,
and nests that differ only in names or in their integer sizes (the same conv or elementwise
loop on 64 or on 128 channels, at batch 1 or 4) become one kernel called several times. The
python target then writes each kernel into a module of its own, named by its content, so equal
kernels of other programs, or of the same program at other shapes, are compiled only once; the
function they came from is left with allocations and calls, and runs as plain Python.

**Expects:** the `loops` stage (`scf.parallel`/`scf.for`/`scf.if`/`scf.while` on memrefs).
**Produces:** the same functions where every top-level `scf.parallel`, `scf.for`, `scf.if` or
`scf.while` of a big function (at least `min-nests` of them, or `min-ops` ops in them) is a
`func.call` of a new function `@<function>.k<n>` taking the values the nest reads from
outside (memrefs, indices, scalars; constants are copied in) and returning its results.
Index constants other than 0 that the nest uses become arguments too, so kernels differing
only in sizes (batch 1 or 4) are equal; 0 stays, and so does a loop step (a `prange` loop
needs its step known). Values in kernels have no name hints (one kernel serves several
layers). Structurally equal kernels are created once. Kernels carry the unit attribute
`tsjit.outlined`; an outlined function that no `func.call` names and that holds no
`arith.bitcast` carries `tsjit.host` (the python target emits it as plain Python).
A nest whose parallel loop holds a `cf.assert` is outlined whatever the function's size (it
runs in row chunks that can raise). Declarations (external library kernels) and small
functions are left alone.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, cf, func, scf
from xdsl.dialects.builtin import FunctionType, IndexType, IntegerAttr, ModuleOp, UnitAttr
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from lowering.ir_marks import HOST, OUTLINED

NESTS = (scf.ParallelOp, scf.ForOp, scf.IfOp, scf.WhileOp)


@dataclass(frozen=True)
class ScfOutlineKernelsPass(ModulePass):
    """Outline the entry function's top-level loop nests into shared kernels."""

    name = "scf-outline-kernels"
    min_nests: int = 2
    min_ops: int = 400

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        functions = [f for f in op.ops if isinstance(f, func.FuncOp) and f.body.blocks]
        kernels: dict[str, func.FuncOp] = {}
        called = {c.callee.root_reference.data for c in op.walk() if isinstance(c, func.CallOp)}
        for function in functions:
            nests = [o for o in function.body.block.ops if isinstance(o, NESTS)]
            if not self.is_big(nests):
                continue
            for nest in nests:
                outline(nest, function, kernels, op)
            if function.sym_name.data not in called and runs_as_python(function):
                function.attributes[HOST] = UnitAttr()

    def is_big(self, nests: list[Operation]) -> bool:
        """At least `min_nests` nests, or one with at least `min_ops` ops: worth a Python host
        calling separately compiled kernels (a small function stays one numba function, which
        calls faster). A nest whose parallel loop can raise (an index checked where it is
        read) is outlined too: numba runs a `prange` loop with a raise serially, a kernel of
        row chunks raises from its thread (`lowering/run/thread_chunks.py`)."""
        if not nests:
            return False
        ops = sum(1 for nest in nests for _ in nest.walk())
        big = len(nests) >= self.min_nests or ops >= self.min_ops
        return big or any(raises_in_parallel_loop(nest) for nest in nests)


def raises_in_parallel_loop(nest: Operation) -> bool:
    """Whether a `cf.assert` sits inside an `scf.parallel` of `nest`."""
    return any(
        isinstance(o, cf.AssertOp)
        for loop in nest.walk()
        if isinstance(loop, scf.ParallelOp)
        for o in loop.walk()
    )


def runs_as_python(function: func.FuncOp) -> bool:
    """Whether what is left of an outlined function can run as plain Python (the python
    target writes `arith.bitcast` with a numba intrinsic; it writes scalar math with numpy's
    ufuncs there, which give nan / inf like numba)."""
    return not any(isinstance(o, arith.BitcastOp) for o in function.body.block.ops)


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
    """Values used inside `nest` but defined outside it, in first-use order; constants are
    copied into the kernel instead, but for index sizes (`is_size`)."""
    inside: set[SSAValue] = set()
    for op in nest.walk():
        inside.update(op.results)
        for region in op.regions:
            for block in region.blocks:
                inside.update(block.args)
    seen: dict[SSAValue, None] = {}
    for op in nest.walk():
        steps = loop_steps(op)
        for position, operand in enumerate(op.operands):
            if operand in inside:
                continue
            constant = operand.owner if isinstance(operand.owner, arith.ConstantOp) else None
            if constant is None or (is_size(constant) and position not in steps):
                seen.setdefault(operand)
    return list(seen)


def is_size(constant: arith.ConstantOp) -> bool:
    """An index constant that is a size or an offset (not 0): a kernel argument."""
    value = constant.value
    return (
        isinstance(constant.result.type, IndexType)
        and isinstance(value, IntegerAttr)
        and value.value.data != 0
    )


def loop_steps(op: Operation) -> list[int]:
    """The operand positions of the steps of an `scf.for` / `scf.parallel`."""
    if isinstance(op, scf.ForOp):
        return [2]
    if isinstance(op, scf.ParallelOp):
        rank = len(op.step)
        return list(range(2 * rank, 3 * rank))
    return []


def keep_constant_steps(kernel_block: Block, inputs: list[SSAValue]) -> None:
    """Loops of the kernel stepping by an argument that stands for a constant step by a copy
    of the constant instead (so numba sees a unit step and may use `prange`)."""
    constants = {
        arg: value.owner
        for arg, value in zip(kernel_block.args, inputs)
        if isinstance(value.owner, arith.ConstantOp)
    }
    for op in kernel_block.walk():
        for position in loop_steps(op):
            constant = constants.get(op.operands[position])
            if constant is not None:
                copy = constant.clone()
                Rewriter.insert_op(copy, InsertPoint.at_start(kernel_block))
                op.operands = [
                    copy.result if i == position else v for i, v in enumerate(op.operands)
                ]


def build_kernel(nest: Operation, inputs: list[SSAValue], name: str) -> func.FuncOp:
    block = Block(arg_types=[v.type for v in inputs])
    mapping: dict[SSAValue, SSAValue] = dict(zip(inputs, block.args))
    for op in nest.walk():
        for operand in op.operands:
            if operand not in mapping and isinstance(operand.owner, arith.ConstantOp):
                constant = operand.owner.clone()
                block.add_op(constant)
                mapping[operand] = constant.result
    clone = nest.clone(value_mapper=mapping)
    block.add_op(clone)
    keep_constant_steps(block, inputs)
    block.add_op(func.ReturnOp(*clone.results))
    drop_name_hints(clone)
    ftype = FunctionType.from_lists([a.type for a in block.args], [r.type for r in clone.results])
    kernel = func.FuncOp(name, ftype, Region(block))
    kernel.attributes[OUTLINED] = UnitAttr()
    return kernel


def drop_name_hints(op: Operation) -> None:
    for inner in op.walk():
        for value in inner.results:
            value.name_hint = None
        for region in inner.regions:
            for block in region.blocks:
                for arg in block.args:
                    arg.name_hint = None


def canonical_text(kernel: func.FuncOp) -> str:
    """The kernel's body and signature without its name or value names (for sharing)."""
    clone = kernel.clone()
    drop_name_hints(clone)
    clone.sym_name = kernel.sym_name.__class__("k")
    return str(clone)
