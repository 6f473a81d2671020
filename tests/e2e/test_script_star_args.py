"""`*` in calls of scripted code: a tuple or list spreads into positional arguments; a whole
shape, whose rank scripting does not know, is a located error with a hint."""

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


def reshape_to_a_whole_shape(x, y):
    return y.reshape(x.shape)


def test_a_tuple_and_a_list_spread_into_arguments() -> None:
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    np.testing.assert_array_equal(frontend.script(view_of_a_tuple)(x), x.reshape(3, 2))
    doubled = frontend.script(reshape_of_unpacked_sizes)(x)
    np.testing.assert_array_equal(doubled, x.reshape(3, 2) * 2)


def test_a_whole_shape_is_a_located_error() -> None:
    x = np.ones((2, 3), dtype=np.float32)
    with pytest.raises(ScriptError, match="shape cannot be used whole") as info:
        frontend.script(reshape_to_a_whole_shape)(x, x.ravel())
    assert "y.reshape(x.shape)" in str(info.value)
    assert "hint: index or unpack it" in str(info.value)
