"""`lowering.run.thread_chunks.run_in_chunks`: every index once, in one chunk per thread."""

from __future__ import annotations

import os
import threading
import warnings

import numba
import numpy as np
import pytest

from lowering.run.thread_chunks import run_in_chunks


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


def test_workers_serve_the_next_call_after_an_error() -> None:
    def fail_on_last(lo: int, hi: int) -> None:
        if hi == 10:
            raise ValueError("last chunk")

    for _ in range(3):
        with pytest.raises(ValueError, match="last chunk"):
            run_in_chunks(fail_on_last, 0, 10, ())
        out = np.full(10, -1.0)
        run_in_chunks(_fill_rows, 0, 10, (out, 1.0))
        np.testing.assert_array_equal(out, np.arange(10.0))


def test_calls_from_several_threads_at_once_write_every_index() -> None:
    outs = [np.full(5000, -1.0) for _ in range(4)]

    def call_many(out: np.ndarray) -> None:
        for scale in range(1, 51):
            run_in_chunks(_fill_rows, 0, out.size, (out, float(scale)))

    threads = [threading.Thread(target=call_many, args=(out,)) for out in outs]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for out in outs:
        np.testing.assert_array_equal(out, np.arange(5000) * 50.0)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork")
def test_a_forked_child_makes_its_own_workers() -> None:
    out = np.full(100, -1.0)
    run_in_chunks(_fill_rows, 0, 100, (out, 1.0))  # the parent's workers exist
    read, write = os.pipe()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # fork with threads (3.12+)
        pid = os.fork()
    if pid == 0:  # the child: exits with 0 only if the chunks ran
        code = 1
        try:
            child_out = np.zeros(100)
            run_in_chunks(_fill_rows, 0, 100, (child_out, 3.0))
            code = 0 if np.array_equal(child_out, np.arange(100) * 3.0) else 1
        finally:
            os.write(write, bytes([code]))
            os._exit(code)
    os.close(write)
    _, status = os.waitpid(pid, 0)
    assert os.read(read, 1) == bytes([0])
    assert os.waitstatus_to_exitcode(status) == 0
