"""numba bugs that give wrong results, and their fixes (`lowering/python_target/numba_fixes.py`)."""

from __future__ import annotations

from pathlib import Path

import numba
import numpy as np
from numba import prange

from lowering.python_target import numba_fixes
from lowering.python_target.tables import HEADER


def padded_and_unpadded(x):
    """A padded copy of x's rows (n + 2) and a result of x's size reached through n - 1 + 1,
    filled in one prange: the shape arithmetic of a padded conv."""
    b, n = x.shape
    n1 = n + 1
    padded_size = n1 + 1
    padded = np.empty((b, padded_size), dtype=np.float32)
    below = n - 1
    size = below + 1
    out = np.empty((b, size), dtype=np.float32)
    for i in prange(b):
        for j in range(padded_size):
            padded[i, j] = 0.0
        for j in range(size):
            out[i, j] = i * 100 + j
    return padded, out


def test_sizes_with_offsets_of_both_signs_keep_their_strides() -> None:
    numba_fixes.apply()
    compiled = numba.njit(parallel=True)(padded_and_unpadded)  # compiled now, not cached
    padded, out = compiled(np.zeros((4, 5), np.float32))
    assert padded.shape == (4, 7)
    # with numba 0.68.1's array analysis, out[i, j] went to out.flat[i * 7 + j]: rows 1..3
    # kept garbage and the last writes went past the end
    np.testing.assert_array_equal(out, np.arange(4)[:, None] * 100 + np.arange(5))


def test_generated_modules_install_the_fix_before_their_functions() -> None:
    from numba.parfors import array_analysis

    assert HEADER.index("numba_fixes.apply()") < HEADER.index("FASTMATH =")
    numba_fixes.apply()
    numba_source = Path(array_analysis.__file__).read_text()
    if numba_fixes.BUGGY_LINE in numba_source:  # numba 0.68.1
        assert array_analysis.SymbolicEquivSet._insert is numba_fixes._symbolic_insert
