"""Scripting modules written against `frontend.torch.nn` (no PyTorch needed): compiled results
match the eager run, and come back as `frontend.torch` tensors."""

from __future__ import annotations

import numpy as np

import frontend
from frontend import torch
from frontend.torch import nn


class MyDecisionGate(nn.Module):
    def forward(self, x):
        if x.sum() > 0:
            return x
        else:
            return -x


class MyCell(nn.Module):
    def __init__(self):
        super().__init__()
        self.dg = MyDecisionGate()
        self.linear = nn.Linear(4, 4)

    def forward(self, x, h):
        new_h = torch.tanh(self.dg(self.linear(x)) + h)
        return new_h, new_h


class Rnn(nn.Module):
    """The issue's RNN: 50 steps over time in one compiled function."""

    def __init__(self, n_in: int, hidden: int):
        super().__init__()
        self.W = nn.Parameter(torch.randn(n_in, hidden) * 0.1)
        self.U = nn.Parameter(torch.randn(hidden, hidden) * 0.1)
        self.b = nn.Parameter(torch.zeros(hidden))

    def forward(self, x, h):
        for t in range(x.shape[0]):
            h = torch.tanh(x[t] @ self.W + h @ self.U + self.b)
        return h


def close(actual, expected, tol: float = 1e-5) -> None:
    np.testing.assert_allclose(np.asarray(actual), np.asarray(expected), rtol=tol, atol=tol)


def test_my_cell_from_frontend_torch() -> None:
    torch.manual_seed(0)
    cell = MyCell()
    scripted = frontend.script(cell)
    assert "torch.prim.If" in scripted.graph
    for sign in (1.0, -1.0):
        x, h = torch.rand(3, 4) * sign, torch.rand(3, 4)
        out = scripted(x, h)
        assert isinstance(out[0], torch.Tensor)
        close(out[0], cell(x, h)[0], 1e-6)


def test_rnn_over_fifty_steps_is_one_loop() -> None:
    torch.manual_seed(1)
    rnn = Rnn(8, 16)
    scripted = frontend.script(rnn)
    assert scripted.graph.count("torch.prim.Loop.condition") == 1
    assert "scf.for" in scripted.ir("loops", "f32[8,16],f32[16,16],f32[16],f32[50,4,8],f32[4,16]")
    x, h = torch.randn(50, 4, 8), torch.zeros(4, 16)
    close(scripted(x, h), rnn(x, h))


def test_sequential_of_layers() -> None:
    torch.manual_seed(2)
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2), nn.Sigmoid())
    scripted = frontend.script(model)
    x = torch.randn(5, 4)
    close(scripted(x), model(x))
    assert "(2): RecursiveScriptModule(original_name=Linear)" in repr(scripted)


def test_numpy_arguments_give_numpy_results() -> None:
    model = nn.Linear(3, 2)
    scripted = frontend.script(model)
    x = np.ones((2, 3), np.float32)
    out = scripted(x)
    assert isinstance(out, np.ndarray)
    close(out, model(torch.from_numpy(x)))
