"""Checks the cross-process cache of generated programs (`lowering/run/program_cache.py`)."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects.builtin import ModuleOp

import frontend
from dialects.torch.ops.prim import ValueTensorLiteralOp
from lowering.run import program_cache
from lowering.run.program_cache import compile_program, program_key, program_parts, sealed

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("TSJIT_CACHE_DIR", str(tmp_path))
    return tmp_path


class Maker:
    """`make_text` for compile_program: a fresh importable program; counts its calls."""

    def __init__(self) -> None:
        self.text = f"# {uuid.uuid4().hex}\n\n\ndef f(x):\n    return x + 1\n"
        self.calls = 0

    def __call__(self) -> str:
        self.calls += 1
        return self.text


def parts() -> tuple[str, ...]:
    return (f"module {uuid.uuid4().hex}", "f", "f32[?]")


def test_second_compile_reads_the_remembered_text(cache: Path) -> None:
    key_parts, make = parts(), Maker()
    text, f = compile_program(key_parts, make, "f")
    assert (text, f(1), make.calls) == (make.text, 2, 1)
    again, g = compile_program(key_parts, make, "f")
    assert (again, g(1), make.calls) == (make.text, 2, 1)
    (entry,) = (cache / "programs").iterdir()
    assert entry.read_text() == sealed(make.text)


@pytest.mark.parametrize(
    "damage",
    [
        lambda t: t.replace("x + 1", "x + 2"),  # valid Python, another program
        lambda t: t[: len(t) // 2],
        lambda t: "",
        lambda t: t.split("\n", 1)[1],  # no seal
    ],
    ids=["changed", "truncated", "emptied", "unsealed"],
)
def test_damaged_entry_is_ignored_and_rebuilt(cache: Path, damage: object) -> None:
    key_parts, make = parts(), Maker()
    compile_program(key_parts, make, "f")
    (entry,) = (cache / "programs").iterdir()
    entry.write_text(damage(entry.read_text()))  # type: ignore[operator]
    make.text = make.text.replace("# ", "# again ")  # a new module, not the memoized one
    text, f = compile_program(key_parts, make, "f")
    assert (text, f(1), make.calls) == (make.text, 2, 2)
    assert entry.read_text() == sealed(make.text)


def test_entry_that_no_longer_imports_is_made_again(cache: Path) -> None:
    key_parts = parts()
    broken = f"# {uuid.uuid4().hex}\nraise ImportError('a kernel changed')\n"
    program_cache.remember(program_key(*key_parts), broken)
    make = Maker()
    text, f = compile_program(key_parts, make, "f")
    assert (text, f(1), make.calls) == (make.text, 2, 1)


def test_failed_lowering_remembers_nothing(cache: Path) -> None:
    def fails() -> str:
        raise RuntimeError("lowering failed")

    with pytest.raises(RuntimeError, match="lowering failed"):
        compile_program(parts(), fails, "f")
    assert not (cache / "programs").exists()


def test_concurrent_writers_leave_one_whole_entry(cache: Path) -> None:
    key_parts, make = parts(), Maker()
    with ThreadPoolExecutor(8) as pool:
        results = list(pool.map(lambda _: compile_program(key_parts, make, "f")[0], range(16)))
    assert results == [make.text] * 16
    assert [p.read_text() for p in (cache / "programs").iterdir()] == [sealed(make.text)]


def test_key_changes_with_ir_name_signature_and_compiler(monkeypatch: pytest.MonkeyPatch) -> None:
    base = ("module A", "f", "f32[?]")
    keys = {program_key(*base)}
    for index, other in enumerate(["module B", "g", "f32[?,?]"]):
        changed = list(base)
        changed[index] = other
        keys.add(program_key(*changed))
    monkeypatch.setattr(program_cache, "compiler_fingerprint", lambda: "another compiler")
    keys.add(program_key(*base))
    assert len(keys) == 5


def test_fingerprint_reads_the_real_compiler_packages() -> None:
    for package in program_cache.COMPILER_PACKAGES:
        assert (program_cache.ROOT / package / "__init__.py").is_file(), package


def test_fingerprint_covers_the_compiler_sources(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for package in program_cache.COMPILER_PACKAGES:
        (tmp_path / package).mkdir()
        (tmp_path / package / "a.py").write_text("X = 1\n")
    monkeypatch.setattr(program_cache, "ROOT", tmp_path)
    before = program_cache.compiler_fingerprint.__wrapped__()
    (tmp_path / "lowering" / "a.py").write_text("X = 2\n")
    assert program_cache.compiler_fingerprint.__wrapped__() != before


def double_plus(x):
    return x * 2.0 + 1.0


def triple_plus(x):
    return x * 3.0 + 1.0


def test_program_parts_tell_programs_apart() -> None:
    module = frontend.script(double_plus).module
    other = frontend.script(triple_plus).module
    first = program_parts(module, "double_plus", "f32[?]")
    assert first is not None
    assert program_parts(module, "double_plus", "f32[?]") == first
    assert program_parts(module, "double_plus", "f64[?]") != first
    assert program_parts(other, "double_plus", "f32[?]") != first


def test_large_literals_enter_the_key_by_digest() -> None:
    def module_of(weights: np.ndarray) -> ModuleOp:
        return ModuleOp([ValueTensorLiteralOp(weights)])

    weights = np.arange(4096, dtype=np.float32)
    text = program_cache.ir_text(module_of(weights))
    assert "sha256:" in text
    assert len(text) < 1000
    assert "tensor<4096xf32>" in text
    changed = weights.copy()
    changed[7] = -1
    assert program_cache.ir_text(module_of(changed)) != text
    small = np.arange(4, dtype=np.float32)
    assert program_cache.ir_text(module_of(small)) == str(module_of(small))


FRESH = """
import sys
import numpy as np
import frontend
from frontend.function import ScriptFunction


def double_plus(x):
    return x * 2.0 + 1.0


if sys.argv[1] == "no-lowering":
    def refuse(self, signature):
        raise AssertionError("lowered although the program was remembered")

    ScriptFunction._python_source = refuse
print(frontend.script(double_plus)(np.arange(3, dtype=np.float32)).tolist())
"""


def test_fresh_process_skips_the_lowering(tmp_path: Path) -> None:
    script = tmp_path / "program.py"
    script.write_text(FRESH)
    env = {**os.environ, "TSJIT_CACHE_DIR": str(tmp_path / "cache"), "PYTHONPATH": str(REPO)}
    outputs = []
    for mode in ("lowering", "no-lowering"):
        run = subprocess.run(
            [sys.executable, str(script), mode],
            env=env, cwd=REPO, capture_output=True, text=True, timeout=300, check=False,
        )  # fmt: skip
        assert run.returncode == 0, run.stderr
        outputs.append(run.stdout)
    assert outputs == ["[1.0, 3.0, 5.0]\n"] * 2


def test_root_is_the_folder_of_the_compiler_packages() -> None:
    """The real ROOT holds `lowering/` and `dialects/` (a ROOT one level too deep hashed no
    file, so an edited compiler reused the programs its older self had made)."""
    for package in program_cache.COMPILER_PACKAGES:
        assert (program_cache.ROOT / package / "__init__.py").is_file(), package
    assert (program_cache.ROOT / "lowering" / "run" / "program_cache.py").is_file()
