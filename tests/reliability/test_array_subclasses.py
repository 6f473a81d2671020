"""ndarray subclasses whose meaning differs from their data (a masked array's mask,
`np.matrix`'s `*`, a class overriding numpy's array protocols) are refused with a TypeError
naming the argument, as torch refuses them; plain subclasses (`np.memmap`, one that adds an
attribute) run as the array of their data."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest

import frontend


def twice(x):
    return x * 2.0


TWICE = frontend.script(twice)
DATA = np.arange(4.0, dtype=np.float32).reshape(2, 2)


class Tagged(np.ndarray):
    """A subclass that only carries an attribute."""

    tag = "weights"


class Units(np.ndarray):
    """A subclass that changes what numpy operations mean."""

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):  # type: ignore[no-untyped-def]
        return NotImplemented


def matrix() -> np.ndarray:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PendingDeprecationWarning)
        return np.asmatrix(DATA)


@pytest.mark.parametrize(
    ("make", "named"),
    [
        (lambda: np.ma.masked_array(DATA, mask=[[0, 1], [0, 0]]), "masked array"),
        (matrix, "numpy.matrix"),
        (lambda: DATA.view(Units), "__array_ufunc__"),
    ],
)
def test_subclasses_that_change_meaning_are_refused(make: Any, named: str) -> None:
    with pytest.raises(TypeError, match=f"argument 'x' is .*{named}"):
        TWICE(make())


def test_plain_subclasses_run_as_their_data(tmp_path) -> None:  # type: ignore[no-untyped-def]
    mapped = np.memmap(tmp_path / "x.bin", dtype=np.float32, mode="w+", shape=(2, 2))
    mapped[:] = DATA
    for value in (mapped, DATA.view(Tagged)):
        np.testing.assert_array_equal(np.asarray(TWICE(value)), DATA * 2.0)
