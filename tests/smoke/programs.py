"""Programs of the smoke set, written with `frontend.torch` only (no PyTorch needed)."""

from __future__ import annotations

from frontend import torch
from frontend.torch import nn


def gelu_bias(x, b):
    return torch.nn.functional.gelu(x + b) * 0.5


def relu_mix(x):
    return torch.relu(x * 2.0 - 1.0) + torch.tanh(x)


class TinyNet(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc1 = nn.Linear(6, 8)
        self.fc2 = nn.Linear(8, 3)

    def forward(self, x):
        return torch.softmax(self.fc2(torch.relu(self.fc1(x))), dim=-1)
