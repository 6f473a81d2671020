"""F.pad (every mode) and torch.constant_pad_nd, scripted and traced, against PyTorch;
negative amounts crop; an unknown mode is a located error."""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as F

import frontend
from frontend.errors import ScriptError


def last_dim(x):
    return F.pad(x, (1, 2))


def two_dims_with_value(x):
    return F.pad(x, (1, 1, 2, 0), value=-1.0)


def crop_and_pad(x):
    return F.pad(x, [-1, 2, 0, 1])


def aten_spelling(x):
    return torch.constant_pad_nd(x, [2, 2], 3.0)


def reflect(x):
    return F.pad(x, (1, 1, 1, 1), mode="reflect")


def unknown_mode(x):
    return F.pad(x, (1, 1), mode="symmetric")


X = torch.randn(2, 3, 4, 5)


@pytest.mark.parametrize("kind", ["script", "trace"])
@pytest.mark.parametrize(
    "program", [last_dim, two_dims_with_value, crop_and_pad, aten_spelling, reflect]
)
def test_padding_matches_pytorch(kind, program) -> None:
    expected = program(X).numpy()
    compiled = frontend.script(program) if kind == "script" else frontend.trace(program, (X,))
    actual = compiled(X.numpy())
    assert actual.shape == expected.shape
    np.testing.assert_array_equal(actual, expected)


def test_integer_padding_keeps_the_dtype() -> None:
    x = np.arange(6).reshape(2, 3)
    actual = frontend.script(aten_spelling)(x)
    np.testing.assert_array_equal(actual, aten_spelling(torch.from_numpy(x)).numpy())
    assert actual.dtype == np.int64


def test_an_unknown_mode_is_a_located_error() -> None:
    with pytest.raises(ScriptError, match="Unrecognised padding mode symmetric") as info:
        frontend.script(unknown_mode)
    assert 'mode="symmetric"' in str(info.value)
