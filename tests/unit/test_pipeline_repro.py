"""A failing pass names itself and writes the IR it got, which reproduces the failure."""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

import frontend
from lowering import pipeline
from lowering.pipeline import PipelineError, Stage, lower


def double(x):
    return x * 2.0 + x


@dataclass(frozen=True)
class FailingPass(ModulePass):
    name = "canonicalize"  # a registered name, so the repro command parses

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        raise RuntimeError("deliberate failure")


def test_the_repro_holds_the_input_of_the_failing_pass(monkeypatch: pytest.MonkeyPatch) -> None:
    module = frontend.script(double).module
    expected = str(lower(module, Stage.LINALG, "f32[?]"))  # what the memref stage gets
    original = pipeline.stage_passes

    def with_failure(stage: Stage, signature: str) -> list[ModulePass]:
        return [FailingPass()] if stage == Stage.MEMREF else original(stage, signature)

    monkeypatch.setattr(pipeline, "stage_passes", with_failure)
    with pytest.raises(PipelineError, match="failed: deliberate failure") as err:
        lower(module, Stage.LOOPS, "f32[?]")
    assert "pass 'canonicalize'" in str(err.value)
    path = re.search(r"xdsl-opt (\S+\.mlir)", str(err.value))
    assert path is not None
    assert Path(path[1]).read_text() == expected
    run = subprocess.run(["xdsl-opt", path[1]], capture_output=True, text=True, check=False)
    assert run.returncode == 0, run.stderr  # the repro parses
