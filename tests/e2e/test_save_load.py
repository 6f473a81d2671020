"""`save` / `load`: round trips in a fresh process, and damaged files raise only LoadError."""

from __future__ import annotations

import json
import random
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest

import frontend
from frontend import torch as ftorch
from frontend.torch import nn as fnn


class Gate(fnn.Module):
    def forward(self, x):
        if x.sum() > 0:
            return x
        return -x


class Cell(fnn.Module):
    def __init__(self):
        super().__init__()
        self.gate = Gate()
        self.linear = fnn.Linear(4, 4)
        self.register_buffer("offset", ftorch.ones(4) * 0.5)

    def forward(self, x, h):
        new_h = ftorch.tanh(self.gate(self.linear(x)) + h + self.offset)
        return new_h, new_h * 2.0


def scripted_cell():
    ftorch.manual_seed(0)
    return frontend.script(Cell())


def run_fresh(path: Path, inputs: list[np.ndarray], out: Path) -> None:
    """Load `path` in a new Python process, call it on `inputs`, save the outputs to `out`."""
    code = (
        "import sys, numpy as np, frontend\n"
        "m = frontend.load(sys.argv[1])\n"
        "args = [np.load(a) for a in sys.argv[3:]]\n"
        "res = m(*args)\n"
        "res = res if isinstance(res, tuple) else (res,)\n"
        "np.savez(sys.argv[2], *[np.asarray(r) for r in res])\n"
    )
    files = []
    for i, array in enumerate(inputs):
        files.append(out.parent / f"in{i}.npy")
        np.save(files[-1], array)
    subprocess.run(
        [sys.executable, "-c", code, str(path), str(out), *map(str, files)],
        check=True,
        capture_output=True,
        text=True,
    )


def test_scripted_module_round_trips_in_a_fresh_process(tmp_path: Path) -> None:
    cell = scripted_cell()
    path = tmp_path / "cell.tsj"
    cell.save(path)
    x = np.random.default_rng(0).standard_normal((3, 4)).astype(np.float32)
    h = np.zeros((3, 4), np.float32)
    expected = cell(x, h)
    run_fresh(path, [x, h], tmp_path / "out.npz")
    got = np.load(tmp_path / "out.npz")
    np.testing.assert_array_equal(got["arr_0"], expected[0])
    np.testing.assert_array_equal(got["arr_1"], expected[1])


def test_loaded_program_shows_its_graph_and_saves_again(tmp_path: Path) -> None:
    cell = scripted_cell()
    cell.save(tmp_path / "a.tsj")
    loaded = frontend.load(tmp_path / "a.tsj")
    assert loaded.graph == cell.graph
    assert set(loaded.state_dict()) == {"linear.weight", "linear.bias", "offset"}
    loaded.save(tmp_path / "b.tsj")
    again = frontend.load(tmp_path / "b.tsj")
    x = np.ones((2, 4), np.float32)
    np.testing.assert_array_equal(again(x, x)[0], cell(x, x)[0])


def test_scripted_function_round_trips(tmp_path: Path) -> None:
    @frontend.script
    def f(x, n: int):
        for _ in range(n):
            x = x * 0.5 + 1.0
        return x

    f.save(tmp_path / "f.tsj")
    loaded = frontend.load(tmp_path / "f.tsj")
    x = np.arange(5, dtype=np.float32)
    np.testing.assert_array_equal(loaded(x, 3), f(x, 3))


def test_programs_with_python_calls_are_not_saved(tmp_path: Path) -> None:
    @frontend.ignore
    def show(x) -> None:
        print(x)

    class Shows(fnn.Module):
        def forward(self, x):
            show(x)
            return x + 1.0

    with pytest.raises(TypeError, match="ignore"):
        frontend.script(Shows()).save(tmp_path / "s.tsj")


# ---- damaged files ----


@pytest.fixture(scope="module")
def saved(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    path = tmp_path_factory.mktemp("saved") / "cell.tsj"
    scripted_cell().save(path)
    return path.read_bytes()


def rewrite(data: bytes, edit) -> bytes:
    """The archive with its members passed through `edit(name, bytes) -> bytes | None`."""
    import io

    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as src, zipfile.ZipFile(out, "w") as dst:
        for info in src.infolist():
            new = edit(info.filename, src.read(info.filename))
            if new is not None:
                dst.writestr(info.filename, new)
    return out.getvalue()


def load_bytes(tmp_path: Path, data: bytes):
    path = tmp_path / "damaged.tsj"
    path.write_bytes(data)
    return frontend.load(path)


def bump_version(name: str, data: bytes) -> bytes:
    if name != "manifest.json":
        return data
    manifest = json.loads(data)
    manifest["version"] = 99
    return json.dumps(manifest).encode()


def tamper_ir(name: str, data: bytes) -> bytes:
    return data.replace(b"torch.aten.tanh", b"torch.aten.relu") if name.endswith(".mlir") else data


def drop_weights(name: str, data: bytes) -> bytes | None:
    return None if name.startswith("weights/") else data


def add_custom_op(name: str, data: bytes) -> bytes:
    if name != "manifest.json":
        return data
    manifest = json.loads(data)
    manifest["custom_ops"] = ["torch.absent_ops.op"]  # no test defines this library
    return json.dumps(manifest).encode()


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (bump_version, "version 99 is not supported"),
        (tamper_ir, "was modified"),
        (drop_weights, "missing from the file"),
        (add_custom_op, "custom op torch.absent_ops.op"),
    ],
)
def test_damaged_archives_say_what_is_wrong(tmp_path: Path, saved: bytes, edit, message) -> None:
    with pytest.raises(frontend.LoadError, match=message):
        load_bytes(tmp_path, rewrite(saved, edit))


def test_not_a_zip_and_truncated(tmp_path: Path, saved: bytes) -> None:
    with pytest.raises(frontend.LoadError, match="cannot read"):
        load_bytes(tmp_path, b"hello")
    with pytest.raises(frontend.LoadError):
        load_bytes(tmp_path, saved[: len(saved) // 2])


def test_fuzzed_files_raise_only_load_error(tmp_path: Path, saved: bytes) -> None:
    """1000 flipped, truncated and overwritten files: each loads or raises LoadError."""
    rng = random.Random(1234)
    outcomes = {"loaded": 0, "LoadError": 0}
    for case in range(1000):
        data = bytearray(saved)
        mode = case % 3
        if mode == 0:
            for _ in range(rng.randint(1, 4)):
                data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
        elif mode == 1:
            data = data[: rng.randrange(len(data))]
        else:
            start = rng.randrange(len(data))
            data[start : start + rng.randint(1, 64)] = rng.randbytes(rng.randint(1, 64))
        try:
            load_bytes(tmp_path, bytes(data))
            outcomes["loaded"] += 1
        except frontend.LoadError:
            outcomes["LoadError"] += 1
    assert outcomes["LoadError"] > 900, outcomes


def test_traced_and_mixed_modules_round_trip_in_a_fresh_process(tmp_path: Path) -> None:
    ftorch.manual_seed(1)
    x = ftorch.rand(3, 4)
    traced = frontend.trace(fnn.Linear(4, 4), (x,))

    class Mixed(fnn.Module):
        def __init__(self):
            super().__init__()
            self.proj = traced
            self.gate = Gate()

        def forward(self, x):
            return self.gate(self.proj(x)) * 2.0

    for name, program in (("traced", traced), ("mixed", frontend.script(Mixed()))):
        path = tmp_path / f"{name}.tsj"
        program.save(path)
        inputs = [np.asarray(ftorch.rand(5, 4)) * s for s in (1.0,)]
        expected = np.asarray(program(*inputs))
        out = tmp_path / f"{name}.npz"
        run_fresh(path, inputs, out)
        np.testing.assert_array_equal(np.load(out)["arr_0"], expected)


def test_example_models_round_trip_in_a_fresh_process(tmp_path: Path) -> None:
    torch = pytest.importorskip("torch")
    from models import EncoderBlock, MnistCnn

    torch.manual_seed(4)
    x = torch.rand(2, 1, 28, 28)
    tokens, mask = torch.randn(2, 5, 32), torch.tensor([[0, 0, 0, 1, 1], [0, 0, 0, 0, 0]]) > 0
    cases = {
        "mnist": (frontend.script(MnistCnn().eval()), [x.numpy()]),
        "encoder": (frontend.script(EncoderBlock().eval()), [tokens.numpy(), mask.numpy()]),
    }
    for name, (program, inputs) in cases.items():
        path = tmp_path / f"{name}.tsj"
        program.save(path)
        expected = np.asarray(program(*inputs))
        out = tmp_path / f"{name}.npz"
        run_fresh(path, inputs, out)
        np.testing.assert_array_equal(np.load(out)["arr_0"], expected)
