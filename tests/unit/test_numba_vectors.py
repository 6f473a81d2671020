"""numba's vector width (`lowering/numba_vectors.py`), checked in fresh processes."""

from __future__ import annotations

import os
import subprocess
import sys

import llvmlite.binding as llvm
import pytest

PROBE = (
    "import os, frontend; from numba.core import registry; "
    "print(os.environ.get('NUMBA_CPU_FEATURES', '')); "
    "print(registry.cpu_target.target_context.codegen()._tm_features)"
)
HAS_AVX512 = "+avx512f" in llvm.get_host_cpu_features().flatten().split(",")


def probe(**env: str) -> tuple[str, str]:
    """(NUMBA_CPU_FEATURES, numba's target features) in a fresh process importing tsjit."""
    child_env = {k: v for k, v in os.environ.items() if k != "NUMBA_CPU_FEATURES"}
    child_env.update(env)
    out = subprocess.run(
        [sys.executable, "-c", PROBE], env=child_env, capture_output=True, text=True, check=True
    ).stdout.splitlines()
    return out[0], out[1]


@pytest.mark.skipif(not HAS_AVX512, reason="the CPU has no AVX-512")
def test_numba_compiles_with_full_vectors() -> None:
    variable, features = probe()
    assert variable.endswith(",-prefer-256-bit")
    assert features.endswith("-prefer-256-bit")


def test_opt_out_and_user_settings_win() -> None:
    variable, features = probe(TSJIT_FULL_VECTORS="0")
    assert variable == "" and "-prefer-256-bit" not in features
    own = llvm.get_host_cpu_features().flatten()
    variable, features = probe(NUMBA_CPU_FEATURES=own)
    assert variable == own and features == own
