"""Hand-tuned numba kernels that library calls (`func.call @tsjit.<kernel>`) run.

`convert-linalg-to-library-calls` (`lowering/linalg_to_library_calls.py`) replaces a matmul
or a convolution `linalg.generic` by a call to one of these; the python target emits the
kernel's source (once per module) in a parallel and a serial variant, like every function
with parallel loops.

The core is `tsjit_matmul_nt_panel`: `c[:, j0:j1] += a @ bt[j0:j1].T` with both operands
contiguous along the reduction dim `k`, computed in 4x4 register blocks: each block keeps 16
accumulators, each a dot product over `k` that LLVM vectorizes (8 vector loads feed 16 FMAs).
Work is split in panels of `PANEL` columns of `c` (rows of `bt`), which stay in L2 while
every row block of `a` passes over them; the parallel variants run panels on all cores
(numba's own thread pool: no BLAS, so no second thread pool fights it). Accumulators start
from `c`, so `c` may hold a bias or zeros.
"""

from __future__ import annotations

from dataclasses import dataclass

PANEL = 64

PANEL_KERNEL = '''@numba.njit(error_model="numpy", fastmath=FASTMATH, cache=True)
def tsjit_matmul_nt_panel(a, bt, c, j0, j1):
    """c[:, j0:j1] += a @ bt[j0:j1].T, in 4x4 blocks of dot products over k."""
    m, k_size = a.shape
    jv = j0 + (j1 - j0) // 4 * 4
    mv = m // 4 * 4
    for i in range(0, mv, 4):
        for j in range(j0, jv, 4):
            c00, c01, c02, c03 = c[i, j], c[i, j + 1], c[i, j + 2], c[i, j + 3]
            c10, c11, c12, c13 = c[i + 1, j], c[i + 1, j + 1], c[i + 1, j + 2], c[i + 1, j + 3]
            c20, c21, c22, c23 = c[i + 2, j], c[i + 2, j + 1], c[i + 2, j + 2], c[i + 2, j + 3]
            c30, c31, c32, c33 = c[i + 3, j], c[i + 3, j + 1], c[i + 3, j + 2], c[i + 3, j + 3]
            for k in range(k_size):
                a0, a1, a2, a3 = a[i, k], a[i + 1, k], a[i + 2, k], a[i + 3, k]
                b0, b1, b2, b3 = bt[j, k], bt[j + 1, k], bt[j + 2, k], bt[j + 3, k]
                c00 += a0 * b0
                c01 += a0 * b1
                c02 += a0 * b2
                c03 += a0 * b3
                c10 += a1 * b0
                c11 += a1 * b1
                c12 += a1 * b2
                c13 += a1 * b3
                c20 += a2 * b0
                c21 += a2 * b1
                c22 += a2 * b2
                c23 += a2 * b3
                c30 += a3 * b0
                c31 += a3 * b1
                c32 += a3 * b2
                c33 += a3 * b3
            c[i, j], c[i, j + 1], c[i, j + 2], c[i, j + 3] = c00, c01, c02, c03
            c[i + 1, j], c[i + 1, j + 1], c[i + 1, j + 2], c[i + 1, j + 3] = c10, c11, c12, c13
            c[i + 2, j], c[i + 2, j + 1], c[i + 2, j + 2], c[i + 2, j + 3] = c20, c21, c22, c23
            c[i + 3, j], c[i + 3, j + 1], c[i + 3, j + 2], c[i + 3, j + 3] = c30, c31, c32, c33
        for j in range(jv, j1):
            for r in range(i, i + 4):
                s = c[r, j]
                for k in range(k_size):
                    s += a[r, k] * bt[j, k]
                c[r, j] = s
    for r in range(mv, m):
        for j in range(j0, j1):
            s = c[r, j]
            for k in range(k_size):
                s += a[r, k] * bt[j, k]
            c[r, j] = s
'''

MATMUL_NT = '''@numba.njit({parallel}error_model="numpy", fastmath=FASTMATH, cache=True)
def {name}(a, bt, c):
    """c += a @ bt.T (a: [m, k], bt: [n, k], c: [m, n]), panels of columns in {loop}."""
    n = bt.shape[0]
    for p in {loop}((n + {panel} - 1) // {panel}):
        tsjit_matmul_nt_panel(a, bt, c, p * {panel}, min(p * {panel} + {panel}, n))
'''

MATMUL_NN = '''@numba.njit({parallel}error_model="numpy", fastmath=FASTMATH, cache=True)
def {name}(a, b, c):
    """c += a @ b (a: [m, k], b: [k, n]): b is transposed once, then the nt kernel runs."""
    k_size, n = b.shape
    bt = np.empty((n, k_size), dtype=b.dtype)
    for j in {loop}(n):
        for k in range(k_size):
            bt[j, k] = b[k, j]
    for p in {loop}((n + {panel} - 1) // {panel}):
        tsjit_matmul_nt_panel(a, bt, c, p * {panel}, min(p * {panel} + {panel}, n))
'''

CONV2D_BODY = """    batch, channels = x.shape[0], x.shape[1]
    out_channels, kh, kw = w.shape[0], w.shape[2], w.shape[3]
    positions = out.shape[2] * out.shape[3]
    weights = w.reshape(out_channels, channels * kh * kw)
    if batch > 1:
        for image in {images}:
            columns = np.empty((positions, channels * kh * kw), dtype=x.dtype)
            tsjit_im2col_rows(x, image, columns, 0, positions, out.shape[3], sh, sw, dh, dw, kh, kw)
            result = out[image].reshape(out_channels, positions)
            tsjit_matmul_nt_panel(weights, columns, result, 0, positions)
    elif batch == 1:
        columns = np.empty((positions, channels * kh * kw), dtype=x.dtype)
        result = out[0].reshape(out_channels, positions)
        for p in {panels}:
            p0, p1 = p * {panel}, min(p * {panel} + {panel}, positions)
            tsjit_im2col_rows(x, 0, columns, p0, p1, out.shape[3], sh, sw, dh, dw, kh, kw)
            tsjit_matmul_nt_panel(weights, columns, result, p0, p1)
"""
"""The conv of images `{images}` (several) or panels `{panels}` of one image."""

CONV2D = '''@numba.njit({parallel}error_model="numpy", fastmath=FASTMATH, cache=True)
def {name}(x, w, out, sh, sw, dh, dw):
    """out[b, o, y, z] += sum over c, u, v of x[b, c, y*sh + u*dh, z*sw + v*dw] * w[o, c, u, v].

    Per image: the windows of x as rows of a column matrix (im2col), then the nt matmul of
    the weights [o, c*u*v] with it into out[b] seen as [o, y*z]. Several images run in
    {loop} over images; one image runs in {loop} over panels of {panel} output positions.
    """
{body}'''.replace(
    "{body}",
    CONV2D_BODY.replace("{images}", "{loop}(batch)").replace(
        "{panels}", "{loop}((positions + {panel} - 1) // {panel})"
    ),
)

IM2COL_KERNEL = '''@numba.njit(error_model="numpy", fastmath=FASTMATH, cache=True)
def tsjit_im2col_rows(x, image, columns, lo, hi, ow, sh, sw, dh, dw, kh, kw):
    """Rows lo..hi of the im2col matrix of x[image]: row y*ow + z holds the window at (y, z)."""
    for row in range(lo, hi):
        y, z = row // ow, row % ow
        for c in range(x.shape[1]):
            for u in range(kh):
                for v in range(kw):
                    pixel = x[image, c, y * sh + u * dh, z * sw + v * dw]
                    columns[row, (c * kh + u) * kw + v] = pixel
'''


# Row-range variants: serial `nogil` functions of a range of work items, which a plain Python
# dispatcher runs whole or in chunks on threads (`lowering/thread_chunks.py`), so a program
# whose host is Python never compiles the parfor variants above.

MATMUL_NT_ROWS = '''@numba.njit(nogil=True, error_model="numpy", fastmath=FASTMATH, cache=True)
def {name}_rows(lo, hi, a, bt, c):
    """Panels lo..hi of {panel} columns of c += a @ bt.T."""
    n = bt.shape[0]
    for p in range(lo, hi):
        tsjit_matmul_nt_panel(a, bt, c, p * {panel}, min(p * {panel} + {panel}, n))


def {name}(a, bt, c):
    """c += a @ bt.T in panels of {panel} columns, on threads for large arrays."""
    panels = (bt.shape[0] + {panel} - 1) // {panel}
    if a.size + bt.size + c.size >= CHUNK_GRAIN and panels > 1:
        run_in_chunks({name}_rows, 0, panels, (a, bt, c))
    else:
        {name}_rows(0, panels, a, bt, c)
'''

MATMUL_NN_ROWS = '''def {name}(a, b, c):
    """c += a @ b: b transposed once (numpy), then the nt panels, on threads for large arrays."""
    bt = np.ascontiguousarray(b.T)
    panels = (bt.shape[0] + {panel} - 1) // {panel}
    if a.size + bt.size + c.size >= CHUNK_GRAIN and panels > 1:
        run_in_chunks({nt}_rows, 0, panels, (a, bt, c))
    else:
        {nt}_rows(0, panels, a, bt, c)
'''

CONV2D_ROWS = '''@numba.njit(nogil=True, error_model="numpy", fastmath=FASTMATH, cache=True)
def {name}_rows(lo, hi, x, w, out, sh, sw, dh, dw):
    """Work items lo..hi of the conv: images of a batch of several, else panels of {panel}
    output positions of the one image."""
{rows_body}

def {name}(x, w, out, sh, sw, dh, dw):
    """The conv over its work items, on threads for large arrays."""
    positions = out.shape[2] * out.shape[3]
    items = x.shape[0] if x.shape[0] > 1 else x.shape[0] * ((positions + {panel} - 1) // {panel})
    if x.size + w.size + out.size >= CHUNK_GRAIN and items > 1:
        run_in_chunks({name}_rows, 0, items, (x, w, out, sh, sw, dh, dw))
    else:
        {name}_rows(0, items, x, w, out, sh, sw, dh, dw)
'''.replace(
    "{rows_body}",
    CONV2D_BODY.replace("{images}", "range(lo, hi)").replace("{panels}", "range(lo, hi)"),
)


@dataclass(frozen=True)
class Kernel:
    """A library kernel: its source templates, formatted once per variant.

    `template` is a numba function (parallel or serial) that numba functions call; `rows` is
    the Python dispatcher that plain Python hosts call, with its row-range function.
    """

    template: str
    rows: str

    def source(self, name: str, parallel: bool) -> str:
        return self.template.format(
            name=name,
            parallel="parallel=True, " if parallel else "",
            loop="prange" if parallel else "range",
            panel=PANEL,
        )

    def dispatcher_source(self, name: str, dtype: str) -> str:
        """The dispatcher `name` and its row-range function `name_rows` (a matmul_nn calls
        the matmul_nt rows of its dtype, which its module holds too)."""
        nt = f"tsjit_matmul_nt_{dtype}"
        return self.rows.format(name=name, panel=PANEL, nt=nt)


LIBRARY_KERNELS: dict[str, Kernel] = {
    "matmul_nt": Kernel(MATMUL_NT, MATMUL_NT_ROWS),
    "matmul_nn": Kernel(MATMUL_NN, MATMUL_NN_ROWS),
    "conv2d": Kernel(CONV2D, CONV2D_ROWS),
}
"""Library kernels by the name `func.call @tsjit.<name>_<dtype>` uses."""

LIBRARY_HELPERS = PANEL_KERNEL + "\n\n" + IM2COL_KERNEL
"""The numba functions the kernels call, emitted once in front of them."""
