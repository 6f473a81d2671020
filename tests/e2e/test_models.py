"""Real models, scripted and traced, compiled, against PyTorch eager at float32
(rtol 1e-4, atol 1e-5). ResNet-18 at 224x224: its kernels are shared modules
(`lowering/run/program_text.py`), so batch 4 and the other capture compile only what differs."""

from __future__ import annotations

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
    # enough elements for the prange variant (numba's array analysis mixed the padded and
    # unpadded sizes there: lowering/python_target/numba_fixes.py)
    check(program, model, torch.rand(16, 1, 28, 28))


def padding_mask(lengths: list[int], t: int) -> torch.Tensor:
    return torch.arange(t)[None, :] >= torch.tensor(lengths)[:, None]


@pytest.mark.parametrize("capture", ["script", "trace"])
def test_transformer_encoder_block_with_padding_mask(capture: str) -> None:
    torch.manual_seed(1)
    model = EncoderBlock().eval()
    x, mask = torch.randn(2, 6, 32), padding_mask([6, 3], 6)
    program = frontend.script(model) if capture == "script" else frontend.trace(model, (x, mask))
    check(program, model, x, mask)


@pytest.mark.parametrize("capture", ["script", "trace"])
def test_resnet18_batch_1_and_4(capture: str) -> None:
    torch.manual_seed(2)
    model = randomize_norms(ResNet18())
    x = torch.rand(1, 3, 224, 224)
    program = frontend.script(model) if capture == "script" else frontend.trace(model, (x,))
    check(program, model, x)
    check(program, model, torch.rand(4, 3, 224, 224))


class TwoLayerLstm(torch.nn.Module):
    """A 2-layer LSTM over time from two LSTMCells (scripted; the trace unrolls the steps)."""

    def __init__(self, cells):
        super().__init__()
        self.cell1, self.cell2 = cells

    def forward(self, xs):
        h1, c1 = self.cell1(xs[0])
        h2, c2 = self.cell2(h1)
        for t in range(1, xs.shape[0]):
            h1, c1 = self.cell1(xs[t], (h1, c1))
            h2, c2 = self.cell2(h1, (h2, c2))
        return h2


def test_lstm_two_layers_twenty_steps_traced_from_frontend_torch() -> None:
    """The frontend.torch twin traced with the same weights (torch.nn.LSTMCell and nn.LSTM
    trace too: tests/e2e/test_recurrent_layers.py; the torch one scripted: test_script_modules)."""
    from frontend import torch as ft

    torch.manual_seed(3)
    cells = [torch.nn.LSTMCell(3, 5), torch.nn.LSTMCell(5, 5)]
    twins = [ft.nn.LSTMCell(3, 5), ft.nn.LSTMCell(5, 5)]
    for cell, twin in zip(cells, twins):
        twin.load_state_dict({k: v.detach().numpy() for k, v in cell.state_dict().items()})
    model = TwoLayerLstm(cells)
    xs = torch.randn(20, 2, 3)
    traced = frontend.trace(TwoLayerLstm(twins), (ft.from_numpy(xs.numpy()),))
    with torch.no_grad():
        expected = model(xs).numpy()
    np.testing.assert_allclose(np.asarray(traced(xs.numpy())), expected, rtol=RTOL, atol=ATOL)
