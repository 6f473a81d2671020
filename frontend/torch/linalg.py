"""`frontend.torch.linalg`: every op spelling `torch.linalg.<name>` as a function
(`vector_norm`, `norm`), like `frontend.torch` for `torch.<name>`; a trace of
`torch.linalg.<name>` records its op through these."""

from __future__ import annotations

from typing import Any

from dialects.torch.registry import BY_PY_NAME
from frontend.torch.ops import make_function

PREFIX = "torch.linalg."

globals().update({
    spelling.removeprefix(PREFIX): make_function(spelling, candidates)
    for spelling, candidates in BY_PY_NAME.items()
    if spelling.startswith(PREFIX)
})  # fmt: skip


def __getattr__(name: str) -> Any:
    raise AttributeError(
        f"frontend.torch.linalg has no '{name}': no registered op spells torch.linalg.{name}"
    )
