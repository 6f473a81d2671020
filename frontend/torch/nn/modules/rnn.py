"""`LSTMCell` and `LSTM` (unidirectional), written with F.linear, slicing, sigmoid and tanh.

Gates are ordered (input, forget, cell, output) like PyTorch, so weights load from
`torch.nn.LSTM`/`LSTMCell` state dicts unchanged; every weight starts as U(-1/sqrt(H), 1/sqrt(H)).
"""

from __future__ import annotations

import math
from typing import Any

from frontend.torch import creation
from frontend.torch import functions as torch
from frontend.torch.nn import functional as F
from frontend.torch.nn import init
from frontend.torch.nn.module import Module
from frontend.torch.nn.parameter import Parameter
from frontend.torch.tensor import Tensor


def lstm_step(
    x: Tensor, h: Tensor, c: Tensor, w_ih: Tensor, w_hh: Tensor, b_ih: Any, b_hh: Any
) -> tuple[Tensor, Tensor]:
    """One LSTM step on batched `x` (N, in), `h`, `c` (N, H): the new (h, c)."""
    hidden = h.shape[1]
    gates = F.linear(x, w_ih, b_ih) + F.linear(h, w_hh, b_hh)
    i = torch.sigmoid(gates[:, 0:hidden])
    f = torch.sigmoid(gates[:, hidden : 2 * hidden])
    g = torch.tanh(gates[:, 2 * hidden : 3 * hidden])
    o = torch.sigmoid(gates[:, 3 * hidden : 4 * hidden])
    c_next = f * c + i * g
    return o * torch.tanh(c_next), c_next


def _uniform_init(module: Module, hidden_size: int) -> None:
    bound = 1.0 / math.sqrt(hidden_size) if hidden_size > 0 else 0.0
    for weight in module.parameters():
        init.uniform_(weight, -bound, bound)


class LSTMCell(Module):
    def __init__(
        self,
        input_size: int,
        hidden_size: int,
        bias: bool = True,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        self.weight_ih = Parameter(creation.empty(4 * hidden_size, input_size, dtype=dtype))
        self.weight_hh = Parameter(creation.empty(4 * hidden_size, hidden_size, dtype=dtype))
        if bias:
            self.bias_ih = Parameter(creation.empty(4 * hidden_size, dtype=dtype))
            self.bias_hh = Parameter(creation.empty(4 * hidden_size, dtype=dtype))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        _uniform_init(self, hidden_size)

    def forward(self, input: Tensor, hx: Any = None) -> tuple[Tensor, Tensor]:
        if input.dim() not in (1, 2):
            raise ValueError(f"LSTMCell: Expected input to be 1D or 2D, got {input.dim()}D instead")
        batched = input.dim() == 2
        x = input if batched else input.unsqueeze(0)  # type: ignore[attr-defined]
        if hx is None:
            zeros = creation.zeros(x.shape[0], self.hidden_size, dtype=x.dtype)
            h, c = zeros, zeros
        else:
            h, c = hx if batched else (hx[0].unsqueeze(0), hx[1].unsqueeze(0))
        h, c = lstm_step(x, h, c, self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)
        return (h, c) if batched else (h[0], c[0])

    def extra_repr(self) -> str:
        return f"{self.input_size}, {self.hidden_size}" + ("" if self.bias else ", bias=False")


class LSTM(Module):
    """A stack of `num_layers` LSTMs over a sequence (L, N, in), or (N, L, in) if batch_first."""

    def __init__(
        self,
        input_size: int,
        hidden_size: int,
        num_layers: int = 1,
        bias: bool = True,
        batch_first: bool = False,
        dropout: float = 0.0,
        bidirectional: bool = False,
        proj_size: int = 0,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        if bidirectional or proj_size:
            raise NotImplementedError("LSTM(bidirectional=True / proj_size>0) is not supported")
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout)
        self.bidirectional = False
        self.proj_size = 0
        names = ("weight_ih", "weight_hh", "bias_ih", "bias_hh")[: 4 if bias else 2]
        self._all_weights = [[f"{n}_l{layer}" for n in names] for layer in range(num_layers)]
        for layer in range(num_layers):
            size_in = input_size if layer == 0 else hidden_size
            for name, shape in self._parameter_shapes(size_in):
                self.register_parameter(
                    f"{name}_l{layer}", Parameter(creation.empty(shape, dtype=dtype))
                )
        _uniform_init(self, hidden_size)

    def _parameter_shapes(self, size_in: int) -> list[tuple[str, tuple[int, ...]]]:
        four_h = 4 * self.hidden_size
        shapes = [("weight_ih", (four_h, size_in)), ("weight_hh", (four_h, self.hidden_size))]
        return shapes + ([("bias_ih", (four_h,)), ("bias_hh", (four_h,))] if self.bias else [])

    def _layer(self, index: int) -> list[Any]:
        names = ("weight_ih", "weight_hh", "bias_ih", "bias_hh")
        return [self._parameters.get(f"{n}_l{index}") for n in names]

    def forward(self, input: Tensor, hx: Any = None) -> tuple[Tensor, tuple[Tensor, Tensor]]:
        batched = input.dim() == 3
        seq = input if batched else input.unsqueeze(1)  # type: ignore[attr-defined]
        if batched and self.batch_first:
            seq = seq.transpose(0, 1)  # type: ignore[attr-defined]
        batch = seq.shape[1]
        if hx is None:
            zeros = creation.zeros(self.num_layers, batch, self.hidden_size, dtype=seq.dtype)
            hx = (zeros, zeros)
        elif not batched:
            hx = (hx[0].unsqueeze(1), hx[1].unsqueeze(1))
        h_last, c_last = [], []
        for layer in range(self.num_layers):
            h, c = hx[0][layer], hx[1][layer]
            outputs = []
            for t in range(seq.shape[0]):
                h, c = lstm_step(seq[t], h, c, *self._layer(layer))
                outputs.append(h)
            seq = torch.stack(outputs, 0)
            if self.dropout and self.training and layer < self.num_layers - 1:
                seq = F.dropout(seq, self.dropout, True)
            h_last.append(h)
            c_last.append(c)
        h_n, c_n = torch.stack(h_last, 0), torch.stack(c_last, 0)
        if batched and self.batch_first:
            seq = seq.transpose(0, 1)  # type: ignore[attr-defined]
        if not batched:
            return seq[:, 0], (h_n[:, 0], c_n[:, 0])
        return seq, (h_n, c_n)

    def extra_repr(self) -> str:
        text = f"{self.input_size}, {self.hidden_size}"
        if self.num_layers != 1:
            text += f", num_layers={self.num_layers}"
        if self.batch_first:
            text += ", batch_first=True"
        return text
