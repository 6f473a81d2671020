"""`torch.device` (only "cpu" exists here) and `torch.cuda` (never available)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any


class device:  # noqa: N801  (torch spells the class `torch.device`)
    """A device: frontend.torch computes with numpy, so the only one is the cpu."""

    def __init__(self, type: str | device = "cpu", index: int | None = None) -> None:
        name = str(type).split(":")[0]
        if name != "cpu":
            raise RuntimeError(f"frontend.torch only has the cpu device, not {str(type)!r}")
        self.type = "cpu"
        self.index = index

    def __eq__(self, other: object) -> bool:
        return isinstance(other, device | str) and str(other).split(":")[0] == "cpu"

    def __hash__(self) -> int:
        return hash("cpu")

    def __str__(self) -> str:
        return "cpu"

    def __repr__(self) -> str:
        return "device(type='cpu')"


def _never(*args: Any, **kwargs: Any) -> bool:
    return False


cuda = SimpleNamespace(is_available=_never, device_count=lambda: 0, is_initialized=_never)
