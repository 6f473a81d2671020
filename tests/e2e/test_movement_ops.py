"""Data movement, indexing, creation and small linear algebra spelled as users write them
(`torch.flip(x, [1])`, `x.roll(1, 0)`, `x[:, idx]`, `torch.eye(3)`, `F.one_hot(i, 4)`, ...),
scripted and traced, against PyTorch; bad inputs raise PyTorch's errors."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch
import torch.nn.functional as F

import frontend
from frontend.errors import ScriptError

RNG = np.random.default_rng(0)
V = torch.from_numpy(RNG.standard_normal((4, 6)).astype(np.float32))
X = torch.from_numpy(RNG.standard_normal((2, 3, 4, 4)).astype(np.float32))
IDX = torch.tensor([[0, 2], [-1, 1]])


def reorder(v, x):
    a = torch.flip(v, [1]) + v.flip(0).roll(1, 0) + torch.roll(v, (1, -2), (0, 1))
    b = torch.movedim(x, 1, -1).swapaxes(1, 2) + x.moveaxis((0, 1), (2, 3)).permute(2, 0, 1, 3)
    return a + torch.fliplr(v) - v.roll(5), b.flatten(1) + torch.flipud(x).sum()


def reshape(v, x):
    a = v.unflatten(1, (2, -1)).narrow(2, 1, 2).reshape_as(v[:, :4]) * v.numel()
    b = torch.tile(v[0], (2, 1)) + torch.broadcast_to(v[1], (2, 6))
    c = torch.repeat_interleave(v[:2], 2, dim=1).view_as(v.new_zeros(2, 12)).sum(1)
    return a, b, c + v.repeat_interleave(2)[:2]


def products(v, x):
    a = torch.outer(v[0], v[1]) + torch.diag(v[0]) + v[0].ger(v[2])
    b = torch.mv(v, v[0]) + torch.addmv(v[:, 0], v, v[1], beta=0.5, alpha=2.0)
    c = torch.dot(v[0], v[1]) + torch.trace(v[:, :4]) + torch.inner(v[0], v[2])
    d = torch.baddbmm(x[0, :2], x[0, :2], x[1, :2], alpha=0.5) + x[1, 0].addbmm(x[0], x[1])
    return a, b, c, d, torch.cross(v[:, :3], v[:, 3:], dim=1), torch.diagonal(x, 1, -1, -2)


def creation(v, x):
    eye = torch.eye(4, 6) + torch.eye(4, 6, dtype=torch.float64)
    space = torch.linspace(-1, 2, 6) * torch.logspace(0, 1, 6)
    return v + eye + space, torch.eye(v.size(0), dtype=torch.int64)


def scatters(v, x):
    index = (v.abs() * 2).long().clamp(max=3)
    a = torch.zeros(4, 6).scatter(0, index, v) + torch.zeros(4, 6).scatter_add(0, index, v)
    b = v.scatter(1, index[:, :2], -1.0) + v.index_add(0, torch.tensor([3, 0, 3]), v[:3])
    c = v.index_fill(1, torch.tensor([0, -1]), 2.5) + v.index_copy(0, torch.tensor([2]), v[:1])
    d = F.one_hot(index, 4) + F.one_hot(index[0], num_classes=5).sum()
    return a + b + c, d, torch.take_along_dim(v, v.argmax(1, keepdim=True), dim=1)


def stacks(v, x):
    a, b, _, d = v.unbind(0)
    _, q, r = torch.tensor_split(v, 3, dim=1)
    s, t = torch.tensor_split(v, [1], dim=0)
    g1, g2 = torch.meshgrid(v[0], v[1, :3], indexing="xy")
    joined = torch.hstack([v, v]) + torch.dstack([v, v]).flatten(1)
    columns = torch.column_stack([b[:4], v, v[:, 1]])
    return a + d, q * 2 + r, t.sum(0) + s[0], g1 * g2, joined, columns, torch.vstack([v, a])


def advanced_indexing(v, x, idx):
    a = v[:, idx] + v[idx[0]].sum()
    c = x[1:, idx, 0] + x[idx[1], 0].sum()
    return a, x[0, :, idx], x[:, 1, idx], c, x[:, :, :, idx[1]]


def patches(v, x):
    y = F.pixel_shuffle(x.repeat(1, 4, 1, 1), 2)
    columns = F.unfold(x, (2, 3), dilation=(1, 2), padding=1, stride=2)
    back = F.fold(F.unfold(x, 3, padding=1), (4, 4), 3, padding=1)
    return y, F.pixel_unshuffle(y, 2) + x.repeat(1, 4, 1, 1), columns, back


PROGRAMS = [
    (reorder, (V, X)),
    (reshape, (V, X)),
    (products, (V, X)),
    (creation, (V, X)),
    (scatters, (V, X)),
    (stacks, (V, X)),
    (advanced_indexing, (V, X, IDX)),
    (patches, (V, X)),
]


def assert_matches(actual: Any, expected: Any) -> None:
    if isinstance(expected, tuple | list):
        assert len(actual) == len(expected)
        for a, e in zip(actual, expected, strict=True):
            assert_matches(a, e)
        return
    got = np.asarray(actual)
    assert got.dtype == expected.numpy().dtype, (got.dtype, expected.dtype)
    np.testing.assert_allclose(got, expected.numpy(), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize(("fn", "args"), PROGRAMS, ids=[f.__name__ for f, _ in PROGRAMS])
def test_scripted_matches_pytorch(fn: Any, args: tuple[Any, ...]) -> None:
    assert_matches(frontend.script(fn)(*args), fn(*args))


TRACED = [p for p in PROGRAMS if p[0] in (products, advanced_indexing)]


@pytest.mark.parametrize(("fn", "args"), TRACED, ids=[f.__name__ for f, _ in TRACED])
def test_traced_matches_pytorch(fn: Any, args: tuple[Any, ...]) -> None:
    traced = frontend.trace(fn, args, check_trace=False)
    assert_matches(traced(*args), fn(*args))


class Shuffle(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.up = torch.nn.PixelShuffle(2)
        self.down = torch.nn.PixelUnshuffle(2)

    def forward(self, x):
        return self.down(self.up(x)) * 2


def test_pixel_shuffle_modules() -> None:
    model, x = Shuffle(), X.repeat(1, 4, 1, 1)
    assert_matches(frontend.script(model)(x), model(x))


# ---- errors ----


def one_hot_without_classes(i):
    return F.one_hot(i)


def index_tensor_after_ellipsis(v, i):
    return v[..., i]


def flip_same_dim_twice(v):
    return torch.flip(v, [0, -2])


def narrow_past_end(v):
    return v.narrow(1, 4, 3)


def dot_of_other_dtypes(v):
    return torch.dot(v[0], v[1].double())


def diag_of_3d(x):
    return torch.diag(x)


@pytest.mark.parametrize(
    ("fn", "args", "error", "message"),
    [
        (flip_same_dim_twice, (V,), TypeError, "dim 0 appears multiple times"),
        (narrow_past_end, (V,), ValueError, r"start \(4\) \+ length \(3\) exceeds dimension size"),
        (dot_of_other_dtypes, (V,), TypeError, "expected both vectors to have same dtype"),
        (diag_of_3d, (X,), TypeError, "Supports 1D or 2D tensors"),
    ],
    ids=["flip", "narrow", "dot", "diag"],
)
def test_bad_inputs_raise_torch_errors(fn: Any, args: Any, error: Any, message: str) -> None:
    with pytest.raises(RuntimeError, match=message):  # PyTorch's wording
        fn(*args)
    with pytest.raises(error, match=message):  # refused for these argument types, located
        frontend.script(fn)(*args)


@pytest.mark.parametrize(
    ("fn", "message"),
    [
        (one_hot_without_classes, "one_hot: pass num_classes"),
        (index_tensor_after_ellipsis, "an index tensor after `...` needs the tensor's rank"),
    ],
)
def test_unsupported_forms_are_located_errors(fn: Any, message: str) -> None:
    with pytest.raises(ScriptError, match=message) as info:
        frontend.script(fn)
    assert "test_movement_ops.py" in str(info.value)
