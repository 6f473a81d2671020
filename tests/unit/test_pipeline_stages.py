"""Which stage a module is at (`contracts.stage_of`), the named pipelines that lower from it,
and the one-line errors `xdsl-opt` prints for IR of the wrong stage."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import frontend
from lowering.contracts import StageError, require_stage, stage_of
from lowering.pipeline import LowerToLinalgPass, LowerToLoopsPass, Stage, lower, make_context


def scale_shift(x, b):
    return x * 2.0 + b


SIGNATURE = "f32[?,4],f32[4]"


@pytest.fixture(scope="module")
def torch_module():
    return frontend.script(scale_shift).module


@pytest.mark.parametrize(
    ("stage", "found"),
    [
        (Stage.TORCH, "torch"),
        (Stage.TORCH_OPT, "torch-opt"),
        (Stage.LINALG, "linalg"),
        (Stage.MEMREF, "memref"),
        (Stage.LOOPS, "loops"),
    ],
)
def test_each_stage_is_recognized(torch_module, stage, found):
    module = torch_module if stage == Stage.TORCH else lower(torch_module, stage, SIGNATURE)
    assert stage_of(module) == found


def test_a_named_pipeline_lowers_from_the_stage_it_finds(torch_module):
    linalg = torch_module.clone()
    LowerToLinalgPass(signature=SIGNATURE).apply(make_context(), linalg)
    assert stage_of(linalg) == "linalg"
    LowerToLoopsPass().apply(make_context(), linalg)  # from linalg on: no signature needed
    assert str(linalg) == str(lower(torch_module, Stage.LOOPS, SIGNATURE))


def test_earlier_stage_input_names_the_stage_and_the_pipeline(torch_module):
    expected = re.escape(
        "needs IR of stage 'linalg' (made by convert-torch-to-linalg), but this input is at "
        "stage 'torch'; get there with: xdsl-opt FILE -p 'tsjit-to-linalg{signature="
    )
    with pytest.raises(StageError, match=expected):
        require_stage(torch_module, "linalg-bufferize", "linalg")
    require_stage(lower(torch_module, Stage.LOOPS, SIGNATURE), "linalg-bufferize", "linalg")


def test_lowering_backwards_is_refused(torch_module):
    loops = lower(torch_module, Stage.LOOPS, SIGNATURE)
    with pytest.raises(StageError, match="already at stage 'loops'"):
        LowerToLinalgPass().apply(make_context(), loops)


def test_xdsl_opt_prints_one_line_for_a_wrong_stage(tmp_path, torch_module):
    source = tmp_path / "f.mlir"
    source.write_text(str(lower(torch_module, Stage.TORCH_OPT, SIGNATURE)))
    xdsl_opt = shutil.which("xdsl-opt", path=str(Path(sys.executable).parent)) or "xdsl-opt"
    done = subprocess.run(
        [xdsl_opt, str(source), "-p", "linalg-bufferize"], capture_output=True, text=True
    )
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    assert done.stderr.strip().splitlines() == [
        "xdsl-opt: error: linalg-bufferize: needs IR of stage 'linalg' (made by "
        "convert-torch-to-linalg), but this input is at stage 'torch-opt'; get there with: "
        "xdsl-opt FILE -p 'tsjit-to-linalg'"
    ]
