"""ATen and prims operators tsjit has under another name, or as a composition of its ops.

`torch.ops.aten._unsafe_view` is `torch.aten.view`; `torch.ops.aten.convolution` is one of the
convolutions by its rank and `transposed`; `torch.ops.prims.convert_element_type` is `to`.
`OP_ALIASES` names the registry ops (the same arguments, names and defaults); `COMPOSITIONS`
holds Python
functions written with `frontend.torch` ops, with the ATen schema's parameter names: a script
runs them as a callee (`frontend/ir/resolve.py` `frontend_twin`), a trace records the ops they
call. Keys are `namespace::name` (every overload) or `namespace::name.overload`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import frontend.torch as _torch
from dialects.torch.op_base import TorchOp
from dialects.torch.registry import BY_NAME
from frontend.ir.group_norm import native_group_norm
from frontend.torch.tensor import Tensor

_ELEMENTWISE_PRIMS = {
    "add": "add.Tensor", "sub": "sub.Tensor", "mul": "mul.Tensor", "neg": "neg", "abs": "abs",
    "exp": "exp", "log": "log", "sin": "sin", "cos": "cos", "tanh": "tanh", "sqrt": "sqrt",
    "rsqrt": "rsqrt", "floor": "floor", "ceil": "ceil", "maximum": "maximum",
    "minimum": "minimum", "eq": "eq.Tensor", "ne": "ne.Tensor", "lt": "lt.Tensor",
    "le": "le.Tensor", "gt": "gt.Tensor", "ge": "ge.Tensor",
}  # fmt: skip
"""prims elementwise ops and the ATen overload computing the same for their (same-shape,
same-dtype) operands; `prims.div` truncates integers and is not here."""

OP_ALIASES: dict[str, tuple[str, ...]] = {
    "aten::_unsafe_view": ("torch.aten.view",),
    "aten::index.Tensor_hacked_twin": ("torch.aten.index.Tensor",),
    "aten::index_put.hacked_twin": ("torch.aten.index_put",),
    "aten::_adaptive_avg_pool2d": ("torch.aten.adaptive_avg_pool2d",),
    "aten::upsample_nearest2d.vec": ("torch.aten._resize_nearest",),
    "aten::upsample_bilinear2d.vec": ("torch.aten._resize_linear",),
    "aten::sym_size.int": ("torch.aten.size.int",),
    "aten::sym_numel": ("torch.aten.numel",),
    "aten::sgn": ("torch.aten.sign",),  # the same for real tensors (complex ones are refused)
    "aten::lift_fresh_copy": ("torch.aten.clone",),
    **{f"prims::{name}": (f"torch.aten.{op}",) for name, op in _ELEMENTWISE_PRIMS.items()},
}


# ---- compositions ----


def numpy_T(self: Tensor) -> Tensor:  # noqa: N802  (ATen's name)
    """`aten::numpy_T`: the dims reversed (`x.T`)."""
    return self.T


def convolution(
    input: Tensor, weight: Tensor, bias: Tensor | None, stride: list[int], padding: list[int],
    dilation: list[int], transposed: bool, output_padding: list[int], groups: int,
) -> Tensor:  # fmt: skip
    """`aten::convolution`: `conv{1,2}d`, or `conv_transpose{1,2}d` when `transposed`, by the
    number of spatial dims (`len(stride)`)."""
    if len(stride) == 1:
        if transposed:
            return _torch.conv_transpose1d(
                input, weight, bias, stride, padding, output_padding, groups, dilation
            )
        return _torch.conv1d(input, weight, bias, stride, padding, dilation, groups)
    if len(stride) == 2:
        if transposed:
            return _torch.conv_transpose2d(
                input, weight, bias, stride, padding, output_padding, groups, dilation
            )
        return _torch.conv2d(input, weight, bias, stride, padding, dilation, groups)
    raise NotImplementedError("aten::convolution: only 1-d and 2-d convolutions are supported")


def _convolution(
    input: Tensor, weight: Tensor, bias: Tensor | None, stride: list[int], padding: list[int],
    dilation: list[int], transposed: bool, output_padding: list[int], groups: int,
    benchmark: bool, deterministic: bool, cudnn_enabled: bool, allow_tf32: bool = True,
) -> Tensor:  # fmt: skip
    """`aten::_convolution` (also `.deprecated`, without `allow_tf32`): `aten::convolution`
    (the backend flags change nothing here)."""
    return convolution(
        input, weight, bias, stride, padding, dilation, transposed, output_padding, groups
    )


def native_batch_norm(
    input: Tensor, weight: Tensor | None, bias: Tensor | None, running_mean: Tensor | None,
    running_var: Tensor | None, training: bool, momentum: float, eps: float,
) -> tuple[Tensor, Tensor, Tensor]:  # fmt: skip
    """`aten::native_batch_norm`: (the normalized input, the batch mean, 1 / its std) over
    every dim but the channels (dim 1) when `training` (without running statistics: PyTorch
    would update those in place); in evaluation the statistics are the running ones and the
    last two results empty, as PyTorch's CPU kernel gives them."""
    if not training:
        out = _torch.batch_norm(
            input, weight, bias, running_mean, running_var, False, momentum, eps, False
        )
        empty = input.new_zeros([0])
        return out, empty, empty
    if running_mean is not None or running_var is not None:
        raise NotImplementedError(
            "native_batch_norm(training=True) with running statistics updates them in place, "
            "which tsjit does not do: evaluate the module (model.eval())"
        )
    by_channel = input.transpose(0, 1)  # [C, N, ...]
    channels = by_channel.flatten(1)
    mean = channels.mean([1])
    invstd = (channels.var([1], correction=0) + eps).rsqrt()
    out = (channels - mean.unsqueeze(1)) * invstd.unsqueeze(1)
    if weight is not None:
        out = out * weight.unsqueeze(1)
    if bias is not None:
        out = out + bias.unsqueeze(1)
    out = out.view_as(by_channel).transpose(0, 1)
    return out, mean, invstd


def native_batch_norm_no_training(
    input: Tensor, weight: Tensor | None, bias: Tensor | None, running_mean: Tensor,
    running_var: Tensor, momentum: float, eps: float,
) -> tuple[Tensor, Tensor, Tensor]:  # fmt: skip
    """`aten::_native_batch_norm_legit_no_training` (what `torch.export` decomposes
    `batch_norm` in evaluation into)."""
    return native_batch_norm(input, weight, bias, running_mean, running_var, False, momentum, eps)


def nll_loss_forward(
    self: Tensor, target: Tensor, weight: Tensor | None, reduction: int, ignore_index: int
) -> tuple[Tensor, Tensor]:  # fmt: skip
    """`aten::nll_loss_forward`: (the loss, the summed weight of the counted targets) of
    log-probabilities `[N, C]` (or `[C]`) and class indices; `reduction` 0 none, 1 mean, 2 sum."""
    kept = target != ignore_index
    safe = target * kept
    picked = self.gather(-1, safe.unsqueeze(-1)).squeeze(-1)
    if weight is None:
        weights = kept.to(self.dtype)
    else:
        weights = _torch.embedding(weight.unsqueeze(1), safe).squeeze(-1) * kept
    losses = -picked * weights
    total = weights.sum()
    if reduction == 0:
        return losses, _torch.zeros([], dtype=self.dtype)
    if reduction == 1:
        return losses.sum() / total, total
    return losses.sum(), total


def var_mean(
    self: Tensor, dim=None, unbiased: bool = True, keepdim: bool = False,
    correction: float | None = None,
) -> tuple[Tensor, Tensor]:  # fmt: skip
    """`aten::var_mean` (every overload): (the variance, the mean) over `dim` (every dim when
    None); `var_mean(x, False)` is the default overload's `unbiased`; `correction=None` is 1."""
    if isinstance(dim, int) and not isinstance(dim, bool):
        raise NotImplementedError(
            "aten::var_mean with an int `dim`: PyTorch reads a positional int as the default "
            "overload's `unbiased`; pass the dims as a list"
        )
    if isinstance(dim, bool):  # the default overload: (self, unbiased)
        if dim:
            return self.var(None, correction=1), self.mean()
        return self.var(None, correction=0), self.mean()
    if correction is None:
        if unbiased:
            return self.var(dim, correction=1, keepdim=keepdim), self.mean(dim, keepdim)
        return self.var(dim, correction=0, keepdim=keepdim), self.mean(dim, keepdim)
    return self.var(dim, correction=correction, keepdim=keepdim), self.mean(dim, keepdim)


def linalg_cross(self: Tensor, other: Tensor, dim: int = -1) -> Tensor:
    """`aten::linalg_cross`: `cross` along `dim` (the last dim by default, unlike `cross`)."""
    return _torch.cross(self, other, dim)


def to_other(
    self: Tensor, other: Tensor, non_blocking: bool = False, copy: bool = False,
    memory_format=None,
) -> Tensor:  # fmt: skip
    """`aten::to.other`: `self` in `other`'s dtype."""
    return self.type_as(other)


def to_dtype_layout(
    self: Tensor, dtype=None, layout=None, device=None, pin_memory=None,
    non_blocking: bool = False, copy: bool = False, memory_format=None,
) -> Tensor:  # fmt: skip
    """`aten::to.dtype_layout` (`x.to(dtype=..., device="cpu")`): `self` in `dtype`."""
    if dtype is None:
        return self
    return self.to(dtype)


def to_device(
    self: Tensor, device, dtype, non_blocking: bool = False, copy: bool = False,
    memory_format=None,
) -> Tensor:  # fmt: skip
    """`aten::to.device` (`x.to("cpu", torch.float64)`): `self` in `dtype`."""
    return self.to(dtype)


def rms_norm(input: Tensor, normalized_shape: list[int], weight=None, eps=None) -> Tensor:
    """`aten::rms_norm`: `input / sqrt(mean(input^2) + eps)` over the last
    `len(normalized_shape)` dims, times `weight`; `eps=None` is the dtype's machine epsilon."""
    dims: list[int] = []
    for i in range(len(normalized_shape)):
        dims.append(-1 - i)
    squares = (input * input).mean(dims, True)
    if eps is None:  # torch.finfo(input.dtype).eps: float64's if 1 + it differs from 1
        one = input.new_ones([])
        tiny = input.new_full([], 2.220446049250313e-16)
        epsilon = _torch.where(one + tiny != one, tiny, input.new_full([], 1.1920928955078125e-07))
        out = input * (squares + epsilon).rsqrt()
    else:
        out = input * (squares + eps).rsqrt()
    if weight is None:
        return out
    return out * weight


def scaled_dot_product_attention(
    query: Tensor, key: Tensor, value: Tensor, attn_mask=None, dropout_p: float = 0.0,
    is_causal: bool = False, scale=None, enable_gqa: bool = False,
) -> Tensor:  # fmt: skip
    """`aten::scaled_dot_product_attention`: `F.scaled_dot_product_attention`."""
    return _torch.nn.functional.scaled_dot_product_attention(
        query, key, value, attn_mask, dropout_p, is_causal, scale, enable_gqa
    )


def _softmax(self: Tensor, dim: int, half_to_float: bool) -> Tensor:
    """`aten::_softmax` (what `torch.export` decomposes `softmax` into)."""
    return self.softmax(dim)


def _log_softmax(self: Tensor, dim: int, half_to_float: bool) -> Tensor:
    """`aten::_log_softmax`."""
    return self.log_softmax(dim)


def _to_copy(
    self: Tensor, dtype=None, layout=None, device=None, pin_memory=None,
    non_blocking: bool = False, memory_format=None,
) -> Tensor:  # fmt: skip
    """`aten::_to_copy`: a copy of `self`, in `dtype` if given."""
    if dtype is None:
        return self.clone()
    return self.to(dtype)


def alias(self: Tensor) -> Tensor:
    """`aten::alias`: the same values."""
    return self.view_as(self)


def copy(self: Tensor, src: Tensor, non_blocking: bool = False) -> Tensor:
    """`aten::copy`: `src` broadcast to `self`'s shape, in `self`'s dtype."""
    return src.type_as(self).expand_as(self).clone()


def split_with_sizes(self: Tensor, split_sizes: list[int], dim: int = 0) -> list[Tensor]:
    """`aten::split_with_sizes`: `split` into pieces of these sizes."""
    return self.split(split_sizes, dim)


def _last_dims(count: int) -> list[int]:
    """`[-1, -2, ...]`: the last `count` dims."""
    dims: list[int] = []
    for i in range(count):
        dims.append(-1 - i)
    return dims


def native_layer_norm(
    input: Tensor, normalized_shape: list[int], weight: Tensor | None, bias: Tensor | None,
    eps: float,
) -> tuple[Tensor, Tensor, Tensor]:  # fmt: skip
    """`aten::native_layer_norm`: (the normalized input, the mean, 1 / the std), the
    statistics over the normalized dims kept as size 1."""
    dims = _last_dims(len(normalized_shape))
    out = _torch.layer_norm(input, normalized_shape, weight, bias, eps)
    mean = input.mean(dims, True)
    rstd = (input.var(dims, correction=0, keepdim=True) + eps).rsqrt()
    return out, mean, rstd


def native_batch_norm_legit(
    input: Tensor, weight: Tensor | None, bias: Tensor | None, running_mean: Tensor,
    running_var: Tensor, training: bool, momentum: float, eps: float,
) -> tuple[Tensor, Tensor, Tensor]:  # fmt: skip
    """`aten::_native_batch_norm_legit`: `aten::native_batch_norm`."""
    return native_batch_norm(
        input, weight, bias, running_mean, running_var, training, momentum, eps
    )


def native_batch_norm_no_stats(
    input: Tensor, weight: Tensor | None, bias: Tensor | None, training: bool,
    momentum: float, eps: float,
) -> tuple[Tensor, Tensor, Tensor]:  # fmt: skip
    """`aten::_native_batch_norm_legit.no_stats`: batch statistics, no running ones."""
    return native_batch_norm(input, weight, bias, None, None, training, momentum, eps)


def reflection_pad(self: Tensor, padding: list[int]) -> Tensor:
    """`aten::reflection_pad{1,2,3}d`: `F.pad(..., mode="reflect")`."""
    return _torch.nn.functional.pad(self, padding, "reflect")


def replication_pad(self: Tensor, padding: list[int]) -> Tensor:
    """`aten::replication_pad{1,2,3}d`: `F.pad(..., mode="replicate")`."""
    return _torch.nn.functional.pad(self, padding, "replicate")


def num_to_tensor(a: float) -> Tensor:
    """`prim::NumToTensor`: a 0-d tensor of a number, float64 for a float, int64 for an int
    and bool for a bool (not the default dtype: `torch.scalar_tensor` differs here)."""
    if isinstance(a, bool):
        return _torch.full([], a, dtype=_torch.bool)
    if isinstance(a, int):
        return _torch.full([], a, dtype=_torch.int64)
    return _torch.full([], a, dtype=_torch.float64)


def scalar_tensor(s: float, dtype=None, layout=None, device=None, pin_memory=None) -> Tensor:
    """`aten::scalar_tensor` (= `torch.scalar_tensor`): a 0-d tensor of `s`, of `dtype`
    (default: the default float dtype, also for an int `s`)."""
    if dtype is None:
        return _torch.full([], float(s))
    return _torch.full([], s, dtype=dtype)


def isclose(
    self: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08,
    equal_nan: bool = False,
) -> Tensor:  # fmt: skip
    """`aten::isclose` (= `torch.isclose`): equal, or both finite apart by at most
    `atol + rtol * |other|`; NaNs are close to each other only with `equal_nan`."""
    difference = (self - other).abs()
    within = _torch.logical_and(difference.isfinite(), difference <= atol + rtol * other.abs())
    close = _torch.logical_or(self == other, within)
    if equal_nan:
        return _torch.logical_or(close, _torch.logical_and(self.isnan(), other.isnan()))
    return close


def prims_where(pred: Tensor, a: Tensor, b: Tensor) -> Tensor:
    """`prims::where`: `a` where `pred`, else `b`."""
    return _torch.where(pred, a, b)


def convert_element_type(a: Tensor, dtype) -> Tensor:
    """`prims::convert_element_type`."""
    return a.to(dtype)


def view_of(a: Tensor) -> Tensor:
    """`prims::view_of`: the same values."""
    return a.view_as(a)


def prims_sum(inp: Tensor, dims: list[int] | None, output_dtype=None) -> Tensor:
    """`prims::sum` over `dims` (every dim when None)."""
    if dims is None:
        return inp.sum(dtype=output_dtype)
    return inp.sum(dims, dtype=output_dtype)


def prims_prod(inp: Tensor, dims: list[int] | None, output_dtype=None) -> Tensor:
    """`prims::prod` over `dims` (every dim when None): one `prod` per dim, each keeping its
    dim so that the others keep their index, then the kept size-1 dims summed away."""
    if dims is None:
        return inp.prod(dtype=output_dtype)
    result = inp
    for d in dims:
        result = result.prod(d, keepdim=True, dtype=output_dtype)
    return result.sum(dims)


def aminmax(self: Tensor, dim: int | None = None, keepdim: bool = False) -> tuple[Tensor, Tensor]:
    """`aten::aminmax` (`torch.aminmax`): (`amin`, `amax`) over `dim` (every dim when None)."""
    dims: list[int] = [] if dim is None else [dim]
    return self.amin(dims, keepdim), self.amax(dims, keepdim)


def prims_squeeze(a: Tensor, dimensions: list[int]) -> Tensor:
    """`prims::squeeze`: the size-1 dims `dimensions` removed, the highest first so that the
    others keep their index."""
    order = [d for d in dimensions]
    order.sort(reverse=True)
    for d in order:
        a = a.squeeze(d)
    return a


def contains(self: list[int], el: int) -> bool:
    """`aten::__contains__` of a list (or a dict's keys): `el in self`."""
    return el in self


def collapse(a: Tensor, start: int, end: int) -> Tensor:
    """`prims::collapse`: dims `start` to `end` (inclusive) merged into one."""
    return a.flatten(start, end)


def split_dim(a: Tensor, dim: int, outer_length: int) -> Tensor:
    """`prims::split_dim`: dim `dim` split into (`outer_length`, the rest)."""
    return a.unflatten(dim, [outer_length, -1])


def iota(length: int, start: int, step: int, dtype, device=None, requires_grad: bool = False):
    """`prims::iota`: `start, start + step, ...` (`length` values)."""
    return _torch.arange(start, start + length * step, step, dtype=dtype)


COMPOSITIONS: dict[str, Callable[..., Any]] = {
    "aten::numpy_T": numpy_T,
    "aten::convolution": convolution,
    "aten::_convolution": _convolution,
    "aten::native_batch_norm": native_batch_norm,
    "aten::_native_batch_norm_legit_no_training": native_batch_norm_no_training,
    "aten::nll_loss_forward": nll_loss_forward,
    "aten::var_mean": var_mean,
    "aten::scalar_tensor": scalar_tensor,
    "aten::isclose": isclose,
    "aten::linalg_cross": linalg_cross,
    "aten::_softmax": _softmax,
    "aten::_log_softmax": _log_softmax,
    "aten::_to_copy": _to_copy,
    "aten::alias": alias,
    "aten::lift_fresh": alias,
    "aten::__contains__": contains,
    "aten::aminmax": aminmax,
    "aten::native_group_norm": native_group_norm,
    "aten::copy": copy,
    "aten::split_with_sizes": split_with_sizes,
    "aten::native_layer_norm": native_layer_norm,
    "aten::_native_batch_norm_legit.default": native_batch_norm_legit,
    "aten::_native_batch_norm_legit.no_stats": native_batch_norm_no_stats,
    **{f"aten::reflection_pad{n}d": reflection_pad for n in (1, 2, 3)},
    **{f"aten::replication_pad{n}d": replication_pad for n in (1, 2, 3)},
    "aten::to.other": to_other,
    "aten::to.dtype_layout": to_dtype_layout,
    "aten::to.device": to_device,
    "aten::rms_norm": rms_norm,
    "aten::scaled_dot_product_attention": scaled_dot_product_attention,
    "prim::NumToTensor": num_to_tensor,
    "prims::convert_element_type": convert_element_type,
    "prims::view_of": view_of,
    "prims::where": prims_where,
    "prims::sum": prims_sum,
    "prims::prod": prims_prod,
    "prims::squeeze": prims_squeeze,
    "prims::collapse": collapse,
    "prims::split_dim": split_dim,
    "prims::iota": iota,
}


def _entry(table: dict[str, Any], namespace: str, name: str, overload: str) -> Any:
    specific = table.get(f"{namespace}::{name}.{overload or 'default'}")
    return specific if specific is not None else table.get(f"{namespace}::{name}")


def alias_ops(namespace: str, name: str, overload: str) -> tuple[type[TorchOp], ...]:
    """The registry ops an ATen overload tsjit lacks is another name of, else ()."""
    names = _entry(OP_ALIASES, namespace, name, overload) or ()
    return tuple(BY_NAME[n] for n in names if n in BY_NAME)


def composition(namespace: str, name: str, overload: str) -> Callable[..., Any] | None:
    """The Python function computing an ATen overload from tsjit's ops, else None."""
    return _entry(COMPOSITIONS, namespace, name, overload)
