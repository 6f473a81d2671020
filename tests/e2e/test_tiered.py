"""Tiered execution: calls run eagerly while the code compiles in the background, then switch.

The suite runs with `TSJIT_COMPILE=now` (tests/conftest.py); these tests ask for
`compile="background"`. Which tier ran is observed through the torch interpreter (the eager
tier) and numba's compile events (which thread compiled).
"""

from __future__ import annotations

import threading
import warnings

import numpy as np
import pytest
import torch
from numba.core import event

import frontend
from dialects.torch import aten_interpreter, interpreter
from frontend.run.tiers import CompileWarning


class Compiles(event.Listener):
    """The threads in which numba compiled something."""

    def __init__(self) -> None:
        self.threads: list[int] = []

    def on_start(self, ev: event.Event) -> None:
        self.threads.append(threading.get_ident())

    def on_end(self, ev: event.Event) -> None:
        pass

    def here(self) -> int:
        return self.threads.count(threading.get_ident())


COMPILES = Compiles()
event.register("numba:compile", COMPILES)


@pytest.fixture(autouse=True, scope="module")
def fresh_cache(tmp_path_factory: pytest.TempPathFactory) -> object:
    """A cache folder of this file's own: no call of an earlier session is on record (a call
    on record runs compiled code at once, frontend/run/warm_calls.py)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("TSJIT_CACHE_DIR", str(tmp_path_factory.mktemp("tiered-cache")))
        yield


@pytest.fixture
def eager_calls(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """One entry per call that ran on the eager tier (numpy references, or aten ops for
    torch tensors)."""
    calls: list[int] = []
    for module, name in ((interpreter, "run_torch_ir"), (aten_interpreter, "run_with_aten")):
        monkeypatch.setattr(module, name, counted(getattr(module, name), calls))
    return calls


def counted(run, calls: list[int]):  # noqa: ANN001, ANN201
    def run_and_count(*args: object) -> object:
        calls.append(1)
        return run(*args)

    return run_and_count


def gelu_ish(x, b):
    return torch.relu(x * 2 + b) - torch.tanh(x) * 0.25


def reference(x: np.ndarray, b: np.ndarray) -> np.ndarray:
    return gelu_ish(torch.from_numpy(x), torch.from_numpy(b)).numpy()


RNG = np.random.default_rng(0)
X = RNG.standard_normal((8, 64)).astype(np.float32)
B = RNG.standard_normal(64).astype(np.float32)
GELU = frontend.script(gelu_ish, compile="background")


def test_both_tiers_match_pytorch_and_calls_switch(eager_calls: list[int]) -> None:
    first = GELU(X, B)  # nothing compiled: the eager tier
    assert eager_calls == [1]
    np.testing.assert_allclose(first, reference(X, B), rtol=1e-5, atol=1e-6)
    assert GELU.wait_compiled(timeout=120)
    compiled = GELU(torch.from_numpy(X), torch.from_numpy(B))  # the compiled tier
    assert eager_calls == [1]
    assert isinstance(compiled, torch.Tensor)
    np.testing.assert_allclose(compiled.numpy(), reference(X, B), rtol=1e-5, atol=1e-6)


def test_new_sizes_ranks_and_dtypes_never_compile_in_the_call(eager_calls: list[int]) -> None:
    GELU(X, B)
    assert GELU.wait_compiled(timeout=120)
    before = COMPILES.here()
    big = RNG.standard_normal((300, 64)).astype(np.float32)  # above the grain size
    for x, b in [(X[:3], B), (big, B), (X[0], B), (X.astype(np.float64), B.astype(np.float64))]:
        np.testing.assert_allclose(GELU(x, b), reference(x, b), rtol=1e-5, atol=1e-6)
    assert COMPILES.here() == before  # the serial variant, or the eager tier, ran
    assert GELU.wait_compiled(timeout=120)  # ... while the parallel twin compiled
    calls = len(eager_calls)
    np.testing.assert_allclose(GELU(big, B), reference(big, B), rtol=1e-5, atol=1e-6)
    assert COMPILES.here() == before and len(eager_calls) == calls


def scaled_sum(x, y):
    return torch.sigmoid(x) * y + x.sum()


def test_eight_threads_switch_tiers_while_calling() -> None:
    scripted = frontend.script(scaled_sum, compile="background")
    x = torch.rand(5, 7)
    y = torch.rand(5, 7)
    expected = scaled_sum(x, y)
    start = threading.Barrier(8)
    errors: list[BaseException] = []

    def caller() -> None:
        try:
            start.wait()
            for _ in range(40):
                torch.testing.assert_close(scripted(x, y), expected, rtol=1e-5, atol=1e-5)
            scripted.wait_compiled(timeout=120)
            torch.testing.assert_close(scripted(x, y), expected, rtol=1e-5, atol=1e-5)
        except BaseException as err:  # noqa: BLE001 - re-raised in the main thread
            errors.append(err)

    threads = [threading.Thread(target=caller) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors, errors[0]
    assert scripted.wait_compiled(timeout=0)


def doubled_cube(x):
    return (x * x * x) * 2.0 - 1.0


def test_a_failing_background_compile_warns_once_and_stays_eager(
    monkeypatch: pytest.MonkeyPatch, eager_calls: list[int]
) -> None:
    from lowering.linalg_opt.fuse_elementwise import LinalgFuseElementwisePass

    def broken(self: object, ctx: object, module: object) -> None:
        raise RuntimeError("fusion exploded")

    monkeypatch.setattr(LinalgFuseElementwisePass, "apply", broken)
    scripted = frontend.script(doubled_cube, compile="background")
    x = torch.rand(4, 3)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        torch.testing.assert_close(scripted(x), doubled_cube(x))
        with pytest.raises(TypeError, match="fusion exploded"):
            scripted.wait_compiled(timeout=120)
        torch.testing.assert_close(scripted(x), doubled_cube(x))
    assert eager_calls == [1, 1]
    messages = [str(w.message) for w in caught if w.category is CompileWarning]
    assert len(messages) == 1, messages
    assert "stage linalg (pass linalg-fuse-elementwise)" in messages[0]
    assert "reproduce with: xdsl-opt" in messages[0]


def affine(x, w):
    return x @ w + 1.0


def test_compile_now_runs_compiled_code_from_the_first_call(eager_calls: list[int]) -> None:
    scripted = frontend.script(affine, compile="now")
    x, w = torch.rand(3, 4), torch.rand(4, 2)
    torch.testing.assert_close(scripted(x, w), affine(x, w))
    assert eager_calls == []
    assert scripted.wait_compiled(timeout=0)
    with pytest.raises(ValueError, match="compile='later'"):
        frontend.script(affine, compile="later")


class Cell(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.linear = torch.nn.Linear(4, 4)

    def forward(self, x, h):
        y = self.linear(x)
        if y.sum() > 0:
            y = -y
        return torch.tanh(y + h)


def test_a_module_runs_on_both_tiers(eager_calls: list[int]) -> None:
    torch.manual_seed(0)
    cell = Cell()
    scripted = frontend.script(cell, compile="background")
    x, h = torch.rand(3, 4), torch.rand(3, 4)
    with torch.no_grad():
        expected = cell(x, h)
    torch.testing.assert_close(scripted(x, h), expected, rtol=1e-5, atol=1e-6)
    assert eager_calls == [1]
    assert scripted.wait_compiled(timeout=120)
    torch.testing.assert_close(scripted(x, h), expected, rtol=1e-5, atol=1e-6)
    assert eager_calls == [1]
    interpreted = frontend.script(Cell(), backend="interpreter")
    interpreted(x, h)
    assert eager_calls == [1, 1]


def test_trace_and_load_take_the_compile_option(tmp_path, eager_calls: list[int]) -> None:
    x, w = torch.rand(3, 4), torch.rand(4, 2)
    traced = frontend.trace(affine, (x, w), check_trace=False, compile="background")
    torch.testing.assert_close(traced(x, w), affine(x, w))
    assert eager_calls == [1]
    assert traced.wait_compiled(timeout=120)
    torch.testing.assert_close(traced(x, w), affine(x, w))
    assert eager_calls == [1]
    path = tmp_path / "affine.tsjit"
    frontend.script(affine).save(path)
    loaded = frontend.load(path, compile="background")
    x5 = torch.rand(5, 4)  # shapes of no call on record (a recorded call runs compiled at once)
    torch.testing.assert_close(loaded(x5, w), affine(x5, w))
    assert eager_calls == [1, 1]
    assert loaded.wait_compiled(timeout=120)
    now = frontend.load(path, compile="now")
    torch.testing.assert_close(now(x, w), affine(x, w))
    assert eager_calls == [1, 1]
