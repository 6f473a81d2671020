"""`ChannelShuffle`: `F.channel_shuffle` as a layer."""

from __future__ import annotations

from frontend.torch.nn import functional as F
from frontend.torch.nn.module import Module
from frontend.torch.tensor import Tensor


class ChannelShuffle(Module):
    def __init__(self, groups: int) -> None:
        super().__init__()
        self.groups = groups

    def forward(self, input: Tensor) -> Tensor:
        return F.channel_shuffle(input, self.groups)

    def extra_repr(self) -> str:
        return f"groups={self.groups}"
