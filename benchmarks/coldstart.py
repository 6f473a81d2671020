"""Compile-time benchmark: the seed `MyCell` called in fresh processes, cold and warm disk cache.

`python -m benchmarks.coldstart` runs the measurement in child processes (one with an empty
cache folder, then one reusing it; three such pairs, medians) and prints their JSON; each
child reports the import time of torch and tsjit, the scripting time and the first and second
call times. The cell is scripted with `compile="now"`: the first call runs compiled code, so
its time is the whole compile (cold) or cache load (warm); `benchmarks/first_call.py`
measures the tiered first call.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def child() -> dict[str, float]:
    """Runs in a fresh process: import, script the seed `MyCell`, call it twice; seconds."""
    t0 = time.perf_counter()
    import numpy as np
    import torch

    t1 = time.perf_counter()
    import frontend
    from benchmarks import programs

    t2 = time.perf_counter()
    torch.manual_seed(0)
    module = programs.MyCell()
    cell = frontend.script(module, compile="now")
    t3 = time.perf_counter()
    x, h = torch.rand(3, 4), torch.rand(3, 4)
    new_h, _ = cell(x, h)
    t4 = time.perf_counter()
    cell(x, h)
    t5 = time.perf_counter()
    with torch.no_grad():
        expected, _ = module(x, h)
    np.testing.assert_allclose(new_h.numpy(), expected.numpy(), rtol=1e-5, atol=1e-6)
    return {
        "import_torch_numpy_s": t1 - t0,
        "import_tsjit_s": t2 - t1,
        "script_s": t3 - t2,
        "first_call_s": t4 - t3,
        "script_and_first_call_s": t4 - t2,
        "second_call_s": t5 - t4,
    }


def run_child(cache_dir: str) -> dict[str, Any]:
    env = {**os.environ, "TSJIT_CACHE_DIR": cache_dir}
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks.coldstart", "--child"],
        cwd=ROOT, env=env, capture_output=True, text=True, check=False,
    )  # fmt: skip
    wall = time.perf_counter() - start
    if done.returncode != 0:
        return {"error": done.stderr.strip().splitlines()[-1] if done.stderr else "failed"}
    return {**json.loads(done.stdout.strip().splitlines()[-1]), "process_wall_s": wall}


def measure_cold_and_warm(rounds: int = 3) -> dict[str, dict[str, Any]]:
    """`cold`: a fresh process and an empty cache; `warm`: a fresh process, the same cache.
    `rounds` pairs, each with its own cache folder; each kind reports the median of every
    time over the rounds, and every round's times under `rounds`."""
    runs: dict[str, list[dict[str, Any]]] = {"cold": [], "warm": []}
    for _ in range(rounds):
        with tempfile.TemporaryDirectory(prefix="tsjit-bench-cache-") as cache_dir:
            runs["cold"].append(run_child(cache_dir))
            runs["warm"].append(run_child(cache_dir))
    return {kind: summarize(results) for kind, results in runs.items()}


def summarize(results: list[dict[str, Any]]) -> dict[str, Any]:
    """The median of each time over the runs without error (the first error otherwise)."""
    good = [r for r in results if "error" not in r]
    if not good:
        return results[0]
    medians = {key: statistics.median(r[key] for r in good) for key in good[0]}
    return {**medians, "rounds": results}


if __name__ == "__main__":
    if "--child" in sys.argv:
        print(json.dumps(child()))
    else:
        print(json.dumps(measure_cold_and_warm(), indent=2))
