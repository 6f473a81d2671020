"""The `torch.compile` (inductor) column: each workload's PyTorch program compiled by inductor.

Inductor needs a C++ compiler and writes C++ for the host's vector ISA (or the one
`ATEN_CPU_CAPABILITY` names: `benchmarks/isa.py`). When it fails the reason is printed once
per workload and the column is left empty; `--no-inductor` skips it (its compilations take
tens of seconds of CPU per workload).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

NAME = "torch.compile"


def inductor_impl(workload: Any, inputs: tuple[np.ndarray, ...]) -> Callable[[], Any]:
    import torch

    compiled = torch.compile(workload.program, backend="inductor")
    tensors = tuple(torch.from_numpy(a) for a in inputs)

    def call() -> Any:
        with torch.no_grad():
            return compiled(*tensors)

    return call


def report_failure(workload_name: str, entry: dict[str, Any]) -> None:
    """Prints why inductor did not run a workload (its entry's status), if it did not."""
    status = entry.get("status", "")
    if status != "ok":
        print(f"  {NAME} {workload_name}: {status} (column left empty)", flush=True)
