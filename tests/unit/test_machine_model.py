"""The machine model (`lowering/machine.py`): `TSJIT_CPU` parsing, the shapes derived from a
CPU, the override reaching numba, and the kernel tests under the AVX2 (`haswell`) model in a
subprocess on a host that can run it (the AVX-512 path runs in-process where the host has it)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from lowering.machine import (
    AVX512_SKX,
    KNOWN_CPUS,
    MACHINE,
    X86_V3,
    Machine,
    MachineModelError,
    host_cpu,
    machine_model,
    numba_features,
    parse_size,
)

ROOT = Path(__file__).resolve().parents[2]


def model(cpu: str, features: frozenset[str]) -> Machine:
    return Machine(cpu, "x86_64", features, True, 32 << 10, 1 << 20, 8 << 20)


def runnable(cpu: str) -> Machine:
    """The model of `cpu`, or a skip on a host that cannot run its code."""
    try:
        return machine_model(cpu)
    except MachineModelError as error:
        pytest.skip(str(error))


def test_avx2_and_avx512_tiles_fit_their_register_files() -> None:
    avx2, avx512 = model("haswell", X86_V3), model("skylake-avx512", AVX512_SKX)
    assert (avx2.vector_bits, avx2.vector_registers, avx2.fma) == (256, 16, True)
    assert (avx512.vector_bits, avx512.vector_registers) == (512, 32)
    for machine in (avx2, avx512):
        tiles, lanes = machine.tiles, machine.vector_bytes // 4
        vectors = tiles.gemm_cols // lanes
        assert tiles.gemm_rows * vectors + vectors + 1 <= machine.vector_registers
        assert tiles.accumulators == tiles.gemm_rows * vectors
        assert tiles.gemm_cols % lanes == 0 and tiles.narrow_cols % lanes == 0
        assert 0 < tiles.narrow_cols < tiles.gemm_cols
    assert (avx2.tiles.gemm_rows, avx2.tiles.gemm_cols, avx2.tiles.conv_cols) == (6, 16, 16)
    assert (avx512.tiles.gemm_rows, avx512.tiles.gemm_cols, avx512.tiles.narrow_cols) == (8, 48, 32)
    assert avx2.key != avx512.key


def test_tsjit_cpu_names_a_known_cpu() -> None:
    haswell = runnable("haswell")
    assert haswell.overridden and haswell.cpu == "haswell" and haswell.vector_bits == 256
    assert "avx512f" not in haswell.features
    assert (haswell.l1d, haswell.l2) == (KNOWN_CPUS["haswell"].l1d, KNOWN_CPUS["haswell"].l2)
    assert runnable(" Haswell ").cpu == "haswell"  # case and spaces do not matter


def test_an_unknown_cpu_is_a_clear_error_listing_the_known_ones() -> None:
    with pytest.raises(MachineModelError, match="no known CPU") as error:
        machine_model("pentium-9000")
    for name in ("haswell", "znver3", "skylake-avx512", "neoverse-n1", "host"):
        assert name in str(error.value)


def test_host_names_mean_the_host() -> None:
    name, features = host_cpu()
    for requested in ("", "host", name):
        machine = machine_model(requested)
        assert not machine.overridden and machine.cpu == name and machine.features == features


def test_a_cpu_of_another_architecture_is_refused() -> None:
    other = "neoverse-n1" if KNOWN_CPUS["haswell"].arch == MACHINE.arch else "haswell"
    with pytest.raises(MachineModelError, match="cannot run here"):
        machine_model(other)


def test_numba_features_turn_off_what_the_model_lacks() -> None:
    features = numba_features(model("haswell", X86_V3)).split(",")
    assert "+avx2" in features and "+fma" in features
    if MACHINE.arch == "x86_64":
        assert "-avx512f" in features  # LLVM lists avx512f among an x86 host's features


def test_sysfs_cache_sizes() -> None:
    assert [parse_size(s) for s in ("48K", "2048K", "300M", "512")] == [
        48 << 10,
        2 << 20,
        300 << 20,
        512,
    ]


def python(code: str, **environ: str) -> subprocess.CompletedProcess[str]:
    """Runs `code` (a program's text, or the path of a `.py` file) in a fresh process."""
    env = os.environ | {"PYTHONPATH": str(ROOT)} | environ
    command = [code] if code.endswith(".py") else ["-c", code]
    return subprocess.run(
        [sys.executable, *command], capture_output=True, text=True, env=env, timeout=300
    )


OVERRIDE_PROBE = """
import json
import lowering
import numba, numpy as np
from numba.core import config

@numba.njit
def double(x):
    return x * 2.0

double(np.ones(64, np.float32))
asm = next(iter(double.inspect_asm().values()))
from lowering.machine import MACHINE
print(json.dumps([config.CPU_NAME, config.CPU_FEATURES, "zmm" in asm, "ymm" in asm,
                  MACHINE.vector_bits]))
"""


def test_the_override_reaches_numbas_config_and_its_code() -> None:
    runnable("haswell")
    run = python(OVERRIDE_PROBE, TSJIT_CPU="haswell")
    assert run.returncode == 0, run.stderr
    name, features, zmm, ymm, bits = json.loads(run.stdout.splitlines()[-1])
    assert name == "haswell" and "+avx2" in features.split(",") and bits == 256
    assert ymm and not zmm  # AVX2 code: 256-bit registers only


def test_an_override_after_numba_made_its_code_generator_is_an_error() -> None:
    runnable("haswell")
    run = python(
        "import numba\nnumba.njit(lambda x: x)\nimport lowering.machine", TSJIT_CPU="haswell"
    )
    assert run.returncode != 0 and "came too late" in run.stderr


CACHED_PROGRAM_PROBE = """
import json, sys
import numpy as np
import frontend
from numba.core.dispatcher import Dispatcher

def f(x, y):
    return (x * 2.0 + y) * x

program = frontend.script(f)
x = np.linspace(-3, 3, 50000, dtype=np.float32)
assert np.allclose(np.asarray(program(x, x)), (x * 2 + x) * x)
asm = ""
for name, module in list(sys.modules.items()):
    if name.startswith("tsjit_"):
        for value in vars(module).values():
            if isinstance(value, Dispatcher) and value.signatures:
                asm += "\\n".join(value.inspect_asm().values())
print(json.dumps(["zmm" in asm, "ymm" in asm]))
"""


def test_a_program_cached_for_one_model_is_not_loaded_for_another(tmp_path: Path) -> None:
    """The same program in two processes sharing one cache, the host's model first: the
    `haswell` process compiles its own code (no 512-bit register), it does not load the
    host's (numba's cache index is keyed by the CPU name and features; program keys and
    the library modules' text by the machine model)."""
    runnable("haswell")
    probe = tmp_path / "probe.py"  # frontend.script reads the function's source file
    probe.write_text(CACHED_PROGRAM_PROBE)
    registers = []
    for cpu in ("host", "haswell"):
        run = python(str(probe), TSJIT_CPU=cpu, TSJIT_CACHE_DIR=str(tmp_path / "cache"))
        assert run.returncode == 0, run.stderr
        registers.append(json.loads(run.stdout.splitlines()[-1]))
    if MACHINE.vector_bits == 512:
        assert registers[0][0]  # the probe sees the host's AVX-512 code
    assert registers[1] == [False, True]


HASWELL_SELECTION = (
    "tests/unit/test_library_kernels.py",
    "tests/unit/test_blas_matmul.py",
    "tests/unit/test_expand_math.py",
    "tests/e2e/test_loop_invariant_weights.py",
    "tests/e2e/test_batched_matmul.py::test_linear_of_a_3d_input_shares_its_weight",
    "tests/e2e/test_models.py::test_mnist_cnn[script]",
)
"""The matmul, conv, linear and math-function tests that run again under the AVX2 model."""


def test_the_kernel_tests_pass_under_the_avx2_model() -> None:
    """One subprocess: the kernel tests and a few matmul / conv / linear programs, compiled for
    `haswell` (6 x 2 ymm tiles), agree with PyTorch / numpy as on the host's own model."""
    if MACHINE.overridden:
        pytest.skip(f"this process already runs under TSJIT_CPU={MACHINE.cpu}")
    runnable("haswell")
    command = [sys.executable, "-m", "pytest", "-p", "no:xdist", "-q", "-p", "no:cacheprovider"]
    # the same compile cache as this process: its entries for the host's model must not be used
    env = os.environ | {"TSJIT_CPU": "haswell", "PYTHONPATH": str(ROOT)}
    run = subprocess.run(
        [*command, *HASWELL_SELECTION], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
