"""First call, time to compiled and warm start per workload, each in fresh processes.

`python -m benchmarks.first_call [W1 MyCell ...] [--rounds N] [--gil]` runs, per workload and
round, a child process with an empty cache folder (`cold`), then one reusing it (`warm`).
Each child imports tsjit, scripts the workload with `compile="background"` (tiered) and
reports
- `first_call_s`: the first call (the eager tier, or compiled code when the cache has it);
- `compiled_s`: from the start of the first call until `wait_compiled()` returns;
- `first_call_cpu_s`, `compiled_cpu_s`: the same in CPU time (`time.process_time()`, every
  thread of the process: the compile thread's too), steadier than wall time on a shared
  machine; `compiled_at_once`: 1.0 when code was compiled once the first call returned (a warm
  process whose first call ran compiled code);
- `eager_s`: one more call of the same program on the eager tier alone (what the first call
  costs besides tsjit's own overhead).
`--gil` measures instead what the compile thread costs the eager calls of the main thread
(their median while a compile runs, and without one), and how long a helper process would
take only to import what it needs to compile (the floor of that design). `--batches` times
each call of the issue's batch-growth case (`relu(x * 2 + b) - tanh(x) * 0.25` compiled at
batch 8, then called at growing batches, past the grain size) with both compile modes.
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

import torch

ROOT = Path(__file__).resolve().parent.parent
SMALL = ("MyCell", "W7")  # the small programs besides the seed cell


def program_and_inputs(name: str) -> tuple[Any, tuple[Any, ...]]:
    """The program (a function or a module) and its inputs as torch tensors."""
    import numpy as np
    import torch

    from benchmarks import programs
    from benchmarks.workloads import WORKLOADS

    if name == "MyCell":
        torch.manual_seed(0)
        return programs.MyCell(), (torch.rand(3, 4), torch.rand(3, 4))
    if name == "ResNet18":  # the model tests' ResNet-18, eval mode, batch 1
        sys.path.insert(0, str(ROOT / "tests" / "e2e"))
        import models

        torch.manual_seed(0)
        return models.randomize_norms(models.ResNet18()), (torch.rand(1, 3, 224, 224),)
    workload = next(w for w in WORKLOADS if w.name == name)
    inputs = workload.make_inputs(np.random.default_rng(0))
    return workload.program, tuple(torch.from_numpy(a) for a in inputs)


def child(name: str) -> dict[str, Any]:
    """In a fresh process: script `name` tiered, time the first call and the compile."""
    import numpy as np
    import torch

    import frontend

    program, inputs = program_and_inputs(name)
    scripted = frontend.script(program, compile="background")
    start, cpu_start = time.perf_counter(), time.process_time()
    first = scripted(*inputs)
    first_call = time.perf_counter() - start
    first_call_cpu = time.process_time() - cpu_start
    ready_at_once = scripted.wait_compiled(timeout=0)  # the first call ran compiled code
    scripted.wait_compiled()
    compiled = time.perf_counter() - start
    compiled_cpu = time.process_time() - cpu_start  # every thread's CPU time
    again = scripted(*inputs)
    eager = frontend.script(program, backend="interpreter")
    eager(*inputs)
    t0 = time.perf_counter()
    eager(*inputs)
    eager_s = time.perf_counter() - t0
    with torch.no_grad():
        expected = program(*inputs)
    for result in (first, again):
        got = result[0] if isinstance(result, tuple) else result
        want = expected[0] if isinstance(expected, tuple) else expected
        np.testing.assert_allclose(np.asarray(got), want.numpy(), rtol=1e-3, atol=1e-3)
    return {
        "first_call_s": first_call,
        "compiled_s": compiled,
        "eager_s": eager_s,
        "first_call_cpu_s": first_call_cpu,
        "compiled_cpu_s": compiled_cpu,
        "compiled_at_once": float(ready_at_once),
    }


def run_child(args: list[str], cache_dir: str) -> dict[str, Any]:
    env = {**os.environ, "TSJIT_CACHE_DIR": cache_dir}
    env.pop("TSJIT_COMPILE", None)
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks.first_call", "--child", *args],
        cwd=ROOT, env=env, capture_output=True, text=True, check=False,
    )  # fmt: skip
    if done.returncode != 0:
        return {"error": done.stderr.strip().splitlines()[-1] if done.stderr else "failed"}
    return json.loads(done.stdout.strip().splitlines()[-1])


def measure(names: list[str], rounds: int = 1) -> dict[str, dict[str, Any]]:
    """Per workload: `cold` and `warm` (medians over `rounds` pairs of processes)."""
    report: dict[str, dict[str, Any]] = {}
    for name in names:
        runs: dict[str, list[dict[str, Any]]] = {"cold": [], "warm": []}
        for _ in range(rounds):
            with tempfile.TemporaryDirectory(prefix="tsjit-first-call-") as cache_dir:
                runs["cold"].append(run_child([name], cache_dir))
                runs["warm"].append(run_child([name], cache_dir))
        report[name] = {kind: median(results) for kind, results in runs.items()}
        print(json.dumps({name: report[name]}), file=sys.stderr, flush=True)
    return report


def median(results: list[dict[str, Any]]) -> dict[str, Any]:
    good = [r for r in results if "error" not in r]
    if not good:
        return results[0]
    return {key: statistics.median(r[key] for r in good) for key in good[0]}


def table(report: dict[str, dict[str, Any]]) -> str:
    """A Markdown table: first call, time to compiled, warm start per workload."""
    from benchmarks.timing import format_time

    lines = [
        "| workload, fresh process | first call | eager run | compiled after "
        "| warm start: first call | warm: compiled after |",
        "|---|---|---|---|---|---|",
    ]
    for name, entry in report.items():
        cold, warm = entry["cold"], entry["warm"]
        if "error" in cold or "error" in warm:
            lines.append(f"| {name} | {cold.get('error') or warm.get('error')} | | | | |")
            continue
        cells = [cold["first_call_s"], cold["eager_s"], cold["compiled_s"]]
        cells += [warm["first_call_s"], warm["compiled_s"]]
        lines.append(f"| {name} | " + " | ".join(format_time(c) for c in cells) + " |")
    return "\n".join(lines)


# ---- the compile thread's cost to eager calls, and a helper process's floor ----


def gil_child() -> dict[str, Any]:
    """Eager calls of MyCell: their median alone, and while W6b compiles in the thread."""
    import frontend

    cell, inputs = program_and_inputs("MyCell")
    eager = frontend.script(cell, backend="interpreter")
    for _ in range(20):
        eager(*inputs)
    alone = []
    for _ in range(300):
        t0 = time.perf_counter()
        eager(*inputs)
        alone.append(time.perf_counter() - t0)
    program, big_inputs = program_and_inputs("W6b")
    scripted = frontend.script(program, compile="background")
    scripted(*big_inputs)  # queues the compile
    during = []
    while not scripted.wait_compiled(timeout=0):
        t0 = time.perf_counter()
        eager(*inputs)
        during.append(time.perf_counter() - t0)
    during.sort()
    return {
        "eager_alone_median_s": statistics.median(alone),
        "eager_during_compile_median_s": statistics.median(during),
        "eager_during_compile_p90_s": during[int(len(during) * 0.9)],
        "eager_during_compile_p99_s": during[int(len(during) * 0.99)],
        "eager_during_compile_max_s": during[-1],
        "calls_during_compile": len(during),
        "switch_interval_s": sys.getswitchinterval(),
    }


def helper_process_floor() -> float:
    """Seconds a fresh process needs to import torch, numba and tsjit (before compiling)."""
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-c", "import torch, numba, frontend, lowering.pipeline"],
        cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, check=True,
    )  # fmt: skip
    return time.perf_counter() - start


def growing(x, b):
    return torch.relu(x * 2 + b) - torch.tanh(x) * 0.25


BATCHES = (16, 33, 100, 300, 1000, 1000)


def batches_child(mode: str) -> dict[str, Any]:
    """Seconds of each call at `BATCHES` after the code for batch 8 is compiled, and what the
    eager tier alone takes at each batch (the same program on `backend="interpreter"`, best of
    five once every compile is done): a call that takes longer than that waited for something."""
    import numpy as np

    import frontend

    scripted = frontend.script(growing, compile=mode)
    b = np.ones(64, np.float32)
    scripted(np.ones((8, 64), np.float32), b)
    scripted.wait_compiled()
    times, inputs = {}, {}
    for index, n in enumerate(BATCHES):
        x = inputs[n] = np.random.default_rng(n).standard_normal((n, 64)).astype(np.float32)
        t0 = time.perf_counter()
        scripted(x, b)
        times[f"{index}:batch{n}"] = time.perf_counter() - t0
    scripted.wait_compiled()
    t0 = time.perf_counter()
    scripted(x, b)
    times["after wait_compiled: batch1000"] = time.perf_counter() - t0
    eager = frontend.script(growing, backend="interpreter")
    eager_s = {f"batch{n}": best_of(5, eager, x, b) for n, x in inputs.items()}
    return {"calls": times, "eager_tier_alone": eager_s}


def best_of(repeats: int, fn: Any, *args: Any) -> float:
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn(*args)
        best = min(best, time.perf_counter() - t0)
    return best


if __name__ == "__main__":
    argv = sys.argv[1:]
    if "--child" in argv:
        rest = [a for a in argv if a != "--child"]
        if rest[0] == "--batches":
            print(json.dumps(batches_child(rest[1])))
        else:
            print(json.dumps(gil_child() if rest == ["--gil"] else child(rest[0])))
    elif "--batches" in argv:
        with tempfile.TemporaryDirectory(prefix="tsjit-batches-") as cache_dir:
            runs = {m: run_child(["--batches", m], cache_dir) for m in ("now", "background")}
        print(json.dumps(runs, indent=2))
    elif "--gil" in argv:
        with tempfile.TemporaryDirectory(prefix="tsjit-gil-") as cache_dir:
            result = run_child(["--gil"], cache_dir)
        print(json.dumps({**result, "helper_process_import_s": helper_process_floor()}, indent=2))
    else:
        rounds = int(argv[argv.index("--rounds") + 1]) if "--rounds" in argv else 1
        names = [a for a in argv if not a.startswith("--") and not a.isdigit()] or list(SMALL)
        print(table(measure(names, rounds)))
