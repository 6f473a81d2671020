"""`Kernel`: a built-in kernel, its reference (the name generated code calls it by) paired with
its numba function. The kernel libraries in `lowering/run/kernels/` declare theirs as a
`KERNELS` tuple; `lowering/run/custom_kernels.py` registers them all."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from dialects.torch.kernel_refs import KernelRef


@dataclass(frozen=True)
class Kernel:
    """`Kernel(SORT, sort_kernel)`: the kernel `tsjit.sort` is the numba function `sort_kernel`."""

    ref: KernelRef
    function: Any  # a numba dispatcher

    @property
    def name(self) -> str:
        return self.ref.name
