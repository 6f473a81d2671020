"""The tsjit demo: script a seed program, print its IR at every stage, run it, check it."""

from __future__ import annotations

import time

import numpy as np

import frontend
from frontend import torch
from lowering.pipeline import Stage


def cell(x, b):
    """The foundation example: tanh(x*2+b) * sigmoid(x)."""
    return torch.tanh(x * 2 + b) * torch.sigmoid(x)


def foo(x, y):
    """The seed's scripted control flow: TorchScript shows prim::If."""
    if x.max() > y.max():
        r = x
    else:
        r = y
    return r


def control_flow_demo() -> None:
    scripted = frontend.script(foo)
    print("\n==== seed foo(x, y), stage torch " + "=" * 50)
    print(scripted.graph)
    zero, one = np.zeros(1, np.float32), np.ones(1, np.float32)
    for a, b in ((zero, one), (one, zero)):
        assert np.array_equal(scripted(a, b), foo(a, b)), "foo differs from eager"
    print("OK: foo matches eager with both argument orders")


def main() -> None:
    scripted = frontend.script(cell)
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 4096), dtype=np.float32)
    b = rng.standard_normal(4096, dtype=np.float32)

    start = time.perf_counter()
    result = scripted(x, b)
    first_call = time.perf_counter() - start
    for stage in Stage:
        print(f"\n==== stage: {stage.value} " + "=" * 60)
        print(scripted.ir(stage))

    expected = cell(x, b)  # the same function run eagerly through frontend.torch (numpy)
    error = float(np.max(np.abs(result - expected)))
    print(f"\nresult: shape {result.shape}, dtype {result.dtype}; first call {first_call:.2f} s")
    print(f"max |compiled - eager| = {error:.2e}")
    assert result.dtype == np.float32 and error < 1e-6, "compiled result differs from eager"
    print("OK: compiled result matches eager")
    control_flow_demo()


if __name__ == "__main__":
    main()
