"""`lowering.thread_chunks.run_in_chunks`: every index once, in one chunk per thread."""

from __future__ import annotations

import threading

import numba
import numpy as np
import pytest

from lowering.thread_chunks import run_in_chunks


@numba.njit(nogil=True)
def _fill_rows(lo, hi, out, scale):
    for i in range(lo, hi):
        out[i] = i * scale


@pytest.mark.parametrize(("lo", "hi"), [(0, 1), (0, 2), (3, 1000), (5, 5)])
def test_every_index_is_written_once(lo: int, hi: int) -> None:
    out = np.full(1000, -1.0)
    run_in_chunks(_fill_rows, lo, hi, (out, 2.0))
    expected = np.full(1000, -1.0)
    expected[lo:hi] = np.arange(lo, hi) * 2.0
    np.testing.assert_array_equal(out, expected)


def test_chunks_follow_numba_thread_count() -> None:
    seen: list[tuple[int, int, str]] = []
    lock = threading.Lock()

    def record(lo: int, hi: int) -> None:
        with lock:
            seen.append((lo, hi, threading.current_thread().name))

    numba.set_num_threads(1)
    try:
        run_in_chunks(record, 0, 10, ())
        assert seen == [(0, 10, threading.current_thread().name)]
    finally:
        numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    seen.clear()
    run_in_chunks(record, 0, 10, ())
    assert sorted((lo, hi) for lo, hi, _ in seen)[0][0] == 0
    assert sum(hi - lo for lo, hi, _ in seen) == 10
    assert len(seen) == min(numba.get_num_threads(), 10)


def test_an_error_in_any_chunk_is_raised() -> None:
    def fail_on_last(lo: int, hi: int) -> None:
        if hi == 10:
            raise ValueError("last chunk")

    if numba.get_num_threads() < 2:
        pytest.skip("one thread: a single chunk")
    with pytest.raises(ValueError, match="last chunk"):
        run_in_chunks(fail_on_last, 0, 10, ())
