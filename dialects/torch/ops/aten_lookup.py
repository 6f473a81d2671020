"""`aten(name)`: a registered op class by its ATen name, for `decompose` hooks that build ops of
other modules (looked up when called, so op modules need not import each other)."""

from __future__ import annotations

from dialects.torch.op_base import TorchOp


def aten(name: str) -> type[TorchOp]:
    """The op `torch.aten.<name>` (`aten("sub.Tensor")`)."""
    from dialects.torch.registry import BY_NAME

    return BY_NAME[f"torch.aten.{name}"]
