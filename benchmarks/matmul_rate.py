"""`python -m benchmarks.matmul_rate [--cpu NAME] [--calls N]`: the library matmul kernel at
W4's shape against torch.mm, F.linear and numpy (OpenBLAS), one thread each.

`c = a @ w.T + bias`, a [256, 1024], w [1024, 1024]: tsjit's `matmul_nt_bias` (its serial
variant, loaded from the shared module a program imports), `torch.mm(a, w.T)`,
`F.linear(a, w, bias)` and `np.dot(a, w.T)` on a contiguous w.T. The calls are interleaved
and each keeps its best of `--calls`, so a loaded machine slows all of them alike. `--cpu`
runs it under another machine model, the libraries held to its ISA (`benchmarks/isa.py`).
"""

from __future__ import annotations

import argparse
import os
import sys
import time

SHAPE = (256, 1024, 1024)


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.matmul_rate")
    parser.add_argument("--cpu", default=None, help="a TSJIT_CPU machine model (e.g. haswell)")
    parser.add_argument("--calls", type=int, default=40)
    args = parser.parse_args()
    for name in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "NUMBA_NUM_THREADS"):
        os.environ.setdefault(name, "1")
    from benchmarks.isa import MARK, library_environment

    if args.cpu is not None and os.environ.get(MARK) != args.cpu:
        env = dict(os.environ) | library_environment(args.cpu) | {"TSJIT_CPU": args.cpu}
        env[MARK] = args.cpu
        os.execve(
            sys.executable, [sys.executable, "-m", "benchmarks.matmul_rate", *sys.argv[1:]], env
        )
    print(rates(args.calls))


def kernel(name: str):  # type: ignore[no-untyped-def]
    from xdsl.dialects import func
    from xdsl.dialects.builtin import StringAttr

    from lowering.loops.library_calls import LIBRARY_ATTR
    from lowering.python_target.shared_modules import library_module
    from lowering.run.jit import load_module

    kind, dtype = name.removeprefix("tsjit_").rsplit("_", 1)
    declaration = func.FuncOp.external(f"tsjit.{kind}_{dtype}", [], [])
    declaration.attributes[LIBRARY_ATTR] = StringAttr(kind)
    shared = library_module(declaration, (name, f"{name}_parallel", f"{name}_serial"))
    return getattr(load_module(shared.source), f"{name}_serial")


def rates(calls: int) -> str:
    import numpy as np
    import torch

    from lowering.machine import MACHINE

    torch.set_num_threads(1)
    m, k, n = SHAPE
    rng = np.random.default_rng(0)
    a = rng.standard_normal((m, k), dtype=np.float32)
    w = rng.standard_normal((n, k), dtype=np.float32)
    bias, c = rng.standard_normal(n, dtype=np.float32), np.empty((m, n), np.float32)
    wt = np.ascontiguousarray(w.T)
    ta, tw, tb = torch.from_numpy(a), torch.from_numpy(w), torch.from_numpy(bias)
    tsjit = kernel("tsjit_matmul_nt_bias_f32")
    impls = {
        "tsjit": lambda: tsjit(a, w, bias, c),
        "torch.mm": lambda: torch.mm(ta, tw.T),
        "F.linear": lambda: torch.nn.functional.linear(ta, tw, tb),
        "numpy": lambda: np.dot(a, wt),
    }
    tsjit(a, w, bias, c)
    np.testing.assert_allclose(c, a.astype(np.float64) @ w.T + bias, rtol=1e-3, atol=1e-3)
    best = dict.fromkeys(impls, float("inf"))
    for _ in range(calls):
        for name, call in impls.items():
            start = time.perf_counter()
            call()
            best[name] = min(best[name], time.perf_counter() - start)
    gflop = 2 * m * k * n / 1e9
    rate = {name: gflop / t for name, t in best.items()}
    tiles = MACHINE.tiles
    figures = ", ".join(f"{name} {value:.1f}" for name, value in rate.items())
    return (
        f"{MACHINE.cpu} (tile {tiles.gemm_rows}x{tiles.gemm_cols}), load average "
        f"{os.getloadavg()[0]:.1f}: {figures} GFLOP/s; tsjit / torch.mm "
        f"{rate['tsjit'] / rate['torch.mm']:.2f}"
    )


if __name__ == "__main__":
    main()
