"""numba kernels for the ops computed row by row along one dim: sorting, selection and scans.

Sorts, top-k, k-th values, medians and cumulative sums have no `linalg` form (each output
element depends on a whole row in a data-dependent order, or on a prefix of it). They lower
to a destination-passing call of one of these kernels (`lowering/torch_to_linalg/along_dim.py`,
through the custom-kernel calls of `lowering/kernel_calls.py`), registered under `tsjit.<name>`.

**Contract of every kernel** `kernel(x, outer, n, inner, *scalars, *outputs)`:
- `x` is the input in any layout; the kernel reads it as a C-ordered `[outer, n, inner]` array
  (`outer` the product of the sizes before the dim, `n` the dim's size, `inner` the product of
  those after it; a whole-tensor op passes `1, numel, 1`);
- `scalars` are ints (flags as 0 / 1) described per kernel;
- each output is a fresh C-contiguous buffer (the caller's `tensor.empty`) of
  `outer * m * inner` elements for the kernel's `m` (n, k or 1) in its result dtype; the
  kernel writes all of it and reads nothing else of it. Indices are int64 positions along
  the dim.
Rows are processed one after another (serial); each kernel is a numba function cached on disk.

**Order** (as in torch): NaN sorts above every number; sorts are stable, so equal elements keep
their order (descending too); `topk` and `kthvalue` pick from that stable order, so among tied
values they give the lowest indices first (torch's own selection may pick another of the tied
indices; the values are the same).
"""

from __future__ import annotations

import math

import numba
import numpy as np

from dialects.torch import kernel_refs as refs
from lowering.run.kernel import Kernel

jit = numba.njit(cache=True, nogil=True)


@jit
def _rows(x, outer, n, inner):  # type: ignore[no-untyped-def]
    return np.ascontiguousarray(x).reshape((outer, n, inner))


@jit
def _sorted_positions(row, descending):  # type: ignore[no-untyped-def]
    """Positions of `row` in stable sorted order; NaN above every number."""
    n = row.size
    if not descending:
        return np.argsort(row, kind="mergesort")
    # a stable ascending sort of the reversed row, read backwards: descending, ties in order
    order = np.argsort(row[::-1].copy(), kind="mergesort")
    result = np.empty(n, np.int64)
    for j in range(n):
        result[j] = n - 1 - order[n - 1 - j]
    return result


@jit
def _before(a, b, descending):  # type: ignore[no-untyped-def]
    """Whether `a` comes strictly before `b` in sorted order (NaN above every number)."""
    if descending:
        return a > b or (a != a and b == b)
    return a < b or (b != b and a == a)


@jit
def _first_positions(row, k, descending):  # type: ignore[no-untyped-def]
    """The positions of the first `k` elements of `row` in stable sorted order, without
    sorting it: an insertion into the k best so far (a tie does not pass an earlier one)."""
    best = np.empty(k, np.int64)
    count = 0
    for j in range(row.size):
        v = row[j]
        if count == k and (k == 0 or not _before(v, row[best[k - 1]], descending)):
            continue
        p = count if count < k else k - 1
        while p > 0 and _before(v, row[best[p - 1]], descending):
            best[p] = best[p - 1]
            p -= 1
        best[p] = j
        count = min(count + 1, k)
    return best


SELECT_BELOW = 16  # topk of k with k * SELECT_BELOW <= n selects by insertion, not by a sort


# ---- sorting and selection ----


@jit
def sort_kernel(x, outer, n, inner, descending, k, values, indices):  # type: ignore[no-untyped-def]
    """The first `k` elements of each row in sorted order (`descending` 0 / 1) and their
    positions: `values` and `indices` are `[outer, k, inner]`; `k` < 0: the whole row. A
    small `k` selects without sorting the row (same result)."""
    rows = _rows(x, outer, n, inner)
    if k < 0:
        k = n
    if k > n:  # a row size known only at run time
        raise ValueError("selected index k out of range")
    out_values = values.reshape((outer, k, inner))
    out_indices = indices.reshape((outer, k, inner))
    row = np.empty(n, rows.dtype)
    for a in range(outer):
        for i in range(inner):
            for j in range(n):
                row[j] = rows[a, j, i]
            if k * SELECT_BELOW <= n:
                order = _first_positions(row, k, descending != 0)
            else:
                order = _sorted_positions(row, descending != 0)
            for j in range(k):
                out_values[a, j, i] = row[order[j]]
                out_indices[a, j, i] = order[j]


@jit
def kth_kernel(x, outer, n, inner, k, median, values, indices):  # type: ignore[no-untyped-def]
    """The `k`-th smallest element (0-based) of each row and its position: `values` and
    `indices` hold `outer * inner` elements. With `median` set, `k` is (n - 1) // 2 (the
    lower median) and a row holding NaN gives its first NaN (torch.median propagates NaN);
    otherwise NaN sorts above every number."""
    rows = _rows(x, outer, n, inner)
    if median != 0:
        k = (n - 1) // 2
    elif not 0 <= k < n:  # a row size known only at run time
        raise ValueError("kthvalue(): selected number k out of range")
    out_values = values.reshape((outer, 1, inner))
    out_indices = indices.reshape((outer, 1, inner))
    row = np.empty(n, rows.dtype)
    for a in range(outer):
        for i in range(inner):
            first_nan = -1
            for j in range(n):
                row[j] = rows[a, j, i]
                if first_nan < 0 and row[j] != row[j]:
                    first_nan = j
            if n == 0:  # torch.median of an empty tensor
                out_values[a, 0, i] = np.nan
                out_indices[a, 0, i] = 0
                continue
            if median != 0 and first_nan >= 0:
                position = first_nan
            else:
                position = _sorted_positions(row, False)[k]
            out_values[a, 0, i] = row[position]
            out_indices[a, 0, i] = position


@jit
def mode_kernel(x, outer, n, inner, values, indices):  # type: ignore[no-untyped-def]
    """The most frequent value of each row (the smallest among equally frequent ones; NaNs
    never equal each other) and the index of its last occurrence, as torch.mode."""
    rows = _rows(x, outer, n, inner)
    out_values = values.reshape((outer, 1, inner))
    out_indices = indices.reshape((outer, 1, inner))
    row = np.empty(n, rows.dtype)
    for a in range(outer):
        for i in range(inner):
            for j in range(n):
                row[j] = rows[a, j, i]
            order = _sorted_positions(row, False)
            best, best_count, run = 0, 0, 0
            for j in range(n):  # runs of equal values in ascending order; ties in index order
                run = run + 1 if j > 0 and row[order[j]] == row[order[j - 1]] else 1
                if run > best_count:  # a longer run, or the best one again, one later
                    best, best_count = j, run
            out_values[a, 0, i] = row[order[best]]
            out_indices[a, 0, i] = order[best]


# ---- scans ----


@jit
def cumsum_kernel(x, outer, n, inner, values):  # type: ignore[no-untyped-def]
    """Running sums along the dim, accumulated in the dtype of `values`."""
    rows = _rows(x, outer, n, inner)
    out = values.reshape((outer, n, inner))
    for a in range(outer):
        for i in range(inner):
            acc = out.dtype.type(0)
            for j in range(n):
                acc += rows[a, j, i]
                out[a, j, i] = acc


@jit
def cumprod_kernel(x, outer, n, inner, values):  # type: ignore[no-untyped-def]
    """Running products along the dim, accumulated in the dtype of `values`."""
    rows = _rows(x, outer, n, inner)
    out = values.reshape((outer, n, inner))
    for a in range(outer):
        for i in range(inner):
            acc = out.dtype.type(1)
            for j in range(n):
                acc *= rows[a, j, i]
                out[a, j, i] = acc


@jit
def cumextreme_kernel(x, outer, n, inner, largest, values, indices):  # type: ignore[no-untyped-def]
    """Running max (`largest` 1) or min and the position it was last reached at (torch: a tie
    moves the index forward; the first NaN, and every later NaN, takes over)."""
    rows = _rows(x, outer, n, inner)
    out_values = values.reshape((outer, n, inner))
    out_indices = indices.reshape((outer, n, inner))
    for a in range(outer):
        for i in range(inner):
            best = rows[a, 0, i]
            at = 0
            for j in range(n):
                v = rows[a, j, i]
                wins = v >= best if largest != 0 else v <= best
                if wins or v != v:
                    best = v
                    at = j
                out_values[a, j, i] = best
                out_indices[a, j, i] = at


@jit
def logcumsumexp_kernel(x, outer, n, inner, values):  # type: ignore[no-untyped-def]
    """Running log(sum(exp)) along the dim, in the dtype of `values`, without overflow:
    log(e^a + e^b) = max + log1p(e^(min - max)); equal infinities stay themselves."""
    rows = _rows(x, outer, n, inner)
    out = values.reshape((outer, n, inner))
    for a in range(outer):
        for i in range(inner):
            acc = -math.inf
            for j in range(n):
                v = float(rows[a, j, i])
                if acc != acc or v != v:
                    acc = math.nan
                elif acc == v:
                    acc = acc + math.log(2.0) if math.isfinite(acc) else acc
                else:
                    high, low = max(acc, v), min(acc, v)
                    acc = high + math.log1p(math.exp(low - high))
                out[a, j, i] = acc


KERNELS = (
    Kernel(refs.SORT, sort_kernel),
    Kernel(refs.KTH, kth_kernel),
    Kernel(refs.MODE, mode_kernel),
    Kernel(refs.CUMSUM, cumsum_kernel),
    Kernel(refs.CUMPROD, cumprod_kernel),
    Kernel(refs.CUMEXTREME, cumextreme_kernel),
    Kernel(refs.LOGCUMSUMEXP, logcumsumexp_kernel),
)
