"""numba kernels for `torch.aten.nonzero`, the one op whose result size depends on its values.

Every value-sized op (`x[mask]`, `masked_select`, `argwhere`, `torch.where(cond)`, `unique`)
decomposes to `nonzero` and ops of known sizes (`dialects/torch/ops/value_sized.py`), so two
kernels suffice. `lowering/torch_to_linalg/value_sized.py` calls them in two steps: the count
first, then the positions into a buffer allocated with that count.

**Contracts** (destination passing, as every kernel of `lowering/kernel_calls.py`):
- `count_nonzero_kernel(x, count)`: `x` any array (any layout, rank 0 included); `count` a
  fresh 1-element int64 buffer that receives how many elements of `x` are not zero (NaN is not
  zero, as in torch).
- `nonzero_kernel(x, out)`: `out` a fresh C-contiguous int64 `[n, x.ndim]` buffer, `n` the
  count above; row k receives the coordinates of the k-th nonzero element of `x` in row-major
  order (`[n, 0]` for a 0-d `x`). ValueError if `n` is not the count.
"""

from __future__ import annotations

import numba
import numpy as np

from dialects.torch import kernel_refs as refs
from lowering.run.kernel import Kernel

jit = numba.njit(cache=True, nogil=True)


@jit
def count_nonzero_kernel(x, count):  # type: ignore[no-untyped-def]
    """How many elements of `x` are not zero, into `count[0]`."""
    flat = x.ravel()
    n = 0
    for k in range(flat.size):
        if flat[k] != 0:
            n += 1
    count[0] = n


@jit
def nonzero_kernel(x, out):  # type: ignore[no-untyped-def]
    """The row-major coordinates of each nonzero element of `x`, one row each, into `out`."""
    rank = x.ndim
    sizes = np.empty(rank, np.int64)
    for d in range(rank):
        sizes[d] = x.shape[d]
    flat = x.ravel()
    row = 0
    for k in range(flat.size):
        if flat[k] == 0:
            continue
        if row >= out.shape[0]:
            raise ValueError("nonzero(): more nonzero elements than the result has rows")
        rest = k
        for d in range(rank - 1, -1, -1):
            out[row, d] = rest % sizes[d]
            rest //= sizes[d]
        row += 1
    if row != out.shape[0]:
        raise ValueError("nonzero(): fewer nonzero elements than the result has rows")


KERNELS = (
    Kernel(refs.COUNT_NONZERO, count_nonzero_kernel),
    Kernel(refs.NONZERO, nonzero_kernel),
)
