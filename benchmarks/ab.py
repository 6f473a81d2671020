"""A/B timing of tsjit from two source trees, in alternating fresh processes.

On a shared, loaded machine one benchmark run moves by 30% and more; alternating the two
trees several times and keeping each one's fastest sample separates a real change from the
noise. Only tsjit is timed (the same workload inputs as `python -m benchmarks`).

    python -m benchmarks.ab OLD_TREE NEW_TREE W2 W5 [--rounds 3] [--threads 1]

A tree is a checkout of the repository (e.g. `git archive <commit> | tar -x -C /tmp/old`);
each child runs this file with `PYTHONPATH=<tree>` (so it imports that tree's tsjit and
workloads) and its own `TSJIT_CACHE_DIR` under the tree.
Prints, per round and tree, the minimum and median of 5 samples of about 0.3 s each.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

SAMPLES, SAMPLE_S = 5, 0.3


def child(names: list[str], threads: int) -> dict[str, tuple[float, float]]:
    """In the tree's process: (min, median) seconds per call of each workload."""
    import numba
    import numpy as np

    numba.set_num_threads(threads)
    import frontend
    from benchmarks.workloads import WORKLOADS

    times = {}
    for workload in (w for w in WORKLOADS if w.name in names):
        inputs = workload.make_inputs(np.random.default_rng(0))
        function = frontend.script(workload.program)
        function(*inputs)
        samples = []
        for _ in range(SAMPLES):
            start, calls = time.perf_counter(), 0
            while time.perf_counter() - start < SAMPLE_S:
                function(*inputs)
                calls += 1
            samples.append((time.perf_counter() - start) / calls)
            time.sleep(0.05)
        times[workload.name] = (min(samples), sorted(samples)[SAMPLES // 2])
    return times


def run_tree(tree: Path, names: list[str], threads: int) -> dict[str, list[float]]:
    env = {**os.environ, "PYTHONPATH": str(tree), "TSJIT_CACHE_DIR": str(tree / ".ab-cache")}
    # this file runs in the child, so an old tree without it can be measured too
    command = [sys.executable, str(Path(__file__).resolve()), "--child", str(threads), *names]
    done = subprocess.run(command, cwd=tree, env=env, capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    if args[:1] == ["--child"]:
        print(json.dumps(child(args[2:], int(args[1]))))
        return
    parser = argparse.ArgumentParser(prog="python -m benchmarks.ab", description=__doc__)
    parser.add_argument("old", type=Path)
    parser.add_argument("new", type=Path)
    parser.add_argument("workloads", nargs="+")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--threads", type=int, default=1)
    parsed = parser.parse_args(args)
    for round_ in range(1, parsed.rounds + 1):
        for label, tree in (("old", parsed.old), ("new", parsed.new)):
            times = run_tree(tree.resolve(), parsed.workloads, parsed.threads)
            cells = ", ".join(
                f"{name} min {t[0] * 1e3:.3g} ms med {t[1] * 1e3:.3g} ms"
                for name, t in times.items()
            )
            print(f"round {round_} {label}: {cells}", flush=True)


if __name__ == "__main__":
    main()
