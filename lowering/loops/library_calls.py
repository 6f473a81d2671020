"""Converts matmul- and convolution-shaped `linalg.generic`s to library kernel calls.

Naive loops for a matmul run 2-3x below BLAS speed and a direct convolution up to 18x below
oneDNN (measured); register-blocked kernels (`lowering/python_target/library_kernels.py`)
close that gap. This pass recognizes the ops by their structure, never by a name:

- **matmul**: three loops `(i, j, k)`, maps `(i, k)`, `(k, j)` or `(j, k)`, `-> (i, j)`;
  `i`, `j` parallel, `k` a reduction; 2-D operands; body `out + a * b`; not when the right
  operand is statically small (`SMALL_MATMUL` elements: loops do, and compile faster).
  -> `func.call @tsjit.matmul_nn_f32(%a, %b, %out)` or `@tsjit.matmul_nt_f32(%a, %bt, %out)`.
- **conv2d** (NCHW, any stride and dilation): seven loops `(n, o, y, z, c, u, v)`, maps
  `(n, c, y * sh + u * dh, z * sw + v * dw)`, `(o, c, u, v)` `-> (n, o, y, z)`; the last
  three reductions; 4-D operands; the same body.
  -> `func.call @tsjit.conv2d_f32(%x, %w, %out, sh, sw, dh, dw)`.

The kernels accumulate into `%out`, so the call replaces the op one for one. When the op in
front of the contraction fills `%out` with zeros or a bias vector, the call overwrites `%out`
instead (`@tsjit.matmul_nt_set_f32`, `@tsjit.conv2d_bias_f32(%x, %w, %bias, %out, ...)`) and
the fill goes; a bias add and / or relu behind it that reads `%out` once goes into the call
too (`_bias_relu`: the call writes the relu's buffer): `lowering/loops/library_call_finish.py`.

A matmul inside `scf.for` / `scf.while` loops that do not write its right operand (an RNN's
weights) gets that operand packed once, in front of the outermost such
loop, into the column panels the kernels copy it to on every call (`func.call
@tsjit.pack_nn_f32(%b, %packed)` / `pack_nt`, `%packed` a `memref<?xf32>` of k times n
rounded up to the machine model's `tiles.gemm_cols` elements), and runs
`@tsjit.matmul_packed_f32(%a, %packed, %out)` inside. A loop writes an operand when it may
write its storage: the allocation or global it views; function arguments may be one
another's storage; anything else may be any.

Operands are cast to fully dynamic memref types, so one declaration per kernel and element
type serves every shape: `func.func private @tsjit.matmul_nt_f32(memref<?x?xf32>,
memref<?x?xf32>, memref<?x?xf32>) attributes {tsjit.library = "matmul_nt"}`.

**Expects:** the `memref` stage (`linalg.generic` on memrefs, without results).

**Produces:** the `memref` stage where the recognized ops are `func.call`s of library
declarations; every other op is left as it is.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, func, memref, scf
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    IndexType,
    IntegerAttr,
    MemRefType,
    ModuleOp,
    StringAttr,
)
from xdsl.dialects.linalg.attrs import IteratorType
from xdsl.dialects.linalg.ops import GenericOp
from xdsl.ir import Attribute, BlockArgument, Operation, OpResult, SSAValue
from xdsl.ir.affine import (
    AffineMap,
)
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.traits import SymbolTable

from lowering.contractions import (
    DTYPES,
    dim_maps,
    dims,
    is_contraction,
    iterator_kinds,
    linear_terms,
    maps_of,
    ranks_are,
)
from lowering.contracts import require_stage
from lowering.ir_marks import LIBRARY_ATTR, is_library_declaration
from lowering.loops.buffer_storage import ANY, VIEWS, storage
from lowering.loops.library_call_finish import Finish, match_finish

SMALL_MATMUL = 1024


@dataclass(frozen=True)
class LibraryCall:
    """A kernel to call: its library name (and the suffix of its finish: `_set`, `_bias`,
    `_relu`), its buffer operands and its index operands."""

    kernel: str
    buffers: tuple[SSAValue, ...]
    indices: tuple[int, ...] = ()
    suffix: str = ""

    def finished(self, finish: Finish) -> LibraryCall:
        """This call with `finish`: the bias in front of the output, the output its
        destination."""
        *inputs, _ = self.buffers
        bias = () if finish.bias is None else (finish.bias,)
        buffers = (*inputs, *bias, finish.destination)
        return LibraryCall(self.kernel, buffers, self.indices, finish.suffix)


# ---- matching ----


def is_small(matrix: SSAValue) -> bool:
    """A right operand of statically at most `SMALL_MATMUL` elements (`Linear(4, 4)`): its
    loops are fast enough, and compile much faster than a kernel."""
    shape = matrix.type.get_shape()  # type: ignore[union-attr]
    return all(size >= 0 for size in shape) and shape[0] * shape[1] <= SMALL_MATMUL



def match_matmul(op: GenericOp) -> LibraryCall | None:
    kinds = iterator_kinds(op)
    if len(kinds) != 3 or not ranks_are(op.operands, 2):
        return None
    maps = dim_maps(op)
    if maps is None:
        return None
    i, j = maps[2]
    rest = {0, 1, 2} - {i, j}
    if len(rest) != 1:
        return None
    (k,) = rest
    if kinds[i] != IteratorType.PARALLEL or kinds[j] != IteratorType.PARALLEL:
        return None
    if kinds[k] != IteratorType.REDUCTION:
        return None
    a, b = op.inputs
    map_a, map_b = maps[0], maps[1]
    if map_a != [i, k]:
        a, b, map_a, map_b = b, a, map_b, map_a
    if map_a != [i, k] or is_small(b):
        return None
    if map_b == [j, k]:
        return LibraryCall("matmul_nt", (a, b, op.outputs[0]))
    if map_b == [k, j]:
        return LibraryCall("matmul_nn", (a, b, op.outputs[0]))
    return None


def match_conv2d(op: GenericOp) -> LibraryCall | None:
    kinds = iterator_kinds(op)
    if len(kinds) != 7 or not ranks_are(op.operands, 4):
        return None
    maps = maps_of(op)
    out, weights = dims(maps[2]), dims(maps[1])
    if out is None or weights is None:
        return None
    n, o, y, z = out
    o2, c, u, v = weights
    if o2 != o or any(kinds[d] != IteratorType.PARALLEL for d in out):
        return None
    if any(kinds[d] != IteratorType.REDUCTION for d in (c, u, v)):
        return None
    x_map = maps[0].results
    if dims(AffineMap(7, 0, x_map[:2])) != [n, c]:
        return None
    rows, cols = linear_terms(x_map[2]), linear_terms(x_map[3])
    if rows is None or cols is None or rows.keys() != {y, u} or cols.keys() != {z, v}:
        return None
    strides = (rows[y], cols[z], rows[u], cols[v])
    return LibraryCall("conv2d", (op.inputs[0], op.inputs[1], op.outputs[0]), strides)


# ---- rewriting ----


def dynamic(value_type: Attribute) -> MemRefType:
    assert isinstance(value_type, MemRefType)
    rank = len(value_type.get_shape())
    return MemRefType(value_type.get_element_type(), [DYNAMIC_INDEX] * rank)


def declaration_symbol(at: Operation, call: LibraryCall) -> tuple[str, list[Attribute]]:
    """The symbol of the kernel's declaration (made in front of the function if missing)."""
    element = call.buffers[0].type.get_element_type()  # type: ignore[union-attr]
    kernel = call.kernel + call.suffix
    symbol = f"tsjit.{kernel}_{DTYPES[element]}"
    inputs = [dynamic(b.type) for b in call.buffers] + [IndexType()] * len(call.indices)
    function = at
    while not isinstance(function.parent_op(), ModuleOp):
        parent = function.parent_op()
        assert parent is not None
        function = parent
    module = function.parent_op()
    assert isinstance(module, ModuleOp)
    if not any(isinstance(o, func.FuncOp) and o.sym_name.data == symbol for o in module.ops):
        declaration = func.FuncOp.external(symbol, inputs, [])
        declaration.attributes[LIBRARY_ATTR] = StringAttr(kernel)
        Rewriter.insert_op(declaration, InsertPoint.before(function))
    return symbol, inputs


class ConvertContractionToLibraryCall(RewritePattern):
    """A matmul or conv2d `linalg.generic` -> a `func.call` of its library kernel."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: GenericOp, rewriter: PatternRewriter) -> None:
        if op.res or not is_contraction(op):
            return
        call = match_matmul(op) or match_conv2d(op)
        if call is None:
            return
        finish = match_finish(op, op.inputs)
        if finish is not None:
            call = call.finished(finish)
        if call.kernel in ("matmul_nn", "matmul_nt"):
            call = pack_invariant_operand(op, call)
        rewriter.replace(op, library_call(op, call, InsertPoint.before(op)))
        for dead in finish.dead if finish is not None else ():
            rewriter.erase(dead)


def library_call(at: Operation, call: LibraryCall, where: InsertPoint) -> func.CallOp:
    """The `func.call` of `call`'s kernel, its operand casts and index constants inserted at
    `where` (the call itself is not inserted)."""
    symbol, types = declaration_symbol(at, call)
    operands: list[SSAValue] = []
    for value, type_ in zip(call.buffers, types):
        if value.type != type_:
            cast = memref.CastOp.get(value, type_)
            Rewriter.insert_op(cast, where)
            value = cast.dest
        operands.append(value)
    for index in call.indices:
        constant = arith.ConstantOp(IntegerAttr(index, IndexType()))
        Rewriter.insert_op(constant, where)
        operands.append(constant.result)
    return func.CallOp(symbol, operands, [])


# ---- loop-invariant right operands ----


def pack_invariant_operand(op: GenericOp, call: LibraryCall) -> LibraryCall:
    """`a @ b` (`a @ bt.T`) inside loops that do not write `b` (`bt`): its column panels are
    packed once in front of the outermost such loop (`pack_nn(b, packed)` / `pack_nt(bt,
    packed)`, `packed` of k times n rounded up to the machine model's `tiles.gemm_cols`
    elements), and the loop runs `matmul_packed(a, packed, out)`; else `call` as it is."""
    from lowering.machine import MACHINE  # llvmlite's load, only for programs that pack

    a, b, *rest = call.buffers
    loop = outermost_invariant_loop(op, b)
    if loop is None:
        return call
    before = InsertPoint.before(loop)
    b_type = b.type
    assert isinstance(b_type, MemRefType)
    sizes = []
    for dim in range(2):
        index = arith.ConstantOp(IntegerAttr(dim, IndexType()))
        dim_op = memref.DimOp(b, index)
        Rewriter.insert_op([index, dim_op], before)
        sizes.append(dim_op.result)
    k_size, n = sizes if call.kernel == "matmul_nn" else sizes[::-1]
    cols = arith.ConstantOp(IntegerAttr(MACHINE.tiles.gemm_cols, IndexType()))
    panels = arith.CeilDivSIOp(n, cols.result)
    width = arith.MuliOp(panels.result, cols.result)
    size = arith.MuliOp(width.result, k_size)
    element = b_type.get_element_type()
    packed = memref.AllocOp([size.result], (), MemRefType(element, [DYNAMIC_INDEX]))
    Rewriter.insert_op([cols, panels, width, size, packed], before)
    kind = "pack_nn" if call.kernel == "matmul_nn" else "pack_nt"
    pack = LibraryCall(kind, (b, packed.memref))
    Rewriter.insert_op(library_call(op, pack, before), before)
    return LibraryCall("matmul_packed", (a, packed.memref, *rest), suffix=call.suffix)


def outermost_invariant_loop(op: Operation, buffer: SSAValue) -> Operation | None:
    """The outermost `scf.for` / `scf.while` around `op` that `buffer` is defined outside of
    and that writes nothing that may be `buffer`'s storage."""
    found = None
    where = storage(buffer)
    loop = op.parent_op()
    while loop is not None and not isinstance(loop, func.FuncOp):
        if isinstance(loop, scf.ForOp | scf.WhileOp):
            written = written_in(loop)
            if loop.is_ancestor(defining_op(buffer)) or where is ANY or where in written:
                break
            if ANY in written:
                break
            found = loop
        loop = loop.parent_op()
    return found


def defining_op(value: SSAValue) -> Operation:
    if isinstance(value, OpResult):
        return value.op
    assert isinstance(value, BlockArgument)
    parent = value.block.parent_op()
    assert parent is not None
    return parent


def written_in(loop: Operation) -> set[object]:
    """The storage `loop` may write: linalg outputs, copy destinations, the last memref
    operand of a library kernel call (its output: kernels write nothing else), and every
    memref operand of any other op that is not a load, a dim or a view (a call may write
    what it gets)."""
    written: set[object] = set()
    for inner in loop.walk():
        if inner is loop or isinstance(inner, (memref.LoadOp, memref.DimOp, *VIEWS)):
            continue
        memrefs = [v for v in inner.operands if isinstance(v.type, MemRefType)]
        if isinstance(inner, GenericOp):
            targets: Sequence[SSAValue] = inner.outputs
        elif isinstance(inner, memref.CopyOp):
            targets = [inner.destination]
        elif is_library_call(inner) and memrefs:
            targets = memrefs[-1:]
        else:
            targets = memrefs
        written |= {storage(v) for v in targets}
    return written


def is_library_call(op: Operation) -> bool:
    """A `func.call` of a library kernel's declaration (made by this pass)."""
    if not isinstance(op, func.CallOp):
        return False
    callee = SymbolTable.lookup_symbol(op, op.callee)
    return callee is not None and is_library_declaration(callee)


@dataclass(frozen=True)
class ConvertLinalgToLibraryCallsPass(ModulePass):
    """Matmul / conv2d generics -> library kernel calls (see the module docstring)."""

    name = "convert-linalg-to-library-calls"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        require_stage(op, self.name, "memref")
        walker = PatternRewriteWalker(ConvertContractionToLibraryCall(), apply_recursively=False)
        walker.rewrite_module(op)
