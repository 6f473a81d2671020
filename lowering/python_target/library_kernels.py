"""Hand-tuned numba kernels that library calls (`func.call @tsjit.<kernel>`) run.

`convert-linalg-to-library-calls` (`lowering/loops/library_calls.py`) replaces a matmul
or a convolution `linalg.generic` by a call to one of these; the python target emits the
kernel's source (once per module) in a parallel and a serial variant, like every function
with parallel loops, and as a row-range `nogil` function with a Python dispatcher.

The core is a tile of the result in vector registers, written as LLVM IR
(`lowering/python_target/gemm_tile.py`; its shapes and the vector width are the machine
model's, `lowering/machine.py`: on AVX-512 `gemm_tile` 8 x 48, `conv_tile` 8 x 32, on AVX2
6 x 16 and 6 x 16). Around it:
- **matmul** `c += a @ b` (`matmul_nn`) or `c += a @ bt.T` (`matmul_nt`): the columns of `c`
  are split in panels of `GEMM_COLS` or `NARROW_COLS` (`tsjit_panel_width`: whichever pads
  fewer columns); each chunk of panels copies its columns of `b` (rows of `bt`) into one
  contiguous `[k, width]` block per panel (rows of a matrix 4 KB apart would share cache
  sets), then runs `gemm_tile` / `narrow_tile` over the rows of `a` in strips of `GEMM_ROWS`.
  Parallel variants run chunks of panels on all cores (numba's threads: no BLAS pool to
  fight); with a packed right operand that fits each core's cache, chunks of rows of `a`
  (`tsjit_work_split`).
- **conv2d** (NCHW): work items are output rows `(image, y)`. For a unit column stride the
  input pixels an output row needs are, for each `(c, u, v)` of the window, a contiguous run
  of the input row: `gemm_tile` reads them in place (`koff` holds each window offset), with
  the weights `[o, c*u*v]` as the scalar operand: no im2col matrix. Output rows shorter than
  a tile (W6c's 20 of 32 columns) run several at once when both strides are 1: tiles of the
  flat pixel index `y * pitch + z` (pitch: the input's row stride), the columns past each
  row's end computed and dropped by compressed stores (`conv_rows_tile`). Other strides copy
  the windows of one output row into a `[c*u*v, ow]` block first.
- **OpenBLAS:** `matmul_nn` / `matmul_nt` first try `tsjit_blas_matmul` (`BLAS_HELPERS`):
  numpy's OpenBLAS sgemm / dgemm (`lowering/python_target/blas.py`) for products of at least
  the machine model's `Machine.blas_gemm.min_macs` multiply-adds whose operands it can read
  (unit stride along rows or columns), on the thread budget of the variant (1 in the serial
  one, numba's count in the calling thread in the parallel one and the dispatcher), never
  inside a `prange` region; else the tiles above. Packed and paired matmuls and convolutions
  always run the tiles.
Each kernel accumulates into `c` / `out` (`matmul_nt`), or overwrites it (`matmul_nt_set`),
adds a bias (`_bias`) and applies a relu (`_relu`) as its tiles store their sums
(`lowering/loops/library_call_finish.py` picks the kernel).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from lowering.machine import MACHINE
from lowering.python_target.blas import OPENBLAS
from lowering.python_target.matmul_pair_kernels import MATMUL_PAIR, MATMUL_PAIR_ROWS

GEMM_HELPERS = '''from lowering.python_target.gemm_tile import (
    ACCUMULATE, COLUMN_BIAS, CONV_COLS, CONV_ROWS, GEMM_COLS, GEMM_ROWS, NARROW_COLS, RELU,
    ROW_BIAS, conv_rows_tile, conv_tile, gemm_tile, narrow_tile, never_inline, transpose_block,
)

# The parallel variants split their work in this many chunks (numba's get_num_threads() would
# keep them out of the cache); each chunk packs its own operands.
PARALLEL_CHUNKS = 16


@numba.njit(nogil=True, error_model="numpy", fastmath=FASTMATH, cache=True)
def tsjit_panel_width(n):
    """The columns of a matmul's panels for n columns: NARROW_COLS when GEMM_COLS panels would
    pad n by more than n / 16 columns more than NARROW_COLS ones (n = 256: 8 x 32 columns,
    not 6 x 48 = 288), else GEMM_COLS (n = 1024: 22 x 48, where the wider tile is faster).
    Never pads more than GEMM_COLS panels: packed operands have room for those."""
    wide, narrow = -(-n // GEMM_COLS) * GEMM_COLS, -(-n // NARROW_COLS) * NARROW_COLS
    return NARROW_COLS if (wide - narrow) * 16 > n else GEMM_COLS


@numba.njit(nogil=True, error_model="numpy", fastmath=FASTMATH, cache=True)
def tsjit_panel_blocks(packed, k_size, n):
    """The panels of a packed operand ([panels, k, width], a view) for n columns; `packed` holds
    k times n rounded up to GEMM_COLS elements, of which these are the first."""
    width = tsjit_panel_width(n)
    panels = -(-n // width)
    return packed[: panels * k_size * width].reshape((panels, k_size, width))


# A packed right operand of at most this many bytes is read whole by every thread: the
# parallel packed kernels then split the rows of `a` (of `c`), not the columns (see
# tsjit_work_split).
ROW_SPLIT_BYTES = {row_split_bytes}
ROW_SPLIT_STRIPS = 8


@numba.njit(nogil=True, error_model="numpy", fastmath=FASTMATH, cache=True)
def tsjit_work_split(m, panels, packed_bytes):
    """(items, by_rows): how a packed matmul of m rows and `panels` column panels splits its
    work in chunks. By strips of GEMM_ROWS rows when it has at least ROW_SPLIT_STRIPS and its
    packed operands (`packed_bytes`) stay in each core's cache: a thread then writes only its
    rows of c, which the elementwise loop behind (split by rows too) reads on the same core,
    and an RNN's next step reads its rows of h there (W5 2 threads ~-15%); else by panels."""
    strips = -(-m // GEMM_ROWS)
    if strips >= ROW_SPLIT_STRIPS and packed_bytes <= ROW_SPLIT_BYTES:
        return strips, True
    return panels, False


@numba.njit(nogil=True, error_model="numpy", fastmath=FASTMATH, cache=True)
def tsjit_work_item(lo, hi, by_rows, m, panels):
    """(first row, end row, first panel, end panel) of the chunk of items lo..hi."""
    if by_rows:
        return lo * GEMM_ROWS, min(hi * GEMM_ROWS, m), 0, panels
    return 0, m, lo, hi


@numba.njit(nogil=True, error_model="numpy", fastmath=FASTMATH, cache=True)
def tsjit_pack_panels(b, transposed, lo, hi, panels):
    """Column panels lo..hi of b (of b.T when transposed) into panels[:hi - lo] ([_, k,
    width]), zero past n: b's rows are read whole, b.T by 64-byte blocks transposed in
    registers."""
    never_inline()
    k_size, n = (b.shape[1], b.shape[0]) if transposed else (b.shape[0], b.shape[1])
    size = panels.shape[2]
    if not transposed:
        for k in range(k_size):
            row = b[k]
            for p in range(lo, hi):
                j = p * size
                width = min(size, n - j)
                target = panels[p - lo, k]
                for q in range(width):
                    target[q] = row[j + q]
                for q in range(width, size):
                    target[q] = 0
        return
    lanes, ld = {vector_bytes} // b.itemsize, b.strides[0] // b.itemsize
    for p in range(lo, hi):
        j = p * size
        width = min(size, n - j)
        if b.strides[1] == b.itemsize:
            for k in range(0, k_size, lanes):
                for q in range(0, size, lanes):
                    at = ((p - lo) * k_size + k) * size + q
                    rows, cols = max(0, min(lanes, width - q)), min(lanes, k_size - k)
                    transpose_block(b, (j + q) * ld + k, ld, panels, at, size, rows, cols)
            continue
        for k in range(k_size):
            for q in range(size):
                panels[p - lo, k, q] = b[j + q, k] if q < width else 0


@numba.njit(nogil=True, error_model="numpy", fastmath=FASTMATH, cache=True)
def tsjit_matmul_chunk(lo, hi, a, b, transposed, c, bias, flags):
    """Column panels lo..hi (of tsjit_panel_width columns) of c = a @ b (a @ b.T when
    transposed) finished as the tile `flags` say (bias: along c's columns); c[i, j:j + 1]
    contiguous."""
    never_inline()
    width = tsjit_panel_width(c.shape[1])
    panels = np.empty((hi - lo, a.shape[1], width), dtype=b.dtype)
    tsjit_pack_panels(b, transposed, lo, hi, panels)
    tsjit_gemm_panels(lo, hi, a, panels, lo, c, bias, flags)


@numba.njit(nogil=True, error_model="numpy", fastmath=FASTMATH, cache=True)
def tsjit_gemm_panels(lo, hi, a, panels, first, c, bias, flags):
    """Column panels lo..hi of c = a @ (the panels' columns) finished as `flags` say;
    panels[p - first] holds panel p (GEMM_COLS or NARROW_COLS columns). Full tiles run with
    constant sizes (no masks: -15%); the others as masked narrow tiles."""
    never_inline()
    m, k_size = a.shape
    n, width = c.shape[1], panels.shape[2]
    koff = np.arange(k_size) * width
    s_ldr, s_ldk = a.strides[0] // a.itemsize, a.strides[1] // a.itemsize
    ldc = c.strides[0] // c.itemsize
    for p in range(lo, hi):
        j = p * width
        v_at = (p - first) * k_size * width
        cols = min(width, n - j)
        for i in range(0, m, GEMM_ROWS):
            rows = min(GEMM_ROWS, m - i)
            s_at, d_at = i * s_ldr, i * ldc + j
            if rows == GEMM_ROWS and cols == GEMM_COLS:
                gemm_tile(
                    a, s_at, s_ldr, s_ldk, panels, v_at, koff, 0, k_size,
                    c, d_at, ldc, GEMM_ROWS, GEMM_COLS, (bias, j, flags),
                )
            elif rows == GEMM_ROWS and cols == NARROW_COLS:
                narrow_tile(
                    a, s_at, s_ldr, s_ldk, panels, v_at, koff, 0, k_size,
                    c, d_at, ldc, GEMM_ROWS, NARROW_COLS, (bias, j, flags),
                )
            else:
                for q in range(0, cols, NARROW_COLS):
                    narrow_tile(
                        a, s_at, s_ldr, s_ldk, panels, v_at + q, koff, 0, k_size,
                        c, d_at + q, ldc, rows, min(NARROW_COLS, cols - q), (bias, j + q, flags),
                    )


@numba.njit(nogil=True, error_model="numpy", fastmath=FASTMATH, cache=True)
def tsjit_conv2d_rows(lo, hi, x, w, out, sh, sw, dh, dw, bias, flags):
    """Output rows lo..hi (row = image * oh + y) of out = conv2d(x, w) finished as `flags`
    say (bias: along the output channels); out[..., z:z + 1] contiguous."""
    never_inline()
    channels, kh, kw = x.shape[1], w.shape[2], w.shape[3]
    oh, ow = out.shape[2], out.shape[3]
    k_size = channels * kh * kw
    weights = np.ascontiguousarray(w)
    xs = (x.strides[0], x.strides[1], x.strides[2], x.strides[3])
    xs = (xs[0] // x.itemsize, xs[1] // x.itemsize, xs[2] // x.itemsize, xs[3] // x.itemsize)
    outs = (out.strides[0] // out.itemsize, out.strides[1] // out.itemsize)
    outs = (outs[0], outs[1], out.strides[2] // out.itemsize)
    direct = sw == 1 and xs[3] == 1
    koff = np.empty(k_size, dtype=np.int64)
    for c in range(channels):
        for u in range(kh):
            for v in range(kw):
                k = (c * kh + u) * kw + v
                koff[k] = c * xs[1] + u * dh * xs[2] + v * dw * xs[3] if direct else k * ow
    if direct and sh == 1 and outs[2] == ow and xs[2] < -(-ow // CONV_COLS) * CONV_COLS:
        tsjit_conv2d_runs(lo, hi, weights, x, xs[0], xs[2], koff, out, outs, bias, flags)
        return
    windows = np.empty((1, 1, 1, 0 if direct else k_size * ow), dtype=x.dtype)
    for row in range(lo, hi):
        image, y = row // oh, row % oh
        d_at = image * outs[0] + y * outs[2]
        if direct:
            v_at = image * xs[0] + y * sh * xs[2]
            tsjit_conv2d_tiles(weights, x, v_at, koff, out, d_at, outs[1], bias, flags)
            continue
        for c in range(channels):
            for u in range(kh):
                for v in range(kw):
                    at = ((c * kh + u) * kw + v) * ow
                    for z in range(ow):
                        windows[0, 0, 0, at + z] = x[image, c, y * sh + u * dh, z * sw + v * dw]
        tsjit_conv2d_tiles(weights, windows, 0, koff, out, d_at, outs[1], bias, flags)


@numba.njit(nogil=True, error_model="numpy", fastmath=FASTMATH, cache=True)
def tsjit_conv2d_runs(lo, hi, weights, x, image_ld, pitch, koff, out, outs, bias, flags):
    """Output rows lo..hi of a conv of unit strides over rows shorter than a tile, as runs of
    the flat pixel index p = y * pitch + z (pitch: x's row stride), whose input pixels are
    x[image_ld * image + p + koff[k]]: tiles of CONV_COLS p's, the columns z >= ow computed and
    dropped (the compressed stores of conv_rows_tile); out's rows dense (outs[2] == ow)."""
    never_inline()
    out_channels, oh, ow = out.shape[1], out.shape[2], out.shape[3]
    k_size = koff.size
    row = lo
    while row < hi:
        image, y = row // oh, row % oh
        y_end = min(oh, y + hi - row)
        end = (y_end - 1) * pitch + ow
        for p in range(y * pitch, end, CONV_COLS):
            cols = min(CONV_COLS, end - p)
            valid, z = 0, p % pitch
            for q in range(cols):
                if z < ow:
                    valid |= 1 << q
                z = z + 1 if z + 1 < pitch else 0
            d_at = image * outs[0] + (p // pitch) * ow + min(p % pitch, ow)
            for o in range(0, out_channels, CONV_ROWS):
                rows = min(CONV_ROWS, out_channels - o)
                s_at, at = o * k_size, d_at + o * outs[1]
                conv_rows_tile(  # one call site: each one compiles the tile (seconds)
                    weights, s_at, k_size, 1, x, image * image_ld + p, koff, 0, k_size,
                    out, at, outs[1], rows, cols, (bias, o, flags, valid),
                )
        row += y_end - y


@numba.njit(nogil=True, error_model="numpy", fastmath=FASTMATH, cache=True)
def tsjit_conv2d_tiles(weights, source, v_at, koff, out, d_at, d_ld, bias, flags):
    """One output row: out[d_at + o * d_ld + z] = sum over k of weights[o, k] * source[v_at +
    koff[k] + z] finished as `flags` say (weights contiguous [o, k])."""
    never_inline()
    out_channels, ow = out.shape[1], out.shape[3]
    k_size = koff.size
    for z in range(0, ow, CONV_COLS):
        cols = min(CONV_COLS, ow - z)
        for o in range(0, out_channels, CONV_ROWS):
            rows = min(CONV_ROWS, out_channels - o)
            s_at, at = o * k_size, d_at + o * d_ld + z
            if rows == CONV_ROWS and cols == CONV_COLS:  # constant sizes: no masks
                conv_tile(
                    weights, s_at, k_size, 1, source, v_at + z, koff, 0, k_size,
                    out, at, d_ld, CONV_ROWS, CONV_COLS, (bias, o, flags),
                )
            else:
                conv_tile(
                    weights, s_at, k_size, 1, source, v_at + z, koff, 0, k_size,
                    out, at, d_ld, rows, cols, (bias, o, flags),
                )
'''
"""The numba functions the kernels call, emitted once in front of them."""


BLAS_HELPERS = '''from lowering.python_target.blas import (
    blas_gemm, blas_restore, blas_threads, numba_threads,
)

# {stamp}
BLAS_MIN_MACS = {min_macs}


@numba.njit(nogil=True, error_model="numpy", fastmath=FASTMATH, cache=True)
def tsjit_blas_layout(x):
    """(transposed, leading dimension) of a 2-D operand as OpenBLAS reads it: row-major, or
    its transpose row-major; leading dimension -1 when it is neither (a broadcast, a step)."""
    rows, cols = x.shape
    s0, s1 = x.strides[0] // x.itemsize, x.strides[1] // x.itemsize
    if (s1 == 1 or cols <= 1) and (rows <= 1 or s0 >= max(1, cols)):
        return False, s0 if rows > 1 else max(1, cols)
    if (s0 == 1 or rows <= 1) and (cols <= 1 or s1 >= max(1, rows)):
        return True, s1 if cols > 1 else max(1, rows)
    return False, -1


@numba.njit(nogil=True, error_model="numpy", fastmath=FASTMATH, cache=True)
def tsjit_blas_matmul(a, b, transposed, c, bias, flags, threads):
    """c = a @ b (a @ b.T when transposed) finished as the tile `flags` say, by OpenBLAS on
    `threads` threads, when the machine model picks it for this size (BLAS_MIN_MACS) and the
    operands' layouts suit it (c's columns contiguous); False (c untouched) otherwise. A bias
    fills c first (beta 1), a relu is a pass over c after."""
    m, k_size = a.shape
    n = c.shape[1]
    if m * n * k_size < BLAS_MIN_MACS or m == 0 or n == 0 or k_size == 0:
        return False
    a_t, lda = tsjit_blas_layout(a)
    b_t, ldb = tsjit_blas_layout(b)
    ldc = c.strides[0] // c.itemsize if m > 1 else n
    if lda < 0 or ldb < 0 or c.strides[1] != c.itemsize or ldc < n:
        return False
    beta = 1.0 if flags & ACCUMULATE else 0.0
    if flags & COLUMN_BIAS:
        for i in range(m):
            for j in range(n):
                c[i, j] = bias[j]
        beta = 1.0
    before = blas_threads(threads)
    blas_gemm(a, a_t, lda, b, b_t != transposed, ldb, c, ldc, m, n, k_size, beta)
    blas_restore(before, threads)
    if flags & RELU:
        for i in range(m):
            for j in range(n):
                x = c[i, j]
                c[i, j] = x if x > 0 or x != x else 0
    return True
'''
"""The OpenBLAS path of the matmul kernels (`blas.py`), where the library loads and the machine
model calls for it (`Machine.blas_gemm`)."""

NO_BLAS_HELPERS = '''from lowering.python_target.blas import numba_threads


@numba.njit(nogil=True, error_model="numpy", fastmath=FASTMATH, cache=True)
def tsjit_blas_matmul(a, b, transposed, c, bias, flags, threads):
    """No OpenBLAS ({reason}): the kernels run their own tiles."""
    return False
'''

MATMUL = '''@numba.njit({parallel}error_model="numpy", fastmath=FASTMATH, cache=True)
def {name}(a, b, {bias_param}c):
    """c {assign} {product}{finish} (a: [m, k], c: [m, n]) in chunks of column panels, in
    {loop}."""
    work = c if c.strides[1] == c.itemsize else np.ascontiguousarray(c)
    {bias_line}
    panels = -(-c.shape[1] // tsjit_panel_width(c.shape[1]))
    chunks = max(1, min({threads}, panels))
    budget = numba_threads() if {threads} > 1 else 1
    if not tsjit_blas_matmul(a, b, {transposed}, work, bias, {flags}, budget):
        for t in {loop}(chunks):
            lo, hi = t * panels // chunks, (t + 1) * panels // chunks
            tsjit_matmul_chunk(lo, hi, a, b, {transposed}, work, bias, {flags})
    if c.strides[1] != c.itemsize:  # loops: a slice assignment costs seconds of compile time
        for i in range(c.shape[0]):
            for j in range(c.shape[1]):
                c[i, j] = work[i, j]
'''

PANEL_DISPATCHER = '''

def {name}(a, b, {bias_param}c):
    """c {assign} {product}{finish} in panels of columns, on threads for large arrays."""
    work = c if c.strides[1] == c.itemsize else np.ascontiguousarray(c)
    {bias_line}
    panels = -(-c.shape[1] // tsjit_panel_width(c.shape[1]))
    if a.size + b.size + c.size >= CHUNK_GRAIN and panels > 1:
        run_in_chunks({name}_rows, 0, panels, (a, b, bias, work))
    else:
        {name}_rows(0, panels, a, b, bias, work)
    if work is not c:
        c[...] = work
'''
"""The Python dispatcher of a matmul's row-range function `{name}_rows(lo, hi, a, b, bias,
c)`."""

MATMUL_ROWS = '''@numba.njit(nogil=True, error_model="numpy", fastmath=FASTMATH, cache=True)
def {name}_rows(lo, hi, a, b, bias, c):
    """Column panels lo..hi of c {assign} {product}{finish}."""
    tsjit_matmul_chunk(lo, hi, a, b, {transposed}, c, bias, {flags})


@numba.njit(nogil=True, error_model="numpy", fastmath=FASTMATH, cache=True)
def {name}_blas(a, b, bias, c, threads):
    """c {assign} {product}{finish} by OpenBLAS on `threads` threads; False: not its shape."""
    return tsjit_blas_matmul(a, b, {transposed}, c, bias, {flags}, threads)


def {name}(a, b, {bias_param}c):
    """c {assign} {product}{finish}: by OpenBLAS where the machine model picks it, else in
    panels of columns, on threads for large arrays."""
    work = c if c.strides[1] == c.itemsize else np.ascontiguousarray(c)
    {bias_line}
    if not {name}_blas(a, b, bias, work, numba.get_num_threads()):
        panels = -(-c.shape[1] // tsjit_panel_width(c.shape[1]))
        if a.size + b.size + c.size >= CHUNK_GRAIN and panels > 1:
            run_in_chunks({name}_rows, 0, panels, (a, b, bias, work))
        else:
            {name}_rows(0, panels, a, b, bias, work)
    if work is not c:
        c[...] = work
'''
"""The row-range function, the OpenBLAS call and the Python dispatcher of a matmul."""

PACK = '''@numba.njit(error_model="numpy", fastmath=FASTMATH, cache=True)
def {name}(b, packed):
    """packed = the column panels of {operand} for matmul_packed (size: k times n rounded up to
    GEMM_COLS; zeros past the panels); serial in every variant (it runs once, in front of a
    loop)."""
    k_size, n = {sizes}
    blocks = tsjit_panel_blocks(packed, k_size, n)
    tsjit_pack_panels(b, {transposed}, 0, blocks.shape[0], blocks)
    for i in range(blocks.size, packed.size):
        packed[i] = 0
'''

PACK_ROWS = '''def {name}(b, packed):
    """packed = the column panels of {operand} (see the numba variants)."""
    {name}_serial(b, packed)
'''

MATMUL_PACKED = '''@numba.njit({parallel}error_model="numpy", fastmath=FASTMATH, cache=True)
def {name}(a, b, {bias_param}c):
    """c {assign} {product}{finish}, b as packed by pack_nn / pack_nt, in chunks of rows or
    column panels (tsjit_work_split), in {loop}."""
    work = c if c.strides[1] == c.itemsize else np.ascontiguousarray(c)
    {bias_line}
    m, blocks = a.shape[0], tsjit_panel_blocks(b, a.shape[1], c.shape[1])
    panels = blocks.shape[0]
    items, by_rows = tsjit_work_split(m, panels, b.size * b.itemsize)
    chunks = max(1, min({threads}, items))
    for t in {loop}(chunks):
        lo, hi = t * items // chunks, (t + 1) * items // chunks
        r0, r1, p0, p1 = tsjit_work_item(lo, hi, by_rows, m, panels)
        tsjit_gemm_panels(p0, p1, a[r0:r1], blocks, 0, work[r0:r1], bias, {flags})
    if c.strides[1] != c.itemsize:  # loops: a slice assignment costs seconds of compile time
        for i in range(c.shape[0]):
            for j in range(c.shape[1]):
                c[i, j] = work[i, j]
'''

MATMUL_PACKED_ROWS = (
    '''@numba.njit(nogil=True, error_model="numpy", fastmath=FASTMATH, cache=True)
def {name}_rows(lo, hi, a, b, bias, c):
    """Column panels lo..hi of c {assign} {product}{finish}, b as packed by pack_nn / pack_nt."""
    blocks = tsjit_panel_blocks(b, a.shape[1], c.shape[1])
    tsjit_gemm_panels(lo, hi, a, blocks, 0, c, bias, {flags})
'''
    + PANEL_DISPATCHER
)

CONV2D = '''@numba.njit({parallel}error_model="numpy", fastmath=FASTMATH, cache=True)
def {name}(x, w, {bias_param}out, sh, sw, dh, dw):
    """out[b, o, y, z] {assign} sum over c, u, v of x[b, c, y*sh + u*dh, z*sw + v*dw] * w[o, c, u,
    v]{finish}, in chunks of output rows, in {loop}."""
    work = out if out.strides[3] == out.itemsize else np.ascontiguousarray(out)
    {bias_line}
    items = out.shape[0] * out.shape[2]
    chunks = max(1, min({threads}, items))
    for t in {loop}(chunks):
        lo, hi = t * items // chunks, (t + 1) * items // chunks
        tsjit_conv2d_rows(lo, hi, x, w, work, sh, sw, dh, dw, bias, {flags})
    if out.strides[3] != out.itemsize:  # loops: a slice assignment costs seconds of compile time
        for image in range(out.shape[0]):
            for o in range(out.shape[1]):
                for y in range(out.shape[2]):
                    for z in range(out.shape[3]):
                        out[image, o, y, z] = work[image, o, y, z]
'''

CONV2D_ROWS = '''@numba.njit(nogil=True, error_model="numpy", fastmath=FASTMATH, cache=True)
def {name}_rows(lo, hi, x, w, out, sh, sw, dh, dw, bias):
    """Output rows lo..hi of out {assign} conv2d(x, w){finish}."""
    tsjit_conv2d_rows(lo, hi, x, w, out, sh, sw, dh, dw, bias, {flags})


def {name}(x, w, {bias_param}out, sh, sw, dh, dw):
    """The conv over its output rows, on threads for large arrays."""
    work = out if out.strides[3] == out.itemsize else np.ascontiguousarray(out)
    {bias_line}
    items = out.shape[0] * out.shape[2]
    if x.size + w.size + out.size >= CHUNK_GRAIN and items > 1:
        run_in_chunks({name}_rows, 0, items, (x, w, work, sh, sw, dh, dw, bias))
    else:
        {name}_rows(0, items, x, w, work, sh, sw, dh, dw, bias)
    if work is not out:
        out[...] = work
'''


@dataclass(frozen=True)
class Kernel:
    """A library kernel: its source templates, formatted once per variant.

    `template` is a numba function (parallel or serial) that numba functions call; `rows` is
    the Python dispatcher that plain Python hosts call (with its row-range function);
    `fields` fill the templates' other placeholders.
    """

    template: str
    rows: str
    fields: tuple[tuple[str, str], ...] = ()

    def source(self, name: str, parallel: bool) -> str:
        return self.template.format(
            name=name,
            parallel="parallel=True, " if parallel else "",
            loop="prange" if parallel else "range",
            threads="PARALLEL_CHUNKS" if parallel else "1",
            **dict(self.fields),
        )

    def dispatcher_source(self, name: str) -> str:
        """The dispatcher `name` (and its row-range function `name_rows`)."""
        return self.rows.format(name=name, **dict(self.fields))


# How a kernel finishes its result (`_set`, `_bias`, `_relu` in its name, see
# `lowering/loops/library_calls.py`): (name suffix, bias operand?, tile flags, docstring).
INITS = {
    "": (False, "ACCUMULATE", "+=", ""),
    "_set": (False, "0", "=", ""),
    "_bias": (True, "{axis}", "=", " + bias"),
}
ACTIVATIONS = {"": ("", ""), "_relu": (" | RELU", " then relu")}


def finishes(output: str, axis: str) -> dict[str, tuple[tuple[str, str], ...]]:
    """The fields of each finish of a kernel (by name suffix): accumulate into `output`, or
    overwrite it, with a bias along `axis` (a tile flag) and a relu."""
    variants = {}
    for init, (has_bias, flags, assign, plus) in INITS.items():
        for activation, (relu, then) in ACTIVATIONS.items():
            if init == "" and activation:
                continue  # a relu of an accumulation needs its own destination
            bias_line = (
                "bias = np.ascontiguousarray(bias)"
                if has_bias
                else f"bias = np.empty(0, dtype={output}.dtype)"
            )
            variants[init + activation] = (
                ("bias_param", "bias, " if has_bias else ""),
                ("bias_line", bias_line),
                ("flags", flags.format(axis=axis) + relu),
                ("assign", assign),
                ("finish", plus + then),
            )
    return variants


NT = (("product", "a @ b.T"), ("transposed", "True"))
NN = (("product", "a @ b"), ("transposed", "False"))
PACKED = (("product", "a @ b (b packed)"),)
PACK_NN = (("operand", "b [k, n]"), ("sizes", "b.shape[0], b.shape[1]"), ("transposed", "False"))
PACK_NT = (("operand", "b.T (b: [n, k])"), ("sizes", "b.shape[1], b.shape[0]"))
PACK_NT += (("transposed", "True"),)


OPERATIONS = {
    "matmul_nt": (MATMUL, MATMUL_ROWS, NT, "c", "COLUMN_BIAS"),
    "matmul_nn": (MATMUL, MATMUL_ROWS, NN, "c", "COLUMN_BIAS"),
    "matmul_packed": (MATMUL_PACKED, MATMUL_PACKED_ROWS, PACKED, "c", "COLUMN_BIAS"),
    "matmul_pair": (MATMUL_PAIR, MATMUL_PAIR_ROWS, (), "c", "COLUMN_BIAS"),
    "conv2d": (CONV2D, CONV2D_ROWS, (), "out", "ROW_BIAS"),
}
"""The operations with finishes: templates, fields, output parameter, bias axis."""


def library_kernels() -> tuple[dict[str, Kernel], dict[str, tuple[str, ...]]]:
    """The kernels by name, and the kernels of each one's module (`module_sources`)."""
    kernels = {
        "pack_nn": Kernel(PACK, PACK_ROWS, PACK_NN),
        "pack_nt": Kernel(PACK, PACK_ROWS, PACK_NT),
    }
    families = {"pack_nn": ("pack_nn",), "pack_nt": ("pack_nt",)}
    for operation, (template, rows, fields, output, axis) in OPERATIONS.items():
        members = []
        for suffix, finish in finishes(output, axis).items():
            kernels[operation + suffix] = Kernel(template, rows, fields + finish)
            members.append(operation + suffix)
        families |= dict.fromkeys(members, tuple(members))
    return kernels, families


LIBRARY_KERNELS, FAMILIES = library_kernels()
"""Library kernels by the name `func.call @tsjit.<name>_<dtype>` uses: `matmul_nt`,
`matmul_nn`, `matmul_packed`, `matmul_pair` (`a @ b + a2 @ b2`, both packed) and `conv2d`
accumulate into their output; `<kernel>_set` overwrite it, `<kernel>_bias` overwrite it with
the result plus a bias vector (along a matmul's columns, a convolution's channels),
`<kernel>_set_relu` and `<kernel>_bias_relu` then apply a relu; `pack_nn` and `pack_nt` pack
the right operands of `matmul_packed` and `matmul_pair`."""


def module_sources(name: str, kind: str) -> list[str]:
    """The kernels of the library module of kernel `kind` named `name` (`tsjit_matmul_nt_f32`):
    the parallel and serial variants and the dispatcher of `kind` and of every other finish of
    its operation, in one order. One module per operation, whichever finishes a program
    calls: numba compiles a function when it is first called, so the helpers the finishes
    share compile once, not once per finish."""
    prefix, _, rest = name.partition(kind)
    sources = []
    for member in FAMILIES[kind]:
        member_name = prefix + member + rest
        kernel = LIBRARY_KERNELS[member]
        sources.append(kernel.source(f"{member_name}_parallel", parallel=True))
        sources.append(kernel.source(f"{member_name}_serial", parallel=False))
        sources.append(kernel.dispatcher_source(member_name))
    return sources


def tile_source_stamp() -> str:
    """A hash of `gemm_tile.py` and of the machine model (`MACHINE.key`): numba's cache of a
    library module checks only the module's own text, so the text names the intrinsics'
    version and the machine their tiles are shaped for (a changed tile, or another
    `TSJIT_CPU`, is a new module)."""
    source = (Path(__file__).parent / "gemm_tile.py").read_bytes()
    return hashlib.sha256(source + MACHINE.key.encode()).hexdigest()[:16]


def power_of_two_text(value: int) -> str:
    """`1 << n` for a power of two n, else the number."""
    if value > 0 and value & (value - 1) == 0:
        return f"1 << {value.bit_length() - 1}"
    return str(value)


def blas_helpers() -> str:
    """`BLAS_HELPERS` for numpy's OpenBLAS and the machine model's choice, else
    `NO_BLAS_HELPERS` (the text names the library: numba's cache checks only the text)."""
    choice = MACHINE.blas_gemm
    if OPENBLAS is None or choice is None:
        reason = "TSJIT_BLAS=0" if choice is None else "numpy bundles none"
        return NO_BLAS_HELPERS.format(reason=reason)
    return BLAS_HELPERS.format(stamp=OPENBLAS.stamp, min_macs=power_of_two_text(choice.min_macs))


LIBRARY_HELPERS = (
    f"# gemm_tile.py {tile_source_stamp()}\n"
    + GEMM_HELPERS.format(
        row_split_bytes=power_of_two_text(MACHINE.row_split_bytes),
        vector_bytes=MACHINE.vector_bytes,
    )
    + blas_helpers()
)
"""The numba functions the kernels call, emitted once in front of them (the machine model's
vector width and cache size filled in)."""
