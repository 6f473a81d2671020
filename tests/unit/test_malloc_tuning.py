"""Checks `lowering.run.jit.tune_malloc`: applied once per process on glibc, off on request."""

from __future__ import annotations

import os
import platform
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
CHILD = """
import uuid
from lowering.run import jit

calls = []
real = jit.tune_malloc.__wrapped__
jit.tune_malloc = __import__("functools").cache(lambda: calls.append(1) or real())
for _ in range(2):
    jit.load_module(f"# {uuid.uuid4().hex}\\nVALUE = 1\\n")
print(jit.tune_malloc(), len(calls))
"""


def run_child(tmp_path: Path, tuning: str | None) -> str:
    env = {**os.environ, "TSJIT_CACHE_DIR": str(tmp_path), "PYTHONPATH": str(REPO)}
    env.pop("TSJIT_MALLOC_TUNING", None)
    if tuning is not None:
        env["TSJIT_MALLOC_TUNING"] = tuning
    run = subprocess.run(
        [sys.executable, "-c", CHILD],
        env=env, cwd=REPO, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    return run.stdout.strip()


@pytest.mark.skipif(
    not sys.platform.startswith("linux") or platform.libc_ver()[0] != "glibc",
    reason="mallopt is glibc's",
)
def test_loading_modules_tunes_malloc_once(tmp_path: Path) -> None:
    assert run_child(tmp_path, None) == "True 1"


def test_tuning_is_off_on_request(tmp_path: Path) -> None:
    assert run_child(tmp_path, "0") == "False 1"
