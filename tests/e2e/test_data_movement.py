"""Data movement and constructors with sizes known only at run time, through the script frontend:
one compile serves every batch size. Sizes come as lists or unpacked (`x.view(n, -1)`)."""

from __future__ import annotations

import numpy as np
import pytest

import frontend
from frontend import torch
from frontend.errors import ScriptError


def dynamic_shapes(x, idx):
    n = x.size(0)
    flat = x.view(n, -1)
    a, b = flat.chunk(2, 1)
    z = torch.zeros([n, 2])
    r = torch.arange(n)
    e = torch.embedding(a, idx)
    return torch.cat([b, z], 1), r, e.permute(1, 0, 2).flatten(1)


def reference(x, idx):
    n = x.shape[0]
    flat = x.reshape(n, -1)
    a, b = np.split(flat, 2, axis=1)
    e = a[idx]
    return (
        np.concatenate([b, np.zeros((n, 2), np.float32)], 1),
        np.arange(n),
        e.transpose(1, 0, 2).reshape(e.shape[1], -1),
    )


def test_runtime_sizes_need_one_compile() -> None:
    scripted = frontend.script(dynamic_shapes)
    rng = np.random.default_rng(0)
    idx = np.array([[0, 1], [2, 0]])
    for n in (3, 5):
        x = rng.standard_normal((n, 4, 5), dtype=np.float32)
        for got, want in zip(scripted(x, idx), reference(x, idx), strict=True):
            assert got.dtype == want.dtype
            np.testing.assert_array_equal(got, want)
    assert len(scripted._compiled) == 1


def cat_of_chunks(x):
    return torch.cat(x.chunk(2), 0)


def test_a_split_list_must_be_unpacked() -> None:
    """A chunk's list can only be unpacked (`a, b = x.chunk(2)`); cat needs a list literal."""
    with pytest.raises(ScriptError, match="list of tensors with a known length"):
        frontend.script(cat_of_chunks)(np.ones((4, 2), np.float32))
