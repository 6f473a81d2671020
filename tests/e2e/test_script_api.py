"""The ScriptFunction API: compile per signature, stages, errors, torch interop."""

from __future__ import annotations

import numpy as np
import pytest

import frontend
from frontend import torch
from lowering.pipeline import Stage
from tests.e2e import reserved_names


def tanh_sigmoid(x, b):
    return torch.tanh(x * 2 + b) * torch.sigmoid(x)


def reference(x, b):
    return np.tanh(x * 2 + b) * (1 / (1 + np.exp(-x)))


@pytest.fixture(scope="module")
def scripted():
    return frontend.script(tanh_sigmoid)


def test_one_compile_per_rank_and_batch_sizes_reuse_it(scripted) -> None:
    rng = np.random.default_rng(0)
    b = rng.standard_normal(4096, dtype=np.float32)
    for shape in ((4096,), (2, 4096)):
        x = rng.standard_normal(shape, dtype=np.float32)
        out = scripted(x, b)
        assert out.dtype == np.float32
        np.testing.assert_allclose(out, reference(x, b), rtol=1e-6, atol=1e-6)
    assert len(scripted._compiled) == 2
    x = rng.standard_normal((7, 4096), dtype=np.float32)
    np.testing.assert_allclose(scripted(x, b), reference(x, b), rtol=1e-6, atol=1e-6)
    assert len(scripted._compiled) == 2, "a new batch size must not recompile"


def test_every_stage_prints(scripted) -> None:
    for stage in Stage:
        assert scripted.ir(stage)
    assert "torch.aten.tanh" in scripted.graph
    assert "linalg.generic" in scripted.ir("linalg")
    assert "memref.alloc" in scripted.ir("memref")
    assert "scf.parallel" in scripted.ir("loops")
    assert "prange(" in scripted.code and "np.float32(2.0)" in scripted.code


def test_wrong_arguments_name_the_argument(scripted) -> None:
    x = np.ones(4, np.float32)
    missing = r"^tanh_sigmoid\(\) missing 1 required positional argument: 'b'$"
    with pytest.raises(TypeError, match=missing):
        scripted(x)
    with pytest.raises(TypeError, match="argument 'b' must be a tensor"):
        scripted(x, "b")
    with pytest.raises(TypeError, match=r"argument 'x' has dtype complex64, which"):
        scripted(x.astype(np.complex64), x)
    with pytest.raises(ValueError, match=r"\[4\], \[5\] cannot be broadcast"):
        scripted(x, np.ones(5, np.float32))


def test_bad_stage_name(scripted) -> None:
    with pytest.raises(ValueError, match="unknown stage 'llvm'"):
        scripted.ir("llvm")


def test_torch_tensors_in_and_out(scripted) -> None:
    real_torch = pytest.importorskip("torch")
    x = real_torch.randn(3, 4096)
    b = real_torch.randn(4096)
    out = scripted(x, b)
    assert isinstance(out, real_torch.Tensor)
    expected = real_torch.tanh(x * 2 + b) * real_torch.sigmoid(x)
    real_torch.testing.assert_close(out, expected, rtol=1e-6, atol=1e-6)


def test_real_torch_and_numpy_spellings_give_the_same_ops() -> None:
    real_torch = pytest.importorskip("torch")

    def with_torch(x):
        return real_torch.relu(real_torch.tanh(x))

    def with_numpy(x):
        return torch.relu(np.tanh(x))

    assert frontend.script(with_torch).graph.replace("with_torch", "f") == frontend.script(
        with_numpy
    ).graph.replace("with_numpy", "f")


def test_unknown_function_is_a_script_error() -> None:
    def uses_print(x):
        return sorted(x)

    with pytest.raises(frontend.ScriptError, match="unknown function `sorted`") as info:
        frontend.script(uses_print)
    assert info.value.line is not None and "<--- HERE" in str(info.value)


@pytest.mark.parametrize("fn", reserved_names.RESERVED, ids=lambda fn: fn.__name__)
def test_functions_named_like_generated_globals(fn) -> None:
    """A function named `math`, `range` or `FASTMATH` is renamed in the generated module (it
    called the module `math` or the set `FASTMATH` before) and found by its IR symbol."""
    x = np.sin(np.arange(2 * 40000, dtype=np.float32)).reshape(2, 40000)  # parallel, serial
    for rows in (x, x[:, :5]):
        expected = fn(torch.tensor(rows))
        np.testing.assert_allclose(frontend.script(fn)(rows), expected, rtol=1e-5, atol=1e-3)
