"""Runs the workloads against numpy, PyTorch eager and tsjit; prints a table, writes JSON.

`python -m benchmarks [W1 W4 ...] [--cpu NAME] [--json PATH] [--budget S] [--no-compile]
[--no-inductor]`

`--cpu NAME` runs them under another machine model (`TSJIT_CPU=NAME`, e.g. `haswell` for
AVX2 code on an AVX-512 host), with the libraries held to the same ISA (`benchmarks/isa.py`).
`torch.compile` (inductor) is a column of its own where it runs (`benchmarks/inductor.py`).

All implementations run in this one process with the same thread count (the number of
cores): numba's pool, `torch.set_num_threads`, and OpenBLAS left as numpy sets it up. Each
gets warm-up calls, then the median over about `--budget` seconds of samples (see
`timing.measure`), with a pause in between so that spinning thread pools go to sleep.
Every output is checked against a float64 numpy reference first; a wrong output is reported
and not timed.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks import first_call, inductor
from benchmarks.isa import machine_model_record, reexec_for_cpu
from benchmarks.timing import format_time, measure
from benchmarks.workloads import WORKLOADS, Workload

PAUSE_S = 0.25
RUNS = Path(__file__).parent / "runs"


# ---- implementations ----


def missing_ops(workload: Workload) -> list[str]:
    from dialects.torch.registry import BY_PY_NAME

    return [name for name in workload.requires if name not in BY_PY_NAME]


def torch_impl(workload: Workload, inputs: tuple[np.ndarray, ...]) -> Callable[[], Any]:
    import torch

    tensors = tuple(torch.from_numpy(a) for a in inputs)

    def call() -> Any:
        with torch.no_grad():
            return workload.program(*tensors)

    return call


def tsjit_impl(workload: Workload, inputs: tuple[np.ndarray, ...]) -> Callable[[], Any]:
    import frontend

    scripted = frontend.script(workload.program)
    return lambda: scripted(*inputs)


def tsjit_torch_args_impl(workload: Workload, inputs: tuple[np.ndarray, ...]) -> Callable[[], Any]:
    """tsjit called with torch tensors (zero-copy conversion both ways)."""
    import torch

    import frontend

    scripted = frontend.script(workload.program)
    tensors = tuple(torch.from_numpy(a) for a in inputs)
    return lambda: scripted(*tensors)


IMPLEMENTATIONS: dict[str, Callable[[Workload, tuple[np.ndarray, ...]], Callable[[], Any]]] = {
    "numpy": lambda w, inputs: lambda: w.numpy_impl(*inputs),
    "torch": torch_impl,
    "tsjit": tsjit_impl,
}
EXTRA_IMPLEMENTATIONS = {"W7": {"tsjit(torch args)": tsjit_torch_args_impl}}


# ---- one workload ----


def as_numpy(value: Any) -> np.ndarray:
    if isinstance(value, tuple):
        value = value[0]
    return value.numpy() if hasattr(value, "numpy") else np.asarray(value)


def check(workload: Workload, result: Any, expected: np.ndarray) -> tuple[bool, float]:
    """(matches the float64 reference within the workload's tolerance, max relative error)."""
    actual = as_numpy(result)
    if actual.shape != expected.shape:
        return False, float("inf")
    if actual.dtype != np.float32:
        return False, float("inf")
    error = np.abs(actual.astype(np.float64) - expected)
    rel = float(np.max(error / (np.abs(expected) + workload.atol / workload.rtol)))
    ok = bool(np.all(error <= workload.atol + workload.rtol * np.abs(expected)))
    return ok, rel


def run_impl(workload: Workload, name: str, make: Callable, inputs, expected, budget: float):
    entry: dict[str, Any] = {}
    try:
        call = make(workload, inputs)
        start = time.perf_counter()
        result = call()
        entry["first_call_s"] = time.perf_counter() - start
    except Exception as err:  # reported, never fatal: one broken workload must not stop the run
        entry["status"] = f"error: {type(err).__name__}: {str(err).splitlines()[0][:200]}"
        entry["traceback"] = traceback.format_exc()
        return entry
    ok, rel = check(workload, result, expected)
    entry["max_rel_error"] = rel
    if not ok:
        entry["status"] = "wrong result"
        return entry
    entry["status"] = "ok"
    entry.update(measure(call, budget).as_dict())
    time.sleep(PAUSE_S)
    return entry


def run_workload(workload: Workload, budget: float, with_inductor: bool = True) -> dict[str, Any]:
    record: dict[str, Any] = {"name": workload.name, "description": workload.description}
    missing = missing_ops(workload)
    inputs = workload.make_inputs(np.random.default_rng(0))
    expected = workload.reference(*inputs)
    impls = {**IMPLEMENTATIONS, **EXTRA_IMPLEMENTATIONS.get(workload.name, {})}
    if with_inductor:
        impls[inductor.NAME] = inductor.inductor_impl
    results: dict[str, Any] = {}
    for name, make in impls.items():
        if name.startswith("tsjit") and missing:
            results[name] = {"status": f"skipped: op missing ({', '.join(missing)})"}
            continue
        results[name] = run_impl(workload, name, make, inputs, expected, budget)
    if with_inductor:
        inductor.report_failure(workload.name, results[inductor.NAME])
    record["results"] = results
    add_ratios(results)
    return record


def add_ratios(results: dict[str, Any]) -> None:
    """`vs_numpy` / `vs_torch` / `vs_torch.compile`: median time over the baseline's median
    (lower is faster)."""
    for baseline in ("numpy", "torch", inductor.NAME):
        base = results.get(baseline, {}).get("median_s")
        for entry in results.values():
            if base and entry.get("median_s"):
                entry[f"vs_{baseline}"] = entry["median_s"] / base


# ---- setup, table, JSON ----


def configure_threads(threads: int | None) -> dict[str, Any]:
    """Every pool gets `threads` threads (default: one per core); returns what each uses."""
    import numba
    import torch

    cores = os.cpu_count() or 1
    wanted = threads or cores
    torch.set_num_threads(wanted)
    numba.set_num_threads(min(wanted, numba.config.NUMBA_NUM_THREADS))
    return {
        "cores": cores,
        "torch_threads": torch.get_num_threads(),
        "numba_threads": numba.get_num_threads(),
        "numba_threading_layer": numba.config.THREADING_LAYER,
    }


def machine() -> dict[str, Any]:
    import numba
    import torch

    cpu = "unknown"
    with open("/proc/cpuinfo") if os.path.exists("/proc/cpuinfo") else open(os.devnull) as f:
        for line in f:
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    return {
        "date": datetime.datetime.now().isoformat(timespec="seconds"),
        "cpu": cpu,
        "python": platform.python_version(),
        "numpy": np.__version__,
        "torch": torch.__version__,
        "numba": numba.__version__,
        "load_average": os.getloadavg(),
        "commit": _commit(),
        "machine_model": machine_model_record(),
        "malloc_tuning": os.environ.get("TSJIT_MALLOC_TUNING", "1") != "0",  # lowering/run/jit.py
    }


def _commit() -> str:
    """The checked-out commit (with `+dirty` when tracked files differ), or `unknown`."""
    import subprocess

    root = Path(__file__).resolve().parent.parent
    try:
        head = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=root, capture_output=True, text=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "diff", "--quiet", "HEAD", "--"], cwd=root, capture_output=True
        ).returncode
    except OSError:
        return "unknown"
    if not head:  # not a git checkout (e.g. a `git archive` tree)
        return os.environ.get("TSJIT_BENCH_COMMIT", "unknown")
    return f"{head}+dirty" if dirty else head


def table(records: list[dict[str, Any]]) -> str:
    """A Markdown table: median per implementation and tsjit's ratios."""
    lines = [
        "| workload | numpy | torch eager | torch.compile | tsjit | tsjit vs torch "
        "| tsjit vs compile | tsjit vs numpy | tsjit 1st call |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for record in records:
        for impl, entry in record["results"].items():
            if not impl.startswith("tsjit"):
                continue
            label = record["name"] + ("" if impl == "tsjit" else f" {impl[5:]}")
            baselines = ("numpy", "torch", inductor.NAME)
            cells = [cell(record["results"].get(name, {}), name) for name in baselines]
            cells.append(cell(entry))
            cells += [ratio(entry, "vs_torch"), ratio(entry, f"vs_{inductor.NAME}")]
            cells.append(ratio(entry, "vs_numpy"))
            first = entry.get("first_call_s")
            cells.append(format_time(first) if first is not None else "")
            lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def cell(entry: dict[str, Any], name: str = "") -> str:
    if "median_s" in entry:
        return format_time(entry["median_s"])
    return "" if name == inductor.NAME else entry.get("status", "")  # its failure is printed


def ratio(entry: dict[str, Any], key: str) -> str:
    return f"{entry[key]:.2f}" if key in entry else ""


def compile_table(compile_times: dict[str, dict[str, Any]]) -> str:
    lines = ["| MyCell, fresh process | import torch+numpy | import tsjit | script + first call "
             "| second call |", "|---|---|---|---|---|"]  # fmt: skip
    for kind, entry in compile_times.items():
        if "error" in entry:
            lines.append(f"| {kind} cache | {entry['error']} | | | |")
            continue
        keys = ("import_torch_numpy_s", "import_tsjit_s", "script_and_first_call_s")
        keys += ("second_call_s",)
        lines.append(f"| {kind} cache | " + " | ".join(format_time(entry[k]) for k in keys) + " |")
    return "\n".join(lines)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__)
    names = [w.name for w in WORKLOADS]
    parser.add_argument("workloads", nargs="*", metavar="W", help=f"a subset of {names}")
    parser.add_argument(
        "--json", type=Path, default=None, help="results file (default: runs/<date>-<cpu>.json)"
    )
    parser.add_argument("--cpu", default=None, help="a TSJIT_CPU machine model (e.g. haswell)")
    parser.add_argument("--no-inductor", action="store_true", help="skip the torch.compile column")
    parser.add_argument("--budget", type=float, default=0.5, help="seconds of samples per timing")
    parser.add_argument("--no-compile", action="store_true", help="skip the cold-start runs")
    parser.add_argument(
        "--threads", type=int, default=None, help="threads for torch and numba (default: cores)"
    )
    args = parser.parse_args(argv)
    unknown = set(args.workloads) - set(names)
    if unknown:
        parser.error(f"unknown workloads {sorted(unknown)}; choose from {names}")
    return args


def default_json(info: dict[str, Any]) -> Path:
    """`runs/<date>-<machine model's cpu>.json`, with `-2`, `-3` ... for later runs."""
    stem = f"{info['date'][:10]}-{info['machine_model']['cpu']}"
    path, count = RUNS / f"{stem}.json", 1
    while path.exists():
        count += 1
        path = RUNS / f"{stem}-{count}.json"
    return path


def main(argv: list[str] | None = None) -> None:
    import sys

    args = parse_args(argv)
    reexec_for_cpu(args.cpu, sys.argv[1:] if argv is None else argv)
    threads = configure_threads(args.threads)
    info = machine()
    model = info["machine_model"]
    print(f"tsjit benchmarks, {info['date']}, {info['commit']}, {info['cpu']}, {threads}")
    print(f"machine model {model['cpu']}, {model['vector_bits']}-bit vectors, ", end="")
    print(f"load average {info['load_average']}")
    selected = [w for w in WORKLOADS if not args.workloads or w.name in args.workloads]
    records = []
    for workload in selected:
        records.append(run_workload(workload, args.budget, not args.no_inductor))
        print("\n".join(table(records[-1:]).splitlines()[2:]), flush=True)
    report: dict[str, Any] = {"machine": info, "threads": threads, "workloads": records}
    if not args.no_compile:
        from benchmarks.coldstart import measure_cold_and_warm

        report["compile"] = measure_cold_and_warm()
        report["first_call"] = first_call.measure([w.name for w in selected] + ["MyCell"])
    print()
    print(table(records))
    if "compile" in report:
        print()
        print(compile_table(report["compile"]))
        print()
        print(first_call.table(report["first_call"]))
    info["load_average_end"] = os.getloadavg()
    path = args.json or default_json(info)
    path.write_text(json.dumps(report, indent=2))
    print(f"\nresults written to {path}")
