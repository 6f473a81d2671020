"""PyTorch's own capture paths into tsjit: torch.export programs and the torch.compile backend."""

from __future__ import annotations

import numpy as np
import pytest

import frontend

torch = pytest.importorskip("torch")
nn = torch.nn


def mlp() -> nn.Module:
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4)).eval()


class TwoOutputs(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)
        self.register_buffer("shift", torch.arange(4.0))

    def forward(self, x, y):
        h = torch.tanh(self.fc(x)) + self.shift
        return h * y, (h - y).sum(-1)


def close(actual, expected) -> None:
    np.testing.assert_allclose(actual.numpy(), expected.detach().numpy(), rtol=1e-5, atol=1e-6)


def test_from_torch_export_mlp_runs_other_batch_sizes() -> None:
    model = mlp()
    program = frontend.from_torch_export(torch.export.export(model, (torch.randn(3, 8),)))
    assert "torch.aten.linear" in program.graph and "torch.vtensor.literal" in program.graph
    for batch in (3, 7):
        x = torch.randn(batch, 8)
        close(program(x), model(x))


def test_from_torch_export_with_buffers_and_two_outputs() -> None:
    torch.manual_seed(1)
    model = TwoOutputs().eval()
    x, y = torch.randn(2, 4), torch.randn(2, 4)
    program = frontend.from_torch_export(torch.export.export(model, (x, y)))
    out = program(x, y)
    expected = model(x, y)
    assert isinstance(out, tuple) and len(out) == 2
    close(out[0], expected[0])
    close(out[1], expected[1])


def test_unknown_aten_op_is_named() -> None:
    class Digamma(nn.Module):
        def forward(self, x):
            return torch.digamma(x)

    program = torch.export.export(Digamma(), (torch.rand(3) + 0.5,))
    with pytest.raises(TypeError, match="digamma"):
        frontend.from_torch_export(program)


def test_torch_compile_backend() -> None:
    model = mlp()
    compiled = torch.compile(model, backend=frontend.compile_backend)
    x = torch.randn(5, 8)
    with torch.no_grad():
        close(compiled(x), model(x))
