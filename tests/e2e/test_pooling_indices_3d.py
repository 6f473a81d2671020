"""3-D max pools with `return_indices=True` (`MaxPool3d`, `AdaptiveMaxPool3d`, the `F`
functions, `F.max_pool2d(..., return_indices=True)` in scripts) and `max_unpool2d` /
`max_unpool3d`, scripted and traced against PyTorch: ties, NaN, padding, ceil mode, int
inputs, output sizes, indices out of range."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F
from torch import nn

import frontend

torch.manual_seed(0)
X = torch.randn(2, 3, 5, 6, 7)
X[0, 0, 1, 1, 1] = float("nan")
X[1, 1, :3, :3, :3] = 4.0  # ties: the first maximum of the box
LAYERS = {
    "max_pool3d": nn.MaxPool3d(2, return_indices=True),
    "max_pool3d_padded_ceil": nn.MaxPool3d((3, 2, 3), (2, 1, 2), 1, (1, 2, 1), True, True),
    "adaptive_max_pool3d": nn.AdaptiveMaxPool3d((2, 3, 4), return_indices=True),
}


def program_of(fn, kind: str, *args):
    return frontend.script(fn) if kind == "script" else frontend.trace(fn, args)


def assert_pools_alike(got, want) -> None:
    (values, indices), (expected_values, expected_indices) = got, want
    torch.testing.assert_close(torch.as_tensor(values), expected_values, equal_nan=True)
    assert torch.equal(torch.as_tensor(indices), expected_indices)


@pytest.mark.parametrize("kind", ["script", "trace"])
@pytest.mark.parametrize("name", LAYERS)
def test_3d_layer_returns_the_indices_pytorch_picks(name, kind) -> None:
    layer = LAYERS[name]
    assert_pools_alike(program_of(layer, kind, X)(X), layer(X))


def functions(x, ints):
    a = F.max_pool3d(x, 2, return_indices=True)
    b = F.adaptive_max_pool3d(x, [3, 1, 2], return_indices=True)
    c = F.max_pool2d(x[0], 3, 2, 1, return_indices=True)
    d = F.max_pool3d(ints, 3, 2, 1, ceil_mode=True, return_indices=True)
    return a[0], a[1], b[0], b[1], c[0], c[1], d[0], d[1]


@pytest.mark.parametrize("kind", ["script", "trace"])
def test_functions_with_return_indices_match_pytorch(kind) -> None:
    ints = torch.randint(-3, 3, (3, 5, 6, 4))  # unbatched, many ties
    got, want = program_of(functions, kind, X, ints)(X, ints), functions(X, ints)
    for i in range(0, len(want), 2):
        assert_pools_alike(got[i : i + 2], want[i : i + 2])


def unpools(x, volume):
    values, indices = F.max_pool2d(x, 2, return_indices=True)
    flat = F.max_unpool2d(values, indices, 2)
    bigger = F.max_unpool2d(values, indices, 2, output_size=[x.size(2) + 1, x.size(3) + 1])
    values3, indices3 = F.max_pool3d(volume, 2, 2, return_indices=True)
    return flat, bigger, F.max_unpool3d(values3, indices3, 2, 2)


@pytest.mark.parametrize("kind", ["script", "trace"])
def test_max_unpool_inverts_max_pool_like_pytorch(kind) -> None:
    x, volume = torch.randn(2, 3, 6, 4), torch.randn(1, 2, 4, 6, 4)
    got = program_of(unpools, kind, x, volume)(x, volume)
    for g, w in zip(got, unpools(x, volume), strict=True):
        assert torch.equal(torch.as_tensor(g), w)


def test_max_unpool_of_an_index_out_of_range_raises() -> None:
    def unpool(x, indices):
        return F.max_unpool2d(x, indices, 2)

    x, indices = torch.ones(1, 1, 2, 2), torch.tensor([[[[0, 1], [2, 16]]]])
    with pytest.raises(RuntimeError, match="invalid max index"):
        unpool(x, indices)
    with pytest.raises(RuntimeError, match="out of bounds"):
        frontend.script(unpool)(x, indices)
