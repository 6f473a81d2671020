"""Attention written once with registered ops: `F.scaled_dot_product_attention` and
`F.multi_head_attention_forward` (what `nn.MultiheadAttention.forward` calls).

Scripts run these functions as the twins of PyTorch's (`frontend/ir/resolve.py`), and the
`nn.MultiheadAttention` / `nn.Transformer*Layer` leaf rules (`frontend/script/leaf_modules.py`) call
them; traces record them as the counterparts of PyTorch's functions. Masks may be bool or
float: `torch._attention_bias` turns either into the float bias added to the scores. Dropout
is refused unless it changes nothing (p = 0, or not training); `add_bias_kv`, `add_zero_attn`
and static keys / values are refused.
"""

from __future__ import annotations

import math
from typing import Optional

from frontend.torch import functional_ops as F
from frontend.torch import functions as torch
from frontend.torch.tensor import Tensor


def scaled_dot_product_attention(
    query: Tensor,
    key: Tensor,
    value: Tensor,
    attn_mask: Optional[Tensor] = None,  # noqa: UP045  (typing spellings the scripter reads)
    dropout_p: float = 0.0,
    is_causal: bool = False,
    scale: Optional[float] = None,  # noqa: UP045
    enable_gqa: bool = False,
) -> Tensor:
    """`softmax(q @ k^T * scale + bias) @ v` over the last two dims; a bool `attn_mask` says
    which positions take part (True), a float one is added; `is_causal` masks j > i."""
    if dropout_p != 0.0:
        raise NotImplementedError("F.scaled_dot_product_attention: dropout_p must be 0")
    if enable_gqa:
        raise NotImplementedError("F.scaled_dot_product_attention: enable_gqa is not supported")
    weights = attention_weights(query, key, attn_mask, False, is_causal, scale)
    return torch.matmul(weights, value)


def attention_weights(
    query: Tensor,
    key: Tensor,
    attn_mask: Optional[Tensor],  # noqa: UP045
    masked_where_true: bool,
    is_causal: bool,
    scale: Optional[float],  # noqa: UP045
) -> Tensor:
    """`softmax(q @ k^T * scale + bias, -1)`: the attention of each query on each key."""
    if scale is None:
        scores = torch.matmul(query, key.transpose(-2, -1)) / math.sqrt(query.shape[-1])
    else:
        scores = torch.matmul(query, key.transpose(-2, -1)) * scale
    if is_causal:  # (PyTorch refuses it with an attn_mask; here both apply)
        scores = scores + _causal_bias(scores, query.shape[-2], key.shape[-2])
    if attn_mask is not None:
        scores = scores + torch._attention_bias(attn_mask, query, masked_where_true)
    return torch.softmax(scores, -1)


def multi_head_attention_forward(
    query: Tensor,
    key: Tensor,
    value: Tensor,
    embed_dim_to_check: int,
    num_heads: int,
    in_proj_weight: Optional[Tensor],  # noqa: UP045
    in_proj_bias: Optional[Tensor],  # noqa: UP045
    bias_k: Optional[Tensor],  # noqa: UP045
    bias_v: Optional[Tensor],  # noqa: UP045
    add_zero_attn: bool,
    dropout_p: float,
    out_proj_weight: Tensor,
    out_proj_bias: Optional[Tensor],  # noqa: UP045
    training: bool = True,
    key_padding_mask: Optional[Tensor] = None,  # noqa: UP045
    need_weights: bool = True,
    attn_mask: Optional[Tensor] = None,  # noqa: UP045
    use_separate_proj_weight: bool = False,
    q_proj_weight: Optional[Tensor] = None,  # noqa: UP045
    k_proj_weight: Optional[Tensor] = None,  # noqa: UP045
    v_proj_weight: Optional[Tensor] = None,  # noqa: UP045
    static_k: Optional[Tensor] = None,  # noqa: UP045
    static_v: Optional[Tensor] = None,  # noqa: UP045
    average_attn_weights: bool = True,
    is_causal: bool = False,
) -> tuple[Tensor, Optional[Tensor]]:  # noqa: UP045
    """`F.multi_head_attention_forward` on (L, N, E) or unbatched (L, E) inputs: the
    attention output and, if `need_weights`, the weights (averaged over heads or not).
    Bool masks mask where True; `is_causal` is a hint that `attn_mask` is causal (without
    an `attn_mask`, which PyTorch refuses, it masks the future)."""
    if bias_k is not None or bias_v is not None:
        raise NotImplementedError("nn.MultiheadAttention: add_bias_kv=True is not supported")
    if add_zero_attn:
        raise NotImplementedError("nn.MultiheadAttention: add_zero_attn=True is not supported")
    if static_k is not None or static_v is not None:
        raise NotImplementedError(
            "F.multi_head_attention_forward: static_k / static_v are not supported"
        )
    if training and dropout_p != 0.0:
        raise NotImplementedError(
            "nn.MultiheadAttention: dropout in training mode is not supported"
        )
    w_q, w_k, w_v, b_q, b_k, b_v = _projections(
        in_proj_weight, in_proj_bias, use_separate_proj_weight,
        q_proj_weight, k_proj_weight, v_proj_weight,
    )  # fmt: skip
    if query.ndim == 2:  # unbatched: (L, E), a batch of one
        output, weights = _batched_attention(
            query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1), num_heads,
            w_q, w_k, w_v, b_q, b_k, b_v, out_proj_weight, out_proj_bias,
            None if key_padding_mask is None else key_padding_mask.unsqueeze(0),
            attn_mask, average_attn_weights, is_causal,
        )  # fmt: skip
        if need_weights:
            return output.squeeze(1), weights.squeeze(0)
        return output.squeeze(1), None
    output, weights = _batched_attention(
        query, key, value, num_heads, w_q, w_k, w_v, b_q, b_k, b_v, out_proj_weight,
        out_proj_bias, key_padding_mask, attn_mask, average_attn_weights, is_causal,
    )  # fmt: skip
    if need_weights:
        return output, weights
    return output, None


def _projections(
    in_proj_weight: Optional[Tensor],  # noqa: UP045
    in_proj_bias: Optional[Tensor],  # noqa: UP045
    separate: bool,
    q_proj_weight: Optional[Tensor],  # noqa: UP045
    k_proj_weight: Optional[Tensor],  # noqa: UP045
    v_proj_weight: Optional[Tensor],  # noqa: UP045
) -> tuple[Tensor, Tensor, Tensor, Optional[Tensor], Optional[Tensor], Optional[Tensor]]:  # noqa: UP045
    """(w_q, w_k, w_v, b_q, b_k, b_v): the packed projection split in three, or the
    separate ones (kdim / vdim other than embed_dim)."""
    if separate:
        w_q, w_k, w_v = q_proj_weight, k_proj_weight, v_proj_weight
    else:
        w_q, w_k, w_v = in_proj_weight.chunk(3, 0)
    if in_proj_bias is None:
        return w_q, w_k, w_v, None, None, None
    b_q, b_k, b_v = in_proj_bias.chunk(3, 0)
    return w_q, w_k, w_v, b_q, b_k, b_v


def _batched_attention(
    query, key, value, num_heads: int, w_q, w_k, w_v, b_q, b_k, b_v, out_proj_weight,
    out_proj_bias, key_padding_mask, attn_mask, average_attn_weights: bool, is_causal: bool,
):  # fmt: skip
    """Attention of (L, N, E) queries on (S, N, *) keys and values, heads in parallel:
    (output (L, N, E), weights (N, L, S) averaged over heads or (N, heads, L, S))."""
    length, batch, embed = query.shape[0], query.shape[1], query.shape[2]
    head_dim = embed // num_heads
    q = _heads(F.linear(query, w_q, b_q), num_heads, head_dim)
    k = _heads(F.linear(key, w_k, b_k), num_heads, head_dim)
    v = _heads(F.linear(value, w_v, b_v), num_heads, head_dim)
    scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(head_dim)
    if attn_mask is not None:
        bias = torch._attention_bias(attn_mask, q, True)
        if attn_mask.ndim == 3:  # (N * heads, L, S)
            bias = bias.reshape(batch, num_heads, length, key.shape[0])
        scores = scores + bias
    elif is_causal:
        scores = scores + _causal_bias(scores, length, key.shape[0])
    if key_padding_mask is not None:  # (N, S)
        padding = torch._attention_bias(key_padding_mask, q, True)
        scores = scores + padding.reshape(batch, 1, 1, key.shape[0])
    weights = torch.softmax(scores, -1)
    heads = torch.matmul(weights, v)  # (N, heads, L, head_dim)
    merged = heads.permute(2, 0, 1, 3).reshape(length, batch, embed)
    output = F.linear(merged, out_proj_weight, out_proj_bias)
    if average_attn_weights:
        return output, weights.mean(1)
    return output, weights


def _heads(x: Tensor, num_heads: int, head_dim: int) -> Tensor:
    """(T, N, heads * head_dim) -> (N, heads, T, head_dim)."""
    return x.reshape(x.shape[0], x.shape[1], num_heads, head_dim).permute(1, 2, 0, 3)


def _causal_bias(scores: Tensor, length: int, source_length: int) -> Tensor:
    """(L, S): -inf where a query would attend to a later key (j > i), else 0."""
    return scores.new_full([length, source_length], float("-inf")).triu(1)
