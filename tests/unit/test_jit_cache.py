"""Checks the on-disk cache of generated source: location, atomic writes, reuse, repair."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from lowering.run import jit


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("TSJIT_CACHE_DIR", str(tmp_path))
    return tmp_path


@pytest.fixture
def source() -> str:
    """A source no other test loads (modules are memoized per process by source hash)."""
    return f"# {uuid.uuid4().hex}\nVALUE = 42\n\n\ndef twice(x):\n    return 2 * x\n"


def test_cache_dir_from_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("TSJIT_CACHE_DIR", str(tmp_path / "explicit"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert jit.cache_dir() == tmp_path / "explicit"
    monkeypatch.delenv("TSJIT_CACHE_DIR")
    assert jit.cache_dir() == tmp_path / "xdg" / "tsjit"
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert jit.cache_dir() == tmp_path / "home" / ".cache" / "tsjit"


def test_entry_is_named_by_source_hash(cache: Path, source: str) -> None:
    path = jit.entry_path(source)
    assert path.parent == cache
    assert path.name == f"tsjit_{jit.source_hash(source)[:24]}.py"
    assert jit.entry_path(source + "\n") != path


def test_write_is_atomic(cache: Path, source: str, monkeypatch: pytest.MonkeyPatch) -> None:
    path = jit.entry_path(source)

    def crash(src: str, dst: str) -> None:
        raise OSError("disk full")

    with monkeypatch.context() as patch:
        patch.setattr(os, "replace", crash)
        with pytest.raises(OSError, match="disk full"):
            jit.write_entry(path, source)
    assert list(cache.iterdir()) == []  # neither a partial entry nor a temporary file
    assert jit.write_entry(path, source)
    assert list(cache.iterdir()) == [path]
    assert path.read_text() == source


def test_existing_entry_is_reused(cache: Path, source: str) -> None:
    path = jit.entry_path(source)
    jit.write_entry(path, source)
    before = path.stat()
    assert not jit.write_entry(path, source)
    module = jit.load_module(source)
    assert (path.stat().st_ino, path.stat().st_mtime_ns) == (before.st_ino, before.st_mtime_ns)
    assert module.VALUE == 42
    assert module.__file__ == str(path)
    assert sys.modules[path.stem] is module
    assert jit.load_module(source) is module  # memoized in-process


@pytest.mark.parametrize("damage", ["truncate", "garble"])
def test_corrupt_entry_is_rebuilt(cache: Path, source: str, damage: str) -> None:
    path = jit.entry_path(source)
    broken = source[: len(source) // 2] if damage == "truncate" else source.replace("2 *", "3 *")
    path.write_text(broken)
    module = jit.load_module(source)
    assert path.read_text() == source
    assert module.twice(5) == 10


def test_concurrent_writers_leave_one_whole_entry(cache: Path, source: str) -> None:
    path = jit.entry_path(source)
    with ThreadPoolExecutor(8) as pool:
        list(pool.map(lambda _: jit.write_entry(path, source), range(32)))
    assert list(cache.iterdir()) == [path]
    assert path.read_text() == source


def test_concurrent_processes_load_the_same_entry(cache: Path, source: str) -> None:
    script = "import sys; from lowering.run import jit; print(jit.load_module(sys.argv[1]).VALUE)"
    runs = [
        subprocess.Popen([sys.executable, "-c", script, source], stdout=subprocess.PIPE, text=True)
        for _ in range(4)
    ]
    assert [run.communicate(timeout=60)[0] for run in runs] == ["42\n"] * 4
    assert [run.returncode for run in runs] == [0] * 4
    assert [p.name for p in cache.iterdir() if p.is_file()] == [jit.entry_path(source).name]


def test_compile_function_keeps_numba_cache_beside_entry(cache: Path) -> None:
    source = f"""# {uuid.uuid4().hex}
import numba


@numba.njit(cache=True)
def square(x):
    return x * x
"""
    square = jit.compile_function(source, "square")
    assert square(3) == 9
    stem = jit.entry_path(source).stem
    assert any(p.name.startswith(f"{stem}.square") for p in (cache / "__pycache__").iterdir())
    with pytest.raises(KeyError, match="no function 'cube'"):
        jit.compile_function(source, "cube")


@pytest.mark.parametrize("damage", ["garbled", "truncated", "emptied"])
def test_damaged_numba_files_are_dropped(cache: Path, damage: str) -> None:
    source = f"""# {uuid.uuid4().hex}
import numba


@numba.njit(cache=True)
def square(x):
    return x * x
"""
    assert jit.compile_function(source, "square")(3) == 9  # numba writes its index and data
    path = jit.entry_path(source)
    files = sorted((cache / "__pycache__").glob(f"{path.stem}.*.nb[ic]"))
    assert {f.suffix for f in files} == {".nbi", ".nbc"}
    assert not jit.drop_damaged_numba_cache(path)  # whole files are kept
    for file in files:
        data = file.read_bytes()
        spoiled = {
            "garbled": bytes(b ^ 0x5A if i % 7 == 3 else b for i, b in enumerate(data)),
            "truncated": data[: len(data) // 2],
            "emptied": b"",
        }[damage]
        file.write_bytes(spoiled)
    assert jit.drop_damaged_numba_cache(path)
    assert not any(f.exists() for f in files)  # numba compiles again and rewrites them
