"""Two packed matmuls that add into one output become one library call (`library-call-pairs`).

An RNN step `tanh(x[t] @ W + h @ U + b)` is, after `linalg-accumulate-sums` and
`convert-linalg-to-library-calls`, two kernel calls in a row that write one buffer: the first
starts it (`_set`, `_bias`), the second adds its product. Each call is a parallel loop with a
launch, a barrier and its imbalance; one `matmul_pair` call runs both products in one
parallel loop, each chunk of rows (or columns) the first product's then the second's, and
the elementwise op behind reads one buffer (W5, 2 threads, one process, interleaved, load
3.5-4.8: min 3.29 -> 3.20, 3.33 -> 3.22, 3.35 -> 3.26 ms):

```
func.call @tsjit.matmul_packed_bias_f32(%a, %wp, %b, %c)    ==>  func.call
func.call @tsjit.matmul_packed_f32(%h, %up, %c)                    @tsjit.matmul_pair_bias_f32(
                                                                     %a, %wp, %h, %up, %b, %c)
```

The pair is a call of `matmul_packed`, `matmul_packed_set` or `matmul_packed_bias` followed in
its block, with only ops that touch no memref data in between (casts, dims, allocations,
scalar arithmetic), by a call of `matmul_packed` (accumulate) into the same buffer (casts of
one value), where:
- the buffer is a `memref.alloc` in the same block, and
- the second call's inputs are defined before that allocation: they cannot view the buffer,
  which the pair writes (in other columns) while the second product reads them.
The second product then adds to the first one's finished values, as the two calls did: the
results are the same, bit for bit. The declarations no call uses any more go.

**Expects:** the `memref` stage after `convert-linalg-to-library-calls` (and
`memref-row-views`, which rewrites the inputs of single calls).

**Produces:** the same, with such pairs of calls replaced by one `matmul_pair` call.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, func, memref
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import BlockArgument, Operation, OpResult, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.traits import SymbolTable

from lowering.ir_marks import is_library_declaration, library_kernel
from lowering.loops.library_calls import (
    LibraryCall,
    is_library_call,
    library_call,
)

FIRSTS = {"matmul_packed": "", "matmul_packed_set": "_set", "matmul_packed_bias": "_bias"}
"""The kernels that may start a pair, and the finish the pair takes from them."""
SECOND = "matmul_packed"
INERT = (memref.CastOp, memref.DimOp, memref.AllocOp, memref.SubviewOp, arith.ConstantOp)
"""Ops that may sit between the calls of a pair (they read and write no memref data)."""


def kernel_of(op: Operation) -> str | None:
    """The library kernel `op` calls, if it is a library call."""
    if not is_library_call(op):
        return None
    assert isinstance(op, func.CallOp)
    callee = SymbolTable.lookup_symbol(op, op.callee)
    assert isinstance(callee, func.FuncOp)
    return library_kernel(callee)


def uncast(value: SSAValue) -> SSAValue:
    """`value` without the `memref.cast`s in front of it."""
    while isinstance(value, OpResult) and isinstance(value.op, memref.CastOp):
        value = value.op.source
    return value


def defined_before(value: SSAValue, op: Operation) -> bool:
    """`value` is defined in front of `op`: an argument of a block around `op`, or the result of
    an op in front of `op` (or of an op around it) in its block."""
    current: Operation | None = op
    while current is not None:
        block = current.parent_block()
        if block is None:
            return False
        if isinstance(value, BlockArgument) and value.block is block:
            return True
        if isinstance(value, OpResult) and value.op.parent_block() is block:
            return block.get_operation_index(value.op) < block.get_operation_index(current)
        current = block.parent_op()
    return False


@dataclass(frozen=True)
class Pair:
    """Two calls that `matmul_pair` replaces, and the finish of the pair."""

    first: func.CallOp
    second: func.CallOp
    suffix: str


def match_pair(first: Operation) -> Pair | None:
    """The pair that library call `first` starts (module docstring), if any."""
    kernel = kernel_of(first)
    if kernel not in FIRSTS:
        return None
    second = first.next_op
    while isinstance(second, INERT):
        second = second.next_op
    if second is None or kernel_of(second) != SECOND:
        return None
    assert isinstance(first, func.CallOp) and isinstance(second, func.CallOp)
    output = uncast(first.operands[-1])
    if uncast(second.operands[-1]) is not output:
        return None
    if not isinstance(output, OpResult) or not isinstance(output.op, memref.AllocOp):
        return None
    if output.op.parent_block() is not first.parent_block():
        return None
    if not all(defined_before(uncast(v), output.op) for v in second.operands[:-1]):
        return None
    return Pair(first, second, FIRSTS[kernel])


def fuse(pair: Pair) -> None:
    """Replaces the pair's calls by one `matmul_pair` call where the second one was."""
    a, b, *bias, out = pair.first.operands
    a2, b2, _ = pair.second.operands
    call = LibraryCall("matmul_pair", (a, b, a2, b2, *bias, out), suffix=pair.suffix)
    where = InsertPoint.before(pair.second)
    Rewriter.insert_op(library_call(pair.second, call, where), where)
    for op in (pair.second, pair.first):
        operands = list(op.operands)
        Rewriter.erase_op(op)
        erase_unused_casts(operands)


def erase_unused_casts(values: list[SSAValue]) -> None:
    for value in values:
        if isinstance(value, OpResult) and isinstance(value.op, memref.CastOp) and not value.uses:
            Rewriter.erase_op(value.op)


def erase_uncalled_declarations(module: ModuleOp) -> None:
    """Erases the library declarations that no call in `module` calls."""
    called = {op.callee.string_value() for op in module.walk() if isinstance(op, func.CallOp)}
    for op in list(module.ops):
        if is_library_declaration(op) and op.sym_name.data not in called:  # type: ignore[attr-defined]
            Rewriter.erase_op(op)


@dataclass(frozen=True)
class LibraryCallPairsPass(ModulePass):
    """Pairs of packed matmul calls into one buffer -> `matmul_pair` (module docstring)."""

    name = "library-call-pairs"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        pairs = [pair for call in op.walk() if (pair := match_pair(call)) is not None]
        fused: set[Operation] = set()
        for pair in pairs:
            if pair.first in fused or pair.second in fused:
                continue  # a call in two pairs (three in a row): the first pair only
            fused |= {pair.first, pair.second}
            fuse(pair)
        if pairs:
            erase_uncalled_declarations(op)
