"""The disk cache is used only when no one but its owner can write it: other owners,
group- or world-writable folders and symlinks give one warning and a run without the cache,
and code planted there (program entries, `.pyc` files, numba's pickled index) never runs.

Other users are simulated as root with `os.chown` to uid 65534 in a temporary folder.
"""

from __future__ import annotations

import importlib.util
import os
import pickle
import stat
import uuid
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest

from lowering.run import cache_folder, jit
from lowering.run.program_cache import compile_program, program_key, sealed

OTHER_UID = 65534
as_root = pytest.mark.skipif(os.geteuid() != 0, reason="simulating other users needs root")


class Marker:
    """Unpickling it writes `path` (a planted numba index would run it)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def __reduce__(self) -> tuple[object, tuple[str]]:
        return exec, (f"open({str(self.path)!r}, 'w').write('ran')",)


@pytest.fixture
def marker(tmp_path: Path) -> Iterator[Path]:
    path = tmp_path / "planted-code-ran"
    yield path
    assert not path.exists(), "planted code ran"


def use_cache(monkeypatch: pytest.MonkeyPatch, folder: Path) -> Path:
    monkeypatch.setenv("TSJIT_CACHE_DIR", str(folder))
    return folder


def folder(path: Path, mode: int = 0o700, uid: int | None = None) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    os.chmod(path, mode)
    if uid is not None:
        os.chown(path, uid, -1)
    return path


def planted_program(cache: Path, marker: Path) -> tuple[tuple[str, ...], str]:
    """(key parts, honest text) of a program whose entry someone planted in `cache`."""
    parts = (f"module {uuid.uuid4().hex}", "f", "f32[?]")
    planted = f"open({str(marker)!r}, 'w').write('ran')\n\n\ndef f(x):\n    return x + 100\n"
    programs = cache / "programs"
    programs.mkdir(exist_ok=True)
    (programs / f"{program_key(*parts)}.py").write_text(sealed(planted))
    return parts, f"# {uuid.uuid4().hex}\n\n\ndef f(x):\n    return x + 1\n"


def compiles_without_planted_code(cache: Path, marker: Path, reason: str, whole: bool = True):
    """compile_program warns (once) naming `cache` and `reason`, and runs the honest text;
    with `whole`, modules too are made outside `cache`."""
    parts, text = planted_program(cache, marker)
    with pytest.warns(UserWarning, match=f"tsjit cache folder {cache}: .*{reason}"):
        got, f = compile_program(parts, lambda: text, "f")
    assert (got, f(1)) == (text, 2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert compile_program(parts, lambda: text, "f")[1](1) == 2  # no second warning
    assert (jit.module_folder() != cache) == whole  # else a private temporary folder


@as_root
def test_a_folder_owned_by_another_user(tmp_path, monkeypatch, marker) -> None:
    cache = use_cache(monkeypatch, folder(tmp_path / "cache"))
    compiles_without_planted_code(
        folder(cache, uid=OTHER_UID), marker, f"owned by uid {OTHER_UID}, not by uid 0"
    )


@pytest.mark.parametrize(("mode", "reason"), [(0o770, "by its group"), (0o777, "by others")])
def test_a_folder_others_can_write(tmp_path, monkeypatch, marker, mode, reason) -> None:
    cache = use_cache(monkeypatch, folder(tmp_path / "cache"))
    compiles_without_planted_code(folder(cache, mode), marker, f"{cache} is writable {reason}")


def test_a_symlink(tmp_path, monkeypatch, marker) -> None:
    target = folder(tmp_path / "elsewhere")
    cache = tmp_path / "cache"
    cache.symlink_to(target)
    use_cache(monkeypatch, cache)
    compiles_without_planted_code(cache, marker, f"{cache} is a symlink")


@as_root
def test_a_parent_of_another_user(tmp_path, monkeypatch, marker) -> None:
    parent = folder(tmp_path / "theirs", 0o755, uid=OTHER_UID)
    cache = use_cache(monkeypatch, folder(parent / "cache"))
    compiles_without_planted_code(cache, marker, f"{parent} is owned by uid {OTHER_UID}")


@as_root
def test_a_sticky_parent_of_another_user_is_no_stop(tmp_path, monkeypatch, marker) -> None:
    parent = folder(tmp_path / "their-tmp", 0o1777, uid=OTHER_UID)
    cache = use_cache(monkeypatch, folder(parent / "cache"))
    compiles_without_planted_code(cache, marker, f"{parent} is owned by uid {OTHER_UID}")


def test_a_planted_module_in_an_owned_but_permissive_subfolder(tmp_path, monkeypatch, marker):
    cache = use_cache(monkeypatch, folder(tmp_path / "cache"))
    folder(cache / "programs", 0o777)
    reason = f"{cache / 'programs'} is writable by others"
    compiles_without_planted_code(cache, marker, reason, whole=False)  # __pycache__ is private


def test_a_planted_entry_others_could_write_is_not_read(tmp_path, monkeypatch, marker) -> None:
    cache = use_cache(monkeypatch, folder(tmp_path / "cache"))
    parts, text = planted_program(cache, marker)
    (entry,) = (cache / "programs").iterdir()
    os.chmod(entry, 0o666)
    got, f = compile_program(parts, lambda: text, "f")  # no warning: the folder is private
    assert (got, f(1)) == (text, 2)
    assert stat.S_IMODE(entry.stat().st_mode) == 0o600  # rewritten as the user's own file


def test_sticky_folders_and_home_end_the_walk(tmp_path, monkeypatch) -> None:
    sticky = folder(folder(tmp_path / "open", 0o777) / "tmp", 0o1777)
    home = folder(tmp_path / "open" / "home")
    monkeypatch.setenv("HOME", str(home))
    for cache in (sticky / "cache", home / ".cache" / "tsjit"):
        use_cache(monkeypatch, cache)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert jit.module_folder() == cache
    direct = folder(tmp_path / "open" / "direct")  # in a world-writable folder that is no stop
    assert cache_folder.unsafe_reason(direct) == f"{tmp_path / 'open'} is writable by others"


def test_made_private_whatever_the_umask(tmp_path, monkeypatch) -> None:
    cache = use_cache(monkeypatch, tmp_path / "new" / "cache")
    source = f"# {uuid.uuid4().hex}\nVALUE = 7\n"
    parts = (f"module {uuid.uuid4().hex}", "f", "f32[?]")
    old = os.umask(0)
    try:
        assert jit.load_module(source).VALUE == 7
        compile_program(parts, lambda: f"# {uuid.uuid4().hex}\ndef f(x):\n    return x\n", "f")
    finally:
        os.umask(old)
    for path in [tmp_path / "new", cache, cache / "__pycache__", cache / "programs"]:
        assert stat.S_IMODE(path.stat().st_mode) == 0o700, path
    for path in [jit.entry_path(source), *(cache / "programs").iterdir()]:
        assert stat.S_IMODE(path.stat().st_mode) == 0o600, path


def test_a_planted_pyc_is_never_run(tmp_path, monkeypatch, marker) -> None:
    """A `.pyc` whose header matches the entry's mtime and size: importlib would run it."""
    use_cache(monkeypatch, folder(tmp_path / "cache"))
    source = f"# {uuid.uuid4().hex}\nVALUE = 1\n"
    path = jit.entry_path(source)
    jit.write_entry(path, source)
    planted = compile(f"open({str(marker)!r}, 'w').write('ran')\nVALUE = 666\n", path, "exec")
    info = path.stat()
    pyc = Path(importlib.util.cache_from_source(str(path)))
    pyc.parent.mkdir(mode=0o700, exist_ok=True)
    pyc.write_bytes(
        importlib._bootstrap_external._code_to_timestamp_pyc(  # type: ignore[attr-defined]
            planted, int(info.st_mtime), info.st_size
        )
    )
    assert jit.load_module(source).VALUE == 1


def numba_source() -> str:
    body = "import numba\n\n\n@numba.njit(cache=True)\ndef sq(x):\n    return x * x\n"
    return f"# {uuid.uuid4().hex}\n{body}"


def plant_index(cache: Path, source: str, marker: Path) -> Path:
    stem = jit.entry_path(source).stem
    index = cache / "__pycache__" / f"{stem}.sq-5.py311.nbi"  # `sq` is decorated on line 5
    index.parent.mkdir(exist_ok=True)
    index.write_bytes(pickle.dumps(Marker(marker)))
    return index


def test_a_planted_numba_index_in_a_permissive_folder_is_not_unpickled(
    tmp_path, monkeypatch, marker
) -> None:
    cache = use_cache(monkeypatch, folder(tmp_path / "cache"))
    source = numba_source()
    plant_index(cache, source, marker)
    os.chmod(cache, 0o777)
    with pytest.warns(UserWarning, match="writable by others"):
        assert jit.compile_function(source, "sq")(3) == 9


@as_root
def test_a_numba_index_of_another_user_is_dropped(tmp_path, monkeypatch, marker) -> None:
    cache = use_cache(monkeypatch, folder(tmp_path / "cache"))
    source = numba_source()
    index = plant_index(cache, source, marker)
    os.chown(index, OTHER_UID, -1)
    assert jit.compile_function(source, "sq")(3) == 9
    assert not index.exists() or index.stat().st_uid == 0  # dropped; numba wrote its own


@as_root
def test_a_parent_link_of_another_user(tmp_path, monkeypatch, marker) -> None:
    real = folder(tmp_path / "real")
    link = tmp_path / "link"
    link.symlink_to(real)
    os.lchown(link, OTHER_UID, -1)
    cache = use_cache(monkeypatch, folder(real / "cache"))
    use_cache(monkeypatch, link / "cache")
    compiles_without_planted_code(link / "cache", marker, f"{link} is a symlink")
    assert cache.exists()


def test_a_readable_subfolder_is_closed_and_files_others_could_write_are_dropped(
    tmp_path, monkeypatch
) -> None:
    cache = use_cache(monkeypatch, folder(tmp_path / "cache", 0o755))
    pycache = folder(cache / "__pycache__", 0o755)
    kept, dropped = pycache / "kept.nbi", pycache / "dropped.nbi"
    kept.write_bytes(b"x")
    dropped.write_bytes(b"x")
    os.chmod(kept, 0o644)
    os.chmod(dropped, 0o666)
    assert jit.module_folder() == cache
    assert stat.S_IMODE(pycache.stat().st_mode) == 0o700
    assert kept.exists() and not dropped.exists()
