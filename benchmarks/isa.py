"""`--cpu NAME`: the benchmarks under another machine model (`lowering/machine.py`), with the
libraries they are compared against held to the same ISA.

tsjit reads `TSJIT_CPU`; PyTorch, MKL, oneDNN and OpenBLAS pick their kernels by the host's
CPU, so on an AVX-512 host the AVX2 comparison also tells them to use AVX2 kernels only
(`ATEN_CPU_CAPABILITY` for torch's own vector kernels and inductor's generated code,
`MKL_ENABLE_INSTRUCTIONS` for torch.mm, `ONEDNN_MAX_CPU_ISA` for its convolutions,
`OPENBLAS_CORETYPE` for numpy): the table then shows how each would run on an AVX2 machine.
Inductor also gets a cache folder of its own per model (`TORCHINDUCTOR_CACHE_DIR`): its
cache does not tell kernels built for AVX-512 from those for `ATEN_CPU_CAPABILITY=avx2`, and
an AVX-512 kernel loaded for an AVX2 run gave wrong results (W2's max relative error 9.5).
Every variable must be set before the libraries load, so `--cpu` runs the benchmarks again
in a fresh process (`reexec_for_cpu`).
"""

from __future__ import annotations

import getpass
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

AVX2_LIBRARIES = {
    "ATEN_CPU_CAPABILITY": "avx2",
    "MKL_ENABLE_INSTRUCTIONS": "AVX2",
    "ONEDNN_MAX_CPU_ISA": "AVX2",
    "OPENBLAS_CORETYPE": "Haswell",
}
LIBRARY_VARIABLES = (*AVX2_LIBRARIES, "TORCHINDUCTOR_CACHE_DIR")
MARK = "TSJIT_BENCH_CPU"  # set in the re-executed process: the environment is in place


def library_environment(cpu: str) -> dict[str, str]:
    """The variables that hold the libraries to the ISA of `cpu` (a `TSJIT_CPU` value)."""
    from lowering.machine import machine_model

    machine = machine_model(cpu)
    if not machine.overridden:
        return {}  # the host's own model: the libraries' defaults
    folder = Path(tempfile.gettempdir()) / f"torchinductor_{getpass.getuser()}_{machine.cpu}"
    inductor = {"TORCHINDUCTOR_CACHE_DIR": str(folder)}
    if machine.vector_bits >= 512:
        return inductor  # AVX-512 on an AVX-512 host: the libraries' own kernels
    return dict(AVX2_LIBRARIES) | inductor


def reexec_for_cpu(cpu: str | None, argv: list[str]) -> None:
    """Runs `python -m benchmarks argv` again under `TSJIT_CPU=cpu` and its libraries'
    variables, unless this process already is that run (or `cpu` is None)."""
    if cpu is None or os.environ.get(MARK) == cpu:
        return
    env = dict(os.environ) | library_environment(cpu) | {"TSJIT_CPU": cpu, MARK: cpu}
    sys.stdout.flush()
    os.execve(sys.executable, [sys.executable, "-m", "benchmarks", *argv], env)


def machine_model_record() -> dict[str, Any]:
    """The machine model the run used, and the library variables in force (for the JSON)."""
    from lowering.machine import MACHINE
    from lowering.python_target.blas import OPENBLAS

    tiles = MACHINE.tiles
    return {
        "cpu": MACHINE.cpu,
        "overridden": MACHINE.overridden,
        "vector_bits": MACHINE.vector_bits,
        "vector_registers": MACHINE.vector_registers,
        "fma": MACHINE.fma,
        "cores": MACHINE.cores,
        "caches": {"l1d": MACHINE.l1d, "l2": MACHINE.l2, "l3": MACHINE.l3},
        "gemm_tile": [tiles.gemm_rows, tiles.gemm_cols],
        "conv_tile": [tiles.conv_rows, tiles.conv_cols],
        "blas_gemm_min_macs": None if MACHINE.blas_gemm is None else MACHINE.blas_gemm.min_macs,
        "openblas": None if OPENBLAS is None else OPENBLAS.stamp,
        "library_environment": {k: os.environ[k] for k in LIBRARY_VARIABLES if k in os.environ},
    }
