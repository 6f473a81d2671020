"""`parts[i]` of the list of tensors an op returns (split, chunk, unbind, tensor_split,
meshgrid): a constant index into the pieces, once their count is known (for the call's exact
shapes when it depends on the sizes)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import frontend


def split_sizes(x):  # type: ignore[no-untyped-def]
    return torch.split(x, [2, 4], dim=1)[1]


def last_chunk(x):  # type: ignore[no-untyped-def]
    return x.chunk(4, dim=1)[-1]


def unbind_item(x):  # type: ignore[no-untyped-def]
    return torch.unbind(x)[1] * 2


def tensor_split_item(x):  # type: ignore[no-untyped-def]
    return torch.tensor_split(x, 3, dim=1)[0]


def meshgrid_item(x):  # type: ignore[no-untyped-def]
    return torch.meshgrid(x[0], x[1], indexing="ij")[1]


@pytest.mark.parametrize(
    "fn", [split_sizes, last_chunk, unbind_item, tensor_split_item, meshgrid_item]
)
def test_list_item_matches_pytorch(fn):  # type: ignore[no-untyped-def]
    x = torch.randn(4, 6)
    got, expected = frontend.script(fn)(x), fn(x)
    assert tuple(got.shape) == tuple(expected.shape)
    np.testing.assert_allclose(np.asarray(got), expected.numpy(), rtol=1e-6)


def test_an_index_past_the_pieces_is_an_error():
    def past(x):  # type: ignore[no-untyped-def]
        return torch.split(x, [2, 4], dim=1)[2]

    with pytest.raises(TypeError, match="index 2 is out of range for a list of 2 tensors"):
        frontend.script(past)(torch.randn(4, 6))
