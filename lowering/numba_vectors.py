"""Full-width vectors for numba: AVX-512 code on CPUs that have it, set before numba loads.

LLVM tunes recent Intel server CPUs (`emeraldrapids` here) with `prefer-256-bit`: loops that
could use 512-bit vectors are vectorized with 256-bit ones. Without it (measured, one
thread, `python -m benchmarks W1 W2 --threads 1`, two rounds): W1 7.45 / 5.77 ms -> 4.39 /
4.22 ms, W2 0.94 / 0.74 ms -> 0.77 / 0.61 ms, the matmul and conv workloads unchanged.

numba takes its target features from `NUMBA_CPU_FEATURES` when it is first imported, so
`prefer_full_vectors()` sets that variable (the host's features and `-prefer-256-bit`) if
numba is not imported yet, the variable is unset, the CPU has AVX-512 and
`TSJIT_FULL_VECTORS` is not `0`. Like numba's own variables it holds for the whole process
(and its children); numba's disk cache keys its entries by the features, so code compiled
with other features is compiled again, never reused.
"""

from __future__ import annotations

import os
import sys


def prefer_full_vectors() -> bool:
    """Sets `NUMBA_CPU_FEATURES` as described in the module doc; whether it did."""
    if os.environ.get("TSJIT_FULL_VECTORS", "1") == "0":
        return False
    if "NUMBA_CPU_FEATURES" in os.environ or "numba" in sys.modules:
        return False
    import llvmlite.binding as llvm

    features = llvm.get_host_cpu_features().flatten()
    if "+avx512f" not in features.split(","):
        return False
    os.environ["NUMBA_CPU_FEATURES"] = features + ",-prefer-256-bit"
    return True
