"""Assignment into a tensor in scripted code (`x[i] = v`, `x[:, a:b] = v`, `x[mask] = v`,
`out[t] = h` in a loop), against PyTorch; into an argument or a view it is a located error."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import frontend
from frontend.errors import ScriptError


def rows_columns_and_blocks(x):
    y = x.clone()
    y[0] = 1.0
    y[:, 1] = -1.0
    y[1:3, 3:] = x[:2, :2] * 10
    y[-1, ::2] = 5
    return y


def through_a_mask(x):
    y = x * 1
    y[y > 0.5] = 0.0
    return y


def outputs_of_a_loop(xs, h):
    out = torch.zeros(xs.shape[0], h.shape[0], h.shape[1])
    for t in range(xs.shape[0]):
        h = torch.tanh(xs[t] + h)
        out[t] = h
    return out


def a_column_from_another(x):
    y = x.clone()
    y[:, :, 0] = y[:, :, 1]
    return y


def integer_tensor(x):
    y = x.long()
    y[0, 0] = 2.7  # converted to y's dtype: 2
    return y


def into_an_argument(x):
    x[0] = 1.0
    return x


def into_a_view(x):
    y = x * 2
    row = y[0]
    row[1] = 5.0
    return y


RNG = np.random.default_rng(0)
CASES = [
    (rows_columns_and_blocks, (RNG.standard_normal((4, 5)).astype(np.float32),)),
    (through_a_mask, (RNG.standard_normal((4, 5)).astype(np.float32),)),
    (
        outputs_of_a_loop,
        (
            RNG.standard_normal((6, 2, 3)).astype(np.float32),
            RNG.standard_normal((2, 3)).astype(np.float32),
        ),
    ),
    (a_column_from_another, (RNG.standard_normal((2, 3, 4)).astype(np.float32),)),
    (integer_tensor, (RNG.standard_normal((2, 3)).astype(np.float32) * 4,)),
]


@pytest.mark.parametrize(("program", "args"), CASES, ids=[c[0].__name__ for c in CASES])
def test_assignment_into_a_tensor_matches_pytorch(program, args) -> None:
    expected = program(*(torch.from_numpy(a.copy()) for a in args)).numpy()
    actual = frontend.script(program)(*args)
    assert actual.dtype == expected.dtype
    np.testing.assert_allclose(actual, expected, rtol=1e-6)


@pytest.mark.parametrize(
    ("program", "why"),
    [(into_an_argument, "the argument `x`"), (into_a_view, "`row`, a view of another tensor")],
)
def test_assignment_into_shared_storage_is_an_error(program, why) -> None:
    with pytest.raises(ScriptError, match="assignment into") as info:
        frontend.script(program)
    assert why in str(info.value)
