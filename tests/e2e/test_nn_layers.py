"""torch.nn layers and F calls a user scripts or traces (attention, transformer layers,
bidirectional recurrent layers, conv / pool / norm / resize), against PyTorch."""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from torch import nn

import frontend
from dialects.torch.meta import ShapeError
from frontend.errors import ScriptError
from frontend.trace.errors import TraceError


def leaves(value):
    if isinstance(value, tuple | list):
        return [leaf for item in value for leaf in leaves(item)]
    return [value]


def check(program, model, *args, **kwargs) -> None:
    with torch.no_grad():
        expected = leaves(model(*args, **kwargs))
        actual = leaves(program(*args, **kwargs))
    assert len(actual) == len(expected)
    for a, e in zip(actual, expected):
        np.testing.assert_allclose(np.asarray(a), e.numpy(), rtol=1e-5, atol=1e-5)


def capture(kind, model, *args):
    return frontend.script(model) if kind == "script" else frontend.trace(model, args)


torch.manual_seed(0)
X = torch.randn(3, 2, 8)  # (L, N, E)
MEMORY = torch.randn(4, 2, 8)  # (S, N, E)
PADDING = torch.tensor([[False, False, True, False], [True, False, False, False]])  # (N, S)
CAUSAL = nn.Transformer.generate_square_subsequent_mask(3)


# ---- attention ----


def attend(q, k, v, bool_mask, float_mask):
    causal = F.scaled_dot_product_attention(q, k, v, is_causal=True, scale=0.5)
    return (
        F.scaled_dot_product_attention(q, k, v),
        F.scaled_dot_product_attention(q, k, v, attn_mask=bool_mask),
        F.scaled_dot_product_attention(q, k, v, float_mask, 0.0) + causal,
    )


@pytest.mark.parametrize("kind", ["script", "trace"])
def test_scaled_dot_product_attention(kind) -> None:
    q, k, v = torch.randn(2, 2, 3, 4), torch.randn(2, 2, 5, 4), torch.randn(2, 2, 5, 6)
    bool_mask = torch.rand(3, 5) > 0.3
    bool_mask[:, 0] = True  # no row fully masked
    args = (q, k, v, bool_mask, torch.randn(2, 1, 3, 5))
    check(capture(kind, attend, *args), attend, *args)


def attend_with_mask(q, k, v, mask):
    return F.scaled_dot_product_attention(q, k, v, attn_mask=mask)


def attend_with_dropout(q, k, v):
    return F.scaled_dot_product_attention(q, k, v, dropout_p=0.1)


def test_attention_refusals_are_clear_errors() -> None:
    q = torch.randn(2, 3, 4)
    with pytest.raises(ScriptError, match="dropout_p must be 0"):
        frontend.script(attend_with_dropout)
    scripted = frontend.script(attend_with_mask)
    with pytest.raises(TypeError, match="Expected attn_mask dtype to be bool or float"):
        scripted(q, q, q, torch.ones(3, 3, dtype=torch.float64))
    with pytest.raises(TypeError, match="only bool and floating types of masks"):
        scripted(q, q, q, torch.ones(3, 3, dtype=torch.int64))


class Attention(nn.Module):
    """Two attentions, called the ways users call them."""

    def __init__(self):
        super().__init__()
        self.packed = nn.MultiheadAttention(8, 2)
        self.separate = nn.MultiheadAttention(8, 4, kdim=5, vdim=6, bias=False, batch_first=True)

    def forward(self, x, memory, padding, mask, keys, values):
        out, weights = self.packed(x, memory, memory, key_padding_mask=padding)
        out2, per_head = self.packed(x, x, x, attn_mask=mask, average_attn_weights=False)
        out3 = self.separate(x.transpose(0, 1), keys, values, need_weights=False)[0]
        return out + out2 + out3.transpose(0, 1), weights, per_head


@pytest.mark.parametrize("kind", ["script", "trace"])
def test_multihead_attention_in_a_module(kind) -> None:
    torch.manual_seed(1)
    model = Attention().eval()
    args = (X, MEMORY, PADDING, torch.rand(3, 3) > 0.5, torch.randn(2, 4, 5), torch.randn(2, 4, 6))
    check(capture(kind, model, *args), model, *args)


def test_traced_unbatched_multihead_attention() -> None:
    torch.manual_seed(2)
    model = nn.MultiheadAttention(8, 2).eval()
    args = (X[:, 0], MEMORY[:, 0], MEMORY[:, 0])
    check(frontend.trace(model, args), model, *args)


class UnbatchedAttention(nn.Module):
    def __init__(self):
        super().__init__()
        self.mha = nn.MultiheadAttention(8, 2)

    def forward(self, x):
        return self.mha(x, x, x)[0]


def test_scripted_unbatched_multihead_attention() -> None:
    """The batched branch of PyTorch's code (`if query.dim() == 3:`) is not refined for a
    2-D query: torch-refine-types follows only the branch the types decide."""
    torch.manual_seed(3)
    model = UnbatchedAttention().eval()
    check(frontend.script(model), model, X[:, 0])


def test_multihead_attention_settings_that_are_refused() -> None:
    model = nn.MultiheadAttention(8, 2, add_bias_kv=True).eval()
    with pytest.raises(ScriptError, match="add_bias_kv=True is not supported"):
        frontend.script(model)
    with pytest.raises(TraceError, match="add_bias_kv=True is not supported"):
        frontend.trace(model, (X, X, X))


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        layer = nn.TransformerEncoderLayer(8, 2, 16, activation="gelu", norm_first=True)
        self.encoder = nn.TransformerEncoder(layer, 1, nn.LayerNorm(8), enable_nested_tensor=False)

    def forward(self, x, mask):
        return self.encoder(x, mask=mask, is_causal=True)


@pytest.mark.parametrize("kind", ["script", "trace"])
def test_transformer_encoder(kind) -> None:
    torch.manual_seed(3)
    model = Encoder().eval()
    check(capture(kind, model, X, CAUSAL), model, X, CAUSAL)


@pytest.mark.filterwarnings("ignore:The PyTorch API of nested tensors")
def test_scripted_transformer_encoder_zeroes_padding_like_pytorchs_fast_path() -> None:
    torch.manual_seed(13)
    layer = nn.TransformerEncoderLayer(8, 2, 16, batch_first=True)
    model = nn.TransformerEncoder(layer, 1, nn.LayerNorm(8)).eval()  # nested tensors allowed
    scripted = frontend.script(model)
    x = torch.randn(2, 3, 8)
    left_aligned = torch.tensor([[False, False, True], [False, False, False]])
    check(scripted, model, x, src_key_padding_mask=left_aligned)
    not_aligned = torch.tensor([[False, True, False], [False, False, False]])  # the slow path
    check(scripted, model, x, src_key_padding_mask=not_aligned)


class Decoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.layer = nn.TransformerDecoderLayer(8, 2, 16, batch_first=True)

    def forward(self, tgt, memory, padding):
        return self.layer(tgt, memory, memory_key_padding_mask=padding)


def test_scripted_transformer_decoder_layer() -> None:
    torch.manual_seed(4)
    model = Decoder().eval()
    args = (X.transpose(0, 1), MEMORY.transpose(0, 1), PADDING)
    check(frontend.script(model), model, *args)


def test_a_transformer_layer_in_training_mode_is_a_clear_error() -> None:
    with pytest.raises(ScriptError, match="training mode"):
        frontend.script(nn.TransformerEncoderLayer(8, 2, 16))


# ---- recurrent layers: both directions, Elman RNNs ----

SEQ = torch.randn(3, 2, 4)  # (time, batch, features)
RECURRENT = [
    ("lstm_bidirectional", lambda: nn.LSTM(4, 5, bidirectional=True)),
    ("gru_bidirectional_batch_first", lambda: nn.GRU(4, 5, batch_first=True, bidirectional=True)),
    (
        "rnn_relu_bidirectional_no_bias",
        lambda: nn.RNN(4, 5, nonlinearity="relu", bias=False, bidirectional=True),
    ),
]


@pytest.mark.parametrize("kind", ["script", "trace"])
@pytest.mark.parametrize(("name", "make"), RECURRENT, ids=[n for n, _ in RECURRENT])
def test_recurrent_layers_both_ways(kind, name, make) -> None:
    torch.manual_seed(5)
    model = make().eval()
    check(capture(kind, model, SEQ), model, SEQ)


def test_scripted_bidirectional_rnn_with_initial_state() -> None:
    torch.manual_seed(6)
    model = nn.RNN(4, 5, num_layers=2, bidirectional=True).eval()
    check(frontend.script(model), model, SEQ, torch.randn(4, 2, 5))


# ---- 1-D convolution and pooling ----


class Signal(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv1d(4, 6, 3, padding=1, stride=2)
        self.max = nn.MaxPool1d(2, ceil_mode=True)
        self.avg = nn.AvgPool1d(3, 1, 1)
        self.adaptive = nn.AdaptiveAvgPool1d(2)

    def forward(self, x, w):
        y = self.adaptive(self.avg(self.max(self.conv(x))))
        z = F.max_pool1d(x, 3) + F.avg_pool1d(x, 3) + F.max_pool2d(x, 3)
        return y, z, F.conv1d(x, w, padding="same"), F.adaptive_avg_pool1d(x, 3)


@pytest.mark.parametrize("kind", ["script", "trace"])
def test_one_dimensional_convolution_and_pooling(kind) -> None:
    torch.manual_seed(7)
    model = Signal().eval()
    args = (torch.randn(2, 4, 9), torch.randn(5, 4, 3))
    check(capture(kind, model, *args), model, *args)


def test_one_dimensional_ops_check_their_input() -> None:
    from frontend import torch as ft

    with pytest.raises(ShapeError, match="Expected 2D \\(unbatched\\) or 3D \\(batched\\) input"):
        ft.nn.functional.conv1d(ft.ones(1, 2, 3, 4), ft.ones(1, 2, 2))
    with pytest.raises(TypeError, match="not implemented for 'Long'"):
        ft.nn.functional.max_pool1d(ft.ones(2, 4, dtype=ft.int64), 2)


# ---- padding modes ----


class Padded(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(2, 3, 3, padding=(1, 2), padding_mode="reflect")
        self.conv1d = nn.Conv1d(2, 2, 3, padding=2, padding_mode="circular")
        self.reflect = nn.ReflectionPad2d((1, 0, 2, 1))
        self.replicate = nn.ReplicationPad1d(2)

    def forward(self, x):
        rows = x[:, :, 0]
        edges = F.pad(x, (1, 1, 2, 0), mode="replicate") + F.pad(x, (1, 1, 2, 0), "circular")
        return self.conv(x), self.conv1d(rows), self.reflect(x), self.replicate(rows), edges


@pytest.mark.parametrize("kind", ["script", "trace"])
def test_padding_modes(kind) -> None:
    torch.manual_seed(8)
    model = Padded().eval()
    x = torch.randn(2, 2, 4, 5)
    check(capture(kind, model, x), model, x)


# ---- group, instance and local response normalization ----


class Norms(nn.Module):
    def __init__(self):
        super().__init__()
        self.group = nn.GroupNorm(2, 4)
        self.instance = nn.InstanceNorm2d(4, affine=True)
        self.running = nn.InstanceNorm1d(4, track_running_stats=True)
        self.running.running_mean.uniform_()
        self.running.running_var.uniform_(0.5, 2.0)
        self.local = nn.LocalResponseNorm(3, alpha=0.1)

    def forward(self, x):
        rows = x[:, :, 0]
        local = self.local(x) + F.local_response_norm(rows, 2).unsqueeze(2)
        return self.group(x), self.instance(x), self.running(rows), F.group_norm(x, 1), local


@pytest.mark.parametrize("kind", ["script", "trace"])
def test_group_and_instance_norm(kind) -> None:
    torch.manual_seed(9)
    model = Norms().eval()
    x = torch.randn(2, 4, 3, 5)
    check(capture(kind, model, x), model, x)


def test_group_norm_checks_the_groups() -> None:
    from frontend import torch as ft

    with pytest.raises(ShapeError, match="divisible by num_groups"):
        ft.nn.functional.group_norm(ft.ones(2, 6, 3), 4)


# ---- resizing ----


class Resize(nn.Module):
    def __init__(self):
        super().__init__()
        self.corners = nn.Upsample(scale_factor=2, mode="bilinear", align_corners=True)
        self.nearest = nn.Upsample(size=(5, 7))

    def forward(self, x, signal):
        return (
            self.corners(x),
            self.nearest(x),
            F.interpolate(x, scale_factor=1.5, mode="bilinear"),
            F.interpolate(x, size=(7, 3), mode="nearest-exact"),
            F.interpolate(x, scale_factor=(2, 0.5)),
            F.interpolate(signal, size=7, mode="linear"),
            F.interpolate(signal, scale_factor=2.3),
            F.interpolate(x, size=(2, 2), mode="area"),
            F.interpolate(x, scale_factor=2, mode="bicubic"),
        )


@pytest.mark.parametrize("kind", ["script", "trace"])
def test_interpolate_and_upsample(kind) -> None:
    torch.manual_seed(10)
    model = Resize().eval()
    args = (torch.randn(2, 3, 4, 5), torch.randn(2, 3, 6))
    check(capture(kind, model, *args), model, *args)


# ---- transposed convolution ----


class Decoder2d(nn.Module):
    def __init__(self):
        super().__init__()
        self.up = nn.ConvTranspose2d(4, 6, 3, stride=2, padding=1, output_padding=1, groups=2)
        self.up1d = nn.ConvTranspose1d(4, 3, 4, stride=3, dilation=2, bias=False)

    def forward(self, x, w):
        rows = x[:, :, 0]
        strided = F.conv_transpose2d(x, w, stride=(1, 2), padding=(2, 0), dilation=2)
        return self.up(x), self.up1d(rows), strided


@pytest.mark.parametrize("kind", ["script", "trace"])
def test_transposed_convolution(kind) -> None:
    torch.manual_seed(11)
    model = Decoder2d().eval()
    args = (torch.randn(2, 4, 5, 6), torch.randn(4, 2, 3, 3))
    check(capture(kind, model, *args), model, *args)


# ---- adaptive max pooling, feature dropouts in eval mode ----


class MaxAndDropout(nn.Module):
    def __init__(self):
        super().__init__()
        self.pool = nn.AdaptiveMaxPool2d((3, 2))
        self.pool1d = nn.AdaptiveMaxPool1d(4)
        self.drop = nn.Dropout2d(0.3)
        self.alpha = nn.AlphaDropout(0.2)

    def forward(self, x):
        rows = x[:, :, 0]
        return (
            self.pool(self.drop(x)),
            self.pool1d(self.alpha(rows)),
            F.adaptive_max_pool2d(x, 2),
            F.dropout1d(rows, 0.5, False),
        )


@pytest.mark.parametrize("kind", ["script", "trace"])
def test_adaptive_max_pool_and_feature_dropout(kind) -> None:
    torch.manual_seed(12)
    model = MaxAndDropout().eval()
    x = torch.randn(2, 3, 7, 5)
    check(capture(kind, model, x), model, x)


def test_feature_dropout_in_training_is_a_clear_error() -> None:
    with pytest.raises(ScriptError, match="training mode"):
        frontend.script(nn.Dropout2d(0.5))


def test_scripted_frontend_lstm() -> None:
    from frontend import torch as ft

    model = ft.nn.LSTM(4, 5, num_layers=2, batch_first=True)
    x = ft.randn(2, 3, 4)
    actual, expected = leaves(frontend.script(model)(x)), leaves(model(x))
    for a, e in zip(actual, expected, strict=True):
        np.testing.assert_allclose(np.asarray(a), e.numpy(), rtol=1e-5, atol=1e-6)
