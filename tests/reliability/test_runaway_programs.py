"""Bad programs end: Ctrl-C stops a compiled `while` loop that never ends (a KeyboardInterrupt
within seconds, in a subprocess), and a 1,000-line straight-line function scripts and lowers in
seconds (the lowering passes are linear in the program's length)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import frontend

SPIN = textwrap.dedent(
    """
    import signal
    signal.signal(signal.SIGINT, signal.default_int_handler)  # a background job ignores it
    import numpy as np
    import frontend

    def spin(x, n: int):
        i = 0
        while i < n or n < 0:
            x = x * 0.5 + 1.0
            i += 1
        return x

    f = frontend.script(spin)
    f(np.zeros(2, np.float32), 3)  # compiled now
    print("running", flush=True)
    try:
        f(np.zeros(2, np.float32), -1)
    except KeyboardInterrupt as err:
        print("KeyboardInterrupt:", type(err).__name__, flush=True)
        raise
    """
)


def test_ctrl_c_stops_a_runaway_compiled_loop(tmp_path: Path) -> None:
    script = tmp_path / "spin.py"
    script.write_text(SPIN)
    env = {**os.environ, "PYTHONPATH": os.getcwd()}
    child = subprocess.Popen(
        [sys.executable, str(script)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True, env=env,
    )  # fmt: skip
    try:
        assert child.stdout is not None
        assert child.stdout.readline().strip() == "running"
        time.sleep(0.5)
        child.send_signal(signal.SIGINT)
        out, err = child.communicate(timeout=10)
    finally:
        if child.poll() is None:
            child.kill()
    assert "KeyboardInterrupt: CompiledLoopInterrupted" in out, err
    assert child.returncode != 0


STEPS = (
    "x = x * 1.01 + 0.5",
    "x = torch.sin(x) - 0.25",
    "x = x / 1.5 + x",
    "x = torch.relu(x) * 0.9",
    "x = x - x * 0.125",
)


def test_a_thousand_line_function_lowers_in_seconds(tmp_path: Path) -> None:
    """Scripting and lowering to numba source (`code`; numba's own compile of the 2,000-line
    kernel comes on the first call, not timed here) took 364 s when passes were quadratic."""
    lines = [f"    {STEPS[k % len(STEPS)]}\n" for k in range(1000)]
    path = tmp_path / "long_program.py"
    path.write_text("import torch\n\n\ndef long_program(x):\n" + "".join(lines) + "    return x\n")
    namespace: dict[str, object] = {}
    exec(compile(path.read_text(), str(path), "exec"), namespace)
    start = time.perf_counter()
    source = frontend.script(namespace["long_program"]).code
    seconds = time.perf_counter() - start
    assert source.count("math.sin(") == 200
    assert seconds < 60, f"{seconds:.1f} s"


def test_a_900_term_expression_scripts(tmp_path: Path) -> None:
    """A long chain of operators is walked in a loop: it scripts (it was a RecursionError from
    900 terms on) and gives the sum, here run by the torch-IR interpreter (no numba compile)."""
    import numpy as np

    path = tmp_path / "long_sum.py"
    path.write_text("def long_sum(x):\n    return " + " + ".join(["x * 0.5"] * 900) + "\n")
    namespace: dict[str, object] = {}
    exec(compile(path.read_text(), str(path), "exec"), namespace)
    scripted = frontend.script(namespace["long_sum"], backend="interpreter")
    assert scripted.graph.count("torch.aten.add.Tensor") == 899
    np.testing.assert_allclose(scripted(np.ones(3, np.float32)), 450.0)


def nested_counts(x, n: int):
    ticks = 0
    i = 0
    while i < n:
        j = 0
        while j < n:
            ticks += 3
            j += 1
        i += 1
    return x + ticks


def test_the_ctrl_c_counters_are_fresh_names() -> None:
    """Each compiled `while` has a Ctrl-C counter of its own, none the user's `ticks`: nested
    loops and a variable of that name keep their values (a shared name would reset the
    user's count every 1024 iterations and mix the loops' counters)."""
    import numpy as np

    scripted = frontend.script(nested_counts)
    x = np.zeros(2, np.float32)
    np.testing.assert_array_equal(scripted(x, 40), x + 3 * 40 * 40)  # 4800 > 1024 updates
    lines = [line.strip() for line in scripted.code.splitlines()]
    counters = [line.split(" = ")[0] for line in lines if line.endswith("+ 1) & 1023")]
    assert len(counters) == len(set(counters)) == 2, scripted.code


def test_a_long_straight_line_function_gives_kernels_of_bounded_size(tmp_path: Path) -> None:
    """A 1,000-line function (~2,000 elementwise statements) is cut into fused bodies of at
    most `MAX_FUSED_OPS` top-level ops, so numba compiles several kernels of bounded size, not
    one whose LLVM optimization is superlinear in its length. Structure only, not timed."""
    from xdsl.dialects.linalg.ops import GenericOp

    from lowering.linalg_opt.fuse_elementwise import MAX_FUSED_OPS
    from lowering.pipeline import Stage, lower

    lines = [f"    {STEPS[k % len(STEPS)]}\n" for k in range(1000)]
    path = tmp_path / "long_program.py"
    path.write_text("import torch\n\n\ndef long_program(x):\n" + "".join(lines) + "    return x\n")
    namespace: dict[str, object] = {}
    exec(compile(path.read_text(), str(path), "exec"), namespace)
    scripted = frontend.script(namespace["long_program"])
    module = lower(scripted.module, Stage.LINALG, "f32[?]")
    sizes = [sum(1 for _ in op.body.block.ops) for op in module.walk() if isinstance(op, GenericOp)]
    assert len(sizes) >= 2000 // MAX_FUSED_OPS, sizes
    assert max(sizes) <= MAX_FUSED_OPS, sizes
    assert sum(sizes) >= 2000, sizes  # every statement is in some body
