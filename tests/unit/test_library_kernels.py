"""The library kernels (`lowering/python_target/library_kernels.py`) against float64 numpy:
tile edges (rows past a multiple of 8, columns past a multiple of 48 / 32), strided views,
packed right operands, and the conv's in-place and copied-window paths."""

from __future__ import annotations

import itertools
import sys

import numpy as np
import pytest
from xdsl.dialects import func
from xdsl.dialects.builtin import StringAttr

from lowering.ir_marks import LIBRARY_ATTR
from lowering.python_target.gemm_tile import ACCUMULATE, GEMM_COLS
from lowering.python_target.shared_modules import library_module
from lowering.run.jit import load_module


class Kernels:
    """The kernels' dispatchers, each from the shared module a program calling it imports
    (so a test session compiles each once, for these tests and the e2e ones)."""

    def __getattr__(self, name: str):  # type: ignore[no-untyped-def]
        kind, dtype = name.removeprefix("tsjit_").rsplit("_", 1)
        declaration = func.FuncOp.external(f"tsjit.{kind}_{dtype}", [], [])
        declaration.attributes[LIBRARY_ATTR] = StringAttr(kind)
        shared = library_module(declaration, (name, f"{name}_parallel", f"{name}_serial"))
        return getattr(load_module(shared.source), name)


@pytest.fixture(scope="module")
def kernels() -> Kernels:
    return Kernels()


def close(actual: np.ndarray, expected: np.ndarray) -> None:
    tolerance = 1e-5 if actual.dtype == np.float32 else 1e-12
    np.testing.assert_allclose(actual, expected, rtol=tolerance, atol=tolerance)


@pytest.mark.parametrize(("m", "k", "n"), [(13, 70, 100), (1, 3, 1), (0, 4, 5), (3, 0, 4)])
def test_matmul_nn_and_nt_add_to_the_output(kernels: Kernels, m: int, k: int, n: int) -> None:
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((m, k), dtype=np.float32), rng.standard_normal((k, n), np.float32)
    bias = rng.standard_normal((m, n), dtype=np.float32)
    expected = bias + a.astype(np.float64) @ b
    c = bias.copy()
    kernels.tsjit_matmul_nn_f32(a, b, c)
    close(c, expected)
    c = bias.copy()
    kernels.tsjit_matmul_nt_f32(a, np.ascontiguousarray(b.T), c)
    close(c, expected)


def finished(total: np.ndarray, bias: np.ndarray | None, relu: bool) -> np.ndarray:
    """`total` (+ bias) (then relu as `arith.maximumf(x, 0)`: NaN stays NaN)."""
    if bias is not None:
        total = total + bias
    return np.where((total > 0) | np.isnan(total), total, 0) if relu else total


@pytest.mark.parametrize(
    ("kind", "suffix"),
    [("nt", "_set"), ("nn", "_bias"), ("packed", "_set_relu"), ("nt", "_bias_relu")],
)
def test_matmuls_that_overwrite_the_output(kernels: Kernels, kind: str, suffix: str) -> None:
    """`_set` / `_bias` kernels never read the output (NaN there stays out of the result); the
    bias runs along the columns; a NaN in `a` stays NaN through the relu."""
    rng = np.random.default_rng(6)
    a, b = (
        rng.standard_normal((13, 70), dtype=np.float32),
        rng.standard_normal((70, 100), np.float32),
    )
    a[3, 5] = np.nan
    bias = rng.standard_normal(100, dtype=np.float32) if "_bias" in suffix else None
    expected = finished(a.astype(np.float64) @ b, bias, "_relu" in suffix)
    right = {"nn": b, "nt": np.ascontiguousarray(b.T)}.get(kind)
    if right is None:
        right = np.empty(-(-100 // GEMM_COLS) * GEMM_COLS * 70, np.float32)
        kernels.tsjit_pack_nn_f32(b, right)
    c = np.full((13, 100), np.nan, dtype=np.float32)
    operands = () if bias is None else (bias,)
    getattr(kernels, f"tsjit_matmul_{kind}{suffix}_f32")(a, right, *operands, c)
    close(c, expected)


def test_matmul_of_strided_views(kernels: Kernels) -> None:
    rng = np.random.default_rng(1)
    a = rng.standard_normal((20, 60), dtype=np.float32)[:, ::2]
    b = rng.standard_normal((60, 150), dtype=np.float32)[::2, 1::3]
    c = np.zeros((20, 200), dtype=np.float32)[:, ::4]
    kernels.tsjit_matmul_nn_f32(a, b, c)
    close(c, a.astype(np.float64) @ b)
    c[...] = 0
    kernels.tsjit_matmul_nt_f32(a, b.T, c)
    close(c, a.astype(np.float64) @ b)


def test_float64_matmul(kernels: Kernels) -> None:
    rng = np.random.default_rng(2)
    a, b = rng.standard_normal((9, 17)), rng.standard_normal((17, 50))
    c = np.ones((9, 50))
    kernels.tsjit_matmul_nn_f64(a, b, c)
    close(c, 1 + a @ b)


@pytest.mark.parametrize("n", [100, 48, 5])
def test_packed_right_operand(kernels: Kernels, n: int) -> None:
    rng = np.random.default_rng(3)
    a, b = rng.standard_normal((11, 40), dtype=np.float32), rng.standard_normal((40, n), np.float32)
    size = -(-n // GEMM_COLS) * GEMM_COLS * 40
    packed, packed_t = np.empty(size, np.float32), np.empty(size, np.float32)
    kernels.tsjit_pack_nn_f32(b, packed)
    kernels.tsjit_pack_nt_f32(np.ascontiguousarray(b.T), packed_t)
    np.testing.assert_array_equal(packed, packed_t)
    c = np.ones((11, n), dtype=np.float32)
    kernels.tsjit_matmul_packed_f32(a, packed, c)
    close(c, 1 + a.astype(np.float64) @ b)


@pytest.mark.parametrize(
    ("suffix", "variant", "dtype", "m", "n"),
    [
        ("_bias", "_parallel", np.float32, 70, 256),  # chunks of rows; 8 panels of 32 columns
        ("_set", "_serial", np.float32, 13, 100),  # 48-column panels, a partial one
        ("_set_relu", "", np.float32, 13, 20),  # the dispatcher; one partial panel
        ("_bias_relu", "_parallel", np.float32, 13, 64),  # chunks of panels
        ("", "_parallel", np.float64, 70, 50),
    ],
)
def test_matmul_pair(
    kernels: Kernels, suffix: str, variant: str, dtype: type, m: int, n: int
) -> None:
    """c = a @ b + a2 @ b2 (finished as `suffix` says: accumulated into c, or overwritten,
    plus a bias, then relu), b and b2 packed; both products of each chunk in one call, the
    second one added to the first's finished values; rows past a multiple of 8, k of 1."""
    rng = np.random.default_rng(4)
    a, a2 = rng.standard_normal((m, 70)).astype(dtype), rng.standard_normal((m, 1)).astype(dtype)
    b, b2 = rng.standard_normal((70, n)).astype(dtype), rng.standard_normal((1, n)).astype(dtype)
    packed, packed2 = (np.empty(-(-n // GEMM_COLS) * GEMM_COLS * k, dtype) for k in (70, 1))
    name = "f32" if dtype == np.float32 else "f64"
    getattr(kernels, f"tsjit_pack_nn_{name}")(b, packed)
    getattr(kernels, f"tsjit_pack_nt_{name}")(np.ascontiguousarray(b2.T), packed2)
    bias = rng.standard_normal(n).astype(dtype) if "_bias" in suffix else None
    total = a.astype(np.float64) @ b + a2.astype(np.float64) @ b2
    c = np.full((m, n), 0.5 if not suffix else np.nan, dtype=dtype)
    expected = finished(total + (0.5 if not suffix else 0), bias, "_relu" in suffix)
    operands = () if bias is None else (bias,)
    kernel = getattr(kernels, f"tsjit_matmul_pair{suffix}_{name}")
    if variant:
        kernel = getattr(sys.modules[kernel.__module__], kernel.__name__ + variant)
    kernel(a, packed, a2, packed2, *operands, c)
    close(c, expected)


@pytest.mark.parametrize("m", [70, 13])
def test_packed_matmul_in_chunks_of_rows_or_panels(kernels: Kernels, m: int) -> None:
    """The parallel packed kernel splits the rows (70: 9 strips of 8, the last partial) or
    the column panels (13 rows) among its chunks."""
    rng = np.random.default_rng(5)
    a = rng.standard_normal((m, 40), dtype=np.float32)
    b = rng.standard_normal((40, 100), dtype=np.float32)
    packed = np.empty(-(-100 // GEMM_COLS) * GEMM_COLS * 40, np.float32)
    kernels.tsjit_pack_nn_f32(b, packed)
    c = np.ones((m, 100), dtype=np.float32)
    module = sys.modules[kernels.tsjit_matmul_packed_f32.__module__]
    module.tsjit_matmul_packed_f32_parallel(a, packed, c)
    close(c, 1 + a.astype(np.float64) @ b)


def conv_reference(x, w, stride, dilation):  # type: ignore[no-untyped-def]
    """Direct float64 convolution (no padding)."""
    (sh, sw), (dh, dw) = stride, dilation
    batch, _, height, width = x.shape
    out_channels, _, kh, kw = w.shape
    oh, ow = (height - dh * (kh - 1) - 1) // sh + 1, (width - dw * (kw - 1) - 1) // sw + 1
    out = np.zeros((batch, out_channels, oh, ow))
    for u in range(kh):
        for v in range(kw):
            window = x[:, :, u * dh : u * dh + sh * oh : sh, v * dw : v * dw + sw * ow : sw]
            out += np.einsum("bcyz,oc->boyz", window.astype(np.float64), w[:, :, u, v])
    return out


@pytest.mark.parametrize(
    ("x_shape", "w_shape", "stride", "dilation"),
    [
        ((2, 3, 9, 40), (9, 3, 3, 3), (1, 1), (1, 1)),  # in place; 9 rows, 38 columns
        ((1, 2, 10, 12), (4, 2, 2, 3), (2, 1), (2, 1)),  # row stride and dilation: in place
        ((2, 2, 9, 13), (5, 2, 3, 2), (1, 2), (1, 2)),  # column stride: copied windows
    ],
)
def test_conv2d(kernels: Kernels, x_shape, w_shape, stride, dilation) -> None:  # type: ignore[no-untyped-def]
    rng = np.random.default_rng(4)
    x = rng.standard_normal(x_shape, dtype=np.float32)
    w = rng.standard_normal(w_shape, dtype=np.float32)
    expected = conv_reference(x, w, stride, dilation) + 1
    out = np.ones(expected.shape, dtype=np.float32)
    kernels.tsjit_conv2d_f32(x, w, out, *stride, *dilation)
    close(out, expected)


def test_conv2d_of_strided_views(kernels: Kernels) -> None:
    rng = np.random.default_rng(5)
    x = rng.standard_normal((2, 3, 8, 20), dtype=np.float32)[:, :, :, ::2]
    w = rng.standard_normal((4, 3, 3, 3), dtype=np.float32)
    expected = conv_reference(x, w, (1, 1), (1, 1))
    out = np.zeros((2, 4, 6, 16), dtype=np.float32)[..., ::2]
    kernels.tsjit_conv2d_f32(x, w, out, 1, 1, 1, 1)
    close(out, expected)


@pytest.mark.parametrize("suffix", ["_set", "_bias_relu"])
def test_conv2d_that_overwrites_the_output(kernels: Kernels, suffix: str) -> None:
    """The bias runs along the output channels (9: a tile of 8 and one of 1)."""
    rng = np.random.default_rng(7)
    x = rng.standard_normal((2, 3, 9, 40), dtype=np.float32)
    w = rng.standard_normal((9, 3, 3, 3), dtype=np.float32)
    bias = rng.standard_normal(9, dtype=np.float32) if "_bias" in suffix else None
    total = conv_reference(x, w, (1, 1), (1, 1))
    channel_bias = None if bias is None else bias[:, None, None]
    expected = finished(total, channel_bias, "_relu" in suffix)
    out = np.full(expected.shape, np.nan, dtype=np.float32)
    operands = () if bias is None else (bias,)
    getattr(kernels, f"tsjit_conv2d{suffix}_f32")(x, w, *operands, out, 1, 1, 1, 1)
    close(out, expected)


def test_conv2d_runs_of_output_rows_in_any_chunks(kernels: Kernels) -> None:
    """Rows shorter than a tile (ow 6 of pitch 9) run as flat runs of several output rows;
    chunks of rows that start and end inside images give the whole result."""
    rng = np.random.default_rng(8)
    x = rng.standard_normal((3, 2, 9, 9), dtype=np.float32)
    w = rng.standard_normal((10, 2, 4, 4), dtype=np.float32)
    expected = conv_reference(x, w, (1, 1), (1, 1)) + 1
    module = sys.modules[kernels.tsjit_conv2d_f32.__module__]
    for chunks in ([0, 18], [0, 4, 11, 13, 18]):
        out = np.ones(expected.shape, dtype=np.float32)
        bias = np.empty(0, dtype=np.float32)
        for lo, hi in itertools.pairwise(chunks):
            module.tsjit_conv2d_rows(lo, hi, x, w, out, 1, 1, 1, 1, bias, ACCUMULATE)
        close(out, expected)
