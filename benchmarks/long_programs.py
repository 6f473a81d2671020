"""Compile time against program length: `python -m benchmarks.long_programs [N ...]`.

For each N (default 250 500 1000) a fresh process scripts an N-line straight-line elementwise
function of one f32[8] argument (`x = x * 1.01 + 0.5`, `x = torch.sin(x)`, ... in turn),
with an empty cache folder, and calls it once with `compile="now"` (script, lowering and the
numba compile); it reports the process's CPU seconds and the wall seconds of that work.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LINES = ("x = x * 1.01 + 0.5", "x = torch.sin(x)", "x = torch.tanh(x) - x * 0.25",
         "x = torch.relu(x) + 0.125")  # fmt: skip

CHILD = """
import importlib.util, json, sys, time
import numpy as np
cpu, wall = time.process_time(), time.perf_counter()
import frontend
spec = importlib.util.spec_from_file_location("long_program", sys.argv[1])
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
f = frontend.script(module.program, compile="now")
f(np.linspace(-1, 1, 8, dtype=np.float32))
print(json.dumps({"cpu_s": time.process_time() - cpu, "wall_s": time.perf_counter() - wall}))
"""


def program_text(lines: int) -> str:
    body = "\n".join(f"    {LINES[i % len(LINES)]}" for i in range(lines))
    return f"import torch\n\n\ndef program(x):\n{body}\n    return x\n"


def measure(lines: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory(prefix="tsjit-long-") as folder:
        path = Path(folder) / "long_program.py"
        path.write_text(program_text(lines))
        env = {**os.environ, "TSJIT_CACHE_DIR": str(Path(folder) / "cache"),
               "PYTHONPATH": str(ROOT)}  # fmt: skip
        out = subprocess.run([sys.executable, "-c", CHILD, str(path)], env=env, check=True,
                             capture_output=True, text=True).stdout  # fmt: skip
    return json.loads(out.strip().splitlines()[-1])


def main() -> None:
    sizes = [int(a) for a in sys.argv[1:]] or [250, 500, 1000]
    print(f"load average {os.getloadavg()}")
    for lines in sizes:
        result = measure(lines)
        print(f"{lines} lines: {result['cpu_s']:.1f} s CPU, {result['wall_s']:.1f} s wall",
              flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
