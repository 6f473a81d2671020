"""Mixing, trace side: a traced module that calls scripted functions and scripted submodules
records them as calls of their graphs, so their control flow survives the trace."""

from __future__ import annotations

import numpy as np
import pytest

import frontend

torch = pytest.importorskip("torch")
nn = torch.nn


@frontend.script
def gate(x):
    if x.sum() > 0:
        return x
    return -x


class Scale(nn.Module):
    def forward(self, x):
        if x.mean() > 0:
            return x * 2.0
        return x


class Cell(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(4, 4)
        self.scale = frontend.script(Scale())

    def forward(self, x, h):
        return torch.tanh(gate(self.linear(x)) + self.scale(h))


def test_scripted_calls_keep_their_branches_in_a_trace() -> None:
    torch.manual_seed(0)
    model = Cell()
    traced = frontend.trace(model, (torch.rand(3, 4), torch.rand(3, 4)))
    assert "func.call" in traced.graph and "torch.prim.If" in traced.graph
    for sx, sh in ((1, 1), (-1, -1), (1, -1)):
        x, h = sx * torch.rand(3, 4), sh * torch.rand(3, 4)
        with torch.no_grad():
            expected = torch.tanh(gate.python_fn(model.linear(x)) + Scale()(h))
        np.testing.assert_allclose(traced(x, h).numpy(), expected.numpy(), rtol=1e-5, atol=1e-6)


def test_frontend_torch_trace_calls_a_scripted_function() -> None:
    from frontend import torch as ft

    def program(x):
        return gate(x * 3.0) + 1.0

    traced = frontend.trace(program, (ft.ones(4),))
    assert "torch.prim.If" in traced.graph
    x = -np.ones(4, np.float32)
    np.testing.assert_allclose(np.asarray(traced(x)), np.full(4, 4.0, np.float32))
