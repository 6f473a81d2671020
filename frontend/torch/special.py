"""`frontend.torch.special`: every op spelling `torch.special.<name>` as a function
(`erfinv`, `expit`, `logsumexp`, ...), like `frontend.torch` for `torch.<name>`; a trace of
`torch.special.<name>` records its op through these."""

from __future__ import annotations

from typing import Any

from dialects.torch.registry import BY_PY_NAME
from frontend.torch.ops import make_function

PREFIX = "torch.special."

globals().update({
    spelling.removeprefix(PREFIX): make_function(spelling, candidates)
    for spelling, candidates in BY_PY_NAME.items()
    if spelling.startswith(PREFIX)
})  # fmt: skip


def __getattr__(name: str) -> Any:
    raise AttributeError(
        f"frontend.torch.special has no '{name}': no registered op spells torch.special.{name}"
    )
