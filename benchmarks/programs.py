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


def my_cell(x, h, w, b):
    """The seed `MyCell` (Linear(4, 4) + `MyDecisionGate`), with the module inlined."""
    y = F.linear(x, w, b)
    if y.sum() > 0:
        gated = y
    else:
        gated = -y
    new_h = torch.tanh(gated + h)
    return new_h, new_h
