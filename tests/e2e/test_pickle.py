"""Compiled programs pickle by value: a process that never saw the source unpickles and runs
them (same results as the original, and as PyTorch eager); a changed byte raises LoadError;
custom ops travel by name; what cannot be saved cannot be pickled either."""

from __future__ import annotations

import io
import os
import pickle
import pickletools
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path

import cloudpickle
import numpy as np
import pytest

import frontend
from frontend import torch as ft
from frontend.errors import LoadError
from frontend.serialization import unpickle

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
KINDS = ("function", "scripted", "traced", "frozen", "loaded")

# A script run with tests/e2e as its folder and on its path: builds each kind of program from
# the MNIST CNN of models.py and from a function of its own __main__, pickles them, and writes
# what the originals and PyTorch eager return.
PRODUCER = """
import pickle, sys
from pathlib import Path
import cloudpickle, numpy as np, torch
import frontend
from frontend import torch as ft
from models import MnistCnn

def scaled_tanh(x):
    return ft.tanh(x) * 2.0 + 1.0

out = Path(sys.argv[1])
torch.manual_seed(0)
model = MnistCnn().eval()
x = torch.rand(3, 1, 28, 28)
scripted = frontend.script(model)
programs = {
    "function": frontend.script(scaled_tanh),
    "scripted": scripted,
    "traced": frontend.trace(model, (x,)),
    "frozen": frontend.freeze(scripted),
    "loaded": frontend.loads(frontend.dumps(scripted)),
}
with torch.no_grad():
    eager = {k: model(x) for k in programs}
    eager["function"] = torch.tanh(x) * 2.0 + 1.0
for name, program in programs.items():
    dump = cloudpickle.dumps if name == "function" else pickle.dumps
    (out / f"{name}.pkl").write_bytes(dump(program))
np.savez(out / "original.npz", **{k: np.asarray(p(x)) for k, p in programs.items()})
np.savez(out / "eager.npz", x=x.numpy(), **{k: v.numpy() for k, v in eager.items()})
"""

# Runs in an empty folder with only the tsjit tree on its path: neither models.py nor the
# producer's __main__ can be imported here.
CONSUMER = """
import importlib.util, pickle, sys
from pathlib import Path
import numpy as np

assert importlib.util.find_spec("models") is None
src = Path(sys.argv[1])
x = np.load(src / "eager.npz")["x"]
results = {}
for name in sys.argv[2:]:
    program = pickle.loads((src / f"{name}.pkl").read_bytes())
    results[name] = np.asarray(program(x))
    results[name + "_again"] = np.asarray(pickle.loads(pickle.dumps(program))(x))
np.savez(src / "unpickled.npz", **results)
"""


def run_python(code: str | Path, cwd: Path, path: list[Path], *args: str) -> None:
    """Runs `code` (a script file, or the text of `python -c`) with only `path` on its path."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(map(str, path))}
    command = [str(code)] if isinstance(code, Path) else ["-c", textwrap.dedent(code)]
    done = subprocess.run(
        [sys.executable, *command, *args],
        cwd=cwd, env=env, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]


def imported_names(data: bytes) -> set[str]:
    """The `module name` pairs a pickle stream imports (GLOBAL / STACK_GLOBAL opcodes)."""
    names, strings = set(), []
    for opcode, arg, _ in pickletools.genops(data):
        if opcode.name == "GLOBAL":
            names.add(arg.replace("\n", " "))
        elif opcode.name == "STACK_GLOBAL":
            names.add(" ".join(strings[-2:]))
        if isinstance(arg, str):
            strings.append(arg)
    return names


def test_every_kind_runs_in_a_process_that_never_saw_the_source(tmp_path: Path) -> None:
    producer = tmp_path / "make_programs.py"  # scripting reads a function's source file
    producer.write_text(PRODUCER)
    run_python(producer, HERE, [ROOT, HERE], str(tmp_path))
    for name in KINDS:  # the streams name tsjit's unpickler only: no user module, no code
        data = (tmp_path / f"{name}.pkl").read_bytes()
        assert imported_names(data) == {"frontend.serialization unpickle"}, name
        assert b"models" not in data, name
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    run_python(CONSUMER, elsewhere, [ROOT], str(tmp_path), *KINDS)
    original, eager = np.load(tmp_path / "original.npz"), np.load(tmp_path / "eager.npz")
    unpickled = np.load(tmp_path / "unpickled.npz")
    for name in KINDS:
        np.testing.assert_array_equal(unpickled[name], original[name], err_msg=name)
        np.testing.assert_array_equal(unpickled[name + "_again"], original[name], err_msg=name)
        np.testing.assert_allclose(unpickled[name], eager[name], rtol=1e-4, atol=1e-5)


def doubled_plus_one(x):
    return x * 2.0 + 1.0


@pytest.fixture(scope="module")
def payload() -> bytes:
    return frontend.dumps(frontend.script(doubled_plus_one))


class Stream:
    """Pickles as a call of tsjit's unpickler on `data`, as a pickled program's stream does."""

    def __init__(self, data: bytes) -> None:
        self.data = data

    def __reduce__(self):
        return unpickle, (self.data,)


def rewritten(data: bytes, member: str, edit) -> bytes:
    source, buffer = zipfile.ZipFile(io.BytesIO(data)), io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as target:
        for info in source.infolist():
            content = source.read(info.filename)
            target.writestr(info, edit(content) if info.filename == member else content)
    return buffer.getvalue()


def test_a_changed_byte_raises_load_error(payload: bytes) -> None:
    x = np.arange(4, dtype=np.float32)
    np.testing.assert_array_equal(pickle.loads(pickle.dumps(Stream(payload)))(x), x * 2 + 1)
    changed_ir = rewritten(payload, "methods/forward.mlir", lambda b: b.replace(b"2.0", b"3.0"))
    with pytest.raises(LoadError, match=r"forward\.mlir was modified"):
        pickle.loads(pickle.dumps(Stream(changed_ir)))
    stream = bytearray(pickle.dumps(frontend.script(doubled_plus_one)))
    start = stream.index(b"PK\x03\x04")
    stream[start + 200] ^= 0x40  # one bit inside the compressed members
    with pytest.raises(LoadError):
        pickle.loads(bytes(stream))
    with pytest.raises(LoadError, match="the in-memory program"):
        frontend.loads(payload[: len(payload) // 2])


def test_equal_bytes_unpickle_to_one_program_compiled_once(payload: bytes) -> None:
    first = pickle.loads(pickle.dumps(Stream(payload)))
    assert pickle.loads(pickle.dumps(first)) is first  # the same bytes: the same object
    assert frontend.dumps(first) == payload
    assert frontend.loads(payload) is not first  # `loads` itself always reads anew


def test_cloudpickle_pickles_by_value_too(payload: bytes) -> None:
    data = cloudpickle.dumps(frontend.script(doubled_plus_one))
    assert imported_names(data) == {"frontend.serialization unpickle"}
    x = np.linspace(-1, 1, 7, dtype=np.float32)
    np.testing.assert_array_equal(pickle.loads(data)(x), doubled_plus_one(x))


def test_programs_that_cannot_be_saved_cannot_be_pickled() -> None:
    @frontend.ignore
    def show(x) -> None:
        print(x)

    def shows(x):
        show(x)
        return x + 1.0

    with pytest.raises(pickle.PicklingError, match="ignore"):
        pickle.dumps(frontend.script(shows))
    scripted = frontend.script(ft.nn.Linear(3, 2))
    with pytest.raises(pickle.PicklingError, match="pickle the module"):
        pickle.dumps(scripted.forward)


CUSTOM_OP_WORKER = """
import pickle, sys
import numpy as np
from frontend.errors import LoadError
data = open(sys.argv[1], "rb").read()
try:
    pickle.loads(data)
except LoadError as err:
    print("refused:", err)
from warp_perspective_op import define_warp_perspective
define_warp_perspective()
program = pickle.loads(data)
np.save(sys.argv[2], np.asarray(program(*np.load(sys.argv[3]).values())))
"""


def test_custom_ops_travel_by_name(tmp_path: Path) -> None:
    from warp_perspective_op import define_warp_perspective

    warp = define_warp_perspective()

    def warped(src, m):
        return warp(src, m) * 2.0

    rng = np.random.default_rng(3)
    src = rng.uniform(-1, 1, (6, 5)).astype(np.float32)
    m = np.array([[1.1, 0.2, 0.5], [-0.1, 0.9, 1.3], [0.01, -0.02, 1.0]], np.float32)
    scripted = frontend.script(warped)
    (tmp_path / "warp.pkl").write_bytes(pickle.dumps(scripted))
    np.savez(tmp_path / "inputs.npz", src, m)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(map(str, [ROOT, HERE]))}
    done = subprocess.run(
        [sys.executable, "-c", CUSTOM_OP_WORKER, str(tmp_path / "warp.pkl"),
         str(tmp_path / "out.npy"), str(tmp_path / "inputs.npz")],
        cwd=tmp_path, env=env, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    assert "refused:" in done.stdout and "my_ops.warp_perspective" in done.stdout, done.stdout
    np.testing.assert_array_equal(np.load(tmp_path / "out.npy"), np.asarray(scripted(src, m)))
