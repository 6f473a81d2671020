"""The cost of the run-time index checks: CPU time per call of gather, index_select and
embedding, checked as compiled, or with the checks patched out of the lowering.

    NUMBA_NUM_THREADS=1 python -m benchmarks.index_checks [unchecked]

Use a fresh `TSJIT_CACHE_DIR` per variant. Prints the median and the minimum of 15 runs of 20
calls, in ms of `time.process_time()` (all threads: one thread compares the loops alone).
"""

from __future__ import annotations

import statistics
import sys
import time
from typing import Any

import numpy as np
import torch

import frontend


def gather(x, i):
    return x.gather(1, i)


def index_select(x, i):
    return x.index_select(0, i)


def embedding(w, i):
    return torch.embedding(w, i)


def unchecked() -> None:
    """Lower index_select / gather / embedding without their checks (the baseline)."""
    import lowering.torch_to_linalg.indexing as indexing

    indexing.check_in_range = lambda *args, **kwargs: None
    indexing.checked_reader = lambda rewriter, index, *args: indexing.index_reader(rewriter, index)


def cpu_ms(fn: Any, args: tuple[Any, ...], runs: int = 15, calls: int = 20) -> list[float]:
    fn(*args)
    times = []
    for _ in range(runs):
        start = time.process_time()
        for _ in range(calls):
            fn(*args)
        times.append((time.process_time() - start) / calls * 1e3)
    return times


def main() -> None:
    if sys.argv[1:] == ["unchecked"]:
        unchecked()
    rng = np.random.default_rng(0)
    n = 1000
    x = rng.standard_normal((n, n)).astype(np.float32)
    rows = rng.integers(0, n, (n, n))
    cases = {
        "gather": (gather, (x, rows)),
        "index_select": (index_select, (x, rows[0])),
        "embedding": (embedding, (x, rows[:4])),
    }
    for name, (fn, args) in cases.items():
        times = cpu_ms(frontend.script(fn, compile="now"), args)
        print(f"{name:13s} median {statistics.median(times):7.3f} min {min(times):7.3f} ms CPU")


if __name__ == "__main__":
    main()
