"""`frontend.set_num_threads` / `get_num_threads`: one setting for the process, applied to
numba's per-thread count by each compiled call; its defaults follow the environment; calls
from a thread pool and from a forked child run right."""

from __future__ import annotations

import os
import threading
import warnings
from concurrent.futures import ThreadPoolExecutor

import numba
import numpy as np
import pytest

import frontend
from lowering.run import threads

POOL = numba.config.NUMBA_NUM_THREADS


def affine(x):
    return x * 2.0 + 1.0


AFFINE = frontend.script(affine)


@pytest.fixture
def setting():
    yield frontend.set_num_threads
    frontend.set_num_threads(None)


def numba_threads_after_a_call(x: np.ndarray) -> int:
    """numba's count in a new thread after it called the compiled function."""
    seen: list[int] = []

    def call() -> None:
        np.testing.assert_array_equal(AFFINE(x), x * 2.0 + 1.0)
        seen.append(numba.get_num_threads())

    thread = threading.Thread(target=call)
    thread.start()
    thread.join()
    return seen[0]


def test_the_setting_reaches_every_thread(setting) -> None:
    x = np.arange(6, dtype=np.float32)
    setting(1)
    assert frontend.get_num_threads() == 1
    assert numba_threads_after_a_call(x) == 1
    setting(None)
    default = min(threads.default_num_threads(), POOL)
    assert frontend.get_num_threads() == default
    assert numba_threads_after_a_call(x) == default


def test_a_lower_count_set_in_numba_for_a_thread_is_kept(setting) -> None:
    if POOL < 2:
        pytest.skip("numba's pool has one thread: no lower count to set")
    seen: list[int] = []

    def call() -> None:
        numba.set_num_threads(1)
        AFFINE(np.ones(3, np.float32))
        seen.append(numba.get_num_threads())

    setting(POOL)
    thread = threading.Thread(target=call)
    thread.start()
    thread.join()
    assert seen == [1]


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        ({"NUMBA_NUM_THREADS": "1", "OMP_NUM_THREADS": "2"}, 1),
        ({"OMP_NUM_THREADS": "1"}, 1),
        ({"OMP_NUM_THREADS": "4096"}, POOL),  # never more than numba's pool
        ({"OMP_NUM_THREADS": "zero"}, None),  # not a count: the cores
        ({}, None),
    ],
)
def test_the_default_follows_the_environment(monkeypatch, env, expected) -> None:
    for variable in ("NUMBA_NUM_THREADS", "OMP_NUM_THREADS"):
        monkeypatch.delenv(variable, raising=False)
    for variable, value in env.items():
        monkeypatch.setenv(variable, value)
    cores = min(threads.available_cores(), POOL)
    assert frontend.get_num_threads() == (cores if expected is None else expected)


@pytest.mark.parametrize(("value", "error"), [(0, ValueError), (POOL + 1, ValueError),
                                              (1.5, TypeError), (True, TypeError)])  # fmt: skip
def test_counts_out_of_range_are_refused(value, error) -> None:
    with pytest.raises(error):
        frontend.set_num_threads(value)


def test_calls_from_a_thread_pool_give_every_result(setting) -> None:
    setting(POOL)
    inputs = [np.full((400, 400), float(i), np.float32) for i in range(8)]  # chunked sizes
    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(AFFINE, inputs * 3))
    for x, result in zip(inputs * 3, results):
        np.testing.assert_array_equal(result, x * 2.0 + 1.0)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork")
def test_a_forked_child_keeps_the_setting_and_runs_compiled_code(setting) -> None:
    setting(1)
    x = np.arange(5, dtype=np.float32)
    AFFINE(x)  # compiled in the parent
    read, write = os.pipe()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # fork with threads (3.12+)
        pid = os.fork()
    if pid == 0:  # the child: exits with 0 only if both calls were right
        code = 1
        try:
            y = np.linspace(0, 1, 9, dtype=np.float32)
            right = np.array_equal(AFFINE(x), x * 2 + 1) and np.array_equal(AFFINE(y), y * 2 + 1)
            code = 0 if right and frontend.get_num_threads() == 1 else 1
        finally:
            os.write(write, bytes([code]))
            os._exit(code)
    os.close(write)
    _, status = os.waitpid(pid, 0)
    assert os.read(read, 1) == bytes([0])
    assert os.waitstatus_to_exitcode(status) == 0


def shifted(x):
    return x - 3.0


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork")
def test_a_forked_child_never_waits_for_a_lock_another_thread_held() -> None:
    from lowering.run import jit

    held, release = threading.Event(), threading.Event()

    def hold() -> None:  # another thread in the middle of loading a module
        with jit._LOCK:
            held.set()
            release.wait()

    holder = threading.Thread(target=hold)
    holder.start()
    held.wait()
    read, write = os.pipe()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            pid = os.fork()
        if pid == 0:  # the child loads a module of its own; killed if it waits for 60 s
            code = 1
            try:
                import signal

                signal.alarm(60)
                x = np.arange(3, dtype=np.float32)
                code = 0 if np.array_equal(frontend.script(shifted)(x), x - 3.0) else 1
            finally:
                os.write(write, bytes([code]))
                os._exit(code)
    finally:
        release.set()
        holder.join()
    os.close(write)
    _, status = os.waitpid(pid, 0)
    assert os.read(read, 1) == bytes([0])
    assert os.waitstatus_to_exitcode(status) == 0
