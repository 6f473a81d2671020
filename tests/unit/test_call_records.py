"""Checks the cross-process records of calls on a program's general code
(`lowering/run/call_records.py`)."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

from lowering.run import call_records, program_cache
from lowering.run.call_records import (
    has_record,
    may_have_records,
    record_key,
    record_path,
    write_record,
)


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("TSJIT_CACHE_DIR", str(tmp_path))
    return tmp_path


def parts() -> tuple[str, ...]:
    return (f"module {uuid.uuid4().hex}", "f", "f32[?]")


CALL = "f32[3];C"


def test_a_written_record_is_found(cache: Path) -> None:
    key = record_key(parts(), "checker", CALL)
    assert not has_record(key) and not may_have_records()
    write_record(key)
    assert has_record(key) and may_have_records()
    assert record_path(key).stat().st_mode & 0o077 == 0


def test_the_key_covers_program_checker_call_and_compiler(monkeypatch: pytest.MonkeyPatch) -> None:
    base = parts()
    keys = {
        record_key(base, "checker", CALL),
        record_key((base[0] + " changed", *base[1:]), "checker", CALL),  # another kernel text
        record_key(base, "another checker", CALL),  # the frontend's rules changed
        record_key(base, "checker", "f32[4];C"),  # other shapes
        record_key(base, "checker", "f32[3];Cr"),  # a read-only array: another numba type
    }
    monkeypatch.setattr(program_cache, "compiler_fingerprint", lambda: "another compiler")
    keys.add(record_key(base, "checker", CALL))
    assert len(keys) == 6


def test_a_record_made_by_another_compiler_misses(
    cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    base = parts()
    write_record(record_key(base, "checker", CALL))
    monkeypatch.setattr(program_cache, "compiler_fingerprint", lambda: "edited lowering sources")
    assert not has_record(record_key(base, "checker", CALL))


@pytest.mark.parametrize(
    "damage",
    [lambda t: t[: len(t) // 2], lambda t: "", lambda t: t.replace("a", "b")],
    ids=["truncated", "emptied", "changed"],
)
def test_a_damaged_record_misses(cache: Path, damage: object) -> None:
    key = record_key(parts(), "checker", CALL)
    write_record(key)
    path = record_path(key)
    path.write_text(damage(path.read_text()))  # type: ignore[operator]
    assert not has_record(key)


def test_a_record_copied_to_another_key_misses(cache: Path) -> None:
    key, other = (record_key(parts(), "checker", CALL) for _ in range(2))
    write_record(key)
    record_path(other).write_bytes(record_path(key).read_bytes())
    record_path(other).chmod(0o600)
    assert not has_record(other)


def test_records_in_a_folder_others_can_write_are_not_read(cache: Path) -> None:
    key = record_key(parts(), "checker", CALL)
    write_record(key)
    (cache / call_records.FOLDER).chmod(0o777)
    with pytest.warns(UserWarning, match="runs without its disk cache"):
        found = has_record(key)
    assert not found
