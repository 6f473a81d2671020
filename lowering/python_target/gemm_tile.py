"""The register-blocked core of the library matmul and convolution kernels, as numba intrinsics.

`gemm_tile(...)` computes the product of a strip of `rows` rows of a "scalar" operand S and a
strip of `cols` columns of a "vector" operand V, over `kc` steps of the reduction index k, and
stores it, finished as `flags` say, into a destination D (arrays of one float type; offsets and
strides count elements):

    P[r, q] = sum over k < kc of S[s + r * s_ldr + k * s_ldk] * V[v + koff[k0 + k] + q]
    D[d + r * d_ld + q] = relu?(D[d + r * d_ld + q]? + P[r, q] + B[b + r]? + B[b + q]?)

for r < rows <= ROWS and q < cols <= COLS, where each `?` term is there when its flag is set:
`ACCUMULATE` (D's old value), `ROW_BIAS` (a bias vector B along the rows: a convolution's
output channels), `COLUMN_BIAS` (B along the columns: a linear layer's outputs), `RELU`
(`x if x > 0 or x is NaN else 0`, as the loops compute `arith.maximumf(x, 0)`). Without
`ACCUMULATE`, D is only written: the kernels need no pass that fills it first. The flags are
run-time values tested once per tile, after the k loop. The sum runs in ROWS x COLS / lanes vector
registers of the machine model's width (`lowering/machine.py`: 8 x 3 zmm of 16 floats for the
matmul tile on AVX-512, 6 x 2 ymm of 8 floats on AVX2): per k, the vector loads of V and ROWS
broadcasts of S feed ROWS * COLS / lanes fused multiply-adds, which keeps both FMA units busy
(BLIS's outer-product micro-kernel). The LLVM loop vectorizer cannot produce this
from Python loops: it only vectorizes innermost loops, and numba turns the SLP vectorizer off.
So the loop is written here directly as LLVM IR with vector operations (`<16 x float>` on
AVX-512).

`koff` holds the offset of each k's row of V (in elements): `k * ld` for a matrix, the offset
of the input pixel `(c, u, v)` for a convolution. Rows of S past `rows` repeat its last row;
columns of V and D past `cols` are masked off (never read or written).

LLVM splits 512-bit vectors in two on CPUs it tunes for 256 bits (Intel server cores), unless
the function asks for them: the intrinsic marks the function it is inlined into with the
model's `"min-legal-vector-width"` and `"prefer-vector-width"`. The tile shapes and the vector
width come from the machine model only: no test of a CPU feature here.
"""

from __future__ import annotations

from llvmlite import ir
from numba.core import cgutils, types
from numba.extending import intrinsic

from lowering.machine import MACHINE
from lowering.python_target.wide_vectors import mark_wide

VECTOR_BYTES = MACHINE.vector_bytes
TILES = MACHINE.tiles

I1 = ir.IntType(1)
I32 = ir.IntType(32)
I64 = ir.IntType(64)
ELEMENTS = {types.float32: (ir.FloatType(), "f32"), types.float64: (ir.DoubleType(), "f64")}


class _Emitter:
    """LLVM IR helpers for one expansion of `gemm_tile` into `builder`'s function, for vectors
    of `lanes` elements of `element`."""

    def __init__(self, builder: ir.IRBuilder, element: ir.Type, suffix: str, lanes: int) -> None:
        self.builder = builder
        self.lanes = lanes
        self.vec = vec = ir.VectorType(element, lanes)
        mask = ir.VectorType(I1, lanes)
        pointer = vec.as_pointer()
        name = f"v{lanes}{suffix}"
        module = builder.module
        self.fma = self._declare(module, f"llvm.fma.{name}", vec, [vec, vec, vec])
        self.masked_load = self._declare(
            module, f"llvm.masked.load.{name}.p0", vec, [pointer, I32, mask, vec]
        )
        self.masked_store = self._declare(
            module, f"llvm.masked.store.{name}.p0", ir.VoidType(), [vec, pointer, I32, mask]
        )
        self.align = ir.Constant(I32, 4 if suffix == "f32" else 8)
        scalar_pointer = element.as_pointer()
        self.compress_store = self._declare(
            module, f"llvm.masked.compressstore.{name}", ir.VoidType(), [vec, scalar_pointer, mask]
        )
        self.expand_load = self._declare(
            module, f"llvm.masked.expandload.{name}", vec, [scalar_pointer, mask, vec]
        )
        self.ctpop = self._declare(module, "llvm.ctpop.i64", I64, [I64])

    @staticmethod
    def _declare(module: ir.Module, name: str, result: ir.Type, args: list[ir.Type]) -> ir.Function:
        return cgutils.get_or_insert_function(module, ir.FunctionType(result, args), name)

    def index(self, value: int) -> ir.Constant:
        return ir.Constant(I64, value)

    def vector_at(self, base: ir.Value, offset: ir.Value) -> ir.Value:
        return self.builder.bitcast(self.builder.gep(base, [offset]), self.vec.as_pointer())

    def load(self, pointer: ir.Value, mask: ir.Value) -> ir.Value:
        zero = ir.Constant(self.vec, None)
        return self.builder.call(self.masked_load, [pointer, self.align, mask, zero])

    def store(self, value: ir.Value, pointer: ir.Value, mask: ir.Value) -> None:
        self.builder.call(self.masked_store, [value, pointer, self.align, mask])

    def splat(self, scalar: ir.Value, vector_type: ir.VectorType) -> ir.Value:
        undef = ir.Constant(vector_type, ir.Undefined)
        first = self.builder.insert_element(undef, scalar, ir.Constant(I32, 0))
        zeros = ir.Constant(ir.VectorType(I32, self.lanes), None)
        return self.builder.shuffle_vector(first, undef, zeros)

    def bit_mask(self, bits: ir.Value, start: int) -> ir.Value:
        """Lanes whose bit `start + lane` of the int64 `bits` is set."""
        shifts = ir.Constant(ir.VectorType(I64, self.lanes), [start + i for i in range(self.lanes)])
        vector = self.builder.lshr(self.splat(bits, ir.VectorType(I64, self.lanes)), shifts)
        ones = ir.Constant(ir.VectorType(I64, self.lanes), [1] * self.lanes)
        zeros = ir.Constant(ir.VectorType(I64, self.lanes), None)
        return self.builder.icmp_signed("!=", self.builder.and_(vector, ones), zeros)

    def lane_mask(self, cols: ir.Value, start: int) -> ir.Value:
        """Lanes `start + lane < cols`."""
        lanes = ir.Constant(ir.VectorType(I64, self.lanes), [start + i for i in range(self.lanes)])
        limit = self.splat(cols, ir.VectorType(I64, self.lanes))
        return self.builder.icmp_signed("<", lanes, limit)


def _data(context, builder, array_type, value) -> ir.Value:  # type: ignore[no-untyped-def]
    return context.make_array(array_type)(context, builder, value).data


ACCUMULATE, RELU, ROW_BIAS, COLUMN_BIAS = 1, 2, 4, 8
"""The flags of a tile's stores (module docstring)."""


def tile_intrinsic(tile_rows: int, tile_cols: int, compressed: bool = False):  # type: ignore[no-untyped-def]
    """The intrinsic of the module docstring for tiles of `tile_rows` x `tile_cols` (ROWS x
    COLS there). Rows run in groups that keep at most `ACCUMULATORS` vector sums in registers
    (float64 tiles take two passes over k where float32 ones take one).

    `compressed`: `finish` has a fourth entry, `valid`, an int64 whose bit q says whether
    column q of the tile is stored (zero from bit `cols` on); D's row r holds only the valid
    columns, in order (a row of D gets the valid ones of the tile's columns packed
    together: `llvm.masked.compressstore`; ACCUMULATE and COLUMN_BIAS read D and B likewise).
    """
    entries = 4 if compressed else 3

    @intrinsic
    def tile(ctx, s, s_at, s_ldr, s_ldk, v, v_at, koff, k0, kc, d, d_at, d_ld, rows, cols, finish):  # type: ignore[no-untyped-def]  # noqa: ARG001
        if not isinstance(finish, types.BaseTuple) or len(finish) != entries:
            return None
        bias = finish[0]
        arrays = (s, v, d, bias)
        if any(not isinstance(a, types.Array) for a in arrays):
            return None
        if len({a.dtype for a in arrays}) != 1 or s.dtype not in ELEMENTS:
            return None
        if not isinstance(koff, types.Array) or koff.dtype != types.int64:
            return None
        lanes = VECTOR_BYTES // (s.dtype.bitwidth // 8)
        operands = (s, s_at, s_ldr, s_ldk, v, v_at, koff, k0, kc, d, d_at, d_ld, rows, cols)
        signature = types.none(*operands, finish)

        def codegen(context, builder, sig, args):  # type: ignore[no-untyped-def]
            _emit_tile(context, builder, sig, args, tile_rows, tile_cols // lanes, compressed)
            return context.get_dummy_value()

        return signature, codegen

    return tile


ACCUMULATORS = TILES.accumulators


def int64_indices(context, builder, arg_types, args):  # type: ignore[no-untyped-def]
    """An intrinsic's arguments with the integer ones widened to int64 (others as is)."""
    return [
        context.cast(builder, value, type_, types.int64)
        if isinstance(type_, types.Integer)
        else value
        for value, type_ in zip(args, arg_types)
    ]


def _emit_tile(context, builder, sig, args, tile_rows: int, vectors: int, compressed: bool) -> None:  # type: ignore[no-untyped-def]
    mark_wide(builder.function)
    args = int64_indices(context, builder, sig.args, args)
    s_v, s_at_v, s_ldr_v, s_ldk_v, v_v, v_at_v, koff_v, k0_v, kc_v = args[:9]
    d_v, d_at_v, d_ld_v, rows_v, cols_v = args[9:14]
    finish_type = sig.args[14]
    finish = cgutils.unpack_tuple(builder, args[14])
    bias_v, b_at_v, flags_v, *valid = int64_indices(context, builder, finish_type, finish)
    element, suffix = ELEMENTS[sig.args[0].dtype]
    lanes = VECTOR_BYTES // (sig.args[0].dtype.bitwidth // 8)
    emit = _Emitter(builder, element, suffix, lanes)
    s_data = builder.gep(_data(context, builder, sig.args[0], s_v), [s_at_v])
    v_data = builder.gep(_data(context, builder, sig.args[4], v_v), [v_at_v])
    koff_data = builder.gep(_data(context, builder, sig.args[6], koff_v), [k0_v])
    d_data = builder.gep(_data(context, builder, sig.args[9], d_v), [d_at_v])
    b_data = builder.gep(_data(context, builder, finish_type[0], bias_v), [b_at_v])
    last = builder.sub(rows_v, emit.index(1))
    masks = [emit.lane_mask(cols_v, n * lanes) for n in range(vectors)]
    store_masks, offsets = masks, [emit.index(n * lanes) for n in range(vectors)]
    if compressed:
        store_masks = [
            builder.and_(m, emit.bit_mask(valid[0], n * lanes)) for n, m in enumerate(masks)
        ]
        before = [
            builder.and_(valid[0], emit.index((1 << (n * lanes)) - 1)) for n in range(vectors)
        ]
        offsets = [builder.call(emit.ctpop, [bits]) for bits in before]
    zero = ir.Constant(emit.vec, None)
    group = max(1, ACCUMULATORS // vectors)
    for first in range(0, tile_rows, group):
        group_rows = range(first, min(first + group, tile_rows))
        s_rows = {}
        for r in group_rows:
            inside = builder.icmp_signed("<", emit.index(r), rows_v)
            row = builder.select(inside, emit.index(r), last)
            s_rows[r] = builder.gep(s_data, [builder.mul(row, s_ldr_v)])
        sums = {
            r: [cgutils.alloca_once_value(builder, zero) for _ in range(vectors)]
            for r in group_rows
        }
        with cgutils.for_range(builder, kc_v) as loop:
            k = loop.index
            v_row = builder.gep(v_data, [builder.load(builder.gep(koff_data, [k]))])
            loaded = [
                emit.load(emit.vector_at(v_row, emit.index(n * lanes)), masks[n])
                for n in range(vectors)
            ]
            step = builder.mul(k, s_ldk_v)
            for r in group_rows:
                scalar = builder.load(builder.gep(s_rows[r], [step]))
                broadcast = emit.splat(scalar, emit.vec)
                for n in range(vectors):
                    total = builder.load(sums[r][n])
                    product = builder.call(emit.fma, [broadcast, loaded[n], total])
                    builder.store(product, sums[r][n])
        for r in group_rows:
            with builder.if_then(builder.icmp_signed("<", emit.index(r), rows_v)):
                d_row = builder.gep(d_data, [builder.mul(emit.index(r), d_ld_v)])
                for n in range(vectors):
                    pointer = builder.gep(d_row, [offsets[n]])
                    bias = builder.gep(b_data, [offsets[n]])
                    stores = _Stores(emit, flags_v, store_masks[n], compressed)
                    stores.finish(sums[r][n], pointer, bias, builder.gep(b_data, [emit.index(r)]))


class _Stores:
    """The stores of a tile's sums as `flags` say (module docstring), under lane `mask`."""

    def __init__(self, emit: _Emitter, flags: ir.Value, mask: ir.Value, compressed: bool) -> None:
        self.emit, self.flags, self.mask, self.compressed = emit, flags, mask, compressed

    def load(self, pointer: ir.Value) -> ir.Value:
        """The vector at element `pointer` (its lanes packed when compressed)."""
        emit = self.emit
        if self.compressed:
            zero = ir.Constant(emit.vec, None)
            return emit.builder.call(emit.expand_load, [pointer, self.mask, zero])
        return emit.load(emit.vector_at(pointer, emit.index(0)), self.mask)

    def store(self, value: ir.Value, pointer: ir.Value) -> None:
        emit = self.emit
        if self.compressed:
            emit.builder.call(emit.compress_store, [value, pointer, self.mask])
        else:
            emit.store(value, emit.vector_at(pointer, emit.index(0)), self.mask)

    def when(self, flag: int):  # type: ignore[no-untyped-def]
        builder = self.emit.builder
        bit = builder.and_(self.flags, self.emit.index(flag))
        return builder.if_then(builder.icmp_signed("!=", bit, self.emit.index(0)))

    def finish(
        self, total: ir.Value, pointer: ir.Value, bias: ir.Value, row_bias: ir.Value
    ) -> None:
        """D = relu?(D? + total + row_bias? + bias?): `total` is the slot of the sum, `pointer`
        D's vector, `bias` the column bias's vector, `row_bias` the row bias's scalar (element
        pointers)."""
        emit, builder = self.emit, self.emit.builder
        with self.when(ACCUMULATE):
            old = self.load(pointer)
            builder.store(builder.fadd(old, builder.load(total)), total)
        with self.when(ROW_BIAS):
            scalar = emit.splat(builder.load(row_bias), emit.vec)
            builder.store(builder.fadd(builder.load(total), scalar), total)
        with self.when(COLUMN_BIAS):
            vector = self.load(bias)
            builder.store(builder.fadd(builder.load(total), vector), total)
        with self.when(RELU):
            value = builder.load(total)
            zero = ir.Constant(emit.vec, None)
            above = builder.fcmp_unordered(">", value, zero)
            builder.store(builder.select(above, value, zero), total)
        self.store(builder.load(total), pointer)


GEMM_ROWS, GEMM_COLS, NARROW_COLS = TILES.gemm_rows, TILES.gemm_cols, TILES.narrow_cols
gemm_tile = tile_intrinsic(GEMM_ROWS, GEMM_COLS)
"""The matmul tile (`Machine.tiles`): on AVX-512 8 x 3 zmm sums of float32 (measured best of
4..14 rows x 32..96 columns on W4's [256, 1024] x [1024, 1024]: 3.5 ms, torch 3.65 ms, 1
thread)."""
narrow_tile = tile_intrinsic(GEMM_ROWS, NARROW_COLS)
"""The matmul tile of panels of NARROW_COLS columns (on AVX-512 a matrix of 256 columns is 8
of 32, 16 columns fewer than 6 of 48: W5's [64, 256] x [256, 256] 2 threads 37 -> 32 us), and
of every tile with fewer rows or columns than the full one (masked)."""

CONV_ROWS, CONV_COLS = TILES.conv_rows, TILES.conv_cols
conv_tile = tile_intrinsic(CONV_ROWS, CONV_COLS)
conv_rows_tile = tile_intrinsic(CONV_ROWS, CONV_COLS, compressed=True)
"""The convolution tile over several output rows at once (`compressed`: the columns past each
output row's end are computed and dropped)."""
"""The convolution tile: output rows are often 24 to 64 wide, which 32 columns waste less of."""


@intrinsic
def transpose_block(typingctx, src, s_at, s_ld, dst, d_at, d_ld, rows, cols):  # type: ignore[no-untyped-def]  # noqa: ARG001
    """dst[d_at + c * d_ld + r] = src[s_at + r * s_ld + c] for c < cols, and for all r < lanes
    (VECTOR_BYTES of elements): rows r >= rows are stored as zeros; src rows are contiguous.

    `lanes` vector loads, a transpose in log2(lanes) stages of two-source shuffles
    (`vpermt2ps` on AVX-512), and `cols` vector stores: about 0.3 cycles per element where a scalar
    loop takes several (packing a transposed operand for `gemm_tile`).
    """
    if not isinstance(src, types.Array) or not isinstance(dst, types.Array):
        return None
    if src.dtype != dst.dtype or src.dtype not in ELEMENTS:
        return None
    element, suffix = ELEMENTS[src.dtype]
    lanes = VECTOR_BYTES // (src.dtype.bitwidth // 8)
    signature = types.none(src, s_at, s_ld, dst, d_at, d_ld, rows, cols)

    def codegen(context, builder, sig, args):  # type: ignore[no-untyped-def]
        mark_wide(builder.function)
        args = int64_indices(context, builder, sig.args, args)
        src_v, s_at_v, s_ld_v, dst_v, d_at_v, d_ld_v, rows_v, cols_v = args
        emit = _Emitter(builder, element, suffix, lanes)
        s_data = builder.gep(_data(context, builder, sig.args[0], src_v), [s_at_v])
        d_data = builder.gep(_data(context, builder, sig.args[3], dst_v), [d_at_v])
        mask = emit.lane_mask(cols_v, 0)
        zero = ir.Constant(emit.vec, None)
        vectors = []
        for r in range(lanes):
            loaded = cgutils.alloca_once_value(builder, zero)
            with builder.if_then(builder.icmp_signed("<", emit.index(r), rows_v)):
                row = builder.gep(s_data, [builder.mul(emit.index(r), s_ld_v)])
                builder.store(emit.load(emit.vector_at(row, emit.index(0)), mask), loaded)
            vectors.append(builder.load(loaded))
        distance = lanes // 2
        while distance:
            for r in range(lanes):
                if r & distance:
                    continue
                low, high = vectors[r], vectors[r + distance]
                keep = [c if not c & distance else lanes + c - distance for c in range(lanes)]
                take = [c + distance if not c & distance else lanes + c for c in range(lanes)]
                vectors[r] = builder.shuffle_vector(low, high, _indices(keep))
                vectors[r + distance] = builder.shuffle_vector(low, high, _indices(take))
            distance //= 2
        full = emit.lane_mask(emit.index(lanes), 0)
        for c in range(lanes):
            with builder.if_then(builder.icmp_signed("<", emit.index(c), cols_v)):
                column = builder.gep(d_data, [builder.mul(emit.index(c), d_ld_v)])
                emit.store(vectors[c], emit.vector_at(column, emit.index(0)), full)
        return context.get_dummy_value()

    return signature, codegen


def _indices(values: list[int]) -> ir.Constant:
    return ir.Constant(ir.VectorType(I32, len(values)), values)


@intrinsic
def never_inline(typingctx):  # type: ignore[no-untyped-def]  # noqa: ARG001
    """Marks the function it is called in `noinline`: LLVM then compiles the big tile loops of a
    helper once per caller module instead of once per call site and variant."""

    def codegen(context, builder, sig, args):  # type: ignore[no-untyped-def]  # noqa: ARG001
        builder.function.attributes.add("noinline")
        return context.get_dummy_value()

    return types.none(), codegen
