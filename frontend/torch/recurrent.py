"""`torch.lstm`, `torch.gru`, `torch.lstm_cell`, `torch.gru_cell`: the fused functions that the
`forward`s of `torch.nn.LSTM` / `GRU` / `LSTMCell` / `GRUCell` call (`_VF.lstm`, ...), written
with registered ops so that tracing those layers records them (a loop over time unrolls in a
trace; scripting the layers goes through `frontend/leaf_modules.py` instead).

Same arguments and results as PyTorch's; one direction, no projection, and no dropout between
layers in training (each an error naming the layer's setting).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from frontend import torch
from frontend.torch.nn import functional as F
from frontend.torch.nn.modules.rnn import lstm_step
from frontend.torch.tensor import Tensor


def gru_step(
    x: Tensor, h: Tensor, w_ih: Tensor, w_hh: Tensor, b_ih: Tensor | None, b_hh: Tensor | None
) -> Tensor:
    """One GRU step on batched `x` (N, in), `h` (N, H): the new h (gates r, z, n as torch).
    Scripted too: the nn.GRU / GRUCell leaf rules call it."""
    i_r, i_z, i_n = F.linear(x, w_ih, b_ih).chunk(3, 1)
    h_r, h_z, h_n = F.linear(h, w_hh, b_hh).chunk(3, 1)
    r = torch.sigmoid(i_r + h_r)
    z = torch.sigmoid(i_z + h_z)
    n = torch.tanh(i_n + r * h_n)
    return (1 - z) * n + z * h


def lstm_cell(input: Tensor, hx: Sequence[Tensor], w_ih: Tensor, w_hh: Tensor,
              b_ih: Any = None, b_hh: Any = None) -> tuple[Tensor, Tensor]:  # fmt: skip
    return lstm_step(input, hx[0], hx[1], w_ih, w_hh, b_ih, b_hh)


def gru_cell(input: Tensor, hx: Tensor, w_ih: Tensor, w_hh: Tensor,
             b_ih: Any = None, b_hh: Any = None) -> Tensor:  # fmt: skip
    return gru_step(input, hx, w_ih, w_hh, b_ih, b_hh)


def lstm(input: Tensor, hx: Sequence[Tensor], params: Sequence[Tensor], has_biases: bool,
         num_layers: int, dropout: float, train: bool, bidirectional: bool,
         batch_first: bool) -> tuple[Tensor, Tensor, Tensor]:  # fmt: skip
    """`_VF.lstm`: (output, h_n, c_n) of a stack of LSTM layers over `input`."""
    _check("lstm", params, has_biases, num_layers, dropout, train, bidirectional)
    seq = input.transpose(0, 1) if batch_first else input
    h_last, c_last = [], []
    for layer, weights in enumerate(_layers(params, has_biases, num_layers)):
        h, c = hx[0][layer], hx[1][layer]
        outputs = []
        for t in range(seq.shape[0]):
            h, c = lstm_step(seq[t], h, c, *weights)
            outputs.append(h)
        seq = torch.stack(outputs, 0)
        h_last.append(h)
        c_last.append(c)
    output = seq.transpose(0, 1) if batch_first else seq
    return output, torch.stack(h_last, 0), torch.stack(c_last, 0)


def gru(input: Tensor, hx: Tensor, params: Sequence[Tensor], has_biases: bool,
        num_layers: int, dropout: float, train: bool, bidirectional: bool,
        batch_first: bool) -> tuple[Tensor, Tensor]:  # fmt: skip
    """`_VF.gru`: (output, h_n) of a stack of GRU layers over `input`."""
    _check("gru", params, has_biases, num_layers, dropout, train, bidirectional)
    seq = input.transpose(0, 1) if batch_first else input
    h_last = []
    for layer, weights in enumerate(_layers(params, has_biases, num_layers)):
        h = hx[layer]
        outputs = []
        for t in range(seq.shape[0]):
            h = gru_step(seq[t], h, *weights)
            outputs.append(h)
        seq = torch.stack(outputs, 0)
        h_last.append(h)
    output = seq.transpose(0, 1) if batch_first else seq
    return output, torch.stack(h_last, 0)


def _layers(params: Sequence[Tensor], has_biases: bool, num_layers: int) -> list[list[Any]]:
    """(w_ih, w_hh, b_ih, b_hh) of each layer (biases None without them)."""
    stride = 4 if has_biases else 2
    layers = []
    for layer in range(num_layers):
        weights = list(params[layer * stride : (layer + 1) * stride])
        layers.append(weights if has_biases else [*weights, None, None])
    return layers


def _check(name: str, params: Sequence[Tensor], has_biases: bool, num_layers: int,
           dropout: float, train: bool, bidirectional: bool) -> None:  # fmt: skip
    if bidirectional:
        raise NotImplementedError(f"torch.{name}: bidirectional=True is not supported")
    if len(params) != num_layers * (4 if has_biases else 2):
        raise NotImplementedError(f"torch.{name}: proj_size is not supported")
    if train and dropout and num_layers > 1:
        raise NotImplementedError(f"torch.{name}: dropout between layers in training mode")
