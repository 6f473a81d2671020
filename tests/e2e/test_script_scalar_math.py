"""`math` functions of numbers known only at run time in scripted code (TorchScript's
`aten::sqrt.float`, ...): the attention scale `math.sqrt(q.size(-1))`, `math.ceil` of a
length. Numbers known while scripting still fold to constants."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

import frontend
from frontend.errors import ScriptError


def scaled_scores(q, k):
    return (q @ k.transpose(-2, -1)) / math.sqrt(q.size(-1))


def scaled_by_exp_and_log(x):
    n = x.shape[0]
    return x * math.exp(-n / 4) + math.log(n)


def padded_length(x):
    blocks = math.ceil(x.shape[0] / 4)
    half = math.floor(x.shape[1] / 2)
    return torch.zeros(blocks * 4, half) + 1


def floor_of_an_int(x):
    return x * math.floor(x.size(0))


def sine_of_a_size(x):
    return x * math.sin(x.size(0))


RNG = np.random.default_rng(0)
Q = RNG.standard_normal((2, 5, 8)).astype(np.float32)
K = RNG.standard_normal((2, 7, 8)).astype(np.float32)
X = RNG.standard_normal((6, 5)).astype(np.float32)
CASES = [(scaled_scores, (Q, K)), (scaled_by_exp_and_log, (X,)), (padded_length, (X,)),
         (floor_of_an_int, (X,))]  # fmt: skip


@pytest.mark.parametrize(("program", "args"), CASES, ids=[c[0].__name__ for c in CASES])
def test_runtime_math_matches_pytorch(program, args) -> None:
    expected = program(*[torch.from_numpy(a) for a in args]).numpy()
    actual = frontend.script(program)(*args)
    assert actual.shape == expected.shape
    np.testing.assert_allclose(actual, expected, rtol=1e-5, atol=1e-6)


def test_the_graph_holds_a_scalar_op() -> None:
    graph = frontend.script(scaled_scores).graph
    assert "torch.aten.sqrt.float" in graph
    assert "torch.aten.Float.Scalar" in graph  # the int size converted first


def test_other_math_of_a_runtime_number_is_a_located_error() -> None:
    with pytest.raises(ScriptError, match="needs numbers known while scripting") as info:
        frontend.script(sine_of_a_size)
    assert "math.sin(x.size(0))" in str(info.value)
    assert "math.sqrt" in str(info.value)


def powers_of_sizes(q, k):
    d = q.size(-1)
    scores = q @ k.transpose(-2, -1) * d**-0.5
    return scores * float(q.shape[0]) ** 0.5 + d**2 + q.size(0) ** 1.5 + d**-2


def test_powers_of_run_time_numbers() -> None:
    q, k = torch.randn(4, 8), torch.randn(4, 8)
    expected = powers_of_sizes(q, k).numpy()
    np.testing.assert_allclose(frontend.script(powers_of_sizes)(q, k), expected, rtol=1e-5)
