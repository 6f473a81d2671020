"""Runs a compiled loop kernel over chunks of its outer loop on persistent Python threads.

An outlined kernel (`scf-outline-kernels`) whose outer loop is parallel is compiled once, as
a serial `nogil` numba function of the loop's range `[lo, hi)` (`kernel_rows(lo, hi, ...)`).
Its Python dispatcher runs it on the whole range, or, for large arrays, splits the range into
one chunk per thread here. numba's own parallel loops (`prange`) would do the same but cost
seconds of compile time per kernel (its parfor passes compile each loop body twice).

The calling thread runs the first chunk; each other chunk goes to a worker thread of its own
that lives for the process and waits on a lock: handing it a chunk is one lock release and
taking the result one lock acquire (measured ~10 us a call on the 2-core machine, against
~30 us through a `concurrent.futures` pool, whose futures, queue and condition variables
cost more than the hand-off itself). The workers are daemon threads (they never keep the
process alive) and are made again in a child after `fork`.

The number of threads is numba's (`numba.set_num_threads`, `NUMBA_NUM_THREADS`), so one
setting governs both kinds of parallel code; the chunks run while the caller waits, so they
never overlap numba's own pool. One call uses the workers at a time: a call made while
another thread's call holds them runs all its chunks itself (right, only not in parallel).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from typing import Any

import numba

CHUNK_GRAIN = 131072
"""Dispatchers run in chunks only from this many array elements: a hand-off to the workers
costs about 10 us (measured on the 2-core machine), several `prange` launches."""


class Worker:
    """A daemon thread that runs one chunk each time `start` is called; `wait` returns after
    it ran and raises what it raised."""

    def __init__(self, name: str) -> None:
        self._go = threading.Lock()
        self._done = threading.Lock()
        self._go.acquire()
        self._done.acquire()
        self._task: tuple[Callable[..., Any], tuple[Any, ...]] | None = None
        self._error: BaseException | None = None
        threading.Thread(target=self._loop, name=name, daemon=True).start()

    def _loop(self) -> None:
        while True:
            self._go.acquire()
            assert self._task is not None
            kernel, args = self._task
            self._task = None
            try:
                kernel(*args)
            except BaseException as error:  # handed to the caller by `wait`
                self._error = error
            self._done.release()

    def start(self, kernel: Callable[..., Any], args: tuple[Any, ...]) -> None:
        self._task = (kernel, args)
        self._go.release()

    def wait(self) -> None:
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
