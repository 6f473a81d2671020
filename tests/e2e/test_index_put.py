"""Assignment through index tensors (`y[idx] = v`, `y[:, i, j] = v`, `y[mask] = v`,
`y[idx] += v`) and `index_put` / `index_put_`, scripted and traced, against PyTorch; what is
refused is refused with a located error."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import frontend
from frontend.errors import ScriptError

RNG = np.random.default_rng(0)
X = torch.from_numpy(RNG.standard_normal((6, 4)).astype(np.float32))
V = torch.from_numpy(RNG.standard_normal((3, 4)).astype(np.float32))
IDX = torch.tensor([0, -3, 2])  # unique positions (the winner of a repeat is unspecified)


def rows(x, idx, v):
    y = x.clone()
    y[idx] = v
    return y


def rows_filled_and_added(x, idx, v):
    y = x.clone()
    y[idx] = 0.0
    y[idx] += v
    y[idx, 0] = v[:, 1]  # an int after the index tensor selects first, as in PyTorch
    return y


def columns_of_a_slice(x, idx, v):
    y = x.clone()
    cols = idx.clamp(-4, 3)
    y[:, cols[:2]] = 7
    y[1:5, cols] = v[0, :3]
    return y


def pairs_of_positions(x, idx, v):
    y = x.clone()
    y[idx, torch.tensor([[3], [-1]])] = v[:2, :3]  # [3] and [2, 1] broadcast to [2, 3]
    return y


def separated_index_tensors(x, idx, v):
    y = torch.zeros(3, 4, 2, 5)
    i, j = torch.tensor([0, 2]), torch.tensor([4, 1])
    y[i, :, 0, j] = v[:2]  # index dims apart: the index shape [2] comes first, then [4]
    y[:, i, 1, j] = v[0, :2]  # adjacent after the int: [3, 2]
    return y + x.sum()


def accumulated(x, idx, v):
    y = x.clone()
    y.index_put_((torch.tensor([1, 1, 4]),), v, accumulate=True)  # repeats add
    z = torch.index_put(x, (idx, idx.clamp(-4, 3)), v[:, 0], True)
    return y + z.index_put((idx,), v[0])


def through_masks(x, idx, v):
    y = x.clone()
    y[y > 0.5] = 0.0
    y[x[:, 0] > 0] = v[0]  # whole rows, the same values in each
    return y


def in_integers(x, idx, v):
    y = (x * 10).long()
    y[idx.int()] = 2.7  # converted to y's dtype: 2
    y[idx[:2], 1] = (v[:2, 0] * 10).long()
    return y


def other_writers(x, idx, v):
    y = x.clone()
    y[[0, 5]] = -1.0  # a list of ints is an index tensor
    y.put_(idx * 4 + 1, v[0, :3])  # flat positions
    y.index_fill_(1, idx.clamp(-4, 3), torch.tensor(3))  # a 0-d value, converted
    return y


def through_an_ellipsis(x, idx, v):
    y = x.clone()
    y[..., 0] = v[:, 0].sum()
    y[idx, ..., 1:3] = v[:, :2]
    y[:] = (y * 2).double()  # the whole tensor: converted, and not a view of the value
    y[-1, ...] = 0.0
    return y


PROGRAMS = [
    rows, rows_filled_and_added, columns_of_a_slice, pairs_of_positions,
    separated_index_tensors, accumulated, through_masks, in_integers, other_writers,
    through_an_ellipsis,
]  # fmt: skip


@pytest.mark.parametrize("program", PROGRAMS, ids=[p.__name__ for p in PROGRAMS])
def test_scripted_assignment_matches_pytorch(program) -> None:
    scripted = frontend.script(program)
    for idx in (IDX, torch.tensor([5, 1, -6])):
        expected = program(X, idx, V)
        actual = scripted(X, idx, V)
        assert actual.dtype == expected.dtype
        np.testing.assert_allclose(np.asarray(actual), expected.numpy(), rtol=1e-6, atol=1e-6)


def one_value_per_masked_element(x, mask, v):
    y = x.clone()
    y[mask] = v  # v: [mask.sum(), 4]
    y.masked_scatter_(y > 0.5, torch.arange(24.0))
    return y


def test_one_value_per_masked_element_matches_pytorch() -> None:
    scripted = frontend.script(one_value_per_masked_element)
    for mask in (X[:, 0] > 0, X[:, 1] > 0):  # 1 and 2 rows
        args = (X, mask, V[: int(mask.sum())])
        expected = one_value_per_masked_element(*args)
        np.testing.assert_allclose(np.asarray(scripted(*args)), expected.numpy(), rtol=1e-6)
    with pytest.raises(ValueError, match="one value of v for every element of the mask"):
        scripted(X, X[:, 0] > -10, V)


def test_an_index_out_of_range_is_an_index_error() -> None:
    with pytest.raises(IndexError, match="out of range"):
        frontend.script(rows)(X, torch.tensor([0, 6, 1]), V)


def float_index(x, idx, v):
    y = x.clone()
    y[idx.float()] = 1.0
    return y


def index_after_an_ellipsis(x, idx, v):
    y = x.clone()
    y[..., idx] = 1.0
    return y


def into_an_argument(x, idx, v):
    x[idx] = v
    return x


def values_of_another_shape(x, idx, v):
    y = x.clone()
    y[x[:, 0] > 0] = v[:, :2]
    return y


def test_refusals_are_located() -> None:
    located = r"(.|\n)*{}(.|\n)*<--- HERE"
    with pytest.raises(ScriptError, match="must be long, int, byte" + located.format("float")):
        frontend.script(float_index)
    with pytest.raises(ScriptError, match="index tensor after `...`" + located.format("idx")):
        frontend.script(index_after_an_ellipsis)
    with pytest.raises(ScriptError, match="assignment into the argument `x`"):
        frontend.script(into_an_argument)
    with pytest.raises(ValueError, match=r"shape mismatch: value tensor of shape \[2, 4\]"):
        frontend.script(rows)(X, IDX, V[:2])
    with pytest.raises(ValueError, match=r"v must broadcast to \[1, 4\]" + located.format(":2")):
        frontend.script(values_of_another_shape)(X, IDX, V)


# ---- traced ----


def traced_assignments(x, idx, v):
    y = x * 1
    y[idx] = v
    y[:, torch.tensor([1, 3])] += 1.0
    y[y > 1] = 0.0
    y[0, 1:3] = 5.0
    return y


def into_a_traced_view(x, idx, v):
    y = x * 1
    row = y[0]
    row[idx] = 1.0
    return y


def into_an_untraced_tensor(x, idx, v):
    out = torch.zeros(6, 4)
    out[idx] = v
    return out


def test_traced_assignment_runs_with_other_indices() -> None:
    traced = frontend.trace(traced_assignments, (X, IDX, V))
    other = (X * 2, torch.tensor([5, 1, -6]), V + 1)
    np.testing.assert_allclose(
        np.asarray(traced(*other)), traced_assignments(*other).numpy(), rtol=1e-6
    )


@pytest.mark.parametrize(
    ("program", "why"),
    [
        (into_an_argument, "into the input `x`"),
        (into_a_traced_view, "into a view of another tensor"),
        (into_an_untraced_tensor, "into a tensor the trace does not follow"),
    ],
)
def test_traced_assignments_that_cannot_be_recorded(program, why) -> None:
    with pytest.raises(frontend.TraceError, match=why):
        frontend.trace(program, (X.clone(), IDX, V))
