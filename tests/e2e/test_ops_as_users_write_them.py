"""Ops a new user's programs call, as a user writes them (`torch.special.*` aliases,
`x.fill_(v)`, `x << n`, ...), scripted and traced, against PyTorch; bad inputs raise torch's
error."""

from __future__ import annotations

import re

import numpy as np
import pytest
import torch

import frontend
from frontend.errors import ScriptError
from frontend.ir.resolve import ops_for_object


def compiled(program, args, traced=False):
    """The program scripted, and traced too when `traced` (each compile costs seconds: the
    numerics of every op are in test_ops.py; here the spellings, scripted, and the trace
    paths of their own: in-place methods, `*tensors`, `torch.special` / `torch.linalg`)."""
    return [frontend.script(program)] + ([frontend.trace(program, args)] if traced else [])


def assert_like_torch(actual, expected) -> None:
    """Same dtype and values as PyTorch's results (a tuple of them), NaN where it has NaN."""
    actual = actual if isinstance(actual, tuple | list) else (actual,)
    expected = expected if isinstance(expected, tuple | list) else (expected,)
    assert len(actual) == len(expected)
    for index, (a, e) in enumerate(zip(actual, expected, strict=True)):
        a, e = np.asarray(a), e.numpy()
        assert a.dtype == e.dtype, f"result {index}: {a.dtype} != {e.dtype}"
        np.testing.assert_allclose(a, e, rtol=2e-5, atol=2e-6, err_msg=f"result {index}")


# ---- torch.special aliases, fill_ / zero_, shifts ----


@pytest.mark.parametrize("name", [
    "erfinv", "expit", "logit", "erf", "erfc", "exp2", "expm1", "log1p", "xlogy", "logsumexp",
    "softmax", "log_softmax", "sinc", "entr", "ndtr", "xlog1py",
])  # fmt: skip
def test_every_special_spelling_is_an_op(name) -> None:
    """`torch.special.<name>` resolves to the op of `torch.<name>` (numerics: test_ops.py)."""
    ops = ops_for_object(getattr(torch.special, name))
    assert ops, name
    same = {"expit": "sigmoid", "entr": None, "ndtr": None, "xlog1py": None}.get(name, name)
    if same is not None:
        assert ops == ops_for_object(getattr(torch, same))


def fills(x):
    y = torch.empty_like(x)
    y.fill_(2.5)
    z = x.clone()
    z.zero_()
    counts = torch.zeros(3, 4, dtype=torch.long)
    counts.fill_(torch.tensor(3.7))  # cast to the tensor's dtype, like torch
    return y, z, counts, torch.fill(x, 1)


def shifts(i, n):
    return (
        i << 2, i >> 1, i << n, i >> n, 1 << n.clamp(0, 40), torch.bitwise_left_shift(i, n),
        i.bitwise_right_shift(3), i.int() << 30,
    )  # fmt: skip


def scalar_shifts(a: int, b: int):
    return (a << b) + (a >> b) * 1000


@pytest.mark.parametrize("program", [fills, shifts])
def test_aliases_fills_and_shifts_match_pytorch(program) -> None:
    torch.manual_seed(0)
    if program is shifts:
        args = (torch.randint(-99, 99, (3, 4)), torch.tensor([-1, 3, 63, 70]))
    else:
        args = (torch.randn(3, 4) * 2,)
    for function in compiled(program, args, traced=program is fills):
        assert_like_torch(function(*args), program(*args))


def test_shifts_of_ints_known_at_run_time() -> None:
    assert frontend.script(scalar_shifts)(-37, 3) == scalar_shifts(-37, 3)


# ---- fmax / fmin, isin, diff, rot90, trapezoid, vander, tril_indices, renorm, cov ----


def elementwise_and_tables(x, y, i):
    nan = torch.where(y > 0.5, float("nan"), y)
    return (
        torch.fmax(x, nan), x.fmin(nan), torch.isin(i, i[0], invert=True),
        torch.diff(i, dim=1, prepend=i[:, :1], append=i), x[torch.tril_indices(3, 3)[0], 0],
    )  # fmt: skip


def integrals_and_statistics(x):
    return (
        torch.trapz(x, dx=0.5, dim=0), torch.cov(x[0]), x[1].corrcoef(), x.renorm(1, 1, 0.5),
    )  # fmt: skip


@pytest.mark.parametrize("program", [elementwise_and_tables, integrals_and_statistics])
def test_functions_match_pytorch(program) -> None:
    torch.manual_seed(0)
    x, y = torch.randn(3, 5), torch.rand(3, 5)
    args = (x, y, torch.randint(0, 5, (3, 5))) if program is elementwise_and_tables else (x,)
    for function in compiled(program, args):
        assert_like_torch(function(*args), program(*args))


# ---- functions of *tensors ----


def tensor_lists(x, i):
    first, second = torch.atleast_2d(x[0], i)
    return (
        torch.block_diag(x, i, x[0, 0]), torch.cartesian_prod(i, i[:2]), torch.cartesian_prod(i),
        torch.atleast_1d(x[0, 0]), torch.atleast_2d(i), torch.atleast_3d(x), first, second,
    )  # fmt: skip


def test_functions_of_several_tensors_match_pytorch() -> None:
    x, i = torch.randn(2, 3), torch.tensor([3, 0, 1])
    for function in compiled(tensor_lists, (x, i), traced=True):
        assert_like_torch(function(x, i), tensor_lists(x, i))


# ---- bucketize / searchsorted, nanmedian, quantile, histc ----


def order_statistics(x):
    median = torch.nanmedian(x, dim=1)
    return (
        torch.bucketize(x, torch.tensor([-1.0, 0.0, 1.0]), right=True),
        torch.searchsorted(torch.tensor([-1.0, 0.0, 1.0]), x, side="right"), median.values,
        median.indices, torch.quantile(x, 0.3, dim=1),
        torch.nanquantile(x, torch.tensor([0.1, 0.5]), dim=1, interpolation="nearest"),
        torch.histc(x, bins=4, min=-2, max=2),
    )  # fmt: skip


def test_order_statistics_match_pytorch() -> None:
    torch.manual_seed(0)
    x = torch.randn(3, 5) * 2
    x[0, 1] = x[2, 4] = float("nan")
    for function in compiled(order_statistics, (x,)):
        assert_like_torch(function(x), order_statistics(x))


# ---- linear algebra ----


def linear_algebra(a, b):
    spd = a @ a.mT + torch.eye(3)
    return (
        torch.linalg.cholesky(spd), torch.linalg.cholesky(spd, upper=True),
        torch.linalg.solve(a[0], b[0, :, 0]), torch.linalg.solve(a, b.mT, left=False),
        a[1].matrix_power(-2), torch.linalg.matrix_power(a, 0), torch.logdet(spd),
        torch.linalg.multi_dot([b[0, :, 0], a[0], a[1]]), torch.linalg.vecdot(a, a[0]),
        torch.linalg.diagonal(a, offset=1),
    )  # fmt: skip


def test_linear_algebra_matches_pytorch() -> None:
    torch.manual_seed(0)
    a = torch.randn(2, 3, 3, dtype=torch.float64) + 3 * torch.eye(3, dtype=torch.float64)
    b = torch.randn(2, 3, 2, dtype=torch.float64)
    for function in compiled(linear_algebra, (a, b)):
        assert_like_torch(function(a, b), linear_algebra(a, b))


def traced_spellings(x, a):
    return (
        torch.special.expit(x), torch.special.entr(x), torch.special.ndtr(x * 4),
        torch.special.xlog1py(x, x.abs()), torch.fmax(x, -x), x.rot90(),
        torch.isin(x.long(), torch.tensor([0, 1])), torch.linalg.det(a.mT), a.T.inverse(),
        torch.nanmedian(x, 1).values, torch.bucketize(x, torch.tensor([0.0, 1.0])),
    )  # fmt: skip


def test_traced_spellings_match_pytorch() -> None:
    """`torch.special.*`, `torch.linalg.*`, `x.mT` / `x.T` and new ops through a trace."""
    torch.manual_seed(0)
    x = torch.randn(2, 3)
    a = torch.randn(3, 3, dtype=torch.float64) + 3 * torch.eye(3, dtype=torch.float64)
    traced = frontend.trace(traced_spellings, (x, a))
    assert_like_torch(traced(x, a), traced_spellings(x, a))


def inverse(a):
    return torch.linalg.inv(a)


def cholesky(a):
    return torch.linalg.cholesky(a)


@pytest.mark.parametrize(("program", "a", "message"), [
    (inverse, torch.ones(2, 2, 2), re.escape("inv: (Batch element 0): The diagonal element 2")),
    (cholesky, torch.ones(3, 3), "the leading minor of order 2 is not positive-definite"),
    (inverse, torch.ones(2, 3), "A must be batches of square matrices, but they are 2 by 3"),
    (inverse, torch.ones(2, 2, dtype=torch.long), "Expected a floating point or complex tensor"),
])  # fmt: skip
def test_linear_algebra_errors_are_torchs(program, a, message) -> None:
    with pytest.raises(RuntimeError, match=message):
        program(a)
    with pytest.raises((RuntimeError, ScriptError, TypeError, ValueError), match=message):
        frontend.script(program)(a)


def shift_float(x):
    return x << 1


def fill_with_vector(x):
    y = x.clone()
    y.fill_(x[0])
    return y


@pytest.mark.parametrize(("program", "message"), [
    (shift_float, "float32 inputs are not supported"),
    (fill_with_vector, "fill_ only supports 0-dimension value tensor"),
])  # fmt: skip
def test_bad_inputs_raise_torchs_error(program, message) -> None:
    x = torch.ones(3, 4)
    with pytest.raises((RuntimeError, NotImplementedError)):
        program(x)
    with pytest.raises((ScriptError, TypeError, ValueError), match=message):
        frontend.script(program)(x)


def to_half(x):
    return x.half().float()


def test_half_round_trip_rounds_like_torch() -> None:
    x = torch.tensor([0.1, 1e-6, 70000.0, -2.5])
    assert torch.equal(frontend.script(to_half)(x), to_half(x))


def _zero_dim_inputs(x, y):
    q = torch.nanquantile(x, 0.5, -1, interpolation="midpoint")
    return q, torch.cumulative_trapezoid(y, x)


def test_zero_dim_inputs_along_a_dim() -> None:  # fuzz seed 13, programs 147 and 213
    x, y = torch.tensor(-0.5), torch.ones(1, 1)
    got = frontend.script(_zero_dim_inputs)(x, y)
    for actual, expected in zip(got, _zero_dim_inputs(x, y)):
        torch.testing.assert_close(torch.as_tensor(actual), expected)
