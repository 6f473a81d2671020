"""Real models, scripted and traced, compiled, against PyTorch eager at float32
(rtol 1e-4, atol 1e-5). ResNet-18 at 224x224 compiles once per process; batch 4 reuses it."""

from __future__ import annotations

import os

import numpy as np
import pytest

import frontend

torch = pytest.importorskip("torch")
from models import EncoderBlock, MnistCnn, ResNet18, randomize_norms  # noqa: E402

RTOL, ATOL = 1e-4, 1e-5


def check(program, model, *inputs) -> None:
    with torch.no_grad():
        expected = model(*inputs)
    actual = program(*inputs)
    np.testing.assert_allclose(actual.numpy(), expected.numpy(), rtol=RTOL, atol=ATOL)


@pytest.mark.parametrize("capture", ["script", "trace"])
def test_mnist_cnn(capture: str) -> None:
    torch.manual_seed(0)
    model = MnistCnn().eval()
    x = torch.rand(4, 1, 28, 28)
    program = frontend.script(model) if capture == "script" else frontend.trace(model, (x,))
    check(program, model, x)
    check(program, model, torch.rand(1, 1, 28, 28))


def padding_mask(lengths: list[int], t: int) -> torch.Tensor:
    return torch.arange(t)[None, :] >= torch.tensor(lengths)[:, None]


@pytest.mark.parametrize("capture", ["script", "trace"])
def test_transformer_encoder_block_with_padding_mask(capture: str) -> None:
    torch.manual_seed(1)
    model = EncoderBlock().eval()
    x, mask = torch.randn(2, 6, 32), padding_mask([6, 3], 6)
    program = frontend.script(model) if capture == "script" else frontend.trace(model, (x, mask))
    check(program, model, x, mask)


@pytest.mark.skipif(
    os.environ.get("TSJIT_SLOW_TESTS") != "1",
    reason="ResNet-18 compiles in minutes on 2 cores (one generated function of ~2700 lines); "
    "set TSJIT_SLOW_TESTS=1",
)
@pytest.mark.parametrize("capture", ["script", "trace"])
def test_resnet18_batch_1_and_4(capture: str) -> None:
    torch.manual_seed(2)
    model = randomize_norms(ResNet18())
    x = torch.rand(1, 3, 224, 224)
    program = frontend.script(model) if capture == "script" else frontend.trace(model, (x,))
    check(program, model, x)
    check(program, model, torch.rand(4, 3, 224, 224))
