"""How many threads compiled code uses: one process-wide setting, applied in every calling thread.

Compiled programs run in parallel two ways: numba's `prange` loops (numba's thread pool) and
outlined kernels split into chunks (`lowering/run/thread_chunks.py`). Both follow
`get_num_threads()`:
- `set_num_threads(n)` sets it for the whole process (every thread, the ones that exist and
  the ones made later: a Dask or Ray worker's task threads);
- otherwise it is the default: `NUMBA_NUM_THREADS` or `OMP_NUM_THREADS` if set in the
  environment (Dask's nanny sets `OMP_NUM_THREADS=1` in each worker, Ray sets it to the CPUs a
  task or actor was given), else, in a Dask worker process, the cores this process may run on
  shared among the worker's task threads, else those cores (`os.sched_getaffinity`).
It never exceeds numba's pool (`numba.config.NUMBA_NUM_THREADS`, fixed when numba starts).

numba keeps its thread count per thread (`numba.set_num_threads` in one thread does not reach
another), so `use_thread_setting()` runs before each compiled call: the first call in a thread,
and the first one after the setting changed, sets numba's count for that thread (a few
microseconds); every other call costs one comparison. A count the user set in a thread with
`numba.set_num_threads` is kept when it is lower. Nothing here holds a lock; a forked child
inherits the setting, and its one thread the state numba and this module keep for it.
"""

from __future__ import annotations

import os
import sys
import threading

import numba

_SETTING: int | None = None  # set_num_threads(n); None: the default
_GENERATION = 0  # bumped by each set_num_threads: threads apply the setting again
_LOCAL = threading.local()  # per thread: generation applied, count set, numba's own count


def set_num_threads(n: int | None) -> None:
    """Compiled code uses at most `n` threads, in every thread of the process; `None`: the
    default again (see the module docstring)."""
    global _SETTING, _GENERATION
    if n is not None:
        if isinstance(n, bool) or not isinstance(n, int):
            raise TypeError(f"set_num_threads() takes an int, got {type(n).__name__}")
        if not 1 <= n <= pool_size():
            raise ValueError(
                f"set_num_threads({n}): the number of threads must be between 1 and "
                f"{pool_size()} (numba's pool: NUMBA_NUM_THREADS, fixed when numba starts)"
            )
    _SETTING = n
    _GENERATION += 1


def get_num_threads() -> int:
    """The most threads one compiled call uses (`set_num_threads`, else the default)."""
    wanted = _SETTING if _SETTING is not None else default_num_threads()
    return max(1, min(wanted, pool_size()))


def pool_size() -> int:
    return int(numba.config.NUMBA_NUM_THREADS)


def default_num_threads() -> int:
    """`NUMBA_NUM_THREADS`, else `OMP_NUM_THREADS`, else a Dask worker's share of the cores,
    else the cores this process may run on."""
    for variable in ("NUMBA_NUM_THREADS", "OMP_NUM_THREADS"):
        value = _positive_int(os.environ.get(variable))
        if value is not None:
            return value
    cores = available_cores()
    dask_threads = dask_worker_threads()
    if dask_threads:
        return max(1, cores // dask_threads)
    return cores


def available_cores() -> int:
    try:
        return len(os.sched_getaffinity(0)) or 1
    except (AttributeError, OSError):  # not Linux
        return os.cpu_count() or 1


def dask_worker_threads() -> int:
    """The task threads of the Dask workers living in this process (0: not a Dask worker)."""
    worker_module = sys.modules.get("distributed.worker")
    if worker_module is None:
        return 0
    workers = getattr(getattr(worker_module, "Worker", None), "_instances", ())
    return sum(int(getattr(w, "nthreads", 0) or 0) for w in list(workers))


def _positive_int(text: str | None) -> int | None:
    try:
        value = int(text) if text is not None else 0
    except ValueError:
        return None
    return value if value > 0 else None


def use_thread_setting() -> None:
    """Makes numba's thread count in the calling thread follow `get_num_threads()`."""
    if getattr(_LOCAL, "generation", -1) != _GENERATION:
        _apply()


def _apply() -> None:
    generation = _GENERATION
    current = numba.get_num_threads()
    if current != getattr(_LOCAL, "count", None):  # not ours: numba's default or the user's
        _LOCAL.own = current
    count = min(get_num_threads(), _LOCAL.own)
    if count != current:
        numba.set_num_threads(count)
    _LOCAL.count = count
    _LOCAL.generation = generation
