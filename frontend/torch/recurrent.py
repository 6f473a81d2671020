"""`torch.lstm`, `torch.gru`, `torch.rnn_tanh`, `torch.rnn_relu` and their `*_cell`s: the fused
functions that the `forward`s of `torch.nn.LSTM` / `GRU` / `RNN` / `LSTMCell` / `GRUCell` /
`RNNCell` call (`_VF.lstm`, ...), written with registered ops so that tracing those layers
records them (a loop over time unrolls in a trace; scripting the layers goes through
`frontend/script/leaf_modules.py` instead, which calls the steps written here).

Same arguments and results as PyTorch's, one or two directions; no projection, and no dropout
between layers in training (each an error naming the layer's setting).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from frontend.torch import functions as torch
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


def rnn_tanh_step(x: Tensor, h: Tensor, w_ih: Tensor, w_hh: Tensor, b_ih: Tensor | None,
                  b_hh: Tensor | None) -> Tensor:  # fmt: skip
    """One Elman RNN step (tanh): `tanh(x W_ih^T + b_ih + h W_hh^T + b_hh)`. Scripted too."""
    return torch.tanh(F.linear(x, w_ih, b_ih) + F.linear(h, w_hh, b_hh))


def rnn_relu_step(x: Tensor, h: Tensor, w_ih: Tensor, w_hh: Tensor, b_ih: Tensor | None,
                  b_hh: Tensor | None) -> Tensor:  # fmt: skip
    """One Elman RNN step (relu). Scripted too."""
    return torch.relu(F.linear(x, w_ih, b_ih) + F.linear(h, w_hh, b_hh))


def rnn_tanh_cell(input: Tensor, hx: Tensor, w_ih: Tensor, w_hh: Tensor,
                  b_ih: Any = None, b_hh: Any = None) -> Tensor:  # fmt: skip
    return rnn_tanh_step(input, hx, w_ih, w_hh, b_ih, b_hh)


def rnn_relu_cell(input: Tensor, hx: Tensor, w_ih: Tensor, w_hh: Tensor,
                  b_ih: Any = None, b_hh: Any = None) -> Tensor:  # fmt: skip
    return rnn_relu_step(input, hx, w_ih, w_hh, b_ih, b_hh)


def lstm(input: Tensor, hx: Sequence[Tensor], params: Sequence[Tensor], has_biases: bool,
         num_layers: int, dropout: float, train: bool, bidirectional: bool,
         batch_first: bool) -> tuple[Tensor, Tensor, Tensor]:  # fmt: skip
    """`_VF.lstm`: (output, h_n, c_n) of a stack of LSTM layers over `input`."""
    directions = _check("lstm", params, has_biases, num_layers, dropout, train, bidirectional)

    def step(x: Tensor, state: Any, weights: list[Any]) -> Any:
        return lstm_step(x, state[0], state[1], *weights)

    states = [(hx[0][i], hx[1][i]) for i in range(num_layers * directions)]
    output, last = _stack(input, states, params, has_biases, directions, batch_first, step,
                          lambda state: state[0])  # fmt: skip
    return output, torch.stack([s[0] for s in last], 0), torch.stack([s[1] for s in last], 0)


def gru(input: Tensor, hx: Tensor, params: Sequence[Tensor], has_biases: bool,
        num_layers: int, dropout: float, train: bool, bidirectional: bool,
        batch_first: bool) -> tuple[Tensor, Tensor]:  # fmt: skip
    """`_VF.gru`: (output, h_n) of a stack of GRU layers over `input`."""
    directions = _check("gru", params, has_biases, num_layers, dropout, train, bidirectional)
    return _single_state(gru_step, input, hx, params, has_biases, num_layers * directions,
                         directions, batch_first)  # fmt: skip


def rnn_tanh(input: Tensor, hx: Tensor, params: Sequence[Tensor], has_biases: bool,
             num_layers: int, dropout: float, train: bool, bidirectional: bool,
             batch_first: bool) -> tuple[Tensor, Tensor]:  # fmt: skip
    """`_VF.rnn_tanh`: (output, h_n) of a stack of Elman RNN layers (tanh)."""
    directions = _check("rnn_tanh", params, has_biases, num_layers, dropout, train, bidirectional)
    return _single_state(rnn_tanh_step, input, hx, params, has_biases, num_layers * directions,
                         directions, batch_first)  # fmt: skip


def rnn_relu(input: Tensor, hx: Tensor, params: Sequence[Tensor], has_biases: bool,
             num_layers: int, dropout: float, train: bool, bidirectional: bool,
             batch_first: bool) -> tuple[Tensor, Tensor]:  # fmt: skip
    """`_VF.rnn_relu`: (output, h_n) of a stack of Elman RNN layers (relu)."""
    directions = _check("rnn_relu", params, has_biases, num_layers, dropout, train, bidirectional)
    return _single_state(rnn_relu_step, input, hx, params, has_biases, num_layers * directions,
                         directions, batch_first)  # fmt: skip


def _single_state(cell: Any, input: Tensor, hx: Tensor, params: Sequence[Tensor],
                  has_biases: bool, count: int, directions: int,
                  batch_first: bool) -> tuple[Tensor, Tensor]:  # fmt: skip
    """GRU / RNN stacks, whose state is one tensor per layer and direction."""

    def step(x: Tensor, h: Tensor, weights: list[Any]) -> Tensor:
        return cell(x, h, *weights)

    states = [hx[i] for i in range(count)]
    output, last = _stack(input, states, params, has_biases, directions, batch_first, step,
                          lambda h: h)  # fmt: skip
    return output, torch.stack(last, 0)


def _stack(input: Tensor, states: list[Any], params: Sequence[Tensor], has_biases: bool,
           directions: int, batch_first: bool, step: Any,
           hidden_of: Any) -> tuple[Tensor, list[Any]]:  # fmt: skip
    """Run each layer and direction over time (the reverse direction from the last step),
    the directions' outputs concatenated as the next layer's input: (output, last states)."""
    seq = input.transpose(0, 1) if batch_first else input
    steps = seq.shape[0]
    stride = 4 if has_biases else 2
    last = []
    for layer in range(len(states) // directions):
        outputs = []
        for direction in range(directions):
            index = layer * directions + direction
            weights = list(params[index * stride : (index + 1) * stride])
            weights += [] if has_biases else [None, None]
            state = states[index]
            hiddens: list[Any] = [None] * steps
            order = range(steps) if direction == 0 else range(steps - 1, -1, -1)
            for t in order:
                state = step(seq[t], state, weights)
                hiddens[t] = hidden_of(state)
            outputs.append(torch.stack(hiddens, 0))
            last.append(state)
        seq = outputs[0] if directions == 1 else torch.cat(outputs, 2)
    return (seq.transpose(0, 1) if batch_first else seq), last


def _check(name: str, params: Sequence[Tensor], has_biases: bool, num_layers: int,
           dropout: float, train: bool, bidirectional: bool) -> int:  # fmt: skip
    """The number of directions; refuses projections and dropout between layers."""
    directions = 2 if bidirectional else 1
    if len(params) != num_layers * directions * (4 if has_biases else 2):
        raise NotImplementedError(f"torch.{name}: proj_size is not supported")
    if train and dropout and num_layers > 1:
        raise NotImplementedError(f"torch.{name}: dropout between layers in training mode")
    return directions
