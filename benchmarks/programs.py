"""The benchmark programs, written once in PyTorch: run eagerly by torch and scripted by tsjit.

Each function is plain PyTorch code. `frontend.script` compiles it, and the same function
called with torch tensors is the PyTorch-eager implementation.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F


def w1_tanh_sigmoid(x, b):
    return torch.tanh(x * 2 + b) * torch.sigmoid(x)


def w1b_relu_mul(x, b):
    return torch.relu(x * 2 + b) * x


def w2_softmax(x):
    return torch.softmax(x, -1)


def w3_layer_norm(x, weight, bias):
    return F.layer_norm(x, [1024], weight, bias)


def w4_mlp(x, w1, b1, w2, b2):
    return F.linear(torch.relu(F.linear(x, w1, b1)), w2, b2)


def w5_rnn(x, h, w, u, b):
    for t in range(x.shape[0]):
        h = torch.tanh(x[t] @ w + h @ u + b)
    return h


def w6_conv_relu(x, w, b):
    return torch.relu(F.conv2d(x, w, b, 1, 1))


def w6_seed_net(x, w1, b1, w2, b2):
    x = F.relu(F.conv2d(x, w1, b1))
    return F.relu(F.conv2d(x, w2, b2))


def w7_tiny(x):
    return x * 2 + 1


class MyDecisionGate(torch.nn.Module):
    """The seed tutorial's gate (examples.py): data-dependent control flow."""

    def forward(self, x):
        if x.sum() > 0:
            return x
        else:
            return -x


class MyCell(torch.nn.Module):
    """The seed tutorial's cell: Linear(4, 4), the gate, tanh."""

    def __init__(self):
        super().__init__()
        self.dg = MyDecisionGate()
        self.linear = torch.nn.Linear(4, 4)

    def forward(self, x, h):
        new_h = torch.tanh(self.dg(self.linear(x)) + h)
        return new_h, new_h
