"""`raise` and `assert` under run-time conditions raise in the compiled program, with the
script's exception class and message, like the eager program; passing inputs run through."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import frontend


def check_rank(x):
    if x.dim() != 2:
        raise ValueError(f"expected a 2-D input, got {x.dim()}-D")
    return x * 2


def raise_in_else(x, n: int):
    if n > 0:
        y = x * n
    else:
        raise RuntimeError("n must be positive")
    return y + 1


def assert_positive(x):
    assert x.sum() > 0, "the sum must be positive"
    return x + 1


def raise_in_loop(x):
    for i in range(x.shape[0]):
        if x[i].sum() < -100:
            raise IndexError("a row is too small")
        x = x * 2
    return x


def unknown_exception(x):
    if x.max() > 10:
        raise torch.jit.Error("too large")
    return x


ONES = np.ones((3, 2), dtype=np.float32)


@pytest.mark.parametrize(
    ("fn", "good", "bad", "error", "message"),
    [
        (check_rank, (ONES,), (np.ones(3, np.float32),), ValueError, "expected a 2-D input"),
        (raise_in_else, (ONES, 3), (ONES, 0), RuntimeError, "n must be positive"),
        (assert_positive, (ONES,), (-ONES,), AssertionError, "the sum must be positive"),
        (raise_in_loop, (ONES,), (-100 * ONES,), IndexError, "a row is too small"),
        (unknown_exception, (ONES,), (20 * ONES,), RuntimeError, "too large"),
    ],
)
def test_run_time_raise_matches_eager(fn, good, bad, error, message):  # type: ignore[no-untyped-def]
    scripted = frontend.script(fn)
    as_torch = [torch.from_numpy(a) if isinstance(a, np.ndarray) else a for a in good]
    np.testing.assert_allclose(np.asarray(scripted(*good)), fn(*as_torch).numpy(), rtol=1e-6)
    with pytest.raises(error, match=message):
        scripted(*bad)
    bad_torch = [torch.from_numpy(a) if isinstance(a, np.ndarray) else a for a in bad]
    with pytest.raises(Exception, match=message):  # noqa: PT011 (torch.jit.Error in eager)
        fn(*bad_torch)


def test_raise_is_prim_raise_exception_in_the_graph():
    text = str(frontend.script(check_rank).graph)
    assert 'torch.prim.RaiseException "ValueError" "expected a 2-D input, got {x.dim()}-D"' in text
    assert "torch.prim.If" in text


def test_raise_decided_while_scripting_is_a_script_error():
    def always(x, mode: str = "slow"):
        if mode == "slow":
            raise NotImplementedError("slow mode")
        return x

    with pytest.raises(frontend.ScriptError, match="the program raises"):
        frontend.script(always)(ONES)
