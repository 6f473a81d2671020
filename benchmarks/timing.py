"""Median-of-samples timing after warm-up; calls shorter than ~2 ms are timed in batches."""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

WARMUP_CALLS = 5
MIN_SAMPLE_SECONDS = 2e-3
MIN_SAMPLES = 5


@dataclass(frozen=True)
class Timing:
    """Seconds per call: median, 10th and 90th percentile over `samples` batches."""

    median: float
    p10: float
    p90: float
    samples: int
    calls_per_sample: int

    def as_dict(self) -> dict[str, float | int]:
        return {
            "median_s": self.median,
            "p10_s": self.p10,
            "p90_s": self.p90,
            "samples": self.samples,
            "calls_per_sample": self.calls_per_sample,
        }


def measure(call: Callable[[], Any], budget_s: float = 0.5) -> Timing:
    """Times `call()` for about `budget_s` seconds after `WARMUP_CALLS` warm-up calls."""
    start = time.perf_counter()
    for _ in range(WARMUP_CALLS):
        call()
    one_call = (time.perf_counter() - start) / WARMUP_CALLS
    batch = max(1, math.ceil(MIN_SAMPLE_SECONDS / max(one_call, 1e-9)))
    samples: list[float] = []
    deadline = time.perf_counter() + budget_s
    while len(samples) < MIN_SAMPLES or time.perf_counter() < deadline:
        t0 = time.perf_counter()
        for _ in range(batch):
            call()
        samples.append((time.perf_counter() - t0) / batch)
    p10, median, p90 = np.percentile(samples, [10, 50, 90])
    return Timing(float(median), float(p10), float(p90), len(samples), batch)


def format_time(seconds: float) -> str:
    """`1.88 ms`, `640 ns`, `2.1 s`: three significant digits in a readable unit."""
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6)):
        if seconds >= scale:
            return f"{seconds / scale:.3g} {unit}"
    return f"{seconds / 1e-9:.3g} ns"
