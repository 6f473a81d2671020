"""Reductions, scans, sorting, norms, distances and losses as a user writes them
(`torch.sort(x, 1)`, `x.norm()`, `F.kl_div(...)`), scripted and traced, against PyTorch;
NaN and tie semantics; and torch's errors for bad arguments."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
import torch.nn.functional as F

import frontend
from frontend.errors import ScriptError

RNG = torch.Generator().manual_seed(7)


def randn(*shape: int) -> torch.Tensor:
    return torch.randn(*shape, generator=RNG)


def sorting(v):
    values, indices = torch.sort(v, 1, descending=True)
    top = torch.topk(v, 2)
    low = v.topk(3, dim=0, largest=False)
    kth = torch.kthvalue(v, 2, dim=1, keepdim=True)
    return (values, indices, v.argsort(dim=0), top.values, top.indices, low[0], low[1],
            kth.values, kth.indices, v.median(), torch.median(v, 1).indices, torch.msort(v),
            torch.sort(v, stable=True, dim=0)[1])  # fmt: skip


def scans(v):
    peak, at = torch.cummax(v, 1)
    return (torch.cumsum(v, 1), v.cumsum(0, dtype=torch.float64), torch.cumprod(v, dim=1),
            (v > 0).cumsum(1), peak, at, torch.cummin(v, 0).indices,
            torch.logcumsumexp(v, 1))  # fmt: skip


def norms(v, w):
    return (v.norm(), torch.norm(v, dim=1), torch.norm(v, p=1, dim=0, keepdim=True),
            torch.norm(v, float("inf")), v.norm(p="fro"), v.norm(3, 1),
            torch.linalg.vector_norm(v, dim=-1), torch.linalg.vector_norm(v, -math.inf, [0]),
            torch.linalg.norm(v), torch.dist(v, w[0]), torch.cdist(v, w), torch.cdist(v, w, p=1.0),
            F.cosine_similarity(v, w[:4], dim=1), F.pairwise_distance(v, w[:4]))  # fmt: skip


def reductions(v):
    std, mean = torch.std_mean(v, 1)
    var, _ = torch.var_mean(v, dim=0, unbiased=False, keepdim=True)
    low, high = torch.aminmax(v, dim=1)
    scaled = v * 2
    if torch.allclose(v, v + 1e-9) and not torch.equal(v, scaled):
        scaled = scaled + 1
    return (std, mean, var, low, high, torch.logsumexp(v, dim=1), torch.count_nonzero(v > 0, 1),
            torch.nansum(v), torch.nanmean(v, 0), F.softmin(v, 1), scaled)  # fmt: skip


def losses(v, w, y):
    p, q = torch.sigmoid(v), torch.sigmoid(w)
    sign = torch.where(w > 0, 1.0, -1.0)
    return (F.binary_cross_entropy(p, q, weight=w.abs()),
            F.binary_cross_entropy_with_logits(v * 30, q, pos_weight=w[0].abs(), reduction="sum"),
            F.kl_div(F.log_softmax(v, 1), F.softmax(w, 1), reduction="batchmean"),
            F.kl_div(v, w, reduction="none", log_target=True),
            F.smooth_l1_loss(v, w, beta=0.5), F.huber_loss(v, w, delta=0.7, reduction="sum"),
            F.soft_margin_loss(v, sign), F.margin_ranking_loss(v[:, 0], w[:, 0], sign[:, 0], 0.2),
            F.cosine_embedding_loss(v, w, sign[:, 0], margin=0.1),
            F.nll_loss(F.log_softmax(v, 1), y, weight=w[0].abs(), ignore_index=1),
            F.cross_entropy(v, y, weight=w[1].abs(), label_smoothing=0.2, reduction="none"),
            F.cross_entropy(v, F.softmax(w, 1), label_smoothing=0.1))  # fmt: skip


V, W = randn(4, 6), randn(5, 6)
Y = torch.tensor([0, 2, 5, 1])
PROGRAMS = [(sorting, (V,)), (scans, (V,)), (norms, (V, W)), (reductions, (V,)),
            (losses, (V, W[:4], Y))]  # fmt: skip


def assert_matches(actual, expected) -> None:
    assert len(actual) == len(expected)
    for index, (a, e) in enumerate(zip(actual, expected)):
        e = e.numpy()
        a = np.asarray(a)
        assert a.shape == e.shape, f"result #{index}"
        np.testing.assert_allclose(a, e, rtol=1e-5, atol=1e-5, err_msg=f"result #{index}")


CASES = [
    (kind, program, args)
    for program, args in PROGRAMS
    for kind in ("script", "trace")
    if not (kind == "trace" and program is losses)
]  # a traced loss runs the same Python as a scripted one: only scripted, to save compile time


@pytest.mark.parametrize(("kind", "program", "args"), CASES,
                         ids=[f"{p.__name__}-{k}" for k, p, _ in CASES])  # fmt: skip
def test_program_matches_pytorch(kind, program, args) -> None:
    compiled = frontend.script(program) if kind == "script" else frontend.trace(program, args)
    assert_matches(compiled(*args), program(*args))


# ---- NaN, infinities and ties, as torch orders them ----


def special_values(x, r):
    return (torch.sort(x), torch.sort(x, descending=True), torch.argsort(x, stable=True),
            torch.cummax(x, 0), torch.cummin(x, 0), torch.median(r, 1), torch.logsumexp(r, 1),
            torch.logcumsumexp(x, 0), torch.topk(r, 2, 1).values)  # fmt: skip


def test_nan_infinities_and_ties_match_pytorch() -> None:
    nan, inf = math.nan, math.inf
    x = torch.tensor([3.0, nan, 1.0, 3.0, -inf, nan, 1.0, inf, inf])
    rows = torch.tensor([[1.0, nan, 2.0, 0.0], [-inf, -inf, -inf, -inf], [2.0, 1.0, 2.0, 1.0],
                         [inf, 1.0, inf, 0.0]])  # fmt: skip
    compiled = frontend.script(special_values)
    actual = compiled(x, rows)
    expected = [t for pair in special_values(x, rows) for t in (pair if isinstance(pair, tuple)
                else (pair,))]  # fmt: skip
    flat = [t for item in actual for t in (item if isinstance(item, tuple) else (item,))]
    assert_matches(flat, expected)


def test_topk_of_ties_gives_indices_of_the_values() -> None:
    """Which of several tied elements topk returns is torch's implementation detail (ours:
    the lowest indices); the indices must hold the values."""
    rows = torch.tensor([[-math.inf] * 4, [2.0, 1.0, 2.0, 1.0], [0.0, 5.0, 5.0, 5.0]])
    values, indices = (np.asarray(t) for t in frontend.script(lambda_topk)(rows))
    np.testing.assert_array_equal(values, torch.topk(rows, 3).values.numpy())
    np.testing.assert_array_equal(np.take_along_axis(rows.numpy(), indices, 1), values)
    np.testing.assert_array_equal(indices, [[0, 1, 2], [0, 2, 1], [1, 2, 3]])


def smallest_and_largest(x):
    return torch.topk(x, 3, largest=False), torch.topk(x, 2)


def test_topk_of_a_few_in_long_rows_selects_like_a_stable_sort() -> None:
    """k * 16 <= n selects by insertion without sorting (lowering/run/kernels/along_dim.py): the
    same values as torch, the indices of a stable sort (ties: lowest index first)."""
    x = torch.randint(-3, 3, (3, 64), generator=RNG).float()
    x[0, ::7] = math.nan
    x[1, 5] = math.inf
    (low, low_at), (high, high_at) = frontend.script(smallest_and_largest)(x)
    (low_ref, _), (high_ref, _) = smallest_and_largest(x)
    np.testing.assert_array_equal(np.asarray(low), low_ref.numpy())
    np.testing.assert_array_equal(np.asarray(high), high_ref.numpy())
    ascending = torch.sort(x, stable=True).indices
    descending = torch.sort(x, descending=True, stable=True).indices
    np.testing.assert_array_equal(np.asarray(low_at), ascending[:, :3].numpy())
    np.testing.assert_array_equal(np.asarray(high_at), descending[:, :2].numpy())


def test_sorting_row_size_known_only_at_run_time_is_checked() -> None:
    compiled = frontend.script(lambda_topk)
    np.testing.assert_allclose(compiled(V)[0], torch.topk(V, 3)[0].numpy())
    with pytest.raises(ValueError, match="selected index k out of range"):
        compiled(V[:, :2])


def lambda_topk(x):
    return torch.topk(x, 3)


# ---- torch's errors ----


def topk_too_many(x):
    return torch.topk(x, 10)


def kthvalue_zero(x):
    return torch.kthvalue(x, 0)


def integer_norm(x):
    return x.norm()


def integer_logcumsumexp(x):
    return torch.logcumsumexp(x, 0)


def cdist_columns(x, y):
    return torch.cdist(x, y)


def median_of_empty_dim(x):
    return torch.median(x, 1)


def nuclear_norm(x):
    return torch.norm(x, "nuc")


def sort_dim_out_of_range(x):
    return torch.sort(x, 2)


ERRORS = [
    (topk_too_many, (V,), "selected index k out of range"),
    (kthvalue_zero, (V[0],), r"kthvalue\(\): selected number k out of range"),
    (integer_norm, (Y,), "Expected a floating point or complex tensor as input"),
    (integer_logcumsumexp, (Y,), '"logcumsumexp_out_cpu" not implemented'),
    (cdist_columns, (V, W[:, :2]), "X1 and X2 must have the same number of columns"),
    (median_of_empty_dim, (torch.zeros(2, 0),), "Expected reduction dim 1 to have"),
    (sort_dim_out_of_range, (V,), "Dimension out of range"),
]


@pytest.mark.parametrize(
    ("program", "args", "message"), ERRORS, ids=[e[0].__name__ for e in ERRORS]
)
def test_bad_arguments_raise_torch_errors(program, args, message) -> None:
    with pytest.raises(Exception, match=message):
        program(*args)  # PyTorch refuses them too
    with pytest.raises((ValueError, TypeError), match=message):  # ShapeError is a ValueError
        frontend.script(program)(*args)


def test_nuclear_norm_is_refused() -> None:
    with pytest.raises(ScriptError, match=r"the nuclear norm \(p='nuc'\) is not supported"):
        frontend.script(nuclear_norm)(V)


# ---- loss modules ----


class LossModel(torch.nn.Module):
    """A user's model holding PyTorch loss modules (they call the F.* losses)."""

    def __init__(self) -> None:
        super().__init__()
        self.linear = torch.nn.Linear(6, 5)
        self.cross_entropy = torch.nn.CrossEntropyLoss(weight=torch.rand(5, generator=RNG) + 0.5,
                                                       label_smoothing=0.1)  # fmt: skip
        self.with_logits = torch.nn.BCEWithLogitsLoss(pos_weight=torch.full((5,), 2.0))
        self.divergence = torch.nn.KLDivLoss(reduction="batchmean")

    def forward(self, x, y, t):
        z = self.linear(x)
        return (self.cross_entropy(z, y), self.with_logits(z, t),
                self.divergence(torch.log_softmax(z, 1), torch.softmax(t, 1)))  # fmt: skip


def test_loss_modules_scripted_match_pytorch() -> None:
    model = LossModel()
    args = (V, Y.clamp(max=4), torch.rand(4, 5, generator=RNG))
    with torch.no_grad():
        expected = [t.detach() for t in model(*args)]
    assert_matches(frontend.script(model)(*args), expected)


def _top_k_mask(logits, k: int):  # type: ignore[no-untyped-def]
    values, _ = torch.topk(logits, k, dim=-1)
    return logits.masked_fill(logits < values[..., -1:], float("-inf")).softmax(-1)


def _smallest(x, k: int):  # type: ignore[no-untyped-def]
    values, indices = x.topk(k, 0, largest=False)
    return values * 2, indices


def test_topk_with_k_known_at_run_time() -> None:
    x = torch.randn(4, 10)
    mask, smallest = frontend.script(_top_k_mask), frontend.script(_smallest)
    for k in (1, 4, 10):
        torch.testing.assert_close(mask(x, k), _top_k_mask(x, k))
    for k in (0, 2, 4):
        got, expected = smallest(x, k), _smallest(x, k)
        torch.testing.assert_close(torch.as_tensor(got[0]), expected[0])
        torch.testing.assert_close(torch.as_tensor(got[1]), expected[1])
    with pytest.raises(ValueError, match="selected index k out of range"):
        mask(x, 11)
