"""`torch.ops.aten.*`, `torch.ops.prims.*` and `torch.ops.prim.*` calls in scripts, traces and
`torch.export` programs, in the style of torch-mlir's e2e suite: one small module per op or
overload, scripted and traced, compared with PyTorch (values, shape and dtype)."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest
import torch

import frontend
from frontend.errors import ScriptError
from frontend.ir.aten_aliases import COMPOSITIONS, OP_ALIASES
from frontend.trace.errors import TraceError

RTOL, ATOL = 1e-4, 1e-5
X = torch.randn(3, 4, generator=torch.Generator().manual_seed(0))
Y = torch.randn(3, 4, generator=torch.Generator().manual_seed(1))


def module(forward, name: str):  # type: ignore[no-untyped-def]
    """An nn.Module class whose forward is `forward` (one module per op, as the suite has)."""
    return type(name, (torch.nn.Module,), {"forward": forward})


def compiled(mod: torch.nn.Module, inputs: tuple, how: str):  # type: ignore[no-untyped-def]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if how == "script":
            return frontend.script(mod)
        return frontend.trace(mod, tuple(i.clone() for i in inputs), check_trace=False)


def assert_matches(got, expected) -> None:  # type: ignore[no-untyped-def]
    got = got if isinstance(got, tuple | list) else (got,)
    expected = expected if isinstance(expected, tuple | list) else (expected,)
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        g = g if isinstance(g, torch.Tensor) else torch.from_numpy(np.array(g))
        assert g.shape == e.shape, (g.shape, e.shape)
        assert g.dtype == e.dtype, (g.dtype, e.dtype)
        torch.testing.assert_close(g, e, rtol=RTOL, atol=ATOL, equal_nan=True)


def run_both(mod: torch.nn.Module, inputs: tuple, how: str) -> None:
    expected = mod(*[i.clone() for i in inputs])
    assert_matches(compiled(mod, inputs, how)(*[i.clone() for i in inputs]), expected)


# ---- overloads, packets, `.default` ----

OVERLOADS = {
    "AddTensorAlpha": lambda s, x, y: torch.ops.aten.add.Tensor(x, y, alpha=2),
    "AddPacketScalar": lambda s, x, y: torch.ops.aten.add(x, 3) * y,  # add.Tensor: add.Scalar
    "ReluDefault": lambda s, x, y: torch.ops.aten.relu.default(x - y),
    "VarPacketPositionalUnbiased": lambda s, x, y: torch.ops.aten.var(x, 0),  # var.default
    "VarCorrection": lambda s, x, y: torch.ops.aten.var(x, [1], correction=0, keepdim=True),
    "MaxPacketOther": lambda s, x, y: torch.ops.aten.max(x, y),
    "MaxPacketDim": lambda s, x, y: torch.ops.aten.max(x + y, 1),
    "SumDimIntList": lambda s, x, y: torch.ops.aten.sum.dim_IntList(x, [0]) + y[0],
    "MeanDim": lambda s, x, y: torch.ops.aten.mean(x, [1], True) - y,
    "WherePacket": lambda s, x, y: torch.ops.aten.where(x > y, x, 0.5),
    "UnsafeView": lambda s, x, y: torch.ops.aten._unsafe_view(x + y, [4, 3]),
    "NumpyT": lambda s, x, y: torch.ops.aten.numpy_T(x) * 2,
    "VarMeanCorrection": lambda s, x, y: torch.ops.aten.var_mean(x, [1], correction=0),
    "Isclose": lambda s, x, y: torch.isclose(x, x + 1e-6 * y),
    "IscloseTolerances": lambda s, x, y: torch.ops.aten.isclose(x, y, 0.5, 1.0),
    "ScalarTensorTimes": lambda s, x, y: torch.scalar_tensor(2, dtype=torch.int64) * x,
    "NumToTensorFloat": lambda s, x, y: torch.ops.prim.NumToTensor(1.5) + x,
    "ZerosLikeDefaultKeywords": lambda s, x, y: torch.ops.aten.zeros_like(
        x, dtype=torch.float64, layout=torch.strided, device="cpu", pin_memory=False,
        memory_format=torch.preserve_format,
    ) + y,
    "ToOverloads": lambda s, x, y: (
        torch.ops.aten.to.other(x, y.double()),
        torch.ops.aten.to.dtype_layout(x, dtype=torch.float64, device="cpu") + 1,
        torch.ops.aten.to.device(x, "cpu", torch.int64),
    ),
    "RmsNorm": lambda s, x, y: torch.ops.aten.rms_norm(x, [4], y[0]),
    "RmsNormDefaultEps": lambda s, x, y: torch.ops.aten.rms_norm(x.double(), [3, 4]),
    "ScaledDotProductAttention": lambda s, x, y: torch.ops.aten.scaled_dot_product_attention(
        x.unsqueeze(0), y.unsqueeze(0), x.unsqueeze(0), is_causal=True
    ),
    "LinalgCross": lambda s, x, y: torch.ops.aten.linalg_cross(x[:, :3], y[:, 1:]),
    "IndexHackedTwin": lambda s, x, y: torch.ops.aten.index.Tensor_hacked_twin(
        x, [torch.tensor([2, 0])]
    ),
    "SoftmaxLogSoftmax": lambda s, x, y: torch.ops.aten._softmax(x, 1, False)
    + torch.ops.aten._log_softmax(y, 0, False),
    "ToCopyAliasCopy": lambda s, x, y: torch.ops.aten._to_copy(x, dtype=torch.float64)
    + torch.ops.aten.alias(y) + torch.ops.aten.copy(x, y[0].double()),
    "SplitWithSizes": lambda s, x, y: torch.ops.aten.split_with_sizes(x + y, [1, 3], 1)[1],
    "NativeLayerNorm": lambda s, x, y: torch.ops.aten.native_layer_norm(x, [4], y[0], y[1], 1e-5),
    "BatchNormNoStats": lambda s, x, y: torch.ops.aten._native_batch_norm_legit.no_stats(
        x.unsqueeze(0), y[0, :3], None, True, 0.1, 1e-5
    ),
    "ReflectionReplicationPad": lambda s, x, y: torch.ops.aten.reflection_pad1d(x, [1, 2])
    + torch.ops.aten.replication_pad2d(y.unsqueeze(0), [1, 2, 0, 0]),
    "AdaptiveAvgPool": lambda s, x, y: torch.ops.aten._adaptive_avg_pool2d(x.unsqueeze(0), [1, 2]),
    "UpsampleNearestBinding": lambda s, x, y: torch._C._nn.upsample_nearest2d(
        x.unsqueeze(0).unsqueeze(0), None, [2.0, 2.0]
    ),
    "UpsampleBilinearVec": lambda s, x, y: torch.ops.aten.upsample_bilinear2d.vec(
        x.unsqueeze(0).unsqueeze(0), [5, 6], False, None
    ),
    "SymSizes": lambda s, x, y: x * torch.ops.aten.sym_size.int(x, 1) + torch.ops.aten.sym_numel(y),
    "PrimsElementwise": lambda s, x, y: torch.ops.prims.mul(torch.ops.prims.add(x, y), x),
    "PrimsSum": lambda s, x, y: torch.ops.prims.sum(x, [1]) + y[:, 0],
    "PrimsConvert": lambda s, x, y: torch.ops.prims.convert_element_type(x, torch.float64),
    "PrimsCollapse": lambda s, x, y: torch.ops.prims.collapse(x * y, 0, 1),
    "PrimsSplitDim": lambda s, x, y: torch.ops.prims.split_dim(x - y, 1, 2),
    "PrimsProdDims": lambda s, x, y: torch.ops.prims.prod(x, [1, 0]) + torch.ops.prims.prod(y, [1]),
    "PrimsSqueeze": lambda s, x, y: torch.ops.prims.squeeze(x.reshape(1, 3, 1, 4, 1), [0, 4, 2])
    + torch.ops.prims.squeeze(y, []),
    "Aminmax": lambda s, x, y: (
        torch.ops.aten.aminmax(x)[1],
        torch.aminmax(y, dim=1, keepdim=True)[0],
        torch.ops.aten.aminmax((x * 9).to(torch.int32), dim=-1)[1],
    ),
    "PrimsProdInt": lambda s, x, y: torch.ops.prims.prod((x * 3).to(torch.int32), [1]),
    "Sgn": lambda s, x, y: torch.ops.aten.sgn(x - y),
    "FloatOfANumber": lambda s, x, y: x * torch.ops.aten.Float(y.sum().item())
    + torch.ops.aten.Float(x.shape[0]),
    "LiftFresh": lambda s, x, y: torch.ops.aten.lift_fresh_copy(x) + torch.ops.aten.lift_fresh(y),
    "NativeGroupNorm": lambda s, x, y: torch.ops.aten.native_group_norm(
        x.reshape(1, 4, 3), y[0], y[1], 1, 4, 3, 2, 1e-5
    ),
    "ContainsIntList": lambda s, x, y: (x if torch.ops.aten.__contains__([1, 2, 3], 3) else y)
    - (x if torch.ops.aten.__contains__([1, 2, 3], 4) else y),
}  # fmt: skip


@pytest.mark.parametrize("how", ["script", "trace"])
@pytest.mark.parametrize("name", list(OVERLOADS))
def test_overload(name: str, how: str) -> None:
    run_both(module(OVERLOADS[name], name)(), (X, Y), how)


class ConvolutionBatchNorm(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.weight = torch.nn.Parameter(torch.randn(3, 2, 3) * 0.3)
        self.bias = torch.nn.Parameter(torch.randn(3))
        self.register_buffer("mean", torch.randn(3) * 0.1)
        self.register_buffer("var", torch.rand(3) + 0.5)

    def forward(self, x):  # type: ignore[no-untyped-def]
        y = torch.ops.aten.convolution(x, self.weight, self.bias, [1], [1], [1], False, [0], 1)
        z = torch.ops.aten._convolution(x, self.weight, None, [2], [0], [1], False, [0], 1,
                                        False, False, True, True)  # fmt: skip
        out, _, _ = torch.ops.aten.native_batch_norm(
            y, None, None, self.mean, self.var, False, 0.1, 1e-5
        )
        return out, z


class NllLossForward(torch.nn.Module):
    def forward(self, x, target):  # type: ignore[no-untyped-def]
        return torch.ops.aten.nll_loss_forward(x.log_softmax(1), target, None, 1, 2)


@pytest.mark.parametrize("how", ["script", "trace"])
def test_convolution_and_batch_norm(how: str) -> None:
    run_both(ConvolutionBatchNorm(), (torch.randn(1, 2, 7),), how)


@pytest.mark.parametrize("how", ["script", "trace"])
def test_nll_loss_forward(how: str) -> None:
    run_both(NllLossForward(), (torch.randn(4, 3), torch.tensor([0, 2, 1, 2])), how)


def test_every_alias_names_a_registry_op_and_every_composition_traces() -> None:
    """Each OP_ALIASES entry resolves to registry ops; each composition is reachable."""
    from dialects.torch.registry import BY_NAME

    for names in OP_ALIASES.values():
        assert names and all(n in BY_NAME for n in names), names
    for key in COMPOSITIONS:
        namespace, _, name = key.partition("::")
        assert hasattr(getattr(torch.ops, namespace), name.split(".")[0]), key


@pytest.mark.parametrize("key", [k for k in OP_ALIASES if k.startswith("prims::")])
def test_prims_alias_records_its_aten_op(key: str) -> None:
    """`torch.ops.prims.<op>(x, y)` records the ATen op OP_ALIASES names, with PyTorch's
    values (the ops' numerics are the registry's own tests)."""
    op = getattr(torch.ops.prims, key.split("::")[1])
    arity = len(op.default._schema.arguments)
    inputs = (X.abs() + 0.5, Y.abs() + 0.5)[:arity]
    traced = compiled(module(lambda s, *a: op(*a), "PrimsOp")(), inputs, "trace")
    recorded = {o.name for o in traced.module.walk()}
    assert OP_ALIASES[key][0] in recorded
    observed = list(traced.trace_recorder.observed.values())[-1]
    np.testing.assert_allclose(observed, op(*inputs).numpy(), rtol=RTOL, atol=ATOL)


# ---- 0-d tensors ----


class ScalarAttribute(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.x = torch.tensor(2, dtype=torch.int32)

    def forward(self):  # type: ignore[no-untyped-def]
        return torch.add(self.x, 3)


ZERO_D = {
    "NumToTensorFloat": module(lambda s: torch.ops.prim.NumToTensor(1.0), "NumToTensorFloat"),
    "NumToTensorInt": module(lambda s: torch.ops.prim.NumToTensor(7), "NumToTensorInt"),
    "ScalarTensorInt64": module(lambda s: torch.scalar_tensor(1, dtype=torch.int64), "S64"),
    "ScalarTensorDefault": module(lambda s: torch.scalar_tensor(3), "ScalarTensorDefault"),
    "ScalarAttribute": ScalarAttribute,
}


@pytest.mark.parametrize("how", ["script", "trace"])
@pytest.mark.parametrize("name", list(ZERO_D))
def test_zero_dim_results_keep_their_shape_and_dtype(name: str, how: str) -> None:
    run_both(ZERO_D[name](), (), how)


# ---- memory formats, is_floating_point ----

MEMORY_FORMATS = {
    "CloneChannelsLast": lambda s, x: x.clone(memory_format=torch.channels_last) + 1,
    "ContiguousChannelsLast": lambda s, x: x.contiguous(memory_format=torch.channels_last) * 2,
    "ToDtypeChannelsLast": lambda s, x: x.to(torch.float64, memory_format=torch.channels_last),
}


@pytest.mark.parametrize("how", ["script", "trace"])
@pytest.mark.parametrize("name", list(MEMORY_FORMATS))
def test_memory_format_changes_no_value(name: str, how: str) -> None:
    run_both(module(MEMORY_FORMATS[name], name)(), (torch.randn(1, 2, 3, 3),), how)


def test_is_floating_point_traces() -> None:
    mod = module(lambda s, x: x + 1 if x.is_floating_point() else x - 1, "IsFloatingPoint")()
    run_both(mod, (X,), "trace")


# ---- in-place and out= (traces, torch.export) ----


def add_mixed_precision(a, b):  # type: ignore[no-untyped-def]
    a += b  # float32 += float64: float32
    return a


def aten_in_place(x, y):  # type: ignore[no-untyped-def]
    z = x.clone()
    torch.ops.aten.add_.Tensor(z, y.double())  # stays float32
    torch.ops.aten.mul_(z, 2)
    return z


def out_arguments(x, y):  # type: ignore[no-untyped-def]
    total = torch.empty(0, dtype=torch.float64)  # resized, and keeps its dtype
    torch.add(x, y, out=total)
    product = torch.zeros(3, 4)
    torch.ops.aten.mul.out(x, y, out=product)
    return total, product + 1


@pytest.mark.parametrize("program", [add_mixed_precision, aten_in_place, out_arguments])
def test_in_place_and_out_write_the_destination_in_its_dtype(program) -> None:  # type: ignore[no-untyped-def]
    run_both(module(lambda s, *a: program(*a), program.__name__)(), (X, Y.double()), "trace")


def test_in_place_keeps_the_dtype_eagerly() -> None:
    a = frontend.torch.ones(2, dtype=frontend.torch.float32)
    a += frontend.torch.ones(2, dtype=frontend.torch.float64)
    assert a.dtype == frontend.torch.float32


def test_script_in_place_keeps_the_dtype() -> None:
    run_both(module(lambda s, a, b: add_mixed_precision(a, b), "AddMix")(), (X, Y.double()),
             "script")  # fmt: skip


class ExportedInPlace(torch.nn.Module):
    def forward(self, x):  # type: ignore[no-untyped-def]
        y = x.clone()
        y.add_(1.0)
        return y.T


@pytest.mark.parametrize("decompose", [False, True])
def test_from_torch_export_in_place_and_compositions(decompose: bool) -> None:
    for mod, x in [(ExportedInPlace(), X), (ConvolutionBatchNorm(), torch.randn(1, 2, 7))]:
        with warnings.catch_warnings():  # PyTorch's own deprecations inside export
            warnings.simplefilter("ignore")
            program = torch.export.export(mod, (x,))
            if decompose:
                program = program.run_decompositions()
        assert_matches(frontend.from_torch_export(program)(x), mod(x))


# ---- refusals name the op and the overload ----


def test_script_refuses_a_missing_op_naming_it() -> None:
    mod = module(lambda s, x: torch.ops.aten.special_zeta.default(x, x), "Zeta")()
    with pytest.raises(ScriptError, match=re.escape("torch.ops.aten.special_zeta.default")):
        frontend.script(mod)


def test_script_refuses_in_place_aten_calls_naming_them() -> None:
    mod = module(lambda s, x: torch.ops.aten.add_.Tensor(x.clone(), x), "AddInPlace")()
    with pytest.raises(ScriptError, match=re.escape("aten::add_.Tensor")):
        frontend.script(mod)


def test_script_names_the_aten_operator_it_lacks() -> None:
    mod = module(lambda s, x: torch.ops.aten.special_zeta(x, x), "ZetaPacket")()
    with pytest.raises(
        ScriptError, match=re.escape("tsjit has no op for the ATen operator aten::special_zeta")
    ):
        frontend.script(mod)


def test_trace_refuses_a_missing_op_naming_it() -> None:
    mod = module(lambda s, x: torch.ops.aten.special_zeta(x, x), "Zeta")()
    with pytest.raises(TraceError, match=re.escape("aten::special_zeta.default")):
        compiled(mod, (X,), "trace")


def test_a_packet_overload_tsjit_lacks_is_named() -> None:
    mod = module(lambda s, x: torch.ops.aten.var_mean(x, 1), "VarMeanInt")()
    with pytest.raises(ScriptError, match="positional int"):
        frontend.script(mod)
