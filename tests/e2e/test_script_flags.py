"""Flags: an entry function's `bool` parameters with a default are specialized on their value
(`frontend/script/annotations.py`), so they may choose what the function returns; `None` inside a
returned tuple comes back as None."""

import pytest
import torch
from torch import nn

import frontend
from frontend.errors import ScriptError


def scaled(x, relu: bool = True, scale=False):
    y = torch.relu(x) if relu else x
    if scale:
        y = y * 2.0
    return y


def two_or_one(x, both: bool = False):
    if both:
        return x + 1, x - 1
    return x + 1


def optional_second(x, want: bool = True):
    if want:
        return x.sum(-1), x.mean(-1)
    return x.sum(-1), None


def runtime_bool(x, flag: bool):
    return torch.where(torch.tensor(flag), x, -x)


class Head(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(6, 3)

    def forward(self, x, return_hidden: bool = False):
        hidden = torch.tanh(self.linear(x))
        if return_hidden:
            return hidden.sum(-1), hidden
        return hidden.sum(-1)


X = torch.randn(4, 6)


def test_flag_values_each_compile_and_match_eager():
    fn = frontend.script(scaled)
    for kwargs in ({}, {"relu": False}, {"scale": True}, {"relu": False, "scale": True}):
        torch.testing.assert_close(fn(X, **kwargs), scaled(X, **kwargs))
    torch.testing.assert_close(fn(X, False, True), scaled(X, False, True))


def test_flag_chooses_the_result_structure():
    fn = frontend.script(two_or_one)
    torch.testing.assert_close(fn(X), two_or_one(X))
    got = fn(X, both=True)
    assert isinstance(got, tuple) and len(got) == 2
    torch.testing.assert_close(got, two_or_one(X, both=True))


def test_none_inside_a_returned_tuple():
    fn = frontend.script(optional_second)
    total, mean = fn(X)
    torch.testing.assert_close(mean, X.mean(-1))
    total, nothing = fn(X, want=False)
    assert nothing is None
    torch.testing.assert_close(total, X.sum(-1))


def test_bool_without_default_stays_a_run_time_argument():
    fn = frontend.script(runtime_bool)
    torch.testing.assert_close(fn(X, True), X)
    torch.testing.assert_close(fn(X, False), -X)
    assert "!torch.bool" in fn.graph


def test_flag_must_be_a_bool():
    fn = frontend.script(scaled)
    with pytest.raises(TypeError, match=r"relu.*expected a bool, got int"):
        fn(X, 1)


def test_module_flag_and_default_graph():
    model = Head().eval()
    scripted = frontend.script(model)
    torch.testing.assert_close(scripted(X), model(X))
    torch.testing.assert_close(scripted(X, return_hidden=True), model(X, return_hidden=True))
    assert "return_hidden" not in scripted.graph  # the default graph: a constant False


def test_top_level_multihead_attention_need_weights():
    torch.manual_seed(0)
    mha = nn.MultiheadAttention(8, 2, batch_first=True).eval()
    q = torch.randn(2, 3, 8)
    scripted = frontend.script(mha)
    out, weights = scripted(q, q, q)
    expected = mha(q, q, q)
    torch.testing.assert_close(out, expected[0], atol=1e-5, rtol=1e-4)
    torch.testing.assert_close(weights, expected[1], atol=1e-5, rtol=1e-4)
    out, weights = scripted(q, q, q, need_weights=False)
    assert weights is None
    torch.testing.assert_close(out, expected[0], atol=1e-5, rtol=1e-4)
    per_head = scripted(q, q, q, average_attn_weights=False)[1]
    torch.testing.assert_close(
        per_head, mha(q, q, q, average_attn_weights=False)[1], atol=1e-5, rtol=1e-4
    )


def test_a_called_function_keeps_its_bool_a_run_time_value():
    def inner(x, negate: bool = False):
        return -x if negate else x

    def outer(x, y):
        return inner(x, bool(y.sum() > 0))

    fn = frontend.script(outer)
    y = torch.ones(2)
    torch.testing.assert_close(fn(X, y), outer(X, y))
    torch.testing.assert_close(fn(X, -y), outer(X, -y))


def test_flag_chosen_result_used_as_tensor_is_an_error():
    def bad(x, want: bool = True):
        total, mean = optional_second(x, want)
        return total + mean

    fn = frontend.script(bad)
    torch.testing.assert_close(fn(X), bad(X))
    with pytest.raises((ScriptError, TypeError)):
        fn(X, want=False)
