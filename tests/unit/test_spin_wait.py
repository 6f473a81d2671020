"""`lowering.run.spin_wait`: flags raised in one thread are seen by native waits in another."""

from __future__ import annotations

import threading

import numpy as np

from lowering.run.spin_wait import raise_then_wait, spins_per_second, wait_for


def test_wait_for_a_raised_flag_returns_at_once() -> None:
    flags = np.zeros(16, dtype=np.int64)
    flags[3] = 5
    assert wait_for(flags, 3, 5, 0)
    assert wait_for(flags, 3, 4, 0)


def test_wait_for_gives_up_after_its_spins() -> None:
    flags = np.zeros(16, dtype=np.int64)
    assert not wait_for(flags, 3, 1, 1000)


def test_raise_then_wait_raises_its_flag_even_when_the_wait_runs_out() -> None:
    flags = np.zeros(16, dtype=np.int64)
    assert not raise_then_wait(flags, 8, 7, 0, 100, 0)
    assert flags[8] == 7
    flags[0] = 8
    assert raise_then_wait(flags, 8, 7, 0, 100, 10)


def test_spins_per_second_is_a_positive_rate() -> None:
    assert spins_per_second() > 1000


def test_a_flag_raised_by_another_thread_ends_the_wait() -> None:
    """Round trips between two threads, each waiting natively (outside the GIL) for the other's
    flag: every value is seen, none is skipped or invented."""
    flags = np.zeros(16, dtype=np.int64)
    rounds, patience = 200, int(5 * spins_per_second())  # seconds, in spins: never runs out
    seen: list[int] = []

    def echo() -> None:
        for value in range(1, rounds + 1):
            assert raise_then_wait(flags, 8, value - 1, 0, patience, 0)
            seen.append(int(flags[0]))
        flags[8] = rounds

    thread = threading.Thread(target=echo)
    thread.start()
    for value in range(1, rounds + 1):
        flags[0] = value
        assert wait_for(flags, 8, value, patience)
    thread.join()
    assert seen == list(range(1, rounds + 1))
