"""How the standard layers script: a small `forward` per layer, written with registered ops.

PyTorch's own `forward`s are full of Python that compiled code does not need (training-mode
branches, padding modes, hooks), so the standard layers of `torch.nn` and `frontend.torch.nn`
script through the rules below instead, with `self` bound to the layer. A subclass that defines
its own `forward` is scripted from its source like any user module.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from frontend import torch
from frontend.torch.nn import functional as F

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


def _lstm_cell(self, input, hx=None):
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


def _rnn_cell(self, input, hx=None):
    if hx is None:
        hx = input[:, :1] * self.weight_hh[0] * 0.0
    pre = F.linear(input, self.weight_ih, self.bias_ih) + F.linear(hx, self.weight_hh, self.bias_hh)
    if self.nonlinearity == "tanh":
        return torch.tanh(pre)
    return torch.relu(pre)


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
}


def leaf_rule(module: Any) -> LeafRule | None:
    """The rule for a standard layer whose `forward` is the library's own, else None."""
    for klass in type(module).__mro__:
        rule = RULES.get(klass.__name__)
        if rule is None or not klass.__module__.startswith(_LAYER_MODULES):
            continue
        return rule if type(module).forward is klass.forward else None
    return None
