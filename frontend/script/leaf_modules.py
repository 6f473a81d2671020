"""How the standard layers script: a small `forward` per layer, written with registered ops.

PyTorch's own `forward`s are full of Python that compiled code does not need (training-mode
branches, padding modes, hooks), so the standard layers of `torch.nn` and `frontend.torch.nn`
script through the rules below instead, with `self` bound to the layer. A subclass that defines
its own `forward` is scripted from its source like any user module.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from frontend import torch
from frontend.torch.attention import multi_head_attention_forward
from frontend.torch.nn import functional as F
from frontend.torch.recurrent import gru_step, rnn_relu_step, rnn_tanh_step

if TYPE_CHECKING:
    from torch import Tensor  # the rules' annotations (read as text while scripting)

_LAYER_MODULES = ("torch.nn.modules.", "frontend.torch.nn")


@dataclass(frozen=True)
class LeafRule:
    """The scripted `forward` of a standard layer, and what the layer must satisfy.

    With `specialize`, `forward` is a factory: `forward(specialize(layer))` is the rule (a
    closure over what the script cannot read from the layer, like an activation function)."""

    forward: Callable[..., Any]
    check: Callable[[Any], str] = lambda m: ""  # a problem description, or ""
    hint: str = ""
    specialize: Callable[[Any], Any] | None = None


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
    if self.padding_mode != "zeros":  # reflect / replicate / circular: F.pad, then no padding
        padded = F.pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode)
        return F.conv2d(padded, self.weight, self.bias, self.stride, 0, self.dilation, self.groups)
    return F.conv2d(
        input, self.weight, self.bias, self.stride, self.padding, self.dilation, self.groups
    )


def _conv1d(self, input):
    if self.padding_mode != "zeros":
        padded = F.pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode)
        return F.conv1d(padded, self.weight, self.bias, self.stride, 0, self.dilation, self.groups)
    return F.conv1d(
        input, self.weight, self.bias, self.stride, self.padding, self.dilation, self.groups
    )


def _conv_transpose2d(self, input, output_size: list[int] | None = None):
    if output_size is not None:
        raise NotImplementedError("ConvTranspose2d(..., output_size=...) is not supported")
    return F.conv_transpose2d(
        input, self.weight, self.bias, self.stride, self.padding, self.output_padding,
        self.groups, self.dilation,
    )  # fmt: skip


def _conv_transpose1d(self, input, output_size: list[int] | None = None):
    if output_size is not None:
        raise NotImplementedError("ConvTranspose1d(..., output_size=...) is not supported")
    return F.conv_transpose1d(
        input, self.weight, self.bias, self.stride, self.padding, self.output_padding,
        self.groups, self.dilation,
    )  # fmt: skip


def _conv_transpose3d(self, input, output_size: list[int] | None = None):
    if output_size is not None:
        raise NotImplementedError("ConvTranspose3d(..., output_size=...) is not supported")
    return F.conv_transpose3d(
        input, self.weight, self.bias, self.stride, self.padding, self.output_padding,
        self.groups, self.dilation,
    )  # fmt: skip


def _adaptive_max_pool2d(self, input):
    pool = F.adaptive_max_pool2d_with_indices if self.return_indices else F.adaptive_max_pool2d
    return pool(input, self.output_size)


def _adaptive_max_pool1d(self, input):
    return F.adaptive_max_pool1d(input, self.output_size)


def _max_pool3d(self, input):
    pool = F.max_pool3d_with_indices if self.return_indices else F.max_pool3d
    return pool(input, self.kernel_size, self.stride, self.padding, self.dilation, self.ceil_mode)


def _adaptive_max_pool3d(self, input):
    pool = F.adaptive_max_pool3d_with_indices if self.return_indices else F.adaptive_max_pool3d
    return pool(input, self.output_size)


def _feature_dropout(self, input):
    """nn.Dropout1d / 2d / 3d / AlphaDropout / FeatureAlphaDropout in eval mode."""
    return input


def _max_pool1d(self, input):
    return F.max_pool1d(
        input, self.kernel_size, self.stride, self.padding, self.dilation, self.ceil_mode
    )


def _avg_pool1d(self, input):
    return F.avg_pool1d(
        input, self.kernel_size, self.stride, self.padding, self.ceil_mode, self.count_include_pad
    )


def _adaptive_avg_pool1d(self, input):
    return F.adaptive_avg_pool1d(input, self.output_size)


def _batch_norm(self, input):
    return torch.batch_norm(
        input, self.weight, self.bias, self.running_mean, self.running_var, False, 0.0, self.eps,
        False,
    )  # fmt: skip


def _group_norm(self, input):
    return F.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)


def _instance_norm(self, input):
    momentum = 0.0 if self.momentum is None else self.momentum
    use_input_stats = self.training or not self.track_running_stats
    return F.instance_norm(
        input, self.running_mean, self.running_var, self.weight, self.bias, use_input_stats,
        momentum, self.eps,
    )  # fmt: skip


def _local_response_norm(self, input):
    return F.local_response_norm(input, self.size, self.alpha, self.beta, self.k)


def _layer_norm(self, input):
    return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)


def _max_pool2d(self, input):
    pool = F.max_pool2d_with_indices if self.return_indices else F.max_pool2d
    return pool(input, self.kernel_size, self.stride, self.padding, self.dilation, self.ceil_mode)


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
    """nn.LSTM (no projection): each layer and direction a loop over time (the reverse
    direction from the last step), the directions' outputs side by side the next layer's
    input; `(output, (h_n, c_n))` as torch returns them."""
    x = input.transpose(0, 1) if self.batch_first else input
    steps, batch = x.shape[0], x.shape[1]
    directions = 2 if self.bidirectional else 1
    h_n = x.new_zeros(0, batch, self.hidden_size)
    c_n = x.new_zeros(0, batch, self.hidden_size)
    forward_out = x
    for index, names in enumerate(self._all_weights):  # unrolled: layer * directions + direction
        w_ih, w_hh = getattr(self, names[0]), getattr(self, names[1])
        b_ih = getattr(self, names[2]) if self.bias else None
        b_hh = getattr(self, names[3]) if self.bias else None
        if hx is None:
            h = x.new_zeros(batch, self.hidden_size)
            c = h
        else:
            h, c = hx[0][index], hx[1][index]
        out = x.new_zeros(0, batch, self.hidden_size)
        reverse = index % directions == 1
        for t in range(steps):
            gates = F.linear(x[steps - 1 - t] if reverse else x[t], w_ih, b_ih) + F.linear(
                h, w_hh, b_hh
            )
            i, f, g, o = gates.chunk(4, 1)
            c = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)
            h = torch.sigmoid(o) * torch.tanh(c)
            new = h.unsqueeze(0)
            out = torch.cat([new, out], 0) if reverse else torch.cat([out, new], 0)
        h_n = torch.cat([h_n, h.unsqueeze(0)], 0)
        c_n = torch.cat([c_n, c.unsqueeze(0)], 0)
        if reverse:
            x = torch.cat([forward_out, out], 2)
        elif directions == 1:
            x = out
        else:
            forward_out = out
    return (x.transpose(0, 1) if self.batch_first else x), (h_n, c_n)


def _single_state_rule(step: Callable[..., Any]) -> Callable[..., Any]:
    """The rule of nn.GRU / nn.RNN for its step (`gru_step`, `rnn_tanh_step`, ...)."""

    def recurrent(self, input, hx: Tensor | None = None):
        """Each layer and direction a loop over time (as nn.LSTM's): `(output, h_n)`."""
        x = input.transpose(0, 1) if self.batch_first else input
        steps, batch = x.shape[0], x.shape[1]
        directions = 2 if self.bidirectional else 1
        h_n = x.new_zeros(0, batch, self.hidden_size)
        forward_out = x
        for index, names in enumerate(self._all_weights):  # unrolled
            w_ih, w_hh = getattr(self, names[0]), getattr(self, names[1])
            b_ih = getattr(self, names[2]) if self.bias else None
            b_hh = getattr(self, names[3]) if self.bias else None
            h = x.new_zeros(batch, self.hidden_size) if hx is None else hx[index]
            out = x.new_zeros(0, batch, self.hidden_size)
            reverse = index % directions == 1
            for t in range(steps):
                h = step(x[steps - 1 - t] if reverse else x[t], h, w_ih, w_hh, b_ih, b_hh)
                new = h.unsqueeze(0)
                out = torch.cat([new, out], 0) if reverse else torch.cat([out, new], 0)
            h_n = torch.cat([h_n, h.unsqueeze(0)], 0)
            if reverse:
                x = torch.cat([forward_out, out], 2)
            elif directions == 1:
                x = out
            else:
                forward_out = out
        return (x.transpose(0, 1) if self.batch_first else x), h_n

    return recurrent


def _step_of(layer: Any) -> Callable[..., Any]:
    """The step an nn.GRU / nn.RNN runs."""
    if type(layer).__name__ == "GRU":
        return gru_step
    return rnn_tanh_step if layer.nonlinearity == "tanh" else rnn_relu_step


def _gru_cell(self, input, hx: Tensor | None = None):
    if hx is None:
        hx = input.new_zeros(input.shape[0], self.hidden_size)
    return gru_step(input, hx, self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)


def _multihead_attention(
    self, query, key, value, key_padding_mask: Tensor | None = None, need_weights: bool = True,
    attn_mask: Tensor | None = None, average_attn_weights: bool = True, is_causal: bool = False,
):  # fmt: skip
    """nn.MultiheadAttention: `(output, weights)` as torch returns them, `(output, None)` with
    need_weights=False (a flag of the entry function or a constant at the call: a `bool`
    computed at run time cannot choose between a tensor and None)."""
    batched = query.ndim == 3
    if self.batch_first and batched:
        query, key, value = query.transpose(1, 0), key.transpose(1, 0), value.transpose(1, 0)
    output, weights = multi_head_attention_forward(
        query, key, value, self.embed_dim, self.num_heads, self.in_proj_weight,
        self.in_proj_bias, self.bias_k, self.bias_v, self.add_zero_attn, self.dropout,
        self.out_proj.weight, self.out_proj.bias, self.training, key_padding_mask, need_weights,
        attn_mask, not self._qkv_same_embed_dim, self.q_proj_weight, self.k_proj_weight,
        self.v_proj_weight, None, None, average_attn_weights, is_causal,
    )  # fmt: skip
    if self.batch_first and batched:
        return output.transpose(1, 0), weights
    return output, weights


def _encoder_layer_rule(activation: Any) -> Callable[..., Any]:
    """nn.TransformerEncoderLayer's rule for its activation: a function (`F.relu`, `F.gelu`)
    the script calls, or None for a module (`self.activation`)."""

    def encoder_layer(
        self, src, src_mask: Tensor | None = None, src_key_padding_mask: Tensor | None = None,
        is_causal: bool = False,
    ):  # fmt: skip
        """Self-attention then the feed-forward block, each added to its input and
        layer-normalized after it (or, with norm_first, before)."""
        x = src
        h = self.norm1(x) if self.norm_first else x
        h = self.self_attn(h, h, h, attn_mask=src_mask, key_padding_mask=src_key_padding_mask,
                           need_weights=False, is_causal=is_causal)[0]  # fmt: skip
        x = x + self.dropout1(h) if self.norm_first else self.norm1(x + self.dropout1(h))
        h = self.linear1(self.norm2(x) if self.norm_first else x)
        h = self.activation(h) if activation is None else activation(h)
        h = self.dropout2(self.linear2(self.dropout(h)))
        return x + h if self.norm_first else self.norm2(x + h)

    return encoder_layer


def _decoder_layer_rule(activation: Any) -> Callable[..., Any]:
    """nn.TransformerDecoderLayer's rule for its activation (as `_encoder_layer_rule`)."""

    def decoder_layer(
        self, tgt, memory, tgt_mask: Tensor | None = None, memory_mask: Tensor | None = None,
        tgt_key_padding_mask: Tensor | None = None,
        memory_key_padding_mask: Tensor | None = None, tgt_is_causal: bool = False,
        memory_is_causal: bool = False,
    ):  # fmt: skip
        """Self-attention, attention on `memory`, the feed-forward block: each added to its
        input and layer-normalized after it (or, with norm_first, before)."""
        x = tgt
        h = self.norm1(x) if self.norm_first else x
        h = self.self_attn(h, h, h, attn_mask=tgt_mask, key_padding_mask=tgt_key_padding_mask,
                           need_weights=False, is_causal=tgt_is_causal)[0]  # fmt: skip
        x = x + self.dropout1(h) if self.norm_first else self.norm1(x + self.dropout1(h))
        h = self.norm2(x) if self.norm_first else x
        h = self.multihead_attn(
            h, memory, memory, attn_mask=memory_mask, key_padding_mask=memory_key_padding_mask,
            need_weights=False, is_causal=memory_is_causal,
        )[0]  # fmt: skip
        x = x + self.dropout2(h) if self.norm_first else self.norm2(x + self.dropout2(h))
        h = self.linear1(self.norm3(x) if self.norm_first else x)
        h = self.activation(h) if activation is None else activation(h)
        h = self.dropout3(self.linear2(self.dropout(h)))
        return x + h if self.norm_first else self.norm3(x + h)

    return decoder_layer


def _activation_of(layer: Any) -> Any:
    """What a transformer layer's rule calls: its activation function, or None (a module)."""
    return None if hasattr(layer.activation, "forward") else layer.activation


def _transformer_encoder(
    self, src, mask: Tensor | None = None, src_key_padding_mask: Tensor | None = None,
    is_causal: bool | None = None,
):  # fmt: skip
    """nn.TransformerEncoder: the layers in turn, then the final norm if any.

    With a padding mask and no `mask`, PyTorch in eval mode without gradients runs the layers
    on nested tensors when it can (`use_nested_tensor`, and the mask left-aligned unless
    `mask_check` is off): the padded positions then come out as zeros before the norm. So
    they do here."""
    causal = False if is_causal is None else is_causal
    output = src
    for layer in self.layers:
        output = layer(output, src_mask=mask, src_key_padding_mask=src_key_padding_mask,
                       is_causal=causal)  # fmt: skip
    if src_key_padding_mask is not None and mask is None and self.use_nested_tensor:
        padded = src_key_padding_mask != 0  # bool masks, or float ones (-inf where padded)
        zeroed = padded.unsqueeze(-1)
        if self.mask_check:  # PyTorch checks that every row is valid, then padded
            unaligned = (padded[:, :-1] & ~padded[:, 1:]).any()
            zeroed = zeroed & ~unaligned
        output = output.masked_fill(zeroed, 0.0)
    if self.norm is not None:
        output = self.norm(output)
    return output


def _transformer_decoder(
    self, tgt, memory, tgt_mask: Tensor | None = None, memory_mask: Tensor | None = None,
    tgt_key_padding_mask: Tensor | None = None, memory_key_padding_mask: Tensor | None = None,
    tgt_is_causal: bool | None = None, memory_is_causal: bool = False,
):  # fmt: skip
    """nn.TransformerDecoder: the layers in turn, then the final norm if any."""
    causal = False if tgt_is_causal is None else tgt_is_causal
    output = tgt
    for layer in self.layers:
        output = layer(output, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                       tgt_key_padding_mask=tgt_key_padding_mask,
                       memory_key_padding_mask=memory_key_padding_mask,
                       tgt_is_causal=causal, memory_is_causal=memory_is_causal)  # fmt: skip
    if self.norm is not None:
        output = self.norm(output)
    return output


def _transformer(
    self, src, tgt, src_mask: Tensor | None = None, tgt_mask: Tensor | None = None,
    memory_mask: Tensor | None = None, src_key_padding_mask: Tensor | None = None,
    tgt_key_padding_mask: Tensor | None = None, memory_key_padding_mask: Tensor | None = None,
    src_is_causal: bool | None = None, tgt_is_causal: bool | None = None,
    memory_is_causal: bool = False,
):  # fmt: skip
    """nn.Transformer: the encoder over `src`, the decoder over `tgt` and its memory."""
    memory = self.encoder(src, mask=src_mask, src_key_padding_mask=src_key_padding_mask,
                          is_causal=src_is_causal)  # fmt: skip
    return self.decoder(tgt, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                        tgt_key_padding_mask=tgt_key_padding_mask,
                        memory_key_padding_mask=memory_key_padding_mask,
                        tgt_is_causal=tgt_is_causal, memory_is_causal=memory_is_causal)  # fmt: skip


def _sequential(self, input):
    for module in self:
        input = module(input)
    return input


# ---- checks ----


def _inference_norm(m: Any) -> str:
    if getattr(m, "running_mean", None) is None:
        return "it has no running statistics (track_running_stats=False)"
    if m.training:
        return "it is in training mode; batch statistics are not supported"
    return ""


def _plain_recurrent(m: Any) -> str:
    """nn.LSTM / GRU / RNN as the rules run them: no projection, batched input, no dropout
    between layers (it applies in training only)."""
    if getattr(m, "proj_size", 0):
        return "proj_size is not supported"
    if m.training and m.dropout and m.num_layers > 1:
        return "it is in training mode with dropout between layers"
    return ""


def _plain_attention(m: Any) -> str:
    if m.bias_k is not None:
        return "add_bias_kv=True is not supported"
    if m.add_zero_attn:
        return "add_zero_attn=True is not supported"
    if m.training and m.dropout:
        return "it is in training mode with dropout"
    return ""


def _eval_mode(m: Any) -> str:
    return "it is in training mode (dropout)" if m.training else ""


_EVAL = "call .eval() on the model first"


def _batched_instance_norm(m: Any) -> str:
    if m.training and m.track_running_stats:
        return "it is in training mode with running statistics (they would be updated)"
    return ""


def _eval_dropout(m: Any) -> str:
    if m.training and m.p > 0:
        return "it is in training mode (random channel masks are not supported)"
    return ""


def _no_indices(m: Any) -> str:
    return "return_indices=True is not supported" if m.return_indices else ""


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
    "Conv2d": LeafRule(_conv2d),
    "BatchNorm2d": LeafRule(_batch_norm, _inference_norm, "call .eval() on the model first"),
    "BatchNorm1d": LeafRule(_batch_norm, _inference_norm, "call .eval() on the model first"),
    "LayerNorm": LeafRule(_layer_norm),
    "GroupNorm": LeafRule(_group_norm),
    "LocalResponseNorm": LeafRule(_local_response_norm),
    "InstanceNorm1d": LeafRule(_instance_norm, _batched_instance_norm, _EVAL),
    "InstanceNorm2d": LeafRule(_instance_norm, _batched_instance_norm, _EVAL),
    "InstanceNorm3d": LeafRule(_instance_norm, _batched_instance_norm, _EVAL),
    "MaxPool2d": LeafRule(_max_pool2d),
    "Conv1d": LeafRule(_conv1d),
    "ConvTranspose2d": LeafRule(_conv_transpose2d),
    "ConvTranspose3d": LeafRule(_conv_transpose3d),
    "ConvTranspose1d": LeafRule(_conv_transpose1d),
    "MaxPool1d": LeafRule(_max_pool1d, _no_indices),
    "AvgPool1d": LeafRule(_avg_pool1d),
    "AdaptiveAvgPool1d": LeafRule(_adaptive_avg_pool1d),
    "AdaptiveMaxPool2d": LeafRule(_adaptive_max_pool2d),
    "AdaptiveMaxPool1d": LeafRule(_adaptive_max_pool1d, _no_indices),
    "MaxPool3d": LeafRule(_max_pool3d),
    "AdaptiveMaxPool3d": LeafRule(_adaptive_max_pool3d),
    "Dropout1d": LeafRule(_feature_dropout, _eval_dropout, _EVAL),
    "Dropout2d": LeafRule(_feature_dropout, _eval_dropout, _EVAL),
    "Dropout3d": LeafRule(_feature_dropout, _eval_dropout, _EVAL),
    "AlphaDropout": LeafRule(_feature_dropout, _eval_dropout, _EVAL),
    "FeatureAlphaDropout": LeafRule(_feature_dropout, _eval_dropout, _EVAL),
    "AvgPool2d": LeafRule(_avg_pool2d),
    "AdaptiveAvgPool2d": LeafRule(_adaptive_avg_pool2d),
    "Embedding": LeafRule(_embedding, _no_max_norm),
    "Sequential": LeafRule(_sequential),
    "TransformerEncoderLayer": LeafRule(_encoder_layer_rule, _eval_mode, _EVAL, _activation_of),
    "TransformerDecoderLayer": LeafRule(_decoder_layer_rule, _eval_mode, _EVAL, _activation_of),
    "TransformerEncoder": LeafRule(_transformer_encoder),
    "TransformerDecoder": LeafRule(_transformer_decoder),
    "Transformer": LeafRule(_transformer),
    "MultiheadAttention": LeafRule(
        _multihead_attention, _plain_attention, "call .eval() on the model first"
    ),
    "LSTMCell": LeafRule(_lstm_cell),
    "RNNCell": LeafRule(_rnn_cell),
    "GRUCell": LeafRule(_gru_cell),
    "LSTM": LeafRule(_lstm, _plain_recurrent, "use an LSTM without proj_size, in eval mode"),
    "GRU": LeafRule(
        _single_state_rule, _plain_recurrent, "call .eval() on the model first", _step_of
    ),
    "RNN": LeafRule(
        _single_state_rule, _plain_recurrent, "call .eval() on the model first", _step_of
    ),
}


def leaf_rule(module: Any) -> LeafRule | None:
    """The rule for a standard layer whose `forward` is the library's own, else None."""
    for klass in type(module).__mro__:
        rule = RULES.get(klass.__name__)
        if rule is None or not klass.__module__.startswith(_LAYER_MODULES):
            continue
        if type(module).forward is not klass.forward:
            return None
        if rule.specialize is not None:
            return replace(rule, forward=rule.forward(rule.specialize(module)), specialize=None)
        return rule
    return None
