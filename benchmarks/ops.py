"""Common single ops, tsjit against PyTorch eager: finds the ops far from torch's speed.

`python -m benchmarks.ops [NAME ...] [--threads N] [--budget S]`

The workloads of issue 6 (`python -m benchmarks`) are a few programs; this is a wider net of
one-op programs a user is likely to write (elementwise maths, broadcasting, reductions over
each kind of dim, batched matmuls, pooling, convolution, concatenation, slicing). Each output
is compared with torch's first (a wrong one is reported, not timed); times are medians of
about `--budget` seconds of calls after a warm-up, with torch and numba on the same threads.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F


def add(x, y):
    return x + y


def add_row(x, r):
    return x + r


def mul_column(x, c):
    return x * c


def transpose_add(x, y):
    return x.t() + y


def bmm(a, b):
    return torch.bmm(a, b)


def attention_scores(q, k):
    return q @ k.transpose(-2, -1)


def matmul_512(a, b):
    return a @ b


def linear_3d(x, w, b):
    return F.linear(x, w, b)


def matvec(a, v):
    return a @ v


def gelu(x):
    return F.gelu(x)


def silu(x):
    return F.silu(x)


def exp(x):
    return torch.exp(x)


def log(x):
    return torch.log(x)


def clamp(x):
    return torch.clamp(x, -0.5, 0.5)


def where(x, y):
    return torch.where(x > 0, x, y)


def row_max(x):
    return x.max(-1)[0]


def row_argmax(x):
    return x.argmax(-1)


def row_var(x):
    return x.var(-1)


def column_sum(x):
    return x.sum(0)


def middle_sum(x):
    return x.sum(1)


def total_sum(x):
    return x.sum()


def mean_square_error(y, t):
    return ((y - t) ** 2).mean()


def softmax_dim0(x):
    return torch.softmax(x, 0)


def layer_norm_64(x, w, b):
    return F.layer_norm(x, [64], w, b)


def max_pool(x):
    return F.max_pool2d(x, 2)


def avg_pool(x):
    return F.avg_pool2d(x, 2)


def conv_16_32(x, w):
    return F.conv2d(x, w, None, 1, 1)


def cat_rows(x, y):
    return torch.cat([x, y], 0)


def strided_slice(x):
    return x[:, ::2] + 1


def _random(rng: np.random.Generator, *shape: int) -> np.ndarray:
    return rng.standard_normal(shape, dtype=np.float32)


def cases(rng: np.random.Generator) -> list[tuple[Callable[..., Any], tuple[np.ndarray, ...]]]:
    def r(*shape: int) -> np.ndarray:
        return _random(rng, *shape)

    big = (2048, 1024)
    return [
        (add, (r(*big), r(*big))),
        (add_row, (r(*big), r(1024))),
        (mul_column, (r(*big), r(2048, 1))),
        (transpose_add, (r(1024, 1024), r(1024, 1024))),
        (bmm, (r(32, 128, 64), r(32, 64, 128))),
        (attention_scores, (r(2, 4, 128, 64), r(2, 4, 128, 64))),
        (matmul_512, (r(512, 512), r(512, 512))),
        (linear_3d, (r(8, 128, 256), r(512, 256), r(512))),
        (matvec, (r(1024, 1024), r(1024))),
        (gelu, (r(*big),)), (silu, (r(*big),)), (exp, (r(*big),)), (log, (np.abs(r(*big)) + 0.1,)),
        (clamp, (r(*big),)), (where, (r(*big), r(*big))),
        (row_max, (r(*big),)), (row_argmax, (r(*big),)), (row_var, (r(*big),)),
        (column_sum, (r(*big),)), (middle_sum, (r(64, 256, 128),)), (total_sum, (r(*big),)),
        (mean_square_error, (r(*big), r(*big))), (softmax_dim0, (r(1024, 1024),)),
        (layer_norm_64, (r(4096, 64), r(64), r(64))),
        (max_pool, (r(8, 16, 64, 64),)), (avg_pool, (r(8, 16, 64, 64),)),
        (conv_16_32, (r(8, 16, 32, 32), r(32, 16, 3, 3))),
        (cat_rows, (r(1024, 1024), r(1024, 1024))), (strided_slice, (r(*big),)),
    ]  # fmt: skip


def median_time(call: Callable[[], Any], budget: float) -> float:
    call()
    samples: list[float] = []
    deadline = time.perf_counter() + budget
    while len(samples) < 5 or time.perf_counter() < deadline:
        start = time.perf_counter()
        call()
        samples.append(time.perf_counter() - start)
    return float(np.median(samples))


def main(argv: list[str] | None = None) -> None:
    import numba

    import frontend

    parser = argparse.ArgumentParser(prog="python -m benchmarks.ops", description=__doc__)
    parser.add_argument("names", nargs="*", help="a subset of the ops, by function name")
    parser.add_argument("--threads", type=int, default=None, help="default: one per core")
    parser.add_argument("--budget", type=float, default=0.3, help="seconds of samples per timing")
    args = parser.parse_args(argv)
    threads = args.threads or numba.config.NUMBA_NUM_THREADS
    numba.set_num_threads(threads)
    torch.set_num_threads(threads)
    print(f"| op | tsjit | torch eager | tsjit / torch |  ({threads} threads)")
    print("|---|---|---|---|")
    for fn, arrays in cases(np.random.default_rng(0)):
        if args.names and fn.__name__ not in args.names:
            continue
        tensors = [torch.from_numpy(a) for a in arrays]
        compiled = frontend.script(fn)
        expected = fn(*tensors).numpy()
        actual = np.asarray(compiled(*arrays))
        if actual.shape != expected.shape or not np.allclose(actual, expected, 1e-3, 1e-3):
            print(f"| {fn.__name__} | wrong result | | |", flush=True)
            continue
        ours = median_time(lambda: compiled(*arrays), args.budget)  # noqa: B023
        theirs = median_time(lambda: fn(*tensors), args.budget)  # noqa: B023
        row = (
            f"| {fn.__name__} | {ours * 1e3:.3f} ms | {theirs * 1e3:.3f} ms | {ours / theirs:.2f} |"
        )
        print(row, flush=True)


if __name__ == "__main__":
    main()
