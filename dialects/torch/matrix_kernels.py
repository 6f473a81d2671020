"""numba kernels for dense linear algebra on batches of square matrices: LU with partial
pivoting (inverse, determinant, sign and log of its magnitude) and Cholesky.

They are both the eager reference of the `torch.linalg` ops (`dialects/torch/ops/
linear_algebra.py`) and, registered by `lowering/run/kernels/linear_algebra.py`, the kernels
their lowered calls run: one implementation, so eager and compiled results agree.

There is no LAPACK here (no scipy, so numba's `np.linalg` is unavailable): these are the
textbook algorithms, computed in float64 whatever the input's float type, one matrix after
another. They follow the calling contract of `lowering/run/kernels/along_dim.py`
`kernel(x, outer, n, inner, *scalars, *outputs)`, with the rows dim the second to last: `x` is
read as `[outer, n, inner]`, that is `outer` matrices of n x n (`inner == n`).

Errors are torch's: a singular matrix has no inverse (`linalg.inv: The diagonal element k is
zero, ...`), a matrix that is not positive-definite no Cholesky factor (RuntimeError, as
`torch.linalg.LinAlgError` is a RuntimeError).
"""

from __future__ import annotations

import math

import numba
import numpy as np

jit = numba.njit(cache=True, nogil=True)


@jit
def _matrices(x, outer, n):  # type: ignore[no-untyped-def]
    return np.ascontiguousarray(x).reshape((outer, n, n)).astype(np.float64)


@jit
def _batch_element(batched, b):  # type: ignore[no-untyped-def]
    """torch's prefix of an error about matrix `b` of a batch (none for a single matrix)."""
    return "(Batch element " + str(b) + "): " if batched else ""


@jit
def lu_factor(a):  # type: ignore[no-untyped-def]
    """`a` (float64, n x n) overwritten by its LU factors with partial pivoting (row swaps in
    the returned permutation); also the number of swaps and the first zero pivot's 1-based
    position (0 if none)."""
    n = a.shape[0]
    perm = np.arange(n)
    swaps = 0
    zero_pivot = 0
    for k in range(n):
        pivot = k
        for i in range(k + 1, n):
            if abs(a[i, k]) > abs(a[pivot, k]):
                pivot = i
        if pivot != k:
            for j in range(n):
                a[k, j], a[pivot, j] = a[pivot, j], a[k, j]
            perm[k], perm[pivot] = perm[pivot], perm[k]
            swaps += 1
        if a[k, k] == 0.0:
            if zero_pivot == 0:
                zero_pivot = k + 1
            continue
        for i in range(k + 1, n):
            a[i, k] /= a[k, k]
            factor = a[i, k]
            if factor != 0.0:
                for j in range(k + 1, n):
                    a[i, j] -= factor * a[k, j]
    return perm, swaps, zero_pivot


@jit
def inverse_kernel(x, outer, n, inner, batched, values):  # type: ignore[no-untyped-def]
    """The inverse of each matrix (torch's error for a singular one, naming the matrix when
    `batched`)."""
    mats = _matrices(x, outer, n)
    out = values.reshape((outer, n, n))
    for b in range(outer):
        a = mats[b]
        perm, _, zero_pivot = lu_factor(a)
        if zero_pivot:
            raise RuntimeError(
                "linalg.inv: "
                + _batch_element(batched, b)
                + "The diagonal element "
                + str(zero_pivot)
                + " is zero, the "
                "inversion could not be completed because the input matrix is singular."
            )
        for col in range(n):  # solve L U x = P e_col
            y = np.zeros(n)
            for i in range(n):
                acc = 1.0 if perm[i] == col else 0.0
                for j in range(i):
                    acc -= a[i, j] * y[j]
                y[i] = acc
            for i in range(n - 1, -1, -1):
                acc = y[i]
                for j in range(i + 1, n):
                    acc -= a[i, j] * y[j]
                y[i] = acc / a[i, i]
            for i in range(n):
                out[b, i, col] = y[i]


@jit
def slogdet_kernel(x, outer, n, inner, signs, logs):  # type: ignore[no-untyped-def]
    """Sign (0 if singular) and log|det| (-inf if singular) of each matrix."""
    mats = _matrices(x, outer, n)
    out_sign = signs.reshape(outer)
    out_log = logs.reshape(outer)
    for b in range(outer):
        a = mats[b]
        _, swaps, zero_pivot = lu_factor(a)
        sign = -1.0 if swaps % 2 else 1.0
        total = 0.0
        for i in range(n):
            if a[i, i] < 0:
                sign = -sign
            total += math.log(abs(a[i, i])) if a[i, i] != 0.0 else -math.inf
        out_sign[b] = 0.0 if zero_pivot else sign
        out_log[b] = -math.inf if zero_pivot else total


@jit
def det_kernel(x, outer, n, inner, values):  # type: ignore[no-untyped-def]
    """The determinant of each matrix: the product of U's diagonal, signed by the swaps."""
    mats = _matrices(x, outer, n)
    out = values.reshape(outer)
    for b in range(outer):
        a = mats[b]
        _, swaps, _ = lu_factor(a)
        det = -1.0 if swaps % 2 else 1.0
        for i in range(n):
            det *= a[i, i]
        out[b] = det


@jit
def cholesky_kernel(x, outer, n, inner, batched, upper, values):  # type: ignore[no-untyped-def]
    """The lower Cholesky factor L (A = L L^T) of each matrix, read from its lower triangle,
    or its transpose when `upper`; torch's error when a leading minor is not positive."""
    mats = _matrices(x, outer, n)
    out = values.reshape((outer, n, n))
    for b in range(outer):
        a = mats[b]
        factor = np.zeros((n, n))
        for j in range(n):
            acc = a[j, j]
            for k in range(j):
                acc -= factor[j, k] * factor[j, k]
            if not acc > 0.0:
                raise RuntimeError(
                    "linalg.cholesky: "
                    + _batch_element(batched, b)
                    + "The factorization could not be completed because the "
                    "input is not positive-definite (the leading minor of order "
                    + str(j + 1)
                    + " is not positive-definite)."
                )
            factor[j, j] = math.sqrt(acc)
            for i in range(j + 1, n):
                acc = a[i, j]
                for k in range(j):
                    acc -= factor[i, k] * factor[j, k]
                factor[i, j] = acc / factor[j, j]
        for i in range(n):
            for j in range(n):
                out[b, i, j] = factor[j, i] if upper else factor[i, j]
