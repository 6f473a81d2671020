"""`*` in calls of scripted code: a tuple or list spreads into positional arguments; a shape,
whose rank scripting does not know, spreads once the types are known (`torch.aten.size`,
sliced by `torch.aten.slice.t` and joined by `torch.aten.add.t`, expanded by
`torch-refine-types` and `torch-decompose`)."""

from __future__ import annotations

import numpy as np
import torch

import frontend


def view_of_a_tuple(x):
    dims = (3, 2)
    return x.view(*dims)


def reshape_of_unpacked_sizes(x):
    n, c = x.shape
    return x.reshape(*[c, n]) * 2


def reshape_to_a_spread_shape(x, y):
    return y.reshape(*x.shape)


def test_a_tuple_and_a_list_spread_into_arguments() -> None:
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    np.testing.assert_array_equal(frontend.script(view_of_a_tuple)(x), x.reshape(3, 2))
    doubled = frontend.script(reshape_of_unpacked_sizes)(x)
    np.testing.assert_array_equal(doubled, x.reshape(3, 2) * 2)


def heads_split_and_merged(x):
    heads = x.view(*x.shape[:-1], 2, 3)
    swapped = heads.transpose(1, 2)
    joined = swapped.reshape(swapped.shape[:1] + (2, -1))
    return y_like(heads), joined, torch.zeros(*x.shape[:1], 1), x.new_zeros(x.shape[1:])


def y_like(heads):
    return heads.reshape(*heads.shape[:-2], -1)


def test_a_spread_and_sliced_shape() -> None:
    x = np.arange(24, dtype=np.float32).reshape(2, 2, 6)
    np.testing.assert_array_equal(frontend.script(reshape_to_a_spread_shape)(x, x.ravel()), x)
    expected = heads_split_and_merged(torch.from_numpy(x))
    got = frontend.script(heads_split_and_merged)(x)
    for g, e in zip(got, expected):
        np.testing.assert_array_equal(g, e.numpy())
    graph = str(frontend.script(heads_split_and_merged).graph)
    assert "torch.aten.slice.t" in graph and "torch.aten.add.t" in graph
