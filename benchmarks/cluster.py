"""Batch inference on local Dask clusters: tsjit against PyTorch eager in the same workers.

`python -m benchmarks.cluster` scores 8192 samples with the MNIST CNN (batches of 64) and the
encoder block of `tests/e2e/models.py` (batches of 64 sequences of 16 tokens) on a
`distributed.LocalCluster` of 1 and then 2 worker processes of one thread each. Per model,
engine and cluster it reports
- samples per second over the whole map (`client.map` over the batches, results gathered;
  median of `--repeats` runs), and the speed-up of 2 workers over 1;
- the per-worker compile time: unpickling the program and its first call, in each worker (the
  1-worker cluster starts with an empty cache folder: a cold compile; the 2-worker cluster
  shares that folder, as two workers of one machine do: a load from the disk cache);
- per task, the CPU seconds of its call (its thread's) and their wall seconds: on a host whose
  cores other processes also use, wall exceeds CPU, and `compute_share_of_map` (the tasks' CPU
  over the map's wall times the workers) shows how much of the workers' time was compute;
- the bytes shipped: the pickled program (once per worker: it is scattered with
  `broadcast=True`) and per task the pickled batch in and the pickled result out. The batches
  are scattered over the workers before the timed maps (as data Dask loads itself is), so the
  maps time the tasks, their scheduling and the results' way back.
Workers get one thread each for both engines (Dask's nanny sets `OMP_NUM_THREADS=1`, which
PyTorch and tsjit follow). A task scores one batch of 64 samples, or `--batches-per-task k`
batches of 64 (one model call each). The control, `dask_control`, maps a task that spins for
the CNN's tsjit task's CPU time: Dask's own cost per task, and so the speed-up 2 workers
can reach at that task length on this host. Writes
`benchmarks/runs/<date>-<HHMM>-cluster-dask-1thread-workers-<k>batch-tasks.json` (UTC start).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import pickle
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
MODELS_DIR = ROOT / "tests" / "e2e"
SAMPLES, BATCH, TOKENS = 8192, 64, 16


# ---- what runs in the workers ----


def infer(
    batches: list[tuple[np.ndarray, ...]], program: Any
) -> tuple[list[np.ndarray], float, float]:
    """One task: the program (tsjit) or the module (PyTorch eager) on each of its batches (of 64
    samples, one call each); the results, and the CPU seconds of the task's thread and the wall
    seconds the calls took."""
    import torch

    cpu, wall = time.thread_time(), time.perf_counter()
    if isinstance(program, torch.nn.Module):
        with torch.inference_mode():
            results = [program(*map(torch.from_numpy, batch)).numpy() for batch in batches]
    else:
        results = [program(*batch) for batch in batches]
    return results, time.thread_time() - cpu, time.perf_counter() - wall


def spin(batches: list[tuple[np.ndarray, ...]], seconds: float) -> tuple[list, float, float]:
    """The control task: holds the GIL and a core for `seconds` of its thread's CPU time and
    returns what a task of the CNN returns, so a map of it times Dask's own cost per task."""
    cpu, wall = time.thread_time(), time.perf_counter()
    while time.thread_time() - cpu < seconds:
        pass
    results = [np.zeros((len(batch[0]), 10), np.float32) for batch in batches]
    return results, time.thread_time() - cpu, time.perf_counter() - wall


def first_use(pickled: bytes, batch: tuple[np.ndarray, ...]) -> dict[str, Any]:
    """In one worker: unpickle the program and call it once; seconds, and its threads."""
    import numba
    import torch

    import frontend

    start = time.perf_counter()
    program = pickle.loads(pickled)
    loaded = time.perf_counter()
    infer([batch], program)
    called = time.perf_counter()
    return {
        "unpickle_s": loaded - start,
        "first_call_s": called - loaded,
        "tsjit_threads": frontend.get_num_threads(),
        "numba_threads": numba.get_num_threads(),
        "torch_threads": torch.get_num_threads(),
        "numba_threading_layer": numba_layer(),
        "pid": os.getpid(),
    }


def numba_layer() -> str | None:
    import numba

    try:
        return numba.threading_layer()
    except ValueError:  # no parallel kernel ran in this process
        return None


# ---- the driver ----


def workloads(samples: int) -> dict[str, tuple[Any, list[tuple[np.ndarray, ...]]]]:
    """name -> (PyTorch module, batches covering `samples` samples)."""
    import torch
    from models import EncoderBlock, MnistCnn

    rng = np.random.default_rng(0)
    torch.manual_seed(0)
    images = rng.random((samples, 1, 28, 28), dtype=np.float32)
    tokens = rng.standard_normal((samples, TOKENS, 32)).astype(np.float32)
    lengths = rng.integers(TOKENS // 2, TOKENS + 1, samples)
    mask = np.arange(TOKENS)[None, :] >= lengths[:, None]  # True where a token is padding
    cuts = range(0, samples, BATCH)
    return {
        "mnist_cnn": (MnistCnn().eval(), [(images[i : i + BATCH],) for i in cuts]),
        "encoder_block": (
            EncoderBlock().eval(),
            [(tokens[i : i + BATCH], mask[i : i + BATCH]) for i in cuts],
        ),
    }


def measure_engine(
    client: Any, program: Any, tasks_in: list[list[Any]], repeats: int
) -> dict[str, Any]:
    """Per-worker first use, then the timed maps (the program scattered to every worker)."""
    pickled = pickle.dumps(program)
    workers = sorted(client.scheduler_info()["workers"])
    first = client.gather([
        client.submit(first_use, pickled, tasks_in[0][0], workers=[w], pure=False)
        for w in workers
    ])  # fmt: skip
    handle = client.scatter(program, broadcast=True, hash=False)
    record = timed_maps(client, infer, tasks_in, repeats, program=handle)
    client.cancel([handle])
    record.update(per_worker_first_use=first, program_bytes_once_per_worker=len(pickled))
    return record


def timed_maps(
    client: Any, task: Any, tasks_in: list[list[Any]], repeats: int, **kwargs: Any
) -> dict[str, Any]:
    """`repeats` maps of `task` over the tasks' batches (scattered over the workers first, as
    data Dask loads itself is); samples per second and what the tasks took."""
    inputs = client.scatter(tasks_in, hash=False)
    seconds, done = [], []
    for _ in range(repeats):
        start = time.perf_counter()
        done = client.gather(client.map(task, inputs, pure=False, **kwargs))
        seconds.append(time.perf_counter() - start)
    client.cancel(inputs)
    results = [result for results, _, _ in done for result in results]
    cpu = sum(c for _, c, _ in done)  # the last map's compute, in CPU seconds of the tasks
    return {
        "samples_per_s": sum(len(b[0]) for batches in tasks_in for b in batches)
        / statistics.median(seconds),
        "map_s": seconds,
        "task_cpu_s_median": statistics.median(c for _, c, _ in done),
        "task_wall_s_median": statistics.median(w for _, _, w in done),
        "compute_share_of_map": cpu / (seconds[-1] * len(client.scheduler_info()["workers"])),
        "task_bytes_in": len(pickle.dumps(tasks_in[0])),
        "task_bytes_out": len(pickle.dumps(done[0][0])),
        "tasks": len(tasks_in),
        "results": results,
    }


def run_cluster(
    workers: int, cache: str, repeats: int, samples: int, per_task: int
) -> dict[str, Any]:
    """Every model and engine on one LocalCluster of `workers` one-thread processes, tasks of
    `per_task` batches; and the control: a spin task as long as the CNN's tsjit task."""
    import torch
    from distributed import Client, LocalCluster

    import frontend

    env = {"TSJIT_CACHE_DIR": cache}
    record: dict[str, Any] = {}
    with (
        LocalCluster(
            n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None,
            env=env,
        ) as cluster,
        Client(cluster) as client,
    ):  # fmt: skip
        client.wait_for_workers(workers)
        for name, (model, batches) in workloads(samples).items():
            tasks_in = [batches[i : i + per_task] for i in range(0, len(batches), per_task)]
            entry = {
                "tsjit": measure_engine(client, frontend.script(model), tasks_in, repeats),
                "torch_eager": measure_engine(client, model, tasks_in, repeats),
            }
            with torch.inference_mode():
                expected = model(*map(torch.from_numpy, batches[-1])).numpy()
            for engine in entry.values():
                np.testing.assert_allclose(engine.pop("results")[-1], expected, rtol=1e-4,
                                           atol=1e-4)  # fmt: skip
            entry["tsjit_vs_torch"] = (
                entry["tsjit"]["samples_per_s"] / entry["torch_eager"]["samples_per_s"]
            )
            if name == "mnist_cnn":
                seconds = entry["tsjit"]["task_cpu_s_median"]
                entry["dask_control"] = timed_maps(client, spin, tasks_in, repeats, seconds=seconds)
                entry["dask_control"].pop("results")
                entry["dask_control"]["spin_s"] = seconds
            record[name] = entry
            print(f"  {workers} worker(s) {name}: " + ", ".join(
                f"{engine} {entry[engine]['samples_per_s']:.0f} samples/s"
                for engine in ("tsjit", "torch_eager", "dask_control") if engine in entry
            ), flush=True)  # fmt: skip
    return record


def cpu_model() -> str:
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    for line in out.splitlines():
        if line.startswith("Model name:"):
            return line.split(":", 1)[1].strip()
    return "unknown"


def speedups(runs: dict[str, Any]) -> dict[str, Any]:
    """samples/s of 2 workers over 1, per model and engine (and the CNN's Dask control)."""
    if "1" not in runs or "2" not in runs:
        return {}
    return {
        name: {
            engine: runs["2"][name][engine]["samples_per_s"]
            / runs["1"][name][engine]["samples_per_s"]
            for engine in ("tsjit", "torch_eager", "dask_control")
            if engine in runs["1"][name]
        }
        for name in runs["1"]
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--samples", type=int, default=SAMPLES)
    parser.add_argument(
        "--batches-per-task",
        type=int,
        default=1,
        help="batches of 64 samples per Dask task (one model call each)",
    )
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    import dask
    import distributed
    import torch

    sys.path.insert(0, str(MODELS_DIR))  # workers start with this path: they unpickle torch's

    load_before = os.getloadavg()
    started = datetime.datetime.now(datetime.UTC)
    runs: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="tsjit-cluster-cache-") as cache:
        for workers in args.workers:
            print(f"{workers} worker(s), one thread each", flush=True)
            runs[str(workers)] = run_cluster(
                workers, cache, args.repeats, args.samples, args.batches_per_task
            )
    from benchmarks.run import machine

    record = {
        "benchmark": "cluster: batch inference on local Dask workers, tsjit vs PyTorch eager",
        "samples": args.samples,
        "batch": BATCH,
        "batches_per_task": args.batches_per_task,
        "threads_per_worker": 1,
        "machine": {
            **machine(),
            "cpu_model": cpu_model(),
            "cores": os.cpu_count(),
            "dask": dask.__version__,
            "distributed": distributed.__version__,
            "torch_threads_driver": torch.get_num_threads(),
            "load_average_before": load_before,
            "load_average_after": os.getloadavg(),
        },
        "runs": runs,
        "speedup_2_over_1_workers": speedups(runs),
        "compile_cache": "1-worker cluster: empty cache folder (cold); later clusters share it",
    }
    name = (
        f"{started:%Y-%m-%d-%H%M}-cluster-dask-1thread-workers-"
        f"{args.batches_per_task}batch-tasks.json"
    )
    out = args.out or ROOT / "benchmarks" / "runs" / name
    out.write_text(json.dumps(record, indent=1) + "\n")
    print(json.dumps(record["speedup_2_over_1_workers"], indent=1))
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
