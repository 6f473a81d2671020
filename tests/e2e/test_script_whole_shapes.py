"""A shape passed whole in scripted code (`y.reshape(x.shape)`, `torch.zeros(x.size())`,
`x.new_zeros(x.shape)`).

Scripting does not know the rank of an argument, so the graph holds `torch.aten.size %x`, a
list of ints as in TorchScript; `torch-refine-types` expands it into one `aten.size.int` per
dim once a call's argument types fix the rank. Each program is checked against PyTorch.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

import frontend


def reshape_like(x, y):
    return y.reshape(x.shape) + x


def view_like_size(x, y):
    return y.view(x.size()) * 2


def zeros_like_shape(x):
    return torch.zeros(x.shape) + x


def ones_of_size_with_dtype(x):
    return torch.ones(x.size(), dtype=torch.int64) + 1


def full_of_shape(x):
    return torch.full(x.shape, 0.5) * x


def expand_to(x, y):
    return x.expand(y.shape) + y


def shapes_in_a_loop(x, y):
    out = torch.zeros(x.shape)
    for _ in range(3):
        out = out + y.reshape(x.shape)
    return out


def shape_of_an_intermediate(x):
    h = torch.relu(x).t()
    return torch.ones(h.shape) * h


def keyword_size(x, y):
    return y.reshape(shape=x.shape)


def new_zeros_of_shape(x):
    return x.new_zeros(x.shape) + x


def new_ones_of_unpacked_sizes(x):
    return x.new_ones(2, x.shape[0]) * 3


def new_full_keeps_the_dtype(x):
    return x.new_full(x.size(), 7.9)


RNG = np.random.default_rng(0)
A = RNG.standard_normal((2, 3, 4)).astype(np.float32)
B = RNG.standard_normal((4, 6)).astype(np.float32)
M = RNG.standard_normal((3, 5)).astype(np.float32)
ROW = RNG.standard_normal((1, 5)).astype(np.float32)

CASES = [
    (reshape_like, (A, B)),
    (view_like_size, (A, B)),
    (zeros_like_shape, (A,)),
    (ones_of_size_with_dtype, (M,)),
    (full_of_shape, (A,)),
    (expand_to, (ROW, M)),
    (shapes_in_a_loop, (A, B)),
    (shape_of_an_intermediate, (M,)),
    (keyword_size, (M, M.T.copy())),
    (new_zeros_of_shape, (A,)),
    (new_ones_of_unpacked_sizes, (M.astype(np.float64),)),
    (new_full_keeps_the_dtype, (np.arange(6).reshape(2, 3),)),
]


@pytest.mark.parametrize(("program", "args"), CASES, ids=[c[0].__name__ for c in CASES])
def test_whole_shape_matches_pytorch(program, args) -> None:
    expected = program(*[torch.from_numpy(a) for a in args]).numpy()
    actual = frontend.script(program)(*args)
    assert actual.shape == expected.shape and actual.dtype == expected.dtype
    np.testing.assert_allclose(actual, expected, rtol=1e-6)


def test_one_graph_serves_every_rank() -> None:
    """The graph is rank-agnostic: the same function runs on 1-D, 2-D and 3-D arguments."""
    f = frontend.script(reshape_like)
    assert "torch.aten.size %x" in f.graph
    for shape in ((6,), (2, 3), (1, 2, 3)):
        x = np.arange(6, dtype=np.float32).reshape(shape)
        y = x.ravel()[::-1].copy()
        np.testing.assert_array_equal(f(x, y), x + y.reshape(shape))


def test_the_list_is_expanded_for_the_call_signature() -> None:
    f = frontend.script(zeros_like_shape)
    refined = f.ir("torch-opt", "f32[2,3]")
    assert "torch.aten.size %" not in refined
    zeros = next(line for line in refined.splitlines() if "torch.aten.zeros" in line)
    assert zeros.endswith("-> !torch.vtensor<[2,3],f32>")


def test_a_mismatched_size_is_an_error_at_the_call() -> None:
    with pytest.raises(ValueError, match=r"shape '\[2, 3, 4\]' is invalid for input of size 15"):
        frontend.script(reshape_like)(A, M)
