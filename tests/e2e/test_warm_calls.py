"""A warm process runs compiled code from its first call (`frontend/run/warm_calls.py`).

Each check runs fresh processes sharing one cache folder: the first compiles (and records the
call), the next ones must find the call on record. Which path a call took is observed in the
child: the eager tier (the torch interpreter), the shape check's lowering and the program's
lowering are replaced by functions that raise.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

CHILD = """
import json
import sys

import numpy as np
import torch

import frontend
from dialects.torch import interpreter
from frontend.function import ScriptFunction
from frontend.run import shape_guard

mode, rows, strict = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "strict"


def cell(x, h):
    return torch.tanh(x @ h.t() + h.sum())


if strict:  # the call must run compiled code found in the caches, with no lowering at all
    def refuse(*args, **kwargs):
        raise AssertionError("lowered or ran eagerly although the call is on record")

    interpreter.run_torch_ir = refuse
    shape_guard.lower = refuse
    shape_guard.refined = refuse
    ScriptFunction._python_source = refuse
x = np.random.default_rng(0).standard_normal((rows, 4)).astype(np.float32)
h = np.random.default_rng(1).standard_normal((5, 4)).astype(np.float32)
scripted = frontend.script(cell, compile=mode)
got = scripted(torch.from_numpy(x), torch.from_numpy(h))
at_once = scripted.wait_compiled(timeout=0)
assert scripted.wait_compiled(timeout=300)
want = cell(torch.from_numpy(x), torch.from_numpy(h))
np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-4, atol=1e-5)
print(json.dumps({"at_once": at_once}))
"""


def run_child(script: Path, cache: Path, *args: str, log: list[str] | None = None) -> dict:
    """The child's answer; with `log`, run with `TSJIT_LOGS=compile` and its stderr appended."""
    env = {**os.environ, "TSJIT_CACHE_DIR": str(cache), "PYTHONPATH": str(REPO)}
    env.pop("TSJIT_COMPILE", None)
    if log is not None:
        env["TSJIT_LOGS"] = "compile"
    run = subprocess.run(
        [sys.executable, str(script), *args],
        env=env, cwd=REPO, capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    if log is not None:
        log.append(run.stderr)
    return json.loads(run.stdout.strip().splitlines()[-1])


@pytest.fixture
def child(tmp_path: Path) -> Path:
    script = tmp_path / "child.py"
    script.write_text(CHILD)
    return script


@pytest.mark.parametrize("first_mode", ["background", "now"])
def test_a_warm_process_runs_compiled_code_from_its_first_call(
    child: Path, tmp_path: Path, first_mode: str
) -> None:
    cache = tmp_path / "cache"
    cold = run_child(child, cache, first_mode, "3", "lax")
    assert cold["at_once"] is (first_mode == "now")
    log: list[str] = []
    assert run_child(child, cache, "background", "3", "strict", log=log) == {"at_once": True}
    assert run_child(child, cache, "now", "3", "strict") == {"at_once": True}
    (report,) = log  # the compile report says how the call got its code
    assert "cell (f32[?,?],f32[?,?]), on record:" in report
    assert "program cache: the text made before (no lowering)" in report
    assert "numba disk cache: loaded kernel" in report
    assert "shape check" not in report and "in the background" not in report


def test_other_shapes_are_not_on_record(child: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    run_child(child, cache, "background", "3", "lax")
    assert run_child(child, cache, "background", "7", "lax") == {"at_once": False}
    assert run_child(child, cache, "background", "7", "strict") == {"at_once": True}


def test_records_of_other_frontend_rules_miss(child: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    run_child(child, cache, "background", "3", "lax")
    patched = tmp_path / "patched_child.py"
    checker = "from frontend.run import warm_calls\nwarm_calls.checker_digest = lambda: 'edited'\n"
    patched.write_text(CHILD.replace("import frontend\n", "import frontend\n" + checker, 1))
    assert run_child(patched, cache, "background", "3", "lax") == {"at_once": False}
