"""How the standard layers script: a small `forward` per layer, written with registered ops.

PyTorch's own `forward`s are full of Python that compiled code does not need (training-mode
branches, padding modes, hooks), so the standard layers of `torch.nn` and `frontend.torch.nn`
script through the rules below instead, with `self` bound to the layer. A subclass that defines
its own `forward` is scripted from its source like any user module.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from frontend import torch
from frontend.torch.nn import functional as F
from frontend.torch.recurrent import gru_step

if TYPE_CHECKING:
    from torch import Tensor  # the rules' annotations (read as text while scripting)

_LAYER_MODULES = ("torch.nn.modules.", "frontend.torch.nn")


@dataclass(frozen=True)
class LeafRule:
    """The scripted `forward` of a standard layer, and what the layer must satisfy."""

    forward: Callable[..., Any]
    check: Callable[[Any], str] = lambda m: ""  # a problem description, or ""
    hint: str = ""


# ---- the rules: each is scripted with `self` bound to the layer ----


def _linear(self, input):
    return F.linear(input, self.weight, self.bias)


def _relu(self, input):
    return F.relu(input)


def _tanh(self, input):
    return torch.tanh(input)


def _sigmoid(self, input):
    return torch.sigmoid(input)


def _gelu(self, input):
    return F.gelu(input, approximate=self.approximate)


def _identity(self, input):
    return input


def _dropout(self, input):
    return F.dropout(input, self.p, self.training)


def _flatten(self, input):
    return torch.flatten(input, self.start_dim, self.end_dim)


def _softmax(self, input):
    return F.softmax(input, self.dim)


def _log_softmax(self, input):
    return F.log_softmax(input, self.dim)


def _conv2d(self, input):
    return F.conv2d(
        input, self.weight, self.bias, self.stride, self.padding, self.dilation, self.groups
    )


def _batch_norm(self, input):
    return torch.batch_norm(
        input, self.weight, self.bias, self.running_mean, self.running_var, False, 0.0, self.eps,
        False,
    )  # fmt: skip


def _layer_norm(self, input):
    return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)


def _max_pool2d(self, input):
    return F.max_pool2d(
        input, self.kernel_size, self.stride, self.padding, self.dilation, self.ceil_mode
    )


def _avg_pool2d(self, input):
    return F.avg_pool2d(
        input,
        self.kernel_size,
        self.stride,
        self.padding,
        self.ceil_mode,
        self.count_include_pad,
        self.divisor_override,
    )


def _adaptive_avg_pool2d(self, input):
    return F.adaptive_avg_pool2d(input, self.output_size)


def _embedding(self, input):
    padding_idx = -1 if self.padding_idx is None else self.padding_idx
    return torch.embedding(self.weight, input, padding_idx)


def _lstm_cell(self, input, hx: tuple[Tensor, Tensor] | None = None):
    if hx is None:
        zeros = input[:, :1] * self.weight_hh[0] * 0.0
        hx = (zeros, zeros)
    h, c = hx
    gates = F.linear(input, self.weight_ih, self.bias_ih) + F.linear(
        h, self.weight_hh, self.bias_hh
    )
    i, f, g, o = gates.chunk(4, 1)
    c = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)
    h = torch.sigmoid(o) * torch.tanh(c)
    return h, c


def _rnn_cell(self, input, hx: Tensor | None = None):
    if hx is None:
        hx = input[:, :1] * self.weight_hh[0] * 0.0
    pre = F.linear(input, self.weight_ih, self.bias_ih) + F.linear(hx, self.weight_hh, self.bias_hh)
    if self.nonlinearity == "tanh":
        return torch.tanh(pre)
    return torch.relu(pre)


def _lstm(self, input, hx: tuple[Tensor, Tensor] | None = None):
    """nn.LSTM (unidirectional, no projection): each layer a loop over time, its outputs the
    next layer's input; `(output, (h_n, c_n))` as torch returns them."""
    x = input.transpose(0, 1) if self.batch_first else input
    steps, batch = x.shape[0], x.shape[1]
    h_n = x.new_zeros(0, batch, self.hidden_size)
    c_n = x.new_zeros(0, batch, self.hidden_size)
    for layer, names in enumerate(self._all_weights):  # unrolled while scripting
        w_ih, w_hh = getattr(self, names[0]), getattr(self, names[1])
        b_ih = getattr(self, names[2]) if self.bias else None
        b_hh = getattr(self, names[3]) if self.bias else None
        if hx is None:
            h = x.new_zeros(batch, self.hidden_size)
            c = h
        else:
            h, c = hx[0][layer], hx[1][layer]
        out = x.new_zeros(0, batch, self.hidden_size)
        for t in range(steps):
            gates = F.linear(x[t], w_ih, b_ih) + F.linear(h, w_hh, b_hh)
            i, f, g, o = gates.chunk(4, 1)
            c = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)
            h = torch.sigmoid(o) * torch.tanh(c)
            out = torch.cat([out, h.unsqueeze(0)], 0)
        h_n = torch.cat([h_n, h.unsqueeze(0)], 0)
        c_n = torch.cat([c_n, c.unsqueeze(0)], 0)
        x = out
    return (x.transpose(0, 1) if self.batch_first else x), (h_n, c_n)


def _gru(self, input, hx: Tensor | None = None):
    """nn.GRU (unidirectional): `(output, h_n)` as torch returns them."""
    x = input.transpose(0, 1) if self.batch_first else input
    steps, batch = x.shape[0], x.shape[1]
    h_n = x.new_zeros(0, batch, self.hidden_size)
    for layer, names in enumerate(self._all_weights):  # unrolled while scripting
        w_ih, w_hh = getattr(self, names[0]), getattr(self, names[1])
        b_ih = getattr(self, names[2]) if self.bias else None
        b_hh = getattr(self, names[3]) if self.bias else None
        h = x.new_zeros(batch, self.hidden_size) if hx is None else hx[layer]
        out = x.new_zeros(0, batch, self.hidden_size)
        for t in range(steps):
            h = gru_step(x[t], h, w_ih, w_hh, b_ih, b_hh)
            out = torch.cat([out, h.unsqueeze(0)], 0)
        h_n = torch.cat([h_n, h.unsqueeze(0)], 0)
        x = out
    return (x.transpose(0, 1) if self.batch_first else x), h_n


def _gru_cell(self, input, hx: Tensor | None = None):
    if hx is None:
        hx = input.new_zeros(input.shape[0], self.hidden_size)
    return gru_step(input, hx, self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)


def _sequential(self, input):
    for module in self:
        input = module(input)
    return input


# ---- checks ----


def _zeros_padding(m: Any) -> str:
    mode = getattr(m, "padding_mode", "zeros")
    return "" if mode == "zeros" else f"padding_mode={mode!r} is not supported (only 'zeros')"


def _inference_norm(m: Any) -> str:
    if getattr(m, "running_mean", None) is None:
        return "it has no running statistics (track_running_stats=False)"
    if m.training:
        return "it is in training mode; batch statistics are not supported"
    return ""


def _plain_recurrent(m: Any) -> str:
    """nn.LSTM / nn.GRU as the rules run them: one direction, no projection, batched input,
    no dropout between layers (it applies in training only)."""
    if m.bidirectional:
        return "bidirectional=True is not supported"
    if getattr(m, "proj_size", 0):
        return "proj_size is not supported"
    if m.training and m.dropout and m.num_layers > 1:
        return "it is in training mode with dropout between layers"
    return ""


def _no_max_norm(m: Any) -> str:
    return "" if getattr(m, "max_norm", None) is None else "max_norm is not supported"


RULES: dict[str, LeafRule] = {
    "Linear": LeafRule(_linear),
    "ReLU": LeafRule(_relu),
    "Tanh": LeafRule(_tanh),
    "Sigmoid": LeafRule(_sigmoid),
    "GELU": LeafRule(_gelu),
    "Identity": LeafRule(_identity),
    "Dropout": LeafRule(_dropout),
    "Flatten": LeafRule(_flatten),
    "Softmax": LeafRule(_softmax),
    "LogSoftmax": LeafRule(_log_softmax),
    "Conv2d": LeafRule(_conv2d, _zeros_padding),
    "BatchNorm2d": LeafRule(_batch_norm, _inference_norm, "call .eval() on the model first"),
    "BatchNorm1d": LeafRule(_batch_norm, _inference_norm, "call .eval() on the model first"),
    "LayerNorm": LeafRule(_layer_norm),
    "MaxPool2d": LeafRule(_max_pool2d),
    "AvgPool2d": LeafRule(_avg_pool2d),
    "AdaptiveAvgPool2d": LeafRule(_adaptive_avg_pool2d),
    "Embedding": LeafRule(_embedding, _no_max_norm),
    "Sequential": LeafRule(_sequential),
    "LSTMCell": LeafRule(_lstm_cell),
    "RNNCell": LeafRule(_rnn_cell),
    "GRUCell": LeafRule(_gru_cell),
    "LSTM": LeafRule(_lstm, _plain_recurrent, "use a single-direction LSTM in eval mode"),
    "GRU": LeafRule(_gru, _plain_recurrent, "use a single-direction GRU in eval mode"),
}


def leaf_rule(module: Any) -> LeafRule | None:
    """The rule for a standard layer whose `forward` is the library's own, else None."""
    for klass in type(module).__mro__:
        rule = RULES.get(klass.__name__)
        if rule is None or not klass.__module__.startswith(_LAYER_MODULES):
            continue
        return rule if type(module).forward is klass.forward else None
    return None
