"""Runs a compiled loop kernel over chunks of its outer loop on persistent Python threads.

An outlined kernel (`scf-outline-kernels`) whose outer loop is parallel is compiled once, as
a serial `nogil` numba function of the loop's range `[lo, hi)` (`kernel_rows(lo, hi, ...)`).
Its Python dispatcher runs it on the whole range, or, for large arrays, splits the range into
one chunk per thread here. numba's own parallel loops (`prange`) would do the same but cost
seconds of compile time per kernel (its parfor passes compile each loop body twice).

The calling thread runs the first chunk; each other chunk goes to a worker thread of its own
that lives for the process. Hand-offs spin before they sleep, as OpenMP pools do: on this
project's machines an idle vCPU halts at once, and waking a thread asleep on a lock costs
~45 us, so a chunk handed to a sleeping worker and waited for cost ~90 us a call (measured on
the 2-core machine; ~17 us with the kernel's halt polling on). A worker that finished a chunk
spins outside the GIL (`lowering/run/spin_wait.py`) for `IDLE_SPIN_S` on its go flag, and the
caller spins on the worker's done flag; each side sleeps on its lock only when the spin runs
out, so the locks keep the protocol right and the flags only keep the threads awake. The
workers are daemon threads (they never keep the process alive) and are made again in a child
after `fork`.

The number of threads is numba's in the calling thread, made to follow tsjit's setting
(`lowering/run/threads.py`: `frontend.set_num_threads`, else the environment's), so one setting
governs both kinds of parallel code; the chunks run while the caller waits, so they
never overlap numba's own pool. One call uses the workers at a time: a call made while
another thread's call holds them runs all its chunks itself (right, only not in parallel).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from typing import Any

import numba
import numpy as np

from lowering.run.spin_wait import raise_then_wait, spins_per_second, wait_for
from lowering.run.threads import use_thread_setting

CHUNK_GRAIN = 131072
"""Dispatchers run in chunks only from this many array elements: a hand-off to a spinning
worker and back costs ~15-30 us in Python (measured on the 2-core machine), against ~2 us for a
`prange` launch in numba's pool."""


IDLE_SPIN_S = 300e-6
"""How long a worker spins for its next chunk before it sleeps: longer than the Python code
between two kernels of one call, or between calls in a loop; short enough that numba's and
PyTorch's pools get the core back soon."""

CALLER_SPIN_S = 2e-3
"""How long the caller spins for a worker's chunk to end before it sleeps on the lock."""

LINGER_S = 3e-6
"""How long a worker waits, once its go flag is up, before it takes the GIL: the caller raises
the flag just before calling its own chunk, and holds the GIL until that call starts."""

GO, DONE = 0, 8  # flag indexes, a cache line apart


class Worker:
    """A daemon thread that runs one chunk each time `start` is called; `wait` returns after
    it ran and raises what it raised."""

    def __init__(self, name: str) -> None:
        self._go = threading.Lock()
        self._done = threading.Lock()
        self._go.acquire()
        self._done.acquire()
        self._flags = np.zeros(16, dtype=np.int64)  # GO raised by `start`, DONE by the worker
        self._caller_spins = int(CALLER_SPIN_S * spins_per_second())
        self._sequence = 0  # chunks started
        self._task: tuple[Callable[..., Any], tuple[Any, ...]] | None = None
        self._error: BaseException | None = None
        threading.Thread(target=self._loop, name=name, daemon=True).start()

    def _loop(self) -> None:
        per_second = spins_per_second()
        idle, linger = int(IDLE_SPIN_S * per_second), int(LINGER_S * per_second)
        finished = 0
        while True:
            # DONE of the last chunk goes up outside the GIL: the caller, spinning on it, then
            # finds the GIL free. Then spin for the next GO; the lock decides.
            raise_then_wait(self._flags, DONE, finished, GO, idle, linger)
            self._go.acquire()
            assert self._task is not None
            kernel, args = self._task
            self._task = None
            try:
                kernel(*args)
            except BaseException as error:  # handed to the caller by `wait`
                self._error = error
            finished += 1
            self._done.release()

    def start(self, kernel: Callable[..., Any], args: tuple[Any, ...]) -> None:
        self._task = (kernel, args)
        self._sequence += 1
        self._go.release()
        self._flags[GO] = self._sequence

    def wait(self) -> None:
        wait_for(self._flags, DONE, self._sequence, self._caller_spins)
        interrupt: BaseException | None = None
        while True:  # the chunk must be over before its arrays are used (or lent again)
            try:
                self._done.acquire()
                break
            except BaseException as error:  # KeyboardInterrupt: raised once the chunk is over
                interrupt = error
        error, self._error = self._error, None
        if error is not None or interrupt is not None:
            raise error or interrupt  # type: ignore[misc]


_WORKERS: list[Worker] = []
_BUSY = threading.Lock()  # held by the one call that uses the workers


def _reset_after_fork() -> None:
    """A forked child has only the forking thread: its workers are made again on use."""
    global _BUSY
    _WORKERS.clear()
    _BUSY = threading.Lock()


os.register_at_fork(after_in_child=_reset_after_fork)


def _workers(count: int) -> list[Worker]:
    """At least `count` workers (called with `_BUSY` held)."""
    while len(_WORKERS) < count:
        _WORKERS.append(Worker(f"tsjit-chunk-{len(_WORKERS)}"))
    return _WORKERS[:count]


def run_in_chunks(kernel: Callable[..., Any], lo: int, hi: int, args: tuple[Any, ...]) -> None:
    """`kernel(lo, hi, *args)`, split into one contiguous chunk of `[lo, hi)` per thread (the
    calling thread runs the first). Errors of any chunk are raised here."""
    use_thread_setting()
    count = min(numba.get_num_threads(), hi - lo)
    if count <= 1 or not _BUSY.acquire(blocking=False):
        kernel(lo, hi, *args)
        return
    try:
        bounds = [lo + (hi - lo) * i // count for i in range(count + 1)]
        workers = _workers(count - 1)
        for worker, start, stop in zip(workers, bounds[1:], bounds[2:]):
            worker.start(kernel, (start, stop, *args))
        errors: list[BaseException] = []
        try:
            kernel(bounds[0], bounds[1], *args)
        except BaseException as error:
            errors.append(error)
        for worker in workers:
            try:
                worker.wait()
            except BaseException as error:
                errors.append(error)
        if errors:
            raise errors[0]
    finally:
        _BUSY.release()
