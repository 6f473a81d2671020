"""`*` in calls of scripted code: a tuple or list spreads into positional arguments; a shape,
whose rank scripting does not know, is a located error with a hint (passed whole, it works:
tests/e2e/test_script_whole_shapes.py)."""

from __future__ import annotations

import numpy as np
import pytest

import frontend
from frontend.errors import ScriptError


def view_of_a_tuple(x):
    dims = (3, 2)
    return x.view(*dims)


def reshape_of_unpacked_sizes(x):
    n, c = x.shape
    return x.reshape(*[c, n]) * 2


def reshape_to_a_spread_shape(x, y):
    return y.reshape(*x.shape)


def test_a_tuple_and_a_list_spread_into_arguments() -> None:
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    np.testing.assert_array_equal(frontend.script(view_of_a_tuple)(x), x.reshape(3, 2))
    doubled = frontend.script(reshape_of_unpacked_sizes)(x)
    np.testing.assert_array_equal(doubled, x.reshape(3, 2) * 2)


def test_a_spread_shape_is_a_located_error() -> None:
    x = np.ones((2, 3), dtype=np.float32)
    with pytest.raises(ScriptError, match="shape cannot be spread or sliced here") as info:
        frontend.script(reshape_to_a_spread_shape)(x, x.ravel())
    assert "y.reshape(*x.shape)" in str(info.value)
    assert "hint: pass it whole (y.reshape(x.shape))" in str(info.value)
