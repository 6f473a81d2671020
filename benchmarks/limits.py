"""`python -m benchmarks.limits`: how fast this machine can run issue 6's workloads at best,
next to the targets.

A target is a ratio to PyTorch eager in the same run, so the time it asks for is the ratio
times torch's time, measured here again. Three floors bound what any implementation can do:

- read floor: reading the inputs once, timed by the fastest reader measured here (numba
  streams of independent sums, `torch.sum`). A program must read its inputs: nothing is
  faster than this.
- traffic floor: reading the inputs and writing an output of the result's size with the
  least possible work (`out = x + b`, `out = x`), by the fastest of plain numba loops,
  numba loops with non-temporal (streaming) stores and torch's `add(out=)` / `copy_`.
- compute floor: the workload's multiply-adds at the rate of the fastest matrix product
  measured here (`torch.mm` and tsjit's own matmul on square and on the workloads' shapes):
  the best rate this machine showed, not a datasheet number.

All arrays here fit the 260 MB L3 cache of the machine this was written on, as the
workloads' do; every time is the minimum over repeated batches (a floor wants the best case,
the benchmark table reports medians). Threads: one per core for numba and torch, as in
`python -m benchmarks`.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numba
import numpy as np
from llvmlite import ir
from numba import prange
from numba.core import cgutils, types
from numba.extending import intrinsic

from benchmarks.run import configure_threads, machine, torch_impl
from benchmarks.timing import format_time
from benchmarks.workloads import WORKLOADS, Workload

REPEATS = 15
LANES = 128  # independent partial sums per reader thread: enough to hide the add latency

TARGETS = {"W1": 0.25, "W1b": 0.15, "W2": 0.9, "W3": 0.6, "W4": 1.0, "W5": 0.6}


# ---- the machine's own rates ----


@intrinsic
def streaming_store(typingctx: Any, array: Any, index: Any, value: Any) -> Any:
    """`array[index] = value` as a store with `!nontemporal` metadata (no read for ownership
    of the cache line, written around the caches)."""

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        view = context.make_array(array)(context, builder, args[0])
        pointer = cgutils.get_item_pointer(context, builder, array, view, [args[1]])
        store = builder.store(args[2], pointer)
        one = builder.module.add_metadata([ir.Constant(ir.IntType(32), 1)])
        store.set_metadata("nontemporal", one)
        return context.get_dummy_value()

    return types.none(array, index, value), codegen


@numba.njit(parallel=True, fastmath=True)
def read_all(x: np.ndarray) -> float:
    chunks = numba.get_num_threads()
    rows = x.size // LANES
    totals = np.zeros(chunks, dtype=np.float32)
    for t in prange(chunks):
        acc = np.zeros(LANES, dtype=np.float32)
        for row in range(t * rows // chunks, (t + 1) * rows // chunks):
            for k in range(LANES):
                acc[k] += x[row * LANES + k]
        totals[t] = acc.sum()
    return totals.sum()


@numba.njit(parallel=True, fastmath=True)
def add_into(x: np.ndarray, b: np.ndarray, out: np.ndarray) -> None:
    for i in prange(x.size):
        out[i] = x[i] + b[i]


@numba.njit(parallel=True, fastmath=True)
def add_into_streaming(x: np.ndarray, b: np.ndarray, out: np.ndarray) -> None:
    for i in prange(x.size):
        streaming_store(out, i, x[i] + b[i])


@numba.njit(parallel=True, fastmath=True)
def copy_into(x: np.ndarray, out: np.ndarray) -> None:
    for i in prange(x.size):
        out[i] = x[i]


@numba.njit(parallel=True, fastmath=True)
def copy_into_streaming(x: np.ndarray, out: np.ndarray) -> None:
    for i in prange(x.size):
        streaming_store(out, i, x[i])


def best_time(call: Callable[[], Any], repeats: int = REPEATS) -> float:
    """The fastest call, timed in batches of about 2 ms after two warm-up calls."""
    call()
    call()
    start = time.perf_counter()
    call()
    batch = max(1, int(2e-3 / max(time.perf_counter() - start, 1e-9)))
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(batch):
            call()
        best = min(best, (time.perf_counter() - start) / batch)
    return best


def read_time(arrays: list[np.ndarray]) -> dict[str, float]:
    """Seconds to read every array once, per reader."""
    import torch

    flat = [np.ascontiguousarray(a).reshape(-1) for a in arrays]
    tensors = [torch.from_numpy(a) for a in flat]
    return {
        "numba sums": best_time(lambda: [read_all(a) for a in flat]),
        "torch.sum": best_time(lambda: [t.sum() for t in tensors]),
    }


def traffic_time(inputs: list[np.ndarray], out_elements: int) -> dict[str, float]:
    """Seconds to read one or two equally long float32 inputs and write `out_elements`."""
    import torch

    flat = [np.ascontiguousarray(a).reshape(-1)[:out_elements] for a in inputs]
    out = np.empty(out_elements, dtype=np.float32)
    t_in = [torch.from_numpy(a) for a in flat]
    t_out = torch.from_numpy(out)
    if len(flat) == 2:
        x, b = flat
        return {
            "numba x + b": best_time(lambda: add_into(x, b, out)),
            "numba x + b, streaming stores": best_time(lambda: add_into_streaming(x, b, out)),
            "torch.add(out=)": best_time(lambda: torch.add(t_in[0], t_in[1], out=t_out)),
        }
    (x,) = flat
    return {
        "numba copy": best_time(lambda: copy_into(x, out)),
        "numba copy, streaming stores": best_time(lambda: copy_into_streaming(x, out)),
        "torch copy_": best_time(lambda: t_out.copy_(t_in[0])),
    }


GEMM_SHAPES = ((2048, 2048, 2048), (1024, 1024, 1024), (256, 1024, 1024), (3200, 256, 256))


def gemm_rate() -> dict[str, float]:
    """The best multiply-add FLOP/s of a float32 matrix product per implementation, over
    square products and the workloads' own shapes (W4's layers, W5's inputs of all steps)."""
    import torch

    import frontend

    rng = np.random.default_rng(0)
    matmul = frontend.script(scripted_matmul)
    rates = {"torch.mm": 0.0, "tsjit matmul": 0.0}
    for m, k, n in GEMM_SHAPES:
        a = rng.standard_normal((m, k), dtype=np.float32)
        b = rng.standard_normal((k, n), dtype=np.float32)
        ta, tb = torch.from_numpy(a), torch.from_numpy(b)
        flops = 2.0 * m * k * n
        torch_rate = flops / best_time(lambda ta=ta, tb=tb: torch.mm(ta, tb), repeats=5)
        tsjit_rate = flops / best_time(lambda a=a, b=b: matmul(a, b), repeats=5)
        rates["torch.mm"] = max(rates["torch.mm"], torch_rate)
        rates["tsjit matmul"] = max(rates["tsjit matmul"], tsjit_rate)
    return rates


def scripted_matmul(a, b):  # compiled by `gemm_rate` (frontend.script reads a def's source)
    return a @ b


# ---- the workloads' floors ----


@dataclass(frozen=True)
class Floors:
    """What a workload must at least move or compute (only the kinds that bound it)."""

    reads: tuple[int, ...] = ()  # input arrays whose reading is the read floor
    traffic: bool = False  # also read them and write the result
    flops: float = 0.0


def workload_floors(workload: Workload, inputs: tuple[np.ndarray, ...]) -> Floors:
    """Elementwise and row-wise workloads are bound by memory, the products by FLOPs."""
    if workload.name in ("W1", "W1b"):
        return Floors(reads=(0, 1), traffic=True)
    if workload.name in ("W2", "W3"):
        return Floors(reads=(0,), traffic=True)
    if workload.name == "W4":
        x, w1, _, w2, _ = inputs
        return Floors(flops=2.0 * x.shape[0] * (w1.size + w2.size))
    if workload.name == "W5":
        x, _, w, u, _ = inputs
        steps, batch, hidden = x.shape
        return Floors(flops=steps * 2.0 * batch * (hidden * w.shape[1] + u.shape[0] * u.shape[1]))
    raise ValueError(f"no floors for {workload.name}")


def measure_workload(workload: Workload, rates: dict[str, float]) -> dict[str, Any]:
    inputs = workload.make_inputs(np.random.default_rng(0))
    floors = workload_floors(workload, inputs)
    torch_s = best_time(torch_impl(workload, inputs))
    record: dict[str, Any] = {
        "torch_best_s": torch_s,
        "target": TARGETS[workload.name],
        "target_s": TARGETS[workload.name] * torch_s,
    }
    if floors.reads:
        arrays = [inputs[i] for i in floors.reads]
        record["read_s"] = read_time(arrays)
        if floors.traffic:
            record["traffic_s"] = traffic_time(arrays, inputs[0].size)
    if floors.flops:
        record["flops"] = floors.flops
        record["compute_s"] = {name: floors.flops / rate for name, rate in rates.items()}
    return record


def verdict(record: dict[str, Any]) -> str:
    target = record["target_s"]
    if "read_s" in record and target < min(record["read_s"].values()):
        return "below the read floor: not reachable here"
    if "traffic_s" in record and target < min(record["traffic_s"].values()):
        return "below the traffic floor: not reachable with the stores measured here"
    if "compute_s" in record:
        share = min(record["compute_s"].values()) / target
        return f"needs {share:.0%} of the best matrix-product rate measured here"
    return "above the floors"


# ---- command line ----


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.limits", description=__doc__)
    parser.add_argument("workloads", nargs="*", help=f"subset of {sorted(TARGETS)}")
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--json", default=None, help="also write the measurements here")
    args = parser.parse_args(argv)
    names = args.workloads or sorted(TARGETS)
    unknown = sorted(set(names) - set(TARGETS))
    if unknown:
        parser.error(f"no floors for {unknown}; known: {sorted(TARGETS)}")
    report: dict[str, Any] = {"machine": machine(), "threads": configure_threads(args.threads)}
    rates = gemm_rate()
    report["gemm_flop_per_s"] = rates
    print(
        "fastest float32 matrix product: "
        + ", ".join(f"{name} {rate / 1e9:.0f} GFLOP/s" for name, rate in rates.items())
    )
    by_name = {w.name: w for w in WORKLOADS}
    report["workloads"] = {}
    print(
        "| workload | torch (best) | target | target time | read floor | traffic floor "
        "| compute floor | verdict |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for name in names:
        record = measure_workload(by_name[name], rates)
        record["verdict"] = verdict(record)
        report["workloads"][name] = record
        print(table_row(name, record))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=1)
        print(f"written to {args.json}")


def table_row(name: str, record: dict[str, Any]) -> str:
    def fastest(key: str) -> str:
        if key not in record:
            return ""
        label, seconds = min(record[key].items(), key=lambda item: item[1])
        return f"{format_time(seconds)} ({label})"

    return (
        f"| {name} | {format_time(record['torch_best_s'])} | {record['target']} "
        f"| {format_time(record['target_s'])} | {fastest('read_s')} | {fastest('traffic_s')} "
        f"| {fastest('compute_s')} | {record['verdict']} |"
    )


if __name__ == "__main__":
    main()
