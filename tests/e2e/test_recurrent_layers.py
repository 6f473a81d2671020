"""torch.nn.LSTM / GRU / LSTMCell / GRUCell, scripted (`frontend/script/leaf_modules.py`) and traced
(`frontend/torch/recurrent.py`, the counterparts of `_VF.lstm`, ...), against PyTorch."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from torch import nn

import frontend
from frontend.errors import ScriptError
from frontend.trace.errors import TraceError


def leaves(value):
    if isinstance(value, tuple | list):
        return [leaf for item in value for leaf in leaves(item)]
    return [value]


def check(program, model, *args) -> None:
    with torch.no_grad():
        expected = leaves(model(*args))
    actual = leaves(program(*args))
    assert len(actual) == len(expected)
    for a, e in zip(actual, expected):
        np.testing.assert_allclose(np.asarray(a), e.numpy(), rtol=1e-4, atol=1e-5)


def capture(kind, model, *args):
    return frontend.script(model) if kind == "script" else frontend.trace(model, args)


torch.manual_seed(0)
SEQ = torch.randn(3, 2, 4)  # (time, batch, features): short, traces unroll the steps
LAYERS = [
    ("lstm", lambda: nn.LSTM(4, 5)),
    ("lstm_2_layers_batch_first", lambda: nn.LSTM(4, 5, num_layers=2, batch_first=True)),
    ("lstm_no_bias", lambda: nn.LSTM(4, 5, bias=False)),
    ("gru_2_layers", lambda: nn.GRU(4, 5, num_layers=2)),
    ("gru_batch_first", lambda: nn.GRU(4, 5, batch_first=True)),
]


@pytest.mark.parametrize("kind", ["script", "trace"])
@pytest.mark.parametrize(("name", "make"), LAYERS, ids=[n for n, _ in LAYERS])
def test_recurrent_layer_over_a_sequence(kind, name, make) -> None:
    torch.manual_seed(1)
    model = make().eval()
    check(capture(kind, model, SEQ), model, SEQ)


def test_scripted_lstm_with_initial_state() -> None:
    torch.manual_seed(2)
    model = nn.LSTM(4, 5, num_layers=2).eval()
    state = (torch.randn(2, 2, 5), torch.randn(2, 2, 5))
    check(frontend.script(model), model, SEQ, state)


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.GRU(4, 6, num_layers=2, batch_first=True)
        self.head = nn.Linear(6, 2)

    def forward(self, x):
        out, _ = self.rnn(x)
        return self.head(out[:, -1])


@pytest.mark.parametrize("kind", ["script", "trace"])
def test_a_model_around_a_gru(kind) -> None:
    torch.manual_seed(3)
    model = Classifier().eval()
    x = torch.randn(2, 3, 4)
    check(capture(kind, model, x), model, x)


@pytest.mark.parametrize("cell", [nn.LSTMCell(4, 5), nn.GRUCell(4, 5)], ids=["lstm", "gru"])
@pytest.mark.parametrize("kind", ["script", "trace"])
def test_cells_from_torch(kind, cell) -> None:
    x = torch.randn(3, 4)
    check(capture(kind, cell, x), cell, x)


def test_unsupported_recurrent_settings_are_clear_errors() -> None:
    with pytest.raises(ScriptError, match="proj_size is not supported"):
        frontend.script(nn.LSTM(4, 5, proj_size=3).eval())
    model = nn.LSTM(4, 5, num_layers=2, dropout=0.5)  # training mode
    with pytest.raises(ScriptError, match="training mode with dropout between layers"):
        frontend.script(model)
    with pytest.raises(TraceError, match="dropout between layers in training mode"):
        frontend.trace(model, (SEQ,))


def test_traced_cells_take_their_state_as_a_tuple() -> None:
    torch.manual_seed(4)
    cell = nn.LSTMCell(4, 5)
    x, state = torch.randn(3, 4), (torch.randn(3, 5), torch.randn(3, 5))
    traced = frontend.trace(cell, (x, state))
    check(traced, cell, x, state)
    other = (torch.randn(3, 5), torch.randn(3, 5))
    check(traced, cell, x, other)  # new values of the same structure
    with pytest.raises(TypeError, match="a tuple of 2 was traced here"):
        traced(x, other[0])
