"""Finds calls that code compiled for the general signature would get wrong.

A call signature keeps every dim `?` except size-1 dims, and the compiled code assumes a `?`
dim is not 1: two `?` dims of a broadcast are taken to be equal, `squeeze()` keeps a `?` dim.
An intermediate value can still have a `?` dim that is 1 for some concrete input shapes (a
slice `x[2:3]`, a chunk, a reshape of the input's size) or `int` argument values (`x[:n]`,
`torch.ones([n, 3])` with `n == 1`, `x.chunk(len(x), 1)`). `ShapeGuard.check` refines the
program's types for the general signature and for the call's exact shapes with those `int`
arguments as constants, folding the scalars that become known (`len(x)`), and compares the
two op by op (each op tagged with its place before refinement): if a `?` dim of the general
types is 1 in the exact ones where an op broadcasts or squeezes it, the caller runs code
compiled (once per shape set and int values) for exactly those shapes and values.

`int` arguments that feed shapes are found once per signature (their value changes a type);
calls of such a function are checked for every new value, so they skip the fast path, which
keys `int` arguments by type only. The exact refinement also rejects `int` values that make
shapes disagree (`x[:2] + x` for a 4-element `x`) with a clear error, where the general code
would read out of bounds.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from xdsl.dialects import func
from xdsl.dialects.builtin import IntAttr, ModuleOp
from xdsl.ir import Attribute, Operation

from dialects.torch.ops.prim import ConstantIntOp
from dialects.torch.types import DYN, IntType, ValueTensorType
from frontend.script.calls import CompiledFunction
from lowering.pipeline import PipelineError, Stage, lower, make_context
from lowering.signature import format_signature, parse_signature
from lowering.torch_opt import TorchCanonicalizePass
from lowering.torch_opt.inline import TorchInlinePass
from lowering.torch_opt.refine_types import TorchRefineTypesPass

Signature = tuple[Attribute, ...]
TAG = "tsjit.guard_index"  # each op's place in the program, kept through refinement
PROBE_SIZE = 6  # the size given to `?` dims when looking for `int` arguments that feed shapes


class MisfitError(ValueError, RuntimeError):
    """Argument shapes (or int arguments that feed shapes) the program's shape rules reject:
    a ValueError, and the RuntimeError torch raises for them."""


class IndexMisfitError(ValueError, IndexError):
    """An int argument out of range where a shape rule reads it as an index (`x.narrow(0, s,
    n)` with `s` past the end): a ValueError, and the IndexError torch raises."""


def _caused_by(err: BaseException | None, kind: type[BaseException]) -> bool:
    while err is not None:
        if isinstance(err, kind):
            return True
        err = err.__cause__ or err.__context__
    return False


class Specialization:
    """Code for one call that the general code would get wrong: `function` (the scripted
    function, or a copy with `int` arguments as constants) compiled for `signature`."""

    def __init__(self, function: CompiledFunction, signature: Signature) -> None:
        self.function = function
        self.signature = signature

    def compiled(self) -> Any:  # the function's CompiledCall
        fn = self.function
        return fn._compiled.get(self.signature) or fn._compile(self.signature)


class ShapeGuard:
    """Per scripted function: which calls need exact-shape (and exact-int) code."""

    def __init__(
        self, function: CompiledFunction, make_variant: Callable[..., CompiledFunction]
    ) -> None:
        self.function = function
        self.make_variant = make_variant  # (module, name, python_fn) -> a CompiledFunction
        self.checked: dict[tuple[Any, ...], Specialization | None] = {}
        self.shape_ints: dict[Signature, tuple[int, ...]] = {}  # positions, per signature
        self.variants: dict[tuple[tuple[int, int], ...], CompiledFunction] = {}
        self.records: Any = None  # the function's WarmCalls (frontend/run/warm_calls.py)

    def fast_path_safe(self, signature: Signature) -> bool:
        """Whether one kernel serves every call with these argument types and shapes (no
        `int` argument feeds a shape)."""
        return not self.int_positions(signature)

    def check(self, signature: Signature, values: list[Any]) -> Specialization | None:
        """Dims written `?` must still agree at run time (e.g. both sides of a broadcast).

        Each distinct set of concrete shapes (and values of `int` arguments that feed shapes)
        is checked once, through the shape rules. Returns what to run instead when the code
        for `signature` would be wrong for these shapes; a ValueError when they do not fit.
        """
        positions = self.int_positions(signature)
        key = call_key(values, positions)
        ints = key[1]
        if key in self.checked:
            return self.checked[key]
        if not ints and self.records is not None and self.records.recorded(signature, values):
            self.checked[key] = None  # a call on record ran on the general code
            return None
        fn = self.function
        exact = exact_signature_text(signature, values)
        module = with_int_constants(fn.module, fn.name, dict(ints)) if ints else fn.module
        try:
            lower(module, Stage.TORCH_OPT, exact)
        except PipelineError as err:
            if not (ints and _in_regions_only(module, err) and _lowers(fn.module, exact)):
                raise self._misfit(exact, ints, err) from None
            ints, module = (), fn.module  # a rule of code that these values never run
        general = refined(fn.module, format_signature(list(signature)))
        specialization = None
        if needs_exact_shapes(general, refined(module, exact)):
            target = self._variant(ints, module) if ints else fn
            specialization = Specialization(target, tuple(parse_signature(exact)))
        self.checked[key] = specialization
        return specialization

    def _misfit(self, exact: str, ints: tuple[tuple[int, int], ...], err: Exception) -> ValueError:
        from frontend.script.error_location import with_location

        fn = self.function
        shown = exact + "".join(f", {fn.arguments[i].name}={v}" for i, v in ints)
        message = f"{fn.name}(): arguments of shapes {shown} do not fit: {first_line(err)}"
        kind = IndexMisfitError if _caused_by(err, IndexError) else MisfitError
        return kind(with_location(fn, message, exact, dict(ints)))

    def int_positions(self, signature: Signature) -> tuple[int, ...]:
        """The `int` arguments whose value changes some type of the program (they feed a
        shape): all of them if setting them to 1 does (with every `?` dim of the arguments
        set to 6, so that `x[:1]` is known to be 1 long), else none."""
        if signature not in self.shape_ints:
            fn = self.function
            ints = {i: 1 for i, t in enumerate(signature) if isinstance(t, IntType)}
            positions: tuple[int, ...] = ()
            if ints:
                text = format_signature(list(signature)).replace("?", str(PROBE_SIZE))
                try:
                    probe = refined(with_int_constants(fn.module, fn.name, ints), text)
                    differs = types_differ(refined(fn.module, text), probe)
                except Exception:  # an int of 1 makes the program ill-typed: it feeds shapes
                    differs = True
                positions = tuple(ints) if differs else ()
            self.shape_ints[signature] = positions
        return self.shape_ints[signature]

    def _variant(self, ints: tuple[tuple[int, int], ...], module: ModuleOp) -> CompiledFunction:
        if ints not in self.variants:
            fn = self.function
            self.variants[ints] = self.make_variant(module, fn.name, fn.python_fn)
        return self.variants[ints]


def call_key(values: list[Any], positions: tuple[int, ...]) -> tuple[Any, ...]:
    """What `ShapeGuard.check` decides by: the shapes, and the `int`s at `positions`."""
    ints = tuple((i, int(values[i])) for i in positions)
    return (tuple(getattr(v, "shape", None) for v in values), ints)


def _in_regions_only(module: ModuleOp, err: Exception) -> bool:
    """Whether every op of the kind the error names is inside a loop or branch (which given
    `int` values may never run), none at the function's top level."""
    from frontend.script.error_location import OP_NAME

    found = OP_NAME.search(str(err))
    if found is None:
        return False
    ops = [op for op in module.walk() if op.name == found.group(0).rstrip(".")]
    return bool(ops) and all(not isinstance(op.parent_op(), func.FuncOp) for op in ops)


def _lowers(module: ModuleOp, signature: str) -> bool:
    """Whether `module` refines for `signature`. The rules check every op, even one in a loop
    that given `int` values never enter (`x.reshape([n, -1])` for `n == 0`): when only the
    program with those values as constants fails, the values are not specialized."""
    try:
        lower(module, Stage.TORCH_OPT, signature)
    except PipelineError:
        return False
    return True


def exact_signature_text(signature: Signature, values: list[Any]) -> str:
    """`signature` with every tensor's dims replaced by the call's concrete sizes."""
    entries = []
    for s, v in zip(signature, values):
        text = format_signature([s])
        if isinstance(s, ValueTensorType):
            text = text.split("[")[0] + "[" + ",".join(map(str, v.shape)) + "]"
        entries.append(text)
    return ",".join(entries)


def with_int_constants(module: ModuleOp, name: str, values: dict[int, int]) -> ModuleOp:
    """A copy of `module` whose function `name` reads `torch.constant.int`s instead of its
    `int` arguments at the given positions (the arguments stay, unused)."""
    copy = module.clone()
    entry = next(op for op in copy.ops if isinstance(op, func.FuncOp) and op.sym_name.data == name)
    block = entry.body.block
    for index, value in sorted(values.items()):
        constant = ConstantIntOp(value)
        block.insert_op_before(constant, block.first_op)  # type: ignore[arg-type]
        block.args[index].replace_all_uses_with(constant.result)
    return copy


Refinement = tuple[ModuleOp, ModuleOp]  # types refined for a signature; then scalars folded


def refined(module: ModuleOp, signature: str) -> Refinement:
    """Copies of `module` with calls inlined, each op tagged with its place (`TAG`) and every
    type refined for `signature`; and the same with scalars folded (`len(x)` of a known shape
    is a constant, and the types that depend on it are refined again). Both are compared: a
    fold can also drop an op (a `squeeze` of known sizes) that the general code keeps."""
    ctx = make_context()
    copy = module.clone()
    TorchInlinePass().apply(ctx, copy)
    numbered = (op for op in copy.walk() if not op.name.startswith("torch.constant."))
    for index, op in enumerate(numbered):  # constants aside: `int` arguments made constant
        op.attributes[TAG] = IntAttr(index)
    TorchRefineTypesPass(signature=signature).apply(ctx, copy)
    folded = copy.clone()
    TorchCanonicalizePass().apply(ctx, folded)
    return copy, folded


def needs_exact_shapes(general: Refinement, exact: Refinement) -> bool:
    """Whether some op sees a `?` dim of `general` that is 1 in `exact` and broadcasts it
    (the op's result is larger there) or drops it (the result rank differs)."""
    return any(
        _squeezes(g_op, e_op) or _broadcasts(g_op, e_op)
        for g, e in zip(general, exact)
        for g_op, e_op in _pairs(g, e)
    )


def types_differ(general: Refinement, exact: Refinement) -> bool:
    """Whether some op's result types differ between the two refinements."""
    return any(
        list(g_op.result_types) != list(e_op.result_types)
        for g, e in zip(general, exact)
        for g_op, e_op in _pairs(g, e)
    )


def first_line(err: Exception) -> str:
    text = str(err).splitlines()[0]
    return text.removeprefix("pass 'torch-refine-types' failed: ").removeprefix(
        "torch-refine-types: "
    )


def _pairs(general: ModuleOp, exact: ModuleOp) -> Iterator[tuple[Operation, Operation]]:
    """The ops of the two refinements that come from the same op (folded ones have none)."""
    by_tag = {_tag(op): op for op in general.walk() if _tag(op) is not None}
    for e_op in exact.walk():
        g_op = by_tag.get(_tag(e_op))
        if g_op is not None and g_op.name == e_op.name:
            yield g_op, e_op


def _tag(op: Operation) -> int | None:
    tag = op.attributes.get(TAG)
    return tag.data if isinstance(tag, IntAttr) else None


def _shape(t: Attribute) -> tuple[int, ...] | None:
    return tuple(t.sizes) if isinstance(t, ValueTensorType) and t.sizes is not None else None


def _squeezes(g_op: Operation, e_op: Operation) -> bool:
    for g, e in zip(g_op.result_types, e_op.result_types):
        gs, es = _shape(g), _shape(e)
        if gs is not None and es is not None and len(gs) != len(es):
            return True
    return False


def _broadcasts(g_op: Operation, e_op: Operation) -> bool:
    results = [_shape(t) for t in e_op.result_types]
    for g_in, e_in in zip(g_op.operand_types, e_op.operand_types):
        gs, es = _shape(g_in), _shape(e_in)
        if gs is None or es is None or len(gs) != len(es):
            continue
        for axis, (g, e) in enumerate(zip(gs, es)):
            if g == DYN and e == 1 and _grows(results, len(es) - axis):
                return True
    return False


def _grows(results: list[tuple[int, ...] | None], from_end: int) -> bool:
    """Whether a result has a size above 1 at the dim `from_end` places from its end."""
    return any(
        shape is not None and len(shape) >= from_end and shape[-from_end] not in (0, 1)
        for shape in results
    )
