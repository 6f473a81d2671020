"""The numba kernels of `index_put` (`y[idx] = v`) and `masked_scatter` (`y[mask] = v` with
one value per masked element): serial loops over the written values.

Writing at data-dependent positions has no parallel `linalg` form that stays linear in the
sizes (a generic over the result would scan every index for every element), and a repeated
index with `accumulate` must add each value. `lowering/torch_to_linalg/index_put.py` computes
the flat offsets in linalg and calls this kernel (registered as `tsjit.index_put`; the other
is `tsjit.masked_scatter`) through the destination-passing calls of `lowering/kernel_calls.py`.

**Contract** `index_put_kernel(x, values, offsets, kept, outer, count, inner, single,
accumulate, out)`:
- `x` (any layout) is the tensor written into; `out`, a fresh C-contiguous buffer of its
  shape and dtype, receives a copy of it, then the writes;
- `offsets` (int64, `count` elements, any layout) holds the row-major offset in `x` of each
  index position (the index dims' part), or -1 for a position whose index is out of range
  (the kernel then raises IndexError before writing anything);
- `kept` (int64, `outer * inner` elements) holds the offset of each position of the dims
  the indices keep whole: the first `outer` of them come before the index dims in the
  indexed shape, the last `inner` after;
- `values` (x's dtype) holds `outer * count * inner` elements in row-major order of the
  indexed shape `[outer, count, inner]`, or one element used everywhere (`single` = 1);
- `accumulate` (0 / 1): add the values instead of writing them; without it, the last write
  of a position (in the order above) wins.
"""

from __future__ import annotations

import numba
import numpy as np

from dialects.torch import kernel_refs as refs
from lowering.run.kernel import Kernel

jit = numba.njit(cache=True, nogil=True)


@jit
def _flat(a):  # type: ignore[no-untyped-def]
    """`a` as a 1-D array (a copy only when `a` is not contiguous; 0-d gives 1 element)."""
    return np.ascontiguousarray(a).reshape(a.size)


@jit
def index_put_kernel(x, values, offsets, kept, outer, count, inner, single, accumulate, out):  # type: ignore[no-untyped-def]
    """See the module docstring."""
    written = out.reshape(out.size)
    written[:] = _flat(x)
    positions = _flat(offsets)
    for b in range(count):
        if positions[b] < 0:
            raise IndexError("index_put(): an index is out of range for the dim it indexes")
    source = _flat(values)
    whole = _flat(kept)
    for a in range(outer):
        for b in range(count):
            base = positions[b]
            for c in range(inner):
                at = base + whole[a * inner + c]
                value = source[0] if single else source[(a * count + b) * inner + c]
                if accumulate:
                    written[at] = written[at] + value
                else:
                    written[at] = value


@jit
def masked_scatter_kernel(x, mask, source, exact, accumulate, out):  # type: ignore[no-untyped-def]
    """`out` = `x` with its elements where `mask` (x's shape, any layout) is set replaced by
    (or, with `accumulate` = 1, added) the elements of `source` in order (row-major, both).
    Too few source elements (or, with `exact` = 1, not exactly one per masked element:
    `y[mask] = v`) raise ValueError."""
    written = out.reshape(out.size)
    written[:] = _flat(x)
    chosen = _flat(mask)
    values = _flat(source)
    count = 0
    for i in range(chosen.size):
        if chosen[i]:
            count += 1
    if exact and count != values.size:
        raise ValueError(
            "shape mismatch: x[mask] = v needs one value of v for every element of the mask that "
            "is set"
        )
    if count > values.size:
        raise ValueError("masked_scatter: the source has fewer elements than the mask has ones")
    j = 0
    for i in range(chosen.size):
        if chosen[i]:
            written[i] = written[i] + values[j] if accumulate else values[j]
            j += 1


KERNELS = (
    Kernel(refs.INDEX_PUT, index_put_kernel),
    Kernel(refs.MASKED_SCATTER, masked_scatter_kernel),
)
