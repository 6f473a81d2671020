"""The built-in kernels that ops lower to, by typed reference.

An op computed by a numba kernel rather than a loop nest (a sort, a scan, a matrix
factorization, `index_put`, `nonzero`) names its kernel with one of these `KernelRef`s:
`AtenSortOp.KERNEL = SORT`. `lowering/run/kernels/` implements each (a `Kernel` pairing the
reference with its numba function) and `lowering/run/custom_kernels.py` finds it by
`ref.name`, the name the generated code looks the kernel up by.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class KernelRef:
    """A built-in kernel, by the name generated code calls it (`tsjit.sort`)."""

    name: str


# along a dim (`lowering/run/kernels/along_dim.py`)
SORT = KernelRef("tsjit.sort")
KTH = KernelRef("tsjit.kth")
MODE = KernelRef("tsjit.mode")
CUMSUM = KernelRef("tsjit.cumsum")
CUMPROD = KernelRef("tsjit.cumprod")
CUMEXTREME = KernelRef("tsjit.cumextreme")
LOGCUMSUMEXP = KernelRef("tsjit.logcumsumexp")
# batches of square matrices (`dialects/torch/matrix_kernels.py`)
LINALG_INVERSE = KernelRef("tsjit.linalg_inverse")
LINALG_DET = KernelRef("tsjit.linalg_det")
LINALG_SLOGDET = KernelRef("tsjit.linalg_slogdet")
LINALG_CHOLESKY = KernelRef("tsjit.linalg_cholesky")
# writes at index tensors (`lowering/run/kernels/index_put.py`)
INDEX_PUT = KernelRef("tsjit.index_put")
MASKED_SCATTER = KernelRef("tsjit.masked_scatter")
# value-sized results (`lowering/run/kernels/value_sized.py`)
COUNT_NONZERO = KernelRef("tsjit.count_nonzero")
NONZERO = KernelRef("tsjit.nonzero")
