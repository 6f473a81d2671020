"""linalg, scf and memref ops tsjit emits that xDSL's interpreter lacks or runs too narrowly.

- `linalg.generic`: upstream stores every yielded value into the first output and has no
  `linalg.index`; this one writes each output and keeps the iteration indices for `index`.
- `linalg.fill`: upstream refuses outputs that are not all zeros.
- `memref.alloc`: upstream ignores the dynamic sizes; `arith.constant`: upstream refuses dense
  tensor constants (tensor literals at the linalg stage).
- `scf.parallel` / `scf.reduce` (with or without reductions), `memref.dim`: missing upstream.
Loops run sequentially; the order of a parallel loop's iterations is unobservable in tsjit IR
(each iteration writes its own elements, reductions go through `scf.reduce`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import product
from math import prod
from typing import Any

from xdsl.dialects import arith, memref, scf
from xdsl.dialects.builtin import DYNAMIC_INDEX, DenseIntOrFPElementsAttr, IndexType
from xdsl.dialects.linalg.ops import FillOp, GenericOp, IndexOp
from xdsl.interpreter import (
    Interpreter,
    InterpreterFunctions,
    ReturnedValues,
    impl,
    impl_terminator,
    register_impls,
)
from xdsl.interpreters.builtin import scalar_attr, xtype_for_el_type
from xdsl.interpreters.shaped_array import ShapedArray
from xdsl.interpreters.utils.ptr import TypedPtr
from xdsl.utils.exceptions import InterpretationError

from lowering.xdsl_interpreter.scalars import signed
from lowering.xdsl_interpreter.values import dense_to_runtime


@register_impls
@dataclass
class StructuredFunctions(InterpreterFunctions):
    """linalg.generic / fill / index, scf.parallel / reduce, memref.alloc / dim, constants."""

    loop_indices: list[tuple[int, ...]] = field(default_factory=list[tuple[int, ...]])

    @impl(GenericOp)
    def run_generic(self, interp: Interpreter, op: GenericOp, args: tuple[Any, ...]):
        count = len(op.inputs)
        inputs, outputs = args[:count], args[count:]
        results = [o.copy() for o in outputs] if op.results else list(outputs)
        operands = [*inputs, *results]
        maps = [m.data for m in op.get_indexing_maps()]
        shapes = [d for a in operands if isinstance(a, ShapedArray) for d in a.shape]
        ranges = op.get_shapes_to_loops_map().eval(shapes, [])
        block_args = op.body.block.args
        for indices in product(*(range(r) for r in ranges)):
            elements = [
                scalar_attr(a.load(m.eval(indices, ())), arg.type, interp.index_bitwidth)
                if isinstance(a, ShapedArray)
                else a
                for a, m, arg in zip(operands, maps, block_args, strict=True)
            ]
            self.loop_indices.append(indices)
            values = interp.run_ssacfg_region(op.body, tuple(elements), "linalg.generic")
            self.loop_indices.pop()
            for out, m, value in zip(results, maps[count:], values, strict=True):
                out.store(m.eval(indices, ()), value.value.data)
        return tuple(results) if op.results else ()

    @impl(IndexOp)
    def run_index(self, interp: Interpreter, op: IndexOp, args: tuple[Any, ...]):
        interp.interpreter_assert(bool(self.loop_indices), "linalg.index outside linalg.generic")
        value = self.loop_indices[-1][op.dim.value.data]
        return (scalar_attr(value, IndexType(), interp.index_bitwidth),)

    @impl(FillOp)
    def run_fill(self, interp: Interpreter, op: FillOp, args: tuple[Any, ...]):
        value, out = args
        result = out.copy() if op.results else out
        for i in range(len(result.data)):
            result.data_ptr[i] = value.value.data
        return (result,) if op.results else ()

    @impl(scf.ParallelOp)
    def run_parallel(self, interp: Interpreter, op: scf.ParallelOp, args: tuple[Any, ...]):
        rank = len(op.lowerBound)
        bounds = [signed(interp, a, IndexType()) for a in args[: 3 * rank]]
        lower, upper, step = bounds[:rank], bounds[rank : 2 * rank], bounds[2 * rank :]
        accumulators = list(args[3 * rank :])
        reduce = op.body.block.last_op
        assert isinstance(reduce, scf.ReduceOp)
        for ivs in product(*(range(lo, hi, st) for lo, hi, st in zip(lower, upper, step))):
            index_args = tuple(scalar_attr(i, IndexType(), interp.index_bitwidth) for i in ivs)
            values = interp.run_ssacfg_region(op.body, index_args, "scf.parallel")
            for k, (region, value) in enumerate(zip(reduce.reductions, values, strict=True)):
                (accumulators[k],) = interp.run_ssacfg_region(
                    region, (accumulators[k], value), "scf.reduce"
                )
        return tuple(accumulators)

    @impl_terminator(scf.ReduceOp)
    def run_reduce(self, interp: Interpreter, op: scf.ReduceOp, args: tuple[Any, ...]):
        return ReturnedValues(args), ()

    @impl_terminator(scf.ReduceReturnOp)
    def run_reduce_return(self, interp: Interpreter, op: scf.ReduceReturnOp, args: tuple[Any, ...]):
        return ReturnedValues(args), ()

    @impl(arith.ConstantOp)
    def run_constant(self, interp: Interpreter, op: arith.ConstantOp, args: tuple[Any, ...]):
        """Scalars as upstream does; dense tensor constants (tensor literals) too."""
        value = op.value
        if isinstance(value, DenseIntOrFPElementsAttr):
            return (dense_to_runtime(value),)
        if isinstance(value.type, IndexType):  # type: ignore[union-attr]
            return (scalar_attr(value.value.data, IndexType(), interp.index_bitwidth),)  # type: ignore[union-attr]
        return (value,)

    @impl(memref.AllocOp)
    def run_alloc(self, interp: Interpreter, op: memref.AllocOp, args: tuple[Any, ...]):
        """A zeroed buffer; upstream ignores the dynamic sizes (`memref.alloc(%n)`)."""
        dynamic = iter(signed(interp, a, IndexType()) for a in args)
        shape = [next(dynamic) if d == DYNAMIC_INDEX else d for d in op.memref.type.get_shape()]
        element = xtype_for_el_type(op.memref.type.get_element_type(), interp.index_bitwidth)
        return (ShapedArray(TypedPtr[Any].zeros(prod(shape), xtype=element), shape),)

    @impl(memref.SubviewOp)
    def run_subview(self, interp: Interpreter, op: memref.SubviewOp, args: tuple[Any, ...]):
        """A view of whole trailing dims at leading indices (`x[t]`, the subviews the memref
        passes make), sharing the buffer; other subviews are not contiguous: refused."""
        source, *rest = args
        values = iter(signed(interp, a, IndexType()) for a in rest)

        def resolve(static: Sequence[int]) -> list[int]:
            return [next(values) if v == DYNAMIC_INDEX else v for v in static]

        offsets = resolve(op.static_offsets.get_values())
        sizes = resolve(op.static_sizes.get_values())
        strides = resolve(op.static_strides.get_values())
        kept = op.result.type.get_num_dims()  # type: ignore[union-attr]
        lead = len(sizes) - kept
        whole = sizes[lead:] == source.shape[lead:] and not any(offsets[lead:])
        if not whole or any(s != 1 for s in strides) or any(s != 1 for s in sizes[:lead]):
            raise InterpretationError(f"memref.subview: only whole trailing dims, got {sizes}")
        start = source.offset([*offsets[:lead], *[0] * kept]) if source.shape else 0
        pointer = source.data_ptr
        moved = type(pointer)(pointer.raw + start * pointer.size, xtype=pointer.xtype)
        return (ShapedArray(moved, list(sizes[lead:])),)

    @impl(memref.DimOp)
    def run_memref_dim(self, interp: Interpreter, op: memref.DimOp, args: tuple[Any, ...]):
        shaped, index = args
        size = shaped.shape[signed(interp, index, IndexType())]
        return (scalar_attr(size, IndexType(), interp.index_bitwidth),)
