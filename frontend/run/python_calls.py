"""Calls left running in Python (`@frontend.ignore`), like graph breaks in `torch.compile`.

Scripting a call of an ignored function emits `torch.prim.PythonCall "<key>"`, the key naming
the function in this process's registry. To run such a program, the entry function (callees
inlined) is cut at its top-level Python calls into compiled segments: each segment is its own
`func.func` taking the values it needs from before and returning the values needed after;
constants are recomputed where used. A call runs the segments in order and calls the Python
functions in between with tensors of the kind the caller passed (numpy, `frontend.torch` or
torch), then hands their results to the next segment. Python calls inside `if`/loops are not
supported (the segments would need to branch), which `split_program` reports.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from xdsl.dialects import func
from xdsl.dialects.builtin import FunctionType, ModuleOp
from xdsl.ir import Block, Operation, Region, SSAValue

from dialects.torch.op_base import ConstantLikeOp
from dialects.torch.ops.prim import PrimPythonCallOp
from frontend.run.arguments import to_array, to_caller_kind
from frontend.run.python_registry import registered

# ---- splitting the program at its Python calls ----


@dataclass
class Step:
    """One step of a split program: a compiled segment or a Python call."""

    inputs: list[SSAValue]  # values of the original program it reads
    outputs: list[SSAValue]  # values of the original program it defines
    segment: tuple[ModuleOp, str] | None = None  # a compiled segment: its module and function
    callee: str = ""
    compiled: Callable[..., Any] | None = None  # the segment, compiled when it first runs


class SplitError(Exception):
    """The program cannot be cut at its Python calls."""


def has_python_calls(module: ModuleOp) -> bool:
    return any(isinstance(op, PrimPythonCallOp) for op in module.walk())


def split_program(entry: func.FuncOp, name: str) -> list[Step]:
    """`entry` (callees inlined) as compiled segments and the Python calls between them."""
    for op in entry.walk():
        if isinstance(op, PrimPythonCallOp) and op.parent_block() is not entry.body.block:
            raise SplitError(
                f"{name}: a call of an ignored function inside `if` or a loop is not supported"
            )
    groups: list[list[Operation]] = [[]]
    for op in entry.body.block.ops:
        if isinstance(op, PrimPythonCallOp):
            groups += [[op], []]
        else:
            groups[-1].append(op)
    steps: list[Step] = []
    for index, group in enumerate(groups):
        if group and isinstance(group[0], PrimPythonCallOp):
            call = group[0]
            steps.append(Step(list(call.operands), list(call.results), callee=call.callee.data))
            continue
        later = [o for g in groups[index + 1 :] for o in g]
        step = segment(group, later, f"{name}_part{index // 2}")
        if step is not None:
            steps.append(step)
    return steps


def segment(ops: list[Operation], later: list[Operation], name: str) -> Step | None:
    """One compiled segment: the function computing `ops` from the values they read."""
    inside = {r for op in ops for r in _all_results(op)}
    inputs: list[SSAValue] = []
    for value in _used_values(ops):
        if value not in inside and value not in inputs and not _recomputable(value):
            inputs.append(value)
    used_later = set(_used_values(later))
    outputs = [r for op in ops for r in op.results if r in used_later and not _recomputable(r)]
    returns = isinstance(ops[-1], func.ReturnOp) if ops else False
    if not outputs and not returns:
        return None
    block = Block(arg_types=[v.type for v in inputs])
    mapping: dict[SSAValue, SSAValue] = dict(zip(inputs, block.args))
    for value, arg in zip(inputs, block.args):
        arg.name_hint = value.name_hint
    for value in _used_values(ops):
        if value not in inside and value not in mapping:
            _recompute(value, block, mapping)
    for op in ops:
        if isinstance(op, func.ReturnOp):
            block.add_op(func.ReturnOp(*[mapping[v] for v in op.operands]))
        else:
            block.add_op(op.clone(value_mapper=mapping))
    if not returns:
        block.add_op(func.ReturnOp(*[mapping[v] for v in outputs]))
    last = block.last_op
    assert last is not None
    ftype = FunctionType.from_lists([a.type for a in block.args], [v.type for v in last.operands])
    module = ModuleOp([func.FuncOp(name, ftype, Region(block))])
    module.verify()
    results = list(ops[-1].operands) if returns else outputs
    return Step(inputs, results, segment=(module, name))


def _all_results(op: Operation) -> list[SSAValue]:
    return [r for inner in op.walk() for r in inner.results] + [
        a for inner in op.walk() for region in inner.regions for b in region.blocks for a in b.args
    ]


def _used_values(ops: list[Operation]) -> list[SSAValue]:
    seen: dict[SSAValue, None] = {}
    for op in ops:
        for inner in op.walk():
            for operand in inner.operands:
                seen.setdefault(operand)
    return list(seen)


def _recomputable(value: SSAValue) -> bool:
    """Constants (and lists of constants): cloned where used instead of passed."""
    owner = value.owner
    return isinstance(owner, ConstantLikeOp) and all(_recomputable(v) for v in owner.operands)


def _recompute(value: SSAValue, block: Block, mapping: dict[SSAValue, SSAValue]) -> None:
    owner = value.owner
    if not _recomputable(value):
        raise SplitError(f"a {value.type} cannot be passed across a call of an ignored function")
    assert isinstance(owner, Operation)
    for operand in owner.operands:
        if operand not in mapping:
            _recompute(operand, block, mapping)
    clone = owner.clone(value_mapper=mapping)
    block.add_op(clone)
    for old, new in zip(owner.results, clone.results):
        mapping[old] = new


# ---- running a split program ----


def run_steps(
    steps: list[Step],
    params: list[SSAValue],
    values: list[Any],
    kind: Any,
    compile_segment: Callable[[ModuleOp, str], Callable[..., Any]],
) -> Any:
    """Run the steps on the program's arguments (numpy arrays and scalars); the last step's
    values. Python functions get tensors of the caller's `kind`; their results become numpy.
    A segment is compiled by `compile_segment(module, name)` when it first runs."""
    env: dict[SSAValue, Any] = dict(zip(params, values))
    results: list[Any] = []
    for step in steps:
        inputs = [_value(env, v) for v in step.inputs]
        if step.segment is not None:
            if step.compiled is None:
                step.compiled = compile_segment(*step.segment)
            out = step.compiled(*inputs)
        else:
            out = _as_numpy(registered(step.callee)(*[to_caller_kind(v, kind) for v in inputs]))
        results = list(out) if isinstance(out, tuple) else [out]
        if out is None and not step.outputs:  # `-> None`
            results = []
        if len(results) != len(step.outputs):
            what = step.callee or step.compiled
            raise TypeError(
                f"{what}: returned {len(results)} values, the program expects "
                f"{len(step.outputs)} (annotate the ignored function's return type)"
            )
        env.update(zip(step.outputs, results))
    return results[0] if len(results) == 1 else tuple(results)


def prepare_steps(module: ModuleOp, name: str) -> tuple[list[Step], list[SSAValue]]:
    """The steps of a program with Python calls, and the entry arguments they start from."""
    from lowering.pipeline import make_context
    from lowering.torch_opt.inline import TorchInlinePass

    inlined = module.clone()
    TorchInlinePass().apply(make_context(), inlined)
    entry = next(op for op in inlined.ops if isinstance(op, func.FuncOp))
    return split_program(entry, name), list(entry.body.block.args)


def _value(env: dict[SSAValue, Any], value: SSAValue) -> Any:
    if value in env:
        return env[value]
    owner = value.owner
    assert isinstance(owner, ConstantLikeOp)
    return owner.python_value()


def _as_numpy(out: Any) -> Any:
    if isinstance(out, tuple | list):
        return tuple(_as_numpy(o) for o in out)
    return to_array(out)[0]
