"""`scatter_reduce` (every reduction, with and without self, in-place `scatter_reduce_`, the
`torch.ops.aten` spelling) scripted and traced against PyTorch, over float and int dtypes,
repeated and missing indices, NaN, and indices out of range."""

from __future__ import annotations

import pytest
import torch

import frontend

REDUCTIONS = ("sum", "prod", "mean", "amax", "amin")


def every_reduction(x, index, src):
    results = []
    for reduce in ["sum", "prod", "mean", "amax", "amin"]:
        results.append(x.scatter_reduce(1, index, src, reduce, include_self=True))
        results.append(torch.scatter_reduce(x, 1, index, src, reduce, include_self=False))
    y = x.clone()
    y.scatter_reduce_(0, index[:2, :5] % 3, src[:2], "amax")
    results.append(y)
    results.append(torch.ops.aten.scatter_reduce.two(x, -1, index, src, "mean", include_self=False))
    return results


SCRIPTED = frontend.script(every_reduction)


def operands(dtype: torch.dtype) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    g = torch.Generator().manual_seed(0)
    x = torch.randint(-6, 7, (3, 5), generator=g).to(dtype)
    src = torch.randint(-6, 7, (3, 7), generator=g).to(dtype)
    index = torch.randint(0, 4, (3, 7), generator=g)  # column 4 is never written
    if dtype.is_floating_point:
        x, src = x / 4, src / 3
    return x, index, src


def assert_same(got, want) -> None:
    assert len(got) == len(want)
    for i, (g, w) in enumerate(zip(got, want)):
        g = torch.as_tensor(g)
        assert g.dtype == w.dtype, (i, g.dtype, w.dtype)
        torch.testing.assert_close(g, w, rtol=1e-5, atol=1e-6, equal_nan=True, msg=str(i))


@pytest.mark.parametrize("kind", ["script", "trace"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.int64, torch.float64])
def test_every_reduction_matches_pytorch(dtype, kind) -> None:
    x, index, src = operands(dtype)
    program = SCRIPTED if kind == "script" else frontend.trace(every_reduction, (x, index, src))
    assert_same(program(x, index, src), every_reduction(x, index, src))


def test_amax_and_amin_propagate_nan() -> None:
    x, index, src = operands(torch.float32)
    src[0, 0] = float("nan")
    x[1, 2] = float("nan")
    assert_same(SCRIPTED(x, index, src), every_reduction(x, index, src))


def test_an_index_out_of_range_raises() -> None:
    x, index, src = operands(torch.float32)
    index[2, 3] = 5
    with pytest.raises(RuntimeError, match="out of bounds"):
        every_reduction(x, index, src)
    with pytest.raises(RuntimeError, match="out of bounds"):
        SCRIPTED(x, index, src)


@pytest.mark.parametrize(
    ("reduce", "src_dtype", "message"),
    [("foo", torch.float32, "reduce argument must be"), ("sum", torch.float64, "src.dtype")],
)
def test_pytorch_refusals_are_refused(reduce, src_dtype, message) -> None:
    def f(x, index, src):
        return x.scatter_reduce(0, index, src, reduce)

    x, index = torch.ones(3), torch.tensor([0, 2])
    with pytest.raises(Exception, match=message):
        frontend.script(f)(x, index, torch.ones(2, dtype=src_dtype))
