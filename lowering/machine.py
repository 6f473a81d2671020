"""The machine model: the one place code generation learns the CPU it generates code for.

`MACHINE` holds the vector width, the number of vector registers, FMA, the cores (numba's
threads) and the cache sizes, and the register tiles of the matmul / convolution kernels
derived from them (`Tiles`). By default it describes this host: llvmlite's host CPU name and
features, the cache sizes Linux reports (`/sys/devices/system/cpu/cpu0/cache`), numba's
threads. `TSJIT_CPU=<name>` (one of `KNOWN_CPUS`: `haswell`, `znver3`, `skylake-avx512`,
`sapphirerapids`, ...) describes that CPU instead and points numba's code generator at it
(`NUMBA_CPU_NAME` and `NUMBA_CPU_FEATURES`, `apply_to_numba`), so the code for another ISA is
generated, tested and timed on any host that can run it (an AVX-512 host runs AVX2 code).
`TSJIT_CPU=host` (or the host's own CPU name) is the default. `TSJIT_BLAS=0` keeps the
matmul kernels on their own tiles for every shape (`Machine.blas_gemm`: by default they call
OpenBLAS where the `BLAS_GEMM` table says it is faster).

The features given to numba are the named CPU's vector ISA (`CpuSpec.features`), and only
those: every other feature of the host's list is turned off, so an `emeraldrapids` host
generating `haswell` code uses no AVX-512 instruction. A CPU whose ISA the host lacks, or of
another architecture, is refused with an error naming what is missing: its code could not run.
numba reads the settings when its code generator is made (when the first numba function is
defined), so the override must be applied before: `lowering/__init__.py` imports this module
first when `TSJIT_CPU` is set, and `apply_to_numba` raises when numba's code generator was
already made for another CPU.

Kernels read `MACHINE` (or `machine_model()`), never the CPU's features themselves; the
caches of generated programs include `MACHINE.key` (`lowering/run/program_cache.py`, and the
library modules' text: `lowering/python_target/library_kernels.py`).
"""

from __future__ import annotations

import os
import platform
from dataclasses import dataclass
from functools import cache
from pathlib import Path

KB, MB = 1 << 10, 1 << 20

X86_V2 = frozenset(
    {"64bit", "cmov", "cx8", "cx16", "fxsr", "mmx", "sahf", "popcnt", "crc32"}
    | {"sse", "sse2", "sse3", "ssse3", "sse4.1", "sse4.2"}
)
X86_V3 = X86_V2 | {"avx", "avx2", "fma", "f16c", "bmi", "bmi2", "lzcnt", "movbe", "xsave"}
X86_V3_CRYPTO = X86_V3 | {"aes", "pclmul", "adx", "rdrnd", "rdseed", "prfchw"}
AVX512_SKX = X86_V3_CRYPTO | {"avx512f", "avx512cd", "avx512bw", "avx512dq", "avx512vl"}
AVX512_ICX = AVX512_SKX | {
    "avx512vbmi", "avx512vbmi2", "avx512vnni", "avx512bitalg", "avx512vpopcntdq",
    "avx512ifma", "gfni", "vaes", "vpclmulqdq", "sha",
}  # fmt: skip
AVX512_SPR = AVX512_ICX | {"avx512bf16", "avx512fp16", "avxvnni", "amx-tile", "amx-int8"}
ZEN3 = X86_V3_CRYPTO | {"sha", "vaes", "vpclmulqdq"}
ZEN4 = ZEN3 | AVX512_ICX | {"avx512bf16"}
NEON = frozenset({"neon", "fp-armv8"})


@dataclass(frozen=True)
class CpuSpec:
    """A CPU `TSJIT_CPU` may name: its architecture, the vector ISA numba may use for it (LLVM
    feature names), and its cache sizes (bytes: L1 data and L2 per core, L3 of the chip)."""

    arch: str
    features: frozenset[str]
    l1d: int
    l2: int
    l3: int


KNOWN_CPUS: dict[str, CpuSpec] = {
    "haswell": CpuSpec("x86_64", X86_V3, 32 * KB, 256 * KB, 8 * MB),
    "skylake": CpuSpec("x86_64", X86_V3_CRYPTO, 32 * KB, 256 * KB, 8 * MB),
    "znver2": CpuSpec("x86_64", X86_V3_CRYPTO | {"sha"}, 32 * KB, 512 * KB, 16 * MB),
    "znver3": CpuSpec("x86_64", ZEN3, 32 * KB, 512 * KB, 32 * MB),
    "znver4": CpuSpec("x86_64", ZEN4, 32 * KB, 1 * MB, 32 * MB),
    "skylake-avx512": CpuSpec("x86_64", AVX512_SKX, 32 * KB, 1 * MB, 16 * MB),
    "icelake-server": CpuSpec("x86_64", AVX512_ICX, 48 * KB, 1280 * KB, 24 * MB),
    "sapphirerapids": CpuSpec("x86_64", AVX512_SPR, 48 * KB, 2 * MB, 60 * MB),
    "emeraldrapids": CpuSpec("x86_64", AVX512_SPR, 48 * KB, 2 * MB, 160 * MB),
    "neoverse-n1": CpuSpec("aarch64", NEON, 64 * KB, 1 * MB, 32 * MB),
}
"""The CPUs `TSJIT_CPU` knows (LLVM's names for them)."""

HOST_NAMES = ("", "host", "native")
"""`TSJIT_CPU` values that mean this host (so does the host's own CPU name)."""


class MachineModelError(ValueError):
    """A `TSJIT_CPU` that names no known CPU, one this host cannot run, or one set too late."""


@dataclass(frozen=True)
class Tiles:
    """The register tiles of the library kernels (`lowering/python_target/gemm_tile.py`), in
    float32 elements: the matmul tile `gemm_rows` x `gemm_cols`, its narrow variant (panels and
    edges) `gemm_rows` x `narrow_cols`, the convolution tile `conv_rows` x `conv_cols`; a tile
    keeps at most `accumulators` vector sums in registers."""

    gemm_rows: int
    gemm_cols: int
    narrow_cols: int
    conv_rows: int
    conv_cols: int
    accumulators: int


@dataclass(frozen=True)
class BlasGemm:
    """When the library matmul kernels call OpenBLAS's gemm instead of their own tiles
    (`lowering/python_target/blas.py`): for products of at least `min_macs` multiply-adds
    (m * n * k), where OpenBLAS was measured faster on this vector width; below, the tiles
    (they skip its call and packing costs)."""

    min_macs: int


BLAS_GEMM = {
    512: BlasGemm(min_macs=1 << 26),
    256: BlasGemm(min_macs=1 << 18),
    128: BlasGemm(min_macs=1 << 18),
}
"""OpenBLAS or the tiles, by the model's vector width: the one table of that choice. Measured
on an Intel Xeon model 167 (2 cores), one thread's CPU time per call, float32 `a @ w.T`.
AVX-512 (OpenBLAS's SkylakeX kernels): the 8 x 48 tile is faster up to 32 M multiply-adds
([256, 256] x [256, 256] 144 vs 131 GFLOP/s, [32, 1024] x [1024, 1024] 69 vs 59), OpenBLAS
from 64 M on ([256, 512] x [512, 512] 124 vs 116, [256, 1024] x [1024, 1024] 117 vs 100,
[3200, 256] x [256, 256] 122 vs 99). AVX2 (`OPENBLAS_CORETYPE=Haswell`, the 6 x 16 tile):
OpenBLAS is as fast at [64, 64] x [64, 64] and faster above ([16, 256] x [256, 256] 59 vs 51,
[256, 1024] x [1024, 1024] 89 vs 67). 128-bit vectors: not measured; OpenBLAS as on AVX2."""


@dataclass(frozen=True)
class Machine:
    """What code generation knows of the target CPU (module docstring)."""

    cpu: str
    arch: str
    features: frozenset[str]
    overridden: bool
    l1d: int
    l2: int
    l3: int
    blas: bool = True

    @property
    def cores(self) -> int:
        """numba's threads (read when asked: importing numba's config takes a third of a second)."""
        from numba.core import config

        return int(config.NUMBA_NUM_THREADS)

    @property
    def vector_bits(self) -> int:
        """The widest vectors the kernels and the loops use (bits)."""
        if self.arch != "x86_64":
            return 128
        if "avx512f" in self.features:
            return 512
        return 256 if "avx" in self.features else 128

    @property
    def vector_bytes(self) -> int:
        return self.vector_bits // 8

    @property
    def vector_registers(self) -> int:
        if self.arch == "x86_64" and "avx512f" not in self.features:
            return 16
        return 32

    @property
    def fma(self) -> bool:
        return self.arch != "x86_64" or "fma" in self.features

    @property
    def tiles(self) -> Tiles:
        """Tiles that fit the register file: rows x vectors sums, plus the vectors of one k step
        of the vector operand and one broadcast. 32 registers: 8 x 3 sums (8 + 3 + 1 = 28
        with the loads; measured best of 4..14 rows x 2..6 zmm on W4's shapes); 16 registers:
        6 x 2 sums (12 + 2 + 1 = 15; BLIS's Haswell kernel). The convolution tile has two
        vectors of columns (output rows are often 24 to 64 wide)."""
        lanes = self.vector_bytes // 4
        rows, vectors = (8, 3) if self.vector_registers >= 32 else (6, 2)
        return Tiles(
            gemm_rows=rows,
            gemm_cols=vectors * lanes,
            narrow_cols=(vectors - 1) * lanes,
            conv_rows=rows,
            conv_cols=2 * lanes,
            accumulators=rows * vectors,
        )

    @property
    def blas_gemm(self) -> BlasGemm | None:
        """When a matmul calls OpenBLAS (`BLAS_GEMM`); None: never (`TSJIT_BLAS=0`)."""
        return BLAS_GEMM[self.vector_bits] if self.blas else None

    @property
    def row_split_bytes(self) -> int:
        """The packed right operand a matmul's threads may each read whole: half a core's L2."""
        return self.l2 // 2

    @property
    def key(self) -> str:
        """Everything above that generated code depends on, as text (for cache keys; not the
        cores: the kernels split their work in a fixed number of chunks)."""
        features = ",".join(sorted(self.features))
        caches = f"l1d={self.l1d} l2={self.l2} l3={self.l3}"
        return f"{self.arch} {self.cpu} {features} {caches} blas={self.blas_gemm}"


def host_arch() -> str:
    machine = platform.machine().lower()
    return {"amd64": "x86_64", "arm64": "aarch64"}.get(machine, machine)


def host_cpu() -> tuple[str, frozenset[str]]:
    """llvmlite's name and enabled features of this host's CPU."""
    import llvmlite.binding as llvm

    try:
        features = llvm.get_host_cpu_features()
    except RuntimeError:  # LLVM cannot list them on some platforms
        return llvm.get_host_cpu_name(), frozenset()
    return llvm.get_host_cpu_name(), frozenset(k for k, on in features.items() if on)


def host_caches(fallback: CpuSpec) -> tuple[int, int, int]:
    """(L1 data, L2, L3) bytes from Linux's sysfs, each missing one from `fallback`."""
    sizes = {1: fallback.l1d, 2: fallback.l2, 3: fallback.l3}
    for index in sorted(Path("/sys/devices/system/cpu/cpu0/cache").glob("index*")):
        try:
            level = int((index / "level").read_text())
            kind = (index / "type").read_text().strip()
            size = (index / "size").read_text().strip()
        except (OSError, ValueError):
            continue
        if kind in ("Data", "Unified") and level in sizes:
            sizes[level] = parse_size(size)
    return sizes[1], sizes[2], sizes[3]


def parse_size(text: str) -> int:
    """Bytes of a sysfs cache size (`48K`, `2048K`, `300M`)."""
    scale = {"K": KB, "M": MB, "G": 1 << 30}.get(text[-1:].upper(), 1)
    return int(text.rstrip("KkMmGg")) * scale


def machine_model(requested: str | None = None) -> Machine:
    """The model for `TSJIT_CPU=requested` (None: read the environment), not applied."""
    name = (os.environ.get("TSJIT_CPU", "") if requested is None else requested).strip().lower()
    blas = os.environ.get("TSJIT_BLAS", "1").strip() != "0"
    host_name, host_features = host_cpu()
    arch = host_arch()
    if name in HOST_NAMES or name == host_name:
        default = KNOWN_CPUS.get(host_name, CpuSpec(arch, host_features, 32 * KB, MB, 8 * MB))
        l1d, l2, l3 = host_caches(default)
        return Machine(host_name, arch, host_features, False, l1d, l2, l3, blas)
    spec = KNOWN_CPUS.get(name)
    if spec is None:
        known = ", ".join(sorted(KNOWN_CPUS))
        raise MachineModelError(f"TSJIT_CPU={name!r} names no known CPU; known: host, {known}")
    if spec.arch != arch:
        raise MachineModelError(
            f"TSJIT_CPU={name!r} is an {spec.arch} CPU; this host is {arch}: "
            "its code cannot run here"
        )
    missing = spec.features - host_features
    if host_features and missing:
        raise MachineModelError(
            f"TSJIT_CPU={name!r} needs {', '.join(sorted(missing))}, which this host "
            f"({host_name}) lacks: its code cannot run here"
        )
    return Machine(name, arch, spec.features, True, spec.l1d, spec.l2, spec.l3, blas)


def numba_features(machine: Machine) -> str:
    """numba's `NUMBA_CPU_FEATURES` for `machine`: its features on, every other feature LLVM
    knows for this host off (the format of `llvmlite.binding.get_host_cpu_features().flatten()`)."""
    import llvmlite.binding as llvm

    try:
        names = set(llvm.get_host_cpu_features())
    except RuntimeError:
        names = set()
    names |= machine.features
    return ",".join(("+" if f in machine.features else "-") + f for f in sorted(names))


def apply_to_numba(machine: Machine) -> None:
    """Points numba's code generator at `machine` when it overrides the host (its environment
    variables and `numba.core.config`). Raises if numba already generates code for another
    CPU (it compiled something before the override)."""
    if not machine.overridden:
        return
    features = numba_features(machine)
    os.environ["NUMBA_CPU_NAME"] = machine.cpu
    os.environ["NUMBA_CPU_FEATURES"] = features
    from numba.core import config
    from numba.core.registry import cpu_target

    config.reload_config()
    made = cpu_target.__dict__.get("_toplevel_target_context")
    if made is not None and made.codegen()._tm_features != features:
        raise MachineModelError(
            f"TSJIT_CPU={machine.cpu!r} came too late: numba's code generator was made for "
            "the host (a numba function was defined before tsjit was imported); set TSJIT_CPU "
            "in the environment and import tsjit before other numba code"
        )


@cache
def current_machine() -> Machine:
    """The process's model (`TSJIT_CPU`), applied to numba; computed once."""
    machine = machine_model()
    apply_to_numba(machine)
    return machine


MACHINE = current_machine()
"""The machine model every stage reads."""
