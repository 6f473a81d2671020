"""Hostile saved files (`hostile_files.corpus`) each give LoadError: never a signal, never a
MemoryError, loaded in one child process whose address space is capped (RLIMIT_AS)."""

from __future__ import annotations

import io
import json
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hostile_files import corpus, rebuild

import frontend
from frontend import torch as ftorch
from frontend.torch import nn as fnn

EXTRA_ADDRESS_SPACE = 768 << 20  # far below every bomb's size
RUNNER = r"""
import json, os, resource, sys
import frontend
size = int(open("/proc/self/statm").read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
limit = size + int(sys.argv[3])
resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
outcomes = {}
for name, path, max_bytes, env in json.load(open(sys.argv[1])):
    saved = dict(os.environ)
    os.environ.update(env)
    try:
        frontend.load(path, max_bytes=max_bytes)
        outcomes[name] = "loaded"
    except frontend.LoadError as err:
        outcomes[name] = "LoadError: " + str(err)
    except BaseException as err:
        outcomes[name] = f"{type(err).__name__}: {err}"
    finally:
        os.environ.clear()
        os.environ.update(saved)
json.dump(outcomes, open(sys.argv[2], "w"))
"""
MESSAGES = {
    "ir_memref_store_far": "memref.alloc is not registered",
    "ir_arith_op": "arith.constant",
    "ir_python_call": "op torch.prim.PythonCall is not one a saved file holds",
    "ir_unrealized_cast": "builtin.unrealized_conversion_cast",
    "ir_nested_module": "op builtin.module is not one a saved file holds",
    "ir_recursion": "calls itself",
    "ir_call_to_missing_function": "'@elsewhere' could not be found",
    "ir_memref_in_list_type": "memref",
    "ir_affine_map_attribute": "carries affine_map<(d0) -> (d0)>, not an attribute",
    "ir_vector_literal_attribute": "carries vector<2xi64>, not an attribute",
    "ir_function_without_body": "has no body",
    "ir_lying_result_type": "the operands give",
    "duplicate_ir_member": "appears twice",
    "unused_weight_member": "not used by the manifest",
    "traversal_name_0": "not part of a tsjit file",
    "symlink_member": "not a plain file",
    "crc_mismatch": "CRC",
    "bomb_ir_honest_header": "load budget",
    "bomb_weight_small_shape": "shape x item size",
    "bomb_unused_member": "not used by the manifest",
    "bomb_declared_weight_max_bytes": "load budget of 67108864",
    "bomb_declared_weight_env_budget": "load budget of 67108864",
    "huge_declared_weight": "compressed bytes can hold",
    "weight_dtype_lies": "holds int32 data",
    "weight_shape_lies": "has shape [9]",
    "weight_bool_bytes": "bool weight",
    "manifest_shared_weight_file": "name the same member",
    "manifest_weight_path_internal": "weight path '_arrays' does not name a weight",
    "manifest_weight_path_dunder": "weight path '__class__' does not name a weight",
}


class Picker(fnn.Module):
    """Weights: an int64 index buffer and a Linear's weight and bias."""

    def __init__(self):
        super().__init__()
        self.linear = fnn.Linear(3, 3)
        self.register_buffer("rows", ftorch.tensor([2, 0, 1]))

    def forward(self, x):
        return self.linear(x).index_select(0, self.rows)


@pytest.fixture(scope="module")
def honest_files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    ftorch.manual_seed(0)
    path = tmp_path_factory.mktemp("honest") / "picker.tsj"
    frontend.script(Picker()).save(path)
    with zipfile.ZipFile(path) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


@pytest.fixture(scope="module")
def outcomes(honest_files: dict[str, bytes], tmp_path_factory: pytest.TempPathFactory) -> Any:
    folder = tmp_path_factory.mktemp("hostile")
    plan = []
    for name, case in corpus(honest_files).items():
        path = folder / f"{name}.tsj"
        path.write_bytes(case.data)
        plan.append([name, str(path), case.max_bytes, case.env])
    (folder / "plan.json").write_text(json.dumps(plan))
    run = subprocess.run(
        [sys.executable, "-c", RUNNER, str(folder / "plan.json"), str(folder / "out.json"),
         str(EXTRA_ADDRESS_SPACE)],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    return run, json.loads((folder / "out.json").read_text()) if run.returncode == 0 else {}


def test_the_child_ends_normally(outcomes: Any) -> None:
    run, _ = outcomes
    assert run.returncode == 0, run.stderr[-2000:]  # a negative code is a signal


def test_every_hostile_file_gives_load_error(outcomes: Any) -> None:
    _, results = outcomes
    assert len(results) >= 50
    wrong = {n: r for n, r in results.items() if not r.startswith("LoadError: ")}
    assert not wrong, wrong


@pytest.mark.parametrize("case", sorted(MESSAGES))
def test_load_error_says_what(outcomes: Any, case: str) -> None:
    _, results = outcomes
    assert MESSAGES[case] in results[case], results[case]


def test_the_honest_file_loads_and_runs(honest_files: dict[str, bytes], tmp_path: Path) -> None:
    path = tmp_path / "honest.tsj"
    path.write_bytes(rebuild(honest_files))  # the corpus's own writer, unchanged members
    x = np.arange(9, dtype=np.float32).reshape(3, 3)
    loaded = frontend.load(path, max_bytes=1 << 20)
    weight, bias = loaded.weights["linear.weight"], loaded.weights["linear.bias"]
    np.testing.assert_allclose(loaded(x), (x @ weight.T + bias)[[2, 0, 1]], rtol=1e-6)
    with pytest.raises(frontend.LoadError, match="load budget of 100 bytes"):
        frontend.load(path, max_bytes=100)
    with pytest.raises(ValueError, match="max_bytes must be a non-negative int"):
        frontend.load(path, max_bytes=-1)


def test_a_weight_used_as_an_index_is_checked_when_it_runs(
    honest_files: dict[str, bytes], tmp_path: Path
) -> None:
    """A file whose index weight points far outside the rows: it loads (the bytes are a valid
    int64 [3]) and the call raises IndexError like torch, in a child that must not crash."""
    rows = io.BytesIO()
    np.save(rows, np.array([2, 1 << 40, -7], dtype=np.int64), allow_pickle=False)
    path = tmp_path / "far_rows.tsj"
    path.write_bytes(rebuild({**honest_files, "weights/0.npy": rows.getvalue()}))
    code = (
        "import sys, numpy as np, frontend\n"
        "m = frontend.load(sys.argv[1])\n"
        "try:\n    m(np.ones((3, 3), np.float32))\nexcept IndexError as err:\n"
        "    print('IndexError', err)\n"
    )
    run = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.startswith("IndexError"), run.stdout
