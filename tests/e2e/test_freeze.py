"""`frontend.freeze`: weights become literals, conv + batch norm fold, constant branches go,
and the outputs do not change."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import frontend

torch = pytest.importorskip("torch")
nn = torch.nn


class SeedConvNet(nn.Module):
    """The seed's conv net (Conv2d(1,20,5) -> relu -> Conv2d(20,20,5) -> relu), with batch norms."""

    def __init__(self, relu_after_first: bool = True):
        super().__init__()
        self.conv1, self.bn1 = nn.Conv2d(1, 20, 5), nn.BatchNorm2d(20)
        self.conv2, self.bn2 = nn.Conv2d(20, 20, 5), nn.BatchNorm2d(20)
        self.relu_after_first = relu_after_first

    def forward(self, x):
        x = self.bn1(self.conv1(x))
        if self.relu_after_first:
            x = torch.relu(x)
        return torch.relu(self.bn2(self.conv2(x)))


def trained_like(model: nn.Module) -> nn.Module:
    """Random running statistics and affine parameters, eval mode."""
    torch.manual_seed(0)
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, nn.BatchNorm2d):
                m.running_mean.uniform_(-1, 1)
                m.running_var.uniform_(0.5, 2)
                m.weight.uniform_(0.5, 1.5)
                m.bias.uniform_(-1, 1)
    return model.eval()


def test_conv_batch_norm_fold_keeps_the_outputs() -> None:
    model = trained_like(SeedConvNet())
    frozen = frontend.freeze(frontend.script(model))
    graph = frozen.graph
    assert "batch_norm" not in graph
    assert graph.count("torch.aten.conv2d") == 2
    assert "torch.prim.If" not in graph and "func.call" not in graph
    assert "%self." not in graph.split("{")[0]  # no weight arguments left
    x = torch.rand(2, 1, 28, 28)
    with torch.no_grad():
        expected = model(x).numpy()
    np.testing.assert_allclose(frozen(x).numpy(), expected, rtol=1e-5, atol=1e-5)


def test_frozen_module_no_longer_reads_the_weights() -> None:
    model = trained_like(SeedConvNet(relu_after_first=False))
    frozen = frontend.freeze(frontend.script(model))
    x = torch.rand(1, 1, 12, 12)
    before = frozen(x).numpy()
    with torch.no_grad():
        model.conv1.weight.zero_()
    np.testing.assert_array_equal(frozen(x).numpy(), before)


def test_frozen_module_saves_without_weight_files(tmp_path: Path) -> None:
    model = trained_like(SeedConvNet())
    frozen = frontend.freeze(frontend.script(model))
    frozen.save(tmp_path / "frozen.tsj")
    loaded = frontend.load(tmp_path / "frozen.tsj")
    assert loaded.state_dict() == {}
    x = np.random.default_rng(0).random((1, 1, 16, 16), dtype=np.float32)
    np.testing.assert_array_equal(loaded(x), frozen(x))


def test_freeze_needs_a_scripted_module() -> None:
    with pytest.raises(TypeError, match="scripted module"):
        frontend.freeze(SeedConvNet())
