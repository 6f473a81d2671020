"""Runs a compiled loop kernel over chunks of its outer loop on a pool of Python threads.

An outlined kernel (`scf-outline-kernels`) whose outer loop is parallel is compiled once, as
a serial `nogil` numba function of the loop's range `[lo, hi)` (`kernel_rows(lo, hi, ...)`).
Its Python dispatcher runs it on the whole range, or, for large arrays, splits the range into
one chunk per thread here. numba's own parallel loops (`prange`) would do the same but cost
seconds of compile time per kernel (its parfor passes compile each loop body twice); a
thread pool costs tens of microseconds per call, which large kernels do not notice.

The number of threads is numba's (`numba.set_num_threads`, `NUMBA_NUM_THREADS`), so one
setting governs both kinds of parallel code; the chunks run while the caller waits, so they
never overlap numba's own pool.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numba

CHUNK_GRAIN = 131072
"""Dispatchers run in chunks only from this many array elements: a call through the pool
costs about 20 us (measured on the 2-core machine), 20x a `prange` launch."""

_POOL: ThreadPoolExecutor | None = None
_POOL_SIZE = 0
_LOCK = threading.Lock()


def _pool(workers: int) -> ThreadPoolExecutor:
    global _POOL, _POOL_SIZE
    with _LOCK:
        if _POOL is None or workers > _POOL_SIZE:
            if _POOL is not None:
                _POOL.shutdown(wait=False)
            _POOL = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="tsjit-chunk")
            _POOL_SIZE = workers
        return _POOL


def run_in_chunks(kernel: Callable[..., Any], lo: int, hi: int, args: tuple[Any, ...]) -> None:
    """`kernel(lo, hi, *args)`, split into one contiguous chunk of `[lo, hi)` per thread (the
    calling thread runs the first). Errors of any chunk are raised here."""
    count = min(numba.get_num_threads(), hi - lo)
    if count <= 1:
        kernel(lo, hi, *args)
        return
    bounds = [lo + (hi - lo) * i // count for i in range(count + 1)]
    pool = _pool(count - 1)
    futures = [pool.submit(kernel, bounds[i], bounds[i + 1], *args) for i in range(1, count)]
    try:
        kernel(bounds[0], bounds[1], *args)
    finally:
        for future in futures:
            future.result()
