"""The batched dense linear algebra kernels (LU with partial pivoting, Cholesky), registered
under their `tsjit.linalg_*` references. Their numba code is `dialects/torch/matrix_kernels.py`,
shared with the eager reference of the `torch.linalg` ops."""

from __future__ import annotations

from dialects.torch import kernel_refs as refs
from dialects.torch.matrix_kernels import (
    cholesky_kernel,
    det_kernel,
    inverse_kernel,
    slogdet_kernel,
)
from lowering.run.kernel import Kernel

KERNELS = (
    Kernel(refs.LINALG_INVERSE, inverse_kernel),
    Kernel(refs.LINALG_DET, det_kernel),
    Kernel(refs.LINALG_SLOGDET, slogdet_kernel),
    Kernel(refs.LINALG_CHOLESKY, cholesky_kernel),
)
