"""Elementwise math and activations as a user writes them (`torch.sin(x)`, `x.frac()`, `x % 3`,
`F.elu(x)`, `nn.ReLU6(inplace=True)` in a module), scripted and traced, against PyTorch: NaN
and infinities, torch's dtype rules, in-place activations, and torch's errors."""

from __future__ import annotations

import re

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from torch import nn

import frontend
from frontend.errors import ScriptError

SPECIAL = torch.tensor(
    [float("nan"), float("inf"), float("-inf"), 0.0, -0.0, 0.5, -0.5, 1.5, -2.5, 2.5, 7.25, -1e-3]
)


def unary_math(x):
    return (
        torch.sin(x), x.cos(), torch.tan(x), torch.arcsin(x), x.acos(), torch.atan(x),
        torch.sinh(x), x.cosh(), torch.asinh(x), torch.arccosh(x), x.atanh(),
        torch.log1p(x), x.expm1(), torch.log2(x), x.log10(), torch.exp2(x),
        torch.erfc(x), torch.erfc(x * 3.0), x.erfinv(), torch.erfinv(x / 8.0),
    )  # fmt: skip


def rounding_and_tests(x):
    return (
        torch.floor(x), x.ceil(), torch.round(x), x.round(decimals=1), torch.trunc(x), x.fix(),
        torch.frac(x), torch.sign(x), x.sgn(), torch.square(x),
        torch.isnan(x), x.isinf(), torch.isfinite(x), torch.isposinf(x), x.isneginf(),
        torch.nan_to_num(x), x.nan_to_num(nan=1.0, posinf=2.0, neginf=-2.0),
        torch.logit(x), x.logit(eps=0.1), torch.sinc(x), x.deg2rad(), torch.rad2deg(x),
        torch.signbit(x),
    )  # fmt: skip


def binary_math(x, y):
    return (
        torch.atan2(x, y), torch.arctan2(y, x), torch.hypot(x, y), torch.copysign(x, y),
        torch.copysign(x, -1.0), torch.fmod(x, y), x.fmod(1.5), torch.remainder(x, y),
        x % 1.5, torch.lerp(x, y, 0.25), torch.lerp(x, y, torch.sigmoid(y)),
        torch.addcmul(x, x, y, value=0.5), x.addcdiv(x, y, value=2), torch.float_power(x, 2),
        torch.logaddexp(x, y), torch.xlogy(x, y), torch.heaviside(x, y),
    )  # fmt: skip


def activations(x):
    """The activations with special-value logic of their own (thresholds, shrink regions,
    overflow guards); silu, leaky_relu, sigmoid, softsign and tanhshrink are plain formulas
    (tests/e2e/test_ops.py covers them)."""
    return (
        F.softplus(x, beta=2.0, threshold=1.0), F.elu(x, alpha=0.5), F.selu(x), F.hardtanh(x),
        F.relu6(x), F.hardswish(x), F.hardsigmoid(x), F.mish(x), F.logsigmoid(x),
        F.threshold(x, 0.5, -3.0), F.softshrink(x), F.hardshrink(x, lambd=1.0),
        F.prelu(x, torch.tensor([0.25])), F.glu(x.reshape(3, 4), dim=1),
        F.softmin(x.reshape(3, 4), 1),
    )  # fmt: skip


def assert_like_torch(actual, expected) -> None:
    """Same dtype and values as PyTorch's results, NaN where PyTorch has NaN."""
    assert len(actual) == len(expected)
    for index, (a, e) in enumerate(zip(actual, expected, strict=True)):
        e = e.numpy()
        a = np.asarray(a)
        assert a.dtype == e.dtype, f"result {index}: {a.dtype} != {e.dtype}"
        np.testing.assert_allclose(a, e, rtol=2e-6, atol=1e-6, err_msg=f"result {index}")


@pytest.mark.parametrize("kind", ["script", "trace"])
@pytest.mark.parametrize("program", [unary_math, rounding_and_tests, activations])
def test_unary_programs_match_pytorch_on_special_values(kind, program) -> None:
    x = SPECIAL
    compiled = frontend.script(program) if kind == "script" else frontend.trace(program, (x,))
    assert_like_torch(compiled(x.numpy()), program(x))


@pytest.mark.parametrize("kind", ["script", "trace"])
def test_binary_program_matches_pytorch_on_special_values(kind) -> None:
    x, y = SPECIAL, torch.roll(SPECIAL, 5).flip(0)
    compiled = (
        frontend.script(binary_math) if kind == "script" else frontend.trace(binary_math, (x, y))
    )
    assert_like_torch(compiled(x.numpy(), y.numpy()), binary_math(x, y))


def test_fmod_and_remainder_are_exact_for_large_float32_quotients() -> None:
    x = torch.tensor([1e6, -1e6, 123456.7, 8e6, 5.5, -5.5])
    y = torch.tensor([0.1, 0.1, 0.3, -7.0, 2.0, 2.0])
    compiled = frontend.script(lambda_remainders)
    fmod, remainder = compiled(x.numpy(), y.numpy())
    np.testing.assert_array_equal(fmod, torch.fmod(x, y).numpy())
    np.testing.assert_array_equal(remainder, torch.remainder(x, y).numpy())


def lambda_remainders(x, y):
    return torch.fmod(x, y), x % y


def integer_rules(i, b):
    return (
        torch.sin(i), torch.floor(i), i.round(), torch.trunc(i), torch.sign(i), torch.sign(b),
        torch.square(b), torch.square(i), torch.isnan(i), torch.isfinite(i), torch.nan_to_num(i),
        torch.fmod(i, 3), i % -3, torch.remainder(i, i.abs() + 1), torch.atan2(i, i + 1),
        torch.float_power(i, 2), torch.copysign(i, -1), torch.xlogy(i, 2.0),
        F.hardtanh(i, 0, 2), F.threshold(i, 1, 9), torch.addcmul(i, i, i, value=2),
        torch.signbit(i), torch.deg2rad(i), torch.heaviside(i, i),
    )  # fmt: skip


def test_integer_and_bool_inputs_follow_torch_dtypes() -> None:
    i = torch.tensor([-7, -3, -1, 0, 2, 5, 9])
    b = torch.tensor([True, False, True, True, False, False, True])
    compiled = frontend.script(integer_rules)
    assert_like_torch(compiled(i.numpy(), b.numpy()), integer_rules(i, b))


class Activations(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.layers = nn.Sequential(
            nn.ELU(), nn.Softplus(beta=2.0), nn.Hardtanh(-2.0, 2.0), nn.ReLU6(), nn.Hardswish(),
            nn.Mish(), nn.PReLU(4), nn.LogSigmoid(), nn.SiLU(), nn.GELU(), nn.LeakyReLU(0.1),
        )  # fmt: skip
        self.glu = nn.GLU(dim=1)

    def forward(self, x):
        return self.glu(self.layers(x * 4.0))


def test_activation_layers_in_a_module_match_pytorch() -> None:
    """Scripted through each layer's own `forward` (a trace of a layer records its F.* call,
    which the programs above trace)."""
    torch.manual_seed(0)
    model = Activations().eval()
    with torch.no_grad():
        model.layers[6].weight.copy_(torch.tensor([0.1, -0.2, 0.3, 0.5]))
    x = torch.randn(3, 4)
    compiled = frontend.script(model)
    expected = model(x).detach().numpy()
    np.testing.assert_allclose(compiled(x.numpy()), expected, rtol=1e-5, atol=1e-6)


class InPlaceTwice(nn.Module):
    """Reads the activation's input again after an in-place activation."""

    def __init__(self) -> None:
        super().__init__()
        self.act = nn.ReLU6(inplace=True)

    def forward(self, x):
        h = x * 3.0
        y = self.act(h)
        return h + y + F.elu(y, 1.0, True) + y


def test_traced_inplace_activation_updates_its_input() -> None:
    model = InPlaceTwice()
    x = torch.randn(3, 4)
    traced = frontend.trace(model, (x,))
    expected = model(x).numpy()
    np.testing.assert_allclose(traced(x.numpy()), expected, rtol=1e-6)


def test_eager_inplace_activation_writes_into_its_input() -> None:
    from frontend import torch as ft
    from frontend.torch.nn import functional as FF

    data = np.array([-3.0, 0.5, 9.0], np.float32)
    x = ft.from_numpy(data.copy())
    out = FF.relu6(x, inplace=True)
    assert out is x
    np.testing.assert_array_equal(x.numpy(), [0.0, 0.5, 6.0])
    y = ft.from_numpy(data.copy())
    np.testing.assert_array_equal(FF.relu6(y).numpy(), [0.0, 0.5, 6.0])
    np.testing.assert_array_equal(y.numpy(), data)


# ---- errors: torch's message, at the user's line ----


def frac_of_int(x):
    return torch.frac(x)


def glu_of_odd(x):
    return F.glu(x, dim=1)


def prelu_mismatch(x):
    return F.prelu(x, torch.ones(3))


def prelu_mixed_dtypes(x):
    return F.prelu(x, torch.ones(5, dtype=torch.float64))


def lerp_mixed(x):
    return torch.lerp(x, x.double(), 0.5)


def addcdiv_ints(x):
    return torch.addcdiv(x, x, x)


def hardtanh_bool(x):
    return F.hardtanh(x > 0)


def softshrink_negative(x):
    return F.softshrink(x, -1.0)


def round_int_decimals(x):
    return torch.round(x, decimals=1)


ERROR_CASES = [
    (frac_of_int, torch.arange(4)), (glu_of_odd, torch.ones(2, 5)),
    (prelu_mismatch, torch.ones(2, 5)), (prelu_mixed_dtypes, torch.ones(2, 5)),
    (lerp_mixed, torch.ones(3)),
    (addcdiv_ints, torch.arange(3)), (hardtanh_bool, torch.ones(3)),
    (round_int_decimals, torch.arange(3)), (softshrink_negative, torch.ones(3)),
]  # fmt: skip


@pytest.mark.parametrize(("program", "x"), ERROR_CASES, ids=[p.__name__ for p, _ in ERROR_CASES])
def test_bad_inputs_raise_torchs_error(program, x) -> None:
    """torch's message (its first words for long ones), located at the user's call; raised
    while scripting or, when it depends on the arguments' dtypes or shapes, at the call."""
    if program is softshrink_negative:  # torch's wording names the dtype's range
        with pytest.raises(RuntimeError, match="lambda must be"):
            program(x)
        message = "lambda must be greater or equal to 0"
    else:
        with pytest.raises(RuntimeError) as torch_error:
            program(x)
        message = str(torch_error.value).split("\n")[0][:60]
    with pytest.raises((ScriptError, TypeError, ValueError), match=re.escape(message)) as error:
        frontend.script(program)(x.numpy())
    assert f"in {program.__name__}" in str(error.value) or "test_math_ops.py" in str(error.value)
