"""Loads generated Python source as a real module through an on-disk cache.

numba's `cache=True` works only for functions defined in real files (numba#3501), and real
files give readable tracebacks. So each source is written to
`<cache_dir()>/tsjit_<sha256[:24]>.py` and made a module from there; numba keeps its compiled
code next to it in `__pycache__`. The module runs the source bytes tsjit holds in memory,
compiled here under the file's name (`import_entry`): the file is never read back to be run,
and no `.pyc` is read or written. An entry is written atomically (a private temporary file in
the same folder, then `os.replace`), so processes that write the same entry at once all leave a
complete file behind; an entry whose bytes differ from the source, or that is not the user's
private file, is rewritten. Modules are memoized in-process by source hash.

The cache folder is used only if no one else can write it (`lowering/run/cache_folder.py`);
otherwise tsjit warns once and uses a private temporary folder for the process. numba's own
files for a module (`__pycache__/<stem>.*.nbi` index, `.nbc` data) are pickles that numba
loads: they are read only from a folder that passed that check, and are checked before the
module is made: numba fails on every call when one is damaged instead of compiling again, so
a damaged set, or one holding a file that is not the user's private file, is deleted and
numba rebuilds it.

A program's text may hold shared modules in front of its main module
(`lowering/run/program_text.py`): each is an entry of its own, made before the main module
that imports it by name, so equal kernels of different programs are compiled once.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import gc
import hashlib
import importlib.machinery
import io
import os
import pickletools
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

from lowering.run.cache_folder import (
    checked_subfolder,
    make_private_folder,
    new_private_file,
    private_temp_folder,
    read_private_file,
)
from lowering.run.program_text import module_name, split_program

_MODULES: dict[str, ModuleType] = {}
_LOCK = threading.Lock()
_GC_LOCK = threading.Lock()


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
    return cache_dir() / f"{module_name(source)}.py"


def module_folder() -> Path:
    """The folder generated modules go in: `cache_dir()` if only the user can write it (see
    `lowering/run/cache_folder.py`), else this process's private temporary folder."""
    folder = cache_dir()
    if checked_subfolder(folder, "__pycache__", create=True) is None:
        return private_temp_folder()
    return folder


def write_entry(path: Path, source: str) -> bool:
    """Makes `path` the user's private file holding exactly `source`; returns whether it had
    to (re)write the file."""
    data = source.encode()
    if read_private_file(path) == data:
        return False
    make_private_folder(path.parent)
    fd, temp = new_private_file(path.parent, f".{path.stem}.")
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


def import_entry(path: Path, source: str) -> ModuleType:
    """The module of `source`, whose file is `path`, under its own unique module name (the
    stem): `source` is compiled here with `path` as its file name (so numba's cache and
    tracebacks find the file) and run in a fresh module registered in `sys.modules`."""
    name = path.stem
    code = compile(source, str(path), "exec", dont_inherit=True)
    module = ModuleType(name)
    module.__file__ = str(path)
    module.__spec__ = importlib.machinery.ModuleSpec(name, None, origin=str(path))
    sys.modules[name] = module
    try:
        exec(code, module.__dict__)  # noqa: S102 - the source tsjit generated, not the file
    except BaseException:
        del sys.modules[name]
        raise
    return module


_WINDOWS = 0  # threads inside young_collections_only
_FROZE = False  # whether the outermost window froze the heap


@contextlib.contextmanager
def young_collections_only() -> Iterator[None]:
    """Within: the cyclic garbage collector looks only at objects made inside the window.

    Compiling (xDSL passes, numba type inference) allocates fast, so Python runs full
    collections, each traversing the whole heap: torch, xDSL and numba hold millions of
    long-lived objects (one full collection measured 0.14 s, a third of a warm first call).
    `gc.freeze()` on entry moves the existing objects out of the collector's sight and
    `gc.unfreeze()` on exit puts them back, so nothing is kept alive longer than the window
    and the window's own garbage is still collected. Nested and concurrent windows share
    one freeze; a process that froze objects itself (`gc.get_freeze_count()`) is left alone.
    """
    global _WINDOWS, _FROZE
    with _GC_LOCK:
        if _WINDOWS == 0:
            _FROZE = gc.isenabled() and gc.get_freeze_count() == 0
            if _FROZE:
                gc.freeze()
        _WINDOWS += 1
    try:
        yield
    finally:
        with _GC_LOCK:
            _WINDOWS -= 1
            if _WINDOWS == 0 and _FROZE:
                gc.unfreeze()
                _FROZE = False


M_TRIM_THRESHOLD, M_TOP_PAD, M_MMAP_THRESHOLD = -1, -2, -3  # glibc's mallopt parameters
MALLOC_SETTINGS = ((M_MMAP_THRESHOLD, 32 << 20), (M_TRIM_THRESHOLD, 1 << 30), (M_TOP_PAD, 64 << 20))


@functools.cache
def tune_malloc() -> bool:
    """Tells glibc to keep freed memory in the process; once per process (glibc only).

    glibc serves blocks above its mmap threshold (128 KB, rising to at most 32 MB as blocks
    are freed) with fresh `mmap`s and unmaps them on free, so a kernel returning a 16 MB array
    page-faults through all of it on every call (measured: 8 ms instead of 0.65 ms for a
    4M-element elementwise kernel). An mmap threshold of 32 MB, a trim threshold of 1 GB and
    a top pad of 64 MB keep such blocks in the heap for reuse (as `MALLOC_MMAP_THRESHOLD_=...`
    would). It affects the whole process, torch and numpy included; `TSJIT_MALLOC_TUNING=0`
    turns it off. Returns whether the settings were applied.
    """
    if os.environ.get("TSJIT_MALLOC_TUNING", "1") == "0" or not sys.platform.startswith("linux"):
        return False
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):  # not glibc (musl has no mallopt)
        return False
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    mallopt.restype = ctypes.c_int
    return all(mallopt(param, value) == 1 for param, value in MALLOC_SETTINGS)


def _reset_after_fork() -> None:
    """A forked child has only the forking thread: locks another thread held are made anew,
    and a heap frozen by another thread's compile window is unfrozen."""
    global _LOCK, _GC_LOCK, _WINDOWS, _FROZE
    _LOCK, _GC_LOCK = threading.Lock(), threading.Lock()
    if _WINDOWS and _FROZE:
        gc.unfreeze()
    _WINDOWS, _FROZE = 0, False


os.register_at_fork(after_in_child=_reset_after_fork)


def load_module(source: str) -> ModuleType:
    """The module that `source` defines, written to the cache and imported once per process
    (the first one tunes malloc, see `tune_malloc`)."""
    key = source_hash(source)
    tune_malloc()
    with _LOCK:
        if key not in _MODULES:
            path = module_folder() / f"{module_name(source)}.py"
            write_entry(path, source)
            drop_damaged_numba_cache(path)
            _MODULES[key] = import_entry(path, source)
        return _MODULES[key]


def drop_damaged_numba_cache(path: Path) -> bool:
    """Deletes numba's cached files for the module at `path` if one of them is damaged
    (truncated, garbled: not a sequence of whole pickles) or is not the user's private
    file; returns whether it did.

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
        data = read_private_file(file)
        if data is None:
            return False
        stream = io.BytesIO(data)
        while stream.tell() < len(data):  # an index file holds two pickles, a data file one
            for _ in pickletools.genops(stream):
                pass
    except Exception:  # OSError, or the parse errors of damaged bytes (ValueError, ...)
        return False
    return bool(data)


def compile_function(source: str, name: str) -> Callable[..., Any]:
    """The function of IR symbol `name` of the program `source` (its main module's
    `ENTRY_POINTS`, else the global `name`): a numba dispatcher, compiled on its first call,
    or a plain Python function calling such."""
    shared, main = split_program(source)
    for module_source in shared:
        load_module(module_source)
    module = load_module(main)
    function = getattr(module, "ENTRY_POINTS", {}).get(name) or getattr(module, name, None)
    if function is None:
        raise KeyError(f"generated source {module.__file__} defines no function '{name}'")
    return function
