"""Loads generated Python source as a real module through an on-disk cache (never `exec`).

numba's `cache=True` works only for functions defined in real files (numba#3501), and real
files give readable tracebacks. So each source is written to
`<cache_dir()>/tsjit_<sha256[:24]>.py` and imported from there with importlib; numba keeps
its compiled code next to it in `__pycache__`. An entry is written atomically (a temporary
file in the same folder, then `os.replace`), so processes that write the same entry at once
all leave a complete file behind. An entry whose bytes differ from the source (corrupt,
truncated) is rewritten, never imported. Modules are memoized in-process by source hash.
numba's own files for a module (`__pycache__/<stem>.*.nbi` index, `.nbc` data) are checked
before the module is imported: numba fails on every call when one is damaged instead of
compiling again, so a damaged set is deleted and numba rebuilds it.

A new process would still run the whole lowering pipeline (hundreds of milliseconds) just to
learn the source text it then finds in the cache. So `compile_program` also keeps, under
`programs/<key>.py`, the source made for a program: the key hashes the program's text (its
torch IR and argument signature) together with a fingerprint of the compiler (the source of
`lowering/` and `dialects/`, and the numba and xDSL versions), so any compiler change makes
new keys. `known_good` / `remember_good` keep such keys for facts that are costly to
establish again (argument shapes that were checked).
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import hashlib
import importlib.util
import io
import os
import pickletools
import sys
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

_MODULES: dict[str, ModuleType] = {}
_LOCK = threading.Lock()


def cache_dir() -> Path:
    """`$TSJIT_CACHE_DIR`, else `$XDG_CACHE_HOME/tsjit`, else `~/.cache/tsjit`."""
    if explicit := os.environ.get("TSJIT_CACHE_DIR"):
        return Path(explicit)
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "tsjit"


def source_hash(source: str) -> str:
    return hashlib.sha256(source.encode()).hexdigest()


def entry_path(source: str) -> Path:
    """Where `source` lives in the cache: `tsjit_<sha256[:24]>.py`."""
    return cache_dir() / f"tsjit_{source_hash(source)[:24]}.py"


def write_entry(path: Path, source: str) -> bool:
    """Makes `path` hold exactly `source`; returns whether it had to (re)write the file."""
    data = source.encode()
    with contextlib.suppress(OSError):
        if path.read_bytes() == data:
            return False
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.stem}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as file:
            file.write(data)
            file.flush()
            os.fsync(file.fileno())
        os.replace(temp, path)  # atomic: readers see the old file or the whole new one
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise
    return True


def import_entry(path: Path) -> ModuleType:
    """Imports the file at `path` under its own unique module name (its stem)."""
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[path.stem] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[path.stem]
        raise
    return module


# glibc mallopt parameters
M_TRIM_THRESHOLD, M_TOP_PAD, M_MMAP_THRESHOLD = -1, -2, -3


@functools.cache
def tune_malloc() -> bool:
    """Keep freed memory in the process instead of giving it back to the OS (glibc only).

    glibc serves blocks above 128 KB-32 MB with fresh `mmap`s and unmaps them on free, so a
    kernel that returns a 16 MB array page-faults through all of it on every call: measured
    8 ms instead of 0.65 ms for a 4M-element elementwise kernel. Raising the mmap and trim
    thresholds keeps such blocks in the heap for reuse (the same as setting
    `MALLOC_MMAP_THRESHOLD_` / `MALLOC_TRIM_THRESHOLD_`); `TSJIT_MALLOC_TUNING=0` turns it off.
    Returns whether the settings were applied. It affects the whole process.
    """
    if os.environ.get("TSJIT_MALLOC_TUNING", "1") == "0" or not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None)
        mallopt = libc.mallopt
    except (OSError, AttributeError):  # not glibc
        return False
    settings = ((M_MMAP_THRESHOLD, 32 << 20), (M_TRIM_THRESHOLD, 1 << 30), (M_TOP_PAD, 64 << 20))
    return all(mallopt(param, value) == 1 for param, value in settings)


def load_module(source: str) -> ModuleType:
    """The module that `source` defines, written to the cache and imported once per process."""
    key = source_hash(source)
    tune_malloc()
    with _LOCK:
        if key not in _MODULES:
            path = entry_path(source)
            write_entry(path, source)
            drop_damaged_numba_cache(path)
            _MODULES[key] = import_entry(path)
        return _MODULES[key]


@functools.cache
def compiler_fingerprint() -> str:
    """A hash of everything that decides the generated code: tsjit's compiler sources and the
    numba and xDSL versions (computed once per process)."""
    import numba
    import xdsl

    digest = hashlib.sha256(f"{numba.__version__} {xdsl.__version__}".encode())
    root = Path(__file__).resolve().parent.parent
    for package in ("lowering", "dialects"):
        for path in sorted((root / package).rglob("*.py")):
            digest.update(str(path.relative_to(root)).encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()


def program_key(*parts: str) -> str:
    """The cache key of a program (its text parts) under the current compiler."""
    text = "\0".join([compiler_fingerprint(), *parts])
    return source_hash(text)[:32]


def compile_program(
    parts: tuple[str, ...], make_source: Callable[[], str], name: str
) -> tuple[str, Callable[..., Any]]:
    """(source, function `name`) for the program `parts`: the source made for it before (in
    this or an earlier process), else `make_source()`, which is then remembered. A remembered
    source that no longer imports (e.g. a custom kernel changed) is made again."""
    path = cache_dir() / "programs" / f"{program_key(*parts)}.py"
    with contextlib.suppress(OSError, UnicodeDecodeError):
        source = unsealed(path.read_text())  # None if the file is not what was written
        if source is not None:
            with contextlib.suppress(Exception):
                return source, compile_function(source, name)
    source = make_source()
    write_entry(path, sealed(source))
    return source, compile_function(source, name)


SEAL = "# tsjit-sha256 "


def sealed(source: str) -> str:
    """`source` under a first line holding its hash: a remembered program is checked before
    it is trusted (a damaged one may still be valid Python and compute something else)."""
    return f"{SEAL}{source_hash(source)}\n{source}"


def unsealed(text: str) -> str | None:
    """The source `sealed` wrapped, or None if the hash line does not match it."""
    first, _, source = text.partition("\n")
    return source if first == SEAL + source_hash(source) else None


def known_good(*parts: str) -> bool:
    """True if `remember_good(*parts)` was called, in this or an earlier process."""
    return (cache_dir() / "facts" / program_key(*parts)).exists()


def remember_good(*parts: str) -> None:
    with contextlib.suppress(OSError):
        write_entry(cache_dir() / "facts" / program_key(*parts), "")


def drop_damaged_numba_cache(path: Path) -> bool:
    """Deletes numba's cached files for the module at `path` if one of them is damaged
    (truncated, garbled: not a sequence of whole pickles); returns whether it did.

    The pickles are only parsed (`pickletools.genops`), never run. numba writes its files
    atomically, so a file another process is writing is never seen half-written.
    """
    files = list((path.parent / "__pycache__").glob(f"{path.stem}.*.nb[ic]"))
    if all(_whole_pickles(file) for file in files):
        return False
    for file in files:
        with contextlib.suppress(OSError):
            file.unlink()
    return True


def _whole_pickles(file: Path) -> bool:
    try:
        data = file.read_bytes()
        stream = io.BytesIO(data)
        while stream.tell() < len(data):  # an index file holds two pickles, a data file one
            for _ in pickletools.genops(stream):
                pass
    except Exception:  # OSError, or the parse errors of damaged bytes (ValueError, ...)
        return False
    return bool(data)


def compile_function(source: str, name: str) -> Callable[..., Any]:
    """The function `name` of `source`: a numba dispatcher, compiled on its first call."""
    module = load_module(source)
    function = getattr(module, name, None)
    if function is None:
        raise KeyError(f"generated source {module.__file__} defines no function '{name}'")
    return function
