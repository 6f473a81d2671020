"""The smoke set: what every supported Python must run, without PyTorch installed.

Script, trace, a module, save/load, the command line and `xdsl-opt`, each checked against the
eager `frontend.torch` result. `scripts/check.sh` runs this folder on each installed Python
among 3.10-3.13 in a venv of its own (`scripts/smoke-pythons.sh`); the main run includes it.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import frontend
from frontend import torch
from tests.smoke.programs import TinyNet, gelu_bias, relu_mix

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
RNG = np.random.default_rng(0)
X = RNG.standard_normal((4, 6)).astype(np.float32)
B = RNG.standard_normal(6).astype(np.float32)


def eager(fn, *arrays):
    return fn(*[torch.from_numpy(a) for a in arrays]).numpy()


def test_a_scripted_function_matches_eager():
    f = frontend.script(gelu_bias)
    np.testing.assert_allclose(f(X, B), eager(gelu_bias, X, B), rtol=1e-5, atol=1e-6)


def test_a_traced_function_matches_eager():
    f = frontend.trace(relu_mix, (torch.from_numpy(X),))
    np.testing.assert_allclose(f(X), eager(relu_mix, X), rtol=1e-5, atol=1e-6)


def test_a_scripted_module_matches_eager(tmp_path):
    torch.manual_seed(0)
    net = TinyNet().eval()
    scripted = frontend.script(net)
    expected = net(torch.from_numpy(X)).numpy()
    np.testing.assert_allclose(np.asarray(scripted(X)), expected, rtol=1e-5, atol=1e-6)
    frontend.save(scripted, tmp_path / "net.tsjit")
    loaded = frontend.load(tmp_path / "net.tsjit")
    np.testing.assert_allclose(np.asarray(loaded(X)), expected, rtol=1e-5, atol=1e-6)


def run(*command: str) -> str:
    path = os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])
    env = {**os.environ, "PYTHONPATH": path}
    done = subprocess.run(command, capture_output=True, text=True, env=env, cwd=ROOT, timeout=300)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_the_command_line_prints_every_stage():
    program = f"{HERE / 'programs.py'}:relu_mix"
    out = run(sys.executable, "-m", "frontend", program, "--emit=loops", "--args", "f32[?,6]")
    assert "scf.parallel" in out and "torch." not in out
    assert "numba" in run(sys.executable, "-m", "frontend", program, "--emit=python")


@pytest.fixture(scope="module")
def torch_ir() -> str:
    return frontend.script(relu_mix).graph


def xdsl_opt() -> str:
    found = Path(sys.executable).with_name("xdsl-opt")
    return str(found) if found.exists() else "xdsl-opt"


def test_xdsl_opt_lowers_torch_ir_to_loops(tmp_path, torch_ir):
    source = tmp_path / "f.mlir"
    source.write_text(torch_ir)
    passes = 'torch-refine-types{signature="f32[?,6]"},convert-torch-to-linalg'
    out = run(xdsl_opt(), str(source), "-p", passes)
    assert "linalg.generic" in out and "torch." not in out
