"""The matmul kernels' OpenBLAS path (`lowering/python_target/blas.py`, `tsjit_blas_matmul` in
`library_kernels.py`) against float64 numpy and PyTorch: which shapes take it (the machine
model's `BLAS_GEMM` table), odd shapes, transposed and strided operands, the finishes, float64,
batched matmuls, the thread budget OpenBLAS runs with, and the tiles for every shape under
`TSJIT_BLAS=0`. `test_machine_model.py` runs this file again under the AVX2 model."""

from __future__ import annotations

import ctypes
import os
import subprocess
import sys
import threading
from pathlib import Path

import numba
import numpy as np
import pytest
import torch
from xdsl.dialects import func
from xdsl.dialects.builtin import StringAttr

import frontend
from lowering.ir_marks import LIBRARY_ATTR
from lowering.machine import MACHINE
from lowering.python_target.blas import OPENBLAS, blas_restore, blas_thread_count, blas_threads
from lowering.python_target.shared_modules import library_module
from lowering.run.jit import load_module
from lowering.run.threads import use_thread_setting

ROOT = Path(__file__).resolve().parents[2]
CHOICE = MACHINE.blas_gemm
needs_blas = pytest.mark.skipif(
    OPENBLAS is None or CHOICE is None, reason="no OpenBLAS, or TSJIT_BLAS=0"
)


def kernel_module(kind: str, dtype: str = "f32"):  # type: ignore[no-untyped-def]
    """The shared module of library kernel `kind`, as a program calling it imports it."""
    name = f"tsjit_{kind}_{dtype}"
    declaration = func.FuncOp.external(f"tsjit.{kind}_{dtype}", [], [])
    declaration.attributes[LIBRARY_ATTR] = StringAttr(kind)
    shared = library_module(declaration, (name, f"{name}_parallel", f"{name}_serial"))
    return load_module(shared.source)


def big_shape(m: int, k: int) -> tuple[int, int, int]:
    """(m, k, n) with n odd and m * n * k just past the model's OpenBLAS threshold."""
    n = max(3, -(-CHOICE.min_macs // (m * k))) | 1 if CHOICE is not None else 5
    return m, k, n


def close(actual: np.ndarray, expected: np.ndarray) -> None:
    tolerance = 1e-4 if actual.dtype == np.float32 else 1e-11
    scale = max(1.0, float(np.nanmax(np.abs(expected)))) if expected.size else 1.0
    np.testing.assert_allclose(actual, expected, rtol=tolerance, atol=tolerance * scale)


@needs_blas
def test_the_table_picks_openblas_from_its_threshold() -> None:
    module = kernel_module("matmul_nn_set")
    rng = np.random.default_rng(0)
    m, k, n = big_shape(33, 65)
    a, b = rng.standard_normal((m, k), np.float32), rng.standard_normal((k, n), np.float32)
    c = np.empty((m, n), np.float32)
    assert module.tsjit_blas_matmul(a, b, False, c, c[0], 0, 1)
    close(c, a.astype(np.float64) @ b)
    small = (CHOICE.min_macs - 1) // (m * k)
    assert 0 < small < n
    assert not module.tsjit_blas_matmul(a, b[:, :small], False, c[:, :small], c[0], 0, 1)


@needs_blas
@pytest.mark.parametrize("layout", ["nn", "nt", "a transposed", "b transposed", "strided"])
def test_openblas_matmul_of_any_layout(layout: str) -> None:
    """Operands stored transposed go to OpenBLAS as transposed; a step in both strides of an
    operand takes the tiles (OpenBLAS cannot read it); each result is right."""
    rng = np.random.default_rng(1)
    m, k, n = big_shape(37, 129)
    a = rng.standard_normal((m, k), np.float32)
    b = rng.standard_normal((k, n), np.float32)
    if layout == "a transposed":
        a = np.asfortranarray(a)
    if layout == "strided":
        a = rng.standard_normal((m, 2 * k), np.float32)[:, ::2]
    kind, right = ("matmul_nt", np.ascontiguousarray(b.T)) if layout == "nt" else ("matmul_nn", b)
    if layout == "b transposed":
        right = np.asfortranarray(b)
    module = kernel_module(kind)
    c = np.ones((m, n), np.float32)
    getattr(module, f"tsjit_{kind}_f32")(a, right, c)
    close(c, 1 + a.astype(np.float64) @ b)
    took_blas = module.tsjit_blas_matmul(a, right, kind == "matmul_nt", c, c[0], 0, 1)
    assert took_blas == (layout != "strided")


@needs_blas
@pytest.mark.parametrize("suffix", ["_set", "_bias", "_set_relu", "_bias_relu"])
def test_openblas_finishes(suffix: str) -> None:
    """`_set` / `_bias` never read the output (its NaNs stay out); the bias runs along the
    columns; the relu keeps a NaN of `a`, as the tiles do; parallel and serial variants too."""
    rng = np.random.default_rng(2)
    m, k, n = big_shape(41, 97)
    a, w = rng.standard_normal((m, k), np.float32), rng.standard_normal((n, k), np.float32)
    a[3, 5] = np.nan
    bias = rng.standard_normal(n, np.float32)
    expected = a.astype(np.float64) @ w.T + (bias if "_bias" in suffix else 0)
    if "_relu" in suffix:
        expected = np.where((expected > 0) | np.isnan(expected), expected, 0)
    name = f"tsjit_matmul_nt{suffix}_f32"
    module = kernel_module(f"matmul_nt{suffix}")
    operands = (bias,) if "_bias" in suffix else ()
    for variant in (name, f"{name}_parallel", f"{name}_serial"):
        c = np.full((m, n), np.nan, np.float32)
        getattr(module, variant)(a, w, *operands, c)
        assert np.isnan(c[3]).all()
        close(c, expected)


@needs_blas
def test_openblas_float64_with_a_strided_output() -> None:
    rng = np.random.default_rng(3)
    m, k, n = big_shape(29, 211)
    a, b = rng.standard_normal((m, k)), rng.standard_normal((k, n))
    out = np.ones((m, 2 * n))
    c = out[:, ::2]  # no unit column stride: the kernel runs on a copy and writes it back
    kernel_module("matmul_nn", "f64").tsjit_matmul_nn_f64(a, b, c)
    close(c, 1 + a @ b)
    assert (out[:, 1::2] == 1).all()


@needs_blas
def test_batched_and_linear_programs_agree_with_pytorch() -> None:
    torch.manual_seed(4)
    m, k, n = big_shape(67, 131)
    x, y = torch.randn(3, m, k), torch.randn(3, k, n)
    bmm = frontend.script(lambda x, y: torch.bmm(x, y))
    close(bmm(x, y).numpy(), (x.double() @ y.double()).numpy())
    w, b = torch.randn(n, k, dtype=torch.float64), torch.randn(n, dtype=torch.float64)
    x64 = x[0].double().T.contiguous().T  # a transposed left operand
    linear = frontend.script(lambda x, w, b: torch.relu(torch.nn.functional.linear(x, w, b)))
    close(linear(x64, w, b).numpy(), torch.relu(x64 @ w.T + b).numpy())


@numba.njit(nogil=True)
def watch_thread_counts(stop, seen):  # type: ignore[no-untyped-def]
    """Counts each OpenBLAS thread count seen (seen[count] += 1) until stop[0] is set."""
    while stop[0] == 0:
        seen[min(blas_thread_count(), seen.size - 1)] += 1


@needs_blas
@pytest.mark.parametrize("variant", ["", "_parallel", "_serial"])
def test_openblas_runs_on_tsjits_thread_budget(variant: str) -> None:
    """While a matmul runs, OpenBLAS's thread count is tsjit's (1 in a serial variant), and
    the count before is back after the call."""
    if frontend.get_num_threads() < 2 and variant != "_serial":
        pytest.skip("one thread: a budget cannot differ from OpenBLAS's")
    module = kernel_module("matmul_nt_set")
    call = getattr(module, f"tsjit_matmul_nt_set_f32{variant}")
    rng = np.random.default_rng(5)
    a, w = rng.standard_normal((384, 768), np.float32), rng.standard_normal((1024, 768), np.float32)
    c = np.empty((384, 1024), np.float32)
    budget = 1 if variant == "_serial" else 2
    other = 2 if budget == 1 else 1
    library = ctypes.CDLL(str(OPENBLAS.path))
    get, put = getattr(library, OPENBLAS.names[2]), getattr(library, OPENBLAS.names[3])
    before = get()
    put(other)
    frontend.set_num_threads(budget)
    use_thread_setting()  # as a compiled program's entry does
    try:
        call(a, w, c)  # compiled, and numba's count set in this thread
        stop, seen = np.zeros(1, np.int64), np.zeros(64, np.int64)
        watcher = threading.Thread(target=watch_thread_counts, args=(stop, seen))
        watcher.start()
        while seen.sum() == 0:
            pass
        for _ in range(4):
            call(a, w, c)
        stop[0] = 1
        watcher.join()
        assert get() == other
    finally:
        frontend.set_num_threads(None)
        use_thread_setting()
        put(before)
    during = {count for count in np.flatnonzero(seen) if count != other}
    assert during == {budget}
    close(c, a.astype(np.float64) @ w.T)


@numba.njit
def overlapping_calls(outer, inner, other):  # type: ignore[no-untyped-def]
    """Counts after two overlapping calls' settings, the inner one ending first, and after
    `other` is set (by another thread) while a call runs."""
    first = blas_threads(outer)
    second = blas_threads(inner)
    blas_restore(second, inner)
    after_inner = blas_thread_count()
    blas_restore(first, outer)
    after_both = blas_thread_count()
    before = blas_threads(inner)
    blas_threads(other)
    blas_restore(before, inner)
    return after_inner, after_both, blas_thread_count()


@needs_blas
def test_a_call_restores_only_its_own_setting() -> None:
    library = ctypes.CDLL(str(OPENBLAS.path))
    get, put = getattr(library, OPENBLAS.names[2]), getattr(library, OPENBLAS.names[3])
    start = get()
    put(2)
    try:
        assert overlapping_calls(1, 1, 2) == (1, 2, 2)
        assert overlapping_calls(2, 1, 2) == (2, 2, 2)
        assert overlapping_calls(1, 2, 1) == (1, 2, 1)
    finally:
        put(start)


SUBPROCESS_CHECK = """
import numpy as np
from lowering.machine import MACHINE
from lowering.python_target.library_kernels import LIBRARY_HELPERS
from test_blas_matmul import kernel_module
assert MACHINE.blas_gemm is None and "BLAS_MIN_MACS" not in LIBRARY_HELPERS
rng = np.random.default_rng(6)
a, w = rng.standard_normal((300, 700), np.float32), rng.standard_normal((500, 700), np.float32)
c = np.empty((300, 500), np.float32)
module = kernel_module("matmul_nt_set")
module.tsjit_matmul_nt_set_f32(a, w, c)
assert not module.tsjit_blas_matmul(a, w, True, c, c[0], 0, 1)
np.testing.assert_allclose(c, a.astype(np.float64) @ w.T, rtol=1e-4, atol=1e-3)
print("tiles")
"""


def test_tsjit_blas_0_keeps_the_tiles_for_every_shape() -> None:
    env = os.environ | {"TSJIT_BLAS": "0", "PYTHONPATH": f"{ROOT}{os.pathsep}{ROOT / 'tests/unit'}"}
    run = subprocess.run(
        [sys.executable, "-c", SUBPROCESS_CHECK], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert run.returncode == 0, run.stderr[-3000:]
    assert run.stdout.split()[-1] == "tiles"
