"""PyTorch's capture paths as users drive them: `torch.compile` with dynamic shapes (dynamo's
`SymInt` inputs) and `torch.export` graphs with Python numbers at Tensor operands and
`dynamic_shapes`, each compared with eager PyTorch."""

from __future__ import annotations

import pytest
import torch

import frontend

BATCHES = (2, 7, 64)


class Mlp(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc1 = torch.nn.Linear(6, 16)
        self.fc2 = torch.nn.Linear(16, 3)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


class FlattenScale(torch.nn.Module):
    def forward(self, x):
        return torch.tanh(x.view(x.size(0), -1)) * 2 - 1


class ScalarOperands(torch.nn.Module):
    def forward(self, x, y):
        return x * 2 + y - 1.5, (x / 3) * y


@pytest.fixture
def counted_backend():
    torch._dynamo.reset()
    compiles: list[int] = []

    def backend(graph_module, example_inputs):
        compiles.append(len(example_inputs))
        return frontend.compile_backend(graph_module, example_inputs)

    yield backend, compiles
    torch._dynamo.reset()


@pytest.mark.parametrize("dynamic", [None, True])
@pytest.mark.parametrize("model", [Mlp, FlattenScale])
def test_torch_compile_runs_every_batch_with_at_most_two_compiles(counted_backend, model, dynamic):
    backend, compiles = counted_backend
    torch.manual_seed(0)
    module = model().eval()
    compiled = torch.compile(module, backend=backend, dynamic=dynamic)
    for batch in BATCHES:
        x = torch.randn(batch, 6) if model is Mlp else torch.randn(batch, 3, 2)
        with torch.no_grad():
            torch.testing.assert_close(compiled(x), module(x), rtol=1e-5, atol=1e-5)
    assert 1 <= len(compiles) <= 2


def test_an_exported_graph_takes_python_numbers_at_tensor_operands():
    module = ScalarOperands()
    x, y = torch.randn(3, 4), torch.randn(3, 4)
    targets = [n.target for n in torch.export.export(module, (x, y)).graph.nodes]
    assert torch.ops.aten.mul.Tensor in targets  # the `x * 2` the dispatcher wraps
    loaded = frontend.from_torch_export(torch.export.export(module, (x, y)))
    for got, expected in zip(loaded(x, y), module(x, y)):
        torch.testing.assert_close(got, expected)


def test_an_exported_graph_with_dynamic_shapes_serves_every_batch():
    module = ScalarOperands()
    batch = torch.export.Dim("batch")
    program = torch.export.export(
        module, (torch.randn(3, 4), torch.randn(3, 4)),
        dynamic_shapes={"x": {0: batch}, "y": {0: batch}},
    )  # fmt: skip
    loaded = frontend.from_torch_export(program)
    for n in (2, 9):
        x, y = torch.randn(n, 4), torch.randn(n, 4)
        for got, expected in zip(loaded(x, y), module(x, y)):
            torch.testing.assert_close(got, expected)
