"""TorchScript's annotations and idioms that real modules carry, one small module each,
scripted and compared with PyTorch eager (and with `torch.jit.script` where TorchScript takes
the module): `BroadcastingListN[int]`, `torch.jit.annotate`, `Final` attributes,
`is_floating_point`, `memory_format=`, in-place updates that keep the destination's dtype,
and 0-d tensors made from numbers (`NumToTensor`, `scalar_tensor`, a 0-d attribute).
"""

from __future__ import annotations

from typing import Any, List  # noqa: UP035 (TorchScript's spelling)

import numpy as np
import pytest

import frontend

torch = pytest.importorskip("torch")
nn = torch.nn
F = torch.nn.functional

from torch._jit_internal import BroadcastingList2  # noqa: E402

RTOL, ATOL = 1e-4, 1e-5


def assert_matches(actual: Any, expected: Any) -> None:
    if not isinstance(actual, torch.Tensor):  # a call without tensor arguments: numpy
        actual = torch.from_numpy(np.array(actual))
    if isinstance(expected, bool):
        assert actual is expected or bool(actual) is expected
        return
    assert (tuple(actual.shape), actual.dtype) == (tuple(expected.shape), expected.dtype)
    np.testing.assert_allclose(actual.numpy(), expected.numpy(), rtol=RTOL, atol=ATOL)


# ---- annotations ----


class PoolBroadcast(nn.Module):
    def forward(self, x, k: BroadcastingList2[int]):
        return F.avg_pool2d(x, k)


class PoolJitAnnotationsSpelling(nn.Module):
    def forward(self, x, k: torch.jit.annotations.BroadcastingList2[int]):
        return F.max_pool2d(x, k)


class AnnotatedList(nn.Module):
    def forward(self, x):
        scales = torch.jit.annotate(List[float], [])  # noqa: UP006
        scales.append(2.0)
        scales.append(0.5)
        return x * scales[0] + scales[1]


class FinalAttribute(nn.Module):
    scale: torch.jit.Final[int]

    def __init__(self) -> None:
        super().__init__()
        self.scale = 3

    def forward(self, x):
        return x * self.scale


X4 = torch.rand(1, 2, 4, 4)
POOL = frontend.script(PoolBroadcast())


@pytest.mark.parametrize("k", [2, [2, 2], [2, 1]], ids=["int", "list", "uneven"])
def test_broadcasting_list_takes_an_int_or_a_list(k: Any) -> None:
    assert_matches(POOL(X4, k), PoolBroadcast()(X4, k))


def test_broadcasting_list_as_torchscript_reads_it() -> None:
    assert_matches(POOL(X4, 2), torch.jit.script(PoolBroadcast())(X4, 2))


def test_broadcasting_list_spelled_from_torch_jit_annotations() -> None:
    module = PoolJitAnnotationsSpelling()  # (TorchScript itself refuses this spelling)
    assert_matches(frontend.script(module)(X4, 2), module(X4, 2))


@pytest.mark.parametrize("module", [AnnotatedList(), FinalAttribute()], ids=type)
def test_annotate_and_final(module: nn.Module) -> None:
    x = torch.rand(3)
    actual = frontend.script(module)(x)
    assert_matches(actual, module(x))
    if isinstance(module, AnnotatedList):  # (TorchScript reads no string-annotated Final)
        assert_matches(actual, torch.jit.script(module)(x))


# ---- is_floating_point ----


class FloatOrInt(nn.Module):
    def forward(self, x):
        if x.is_floating_point():
            return x * 0.5
        return x + 1


class TorchIsFloatingPoint(nn.Module):
    def forward(self, x):
        return torch.is_floating_point(x)


FLOAT_OR_INT = frontend.script(FloatOrInt())


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.int64, torch.int32])
def test_is_floating_point_picks_the_branch_by_dtype(dtype: Any) -> None:
    x = torch.arange(4).to(dtype)
    assert_matches(FLOAT_OR_INT(x), FloatOrInt()(x))


def test_torch_is_floating_point() -> None:
    scripted = frontend.script(TorchIsFloatingPoint())
    assert scripted(torch.rand(2)) is True or bool(scripted(torch.rand(2))) is True
    assert bool(scripted(torch.arange(2))) is False


# ---- memory_format ----


class MemoryFormats(nn.Module):
    def forward(self, x):
        a = x.clone(memory_format=torch.contiguous_format)
        b = x.contiguous(memory_format=torch.channels_last)
        c = x.to(torch.float64, memory_format=torch.preserve_format)
        return a + b, c


def test_memory_format_is_a_no_op_for_values() -> None:
    module = MemoryFormats()
    actual, expected = frontend.script(module)(X4), module(X4)
    for a, e in zip(actual, expected):
        assert_matches(a, e)


# ---- in-place updates keep the destination's dtype ----


class AugmentedAdd(nn.Module):
    def forward(self, a, b):
        a = a * 1
        a += b
        return a


class InPlaceAdd(nn.Module):
    def forward(self, a, b):
        c = a.clone()
        c.add_(b)
        return c


class InPlaceMul(nn.Module):
    def forward(self, a):
        c = a.clone()
        c.mul_(2.5)
        return c


AUGMENTED_ADD = frontend.script(AugmentedAdd())
IN_PLACE_ADD = frontend.script(InPlaceAdd())
IN_PLACE_MUL = frontend.script(InPlaceMul())
MIXED = [
    (torch.float32, torch.float64), (torch.float64, torch.float32), (torch.int64, torch.int32),
    (torch.float32, torch.int64), (torch.int32, torch.int64),
]  # fmt: skip


@pytest.mark.parametrize("module", ["augmented", "add_"])
@pytest.mark.parametrize(("a_dtype", "b_dtype"), MIXED, ids=str)
def test_in_place_result_has_the_destination_dtype(module: str, a_dtype: Any, b_dtype: Any) -> None:
    scripted, eager = {
        "augmented": (AUGMENTED_ADD, AugmentedAdd()), "add_": (IN_PLACE_ADD, InPlaceAdd()),
    }[module]  # fmt: skip
    a, b = (torch.arange(1, 5).to(a_dtype) * 1.5).to(a_dtype), torch.arange(4).to(b_dtype)
    assert_matches(scripted(a, b), eager(a, b))


def test_in_place_float_into_int_is_pytorchs_error() -> None:
    a = torch.arange(3)
    with pytest.raises(RuntimeError, match="can't be cast to the desired output type Long"):
        InPlaceMul()(a)
    with pytest.raises(RuntimeError, match="can't be cast"):
        IN_PLACE_MUL(a)
    assert_matches(IN_PLACE_MUL(a.float()), InPlaceMul()(a.float()))


def test_in_place_float_into_int_known_while_scripting_is_refused_at_the_call() -> None:
    def known(n: int):
        c = torch.arange(n)
        c += torch.ones(n) * 0.5
        return c

    with pytest.raises(frontend.ScriptError, match="result type float32 can't be cast to "
                       "the desired output type int64"):  # fmt: skip
        frontend.script(known)


# ---- 0-d tensors from numbers ----


class NumToTensorFloat(nn.Module):
    def forward(self):
        return torch.ops.prim.NumToTensor(1.0)


class NumToTensorAdd(nn.Module):
    def forward(self, x):
        return torch.add(torch.ops.prim.NumToTensor(5), 3) + x.sum()


class NumToTensorOfSize(nn.Module):
    def forward(self, x):
        return torch.ops.prim.NumToTensor(x.size(0)) * 2


class ScalarTensor(nn.Module):
    def forward(self, x):
        return torch.scalar_tensor(2) * x, torch.scalar_tensor(3, dtype=torch.int64)


class ZeroDimAttribute(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.x = torch.tensor(2, dtype=torch.int32)

    def forward(self):
        return torch.add(self.x, 3)


@pytest.mark.parametrize("module", [NumToTensorAdd(), NumToTensorOfSize(), ScalarTensor()],
                         ids=type)  # fmt: skip
def test_zero_d_tensors_from_numbers(module: nn.Module) -> None:
    x = torch.rand(3)
    actual, expected = frontend.script(module)(x), module(x)
    for a, e in zip(*(r if isinstance(r, tuple) else (r,) for r in (actual, expected))):
        assert_matches(a, e)


@pytest.mark.parametrize("module", [NumToTensorFloat(), ZeroDimAttribute()], ids=type)
def test_zero_d_results_without_arguments(module: nn.Module) -> None:
    assert_matches(frontend.script(module)(), module())


# ---- *args in forward ----


class AddStarArgs(nn.Module):
    def forward(self, *args):
        return args[0] + args[1]


class ScaleByRest(nn.Module):
    def forward(self, x, *rest):
        out = x
        for r in rest:
            out = out * r
        return out


def test_star_args_in_forward_specialize_on_the_count() -> None:
    a, b, c = torch.rand(2, 3), torch.rand(2, 3), torch.rand(3)
    assert_matches(frontend.script(AddStarArgs())(a, b), AddStarArgs()(a, b))
    scripted = frontend.script(ScaleByRest())
    for args in ((a,), (a, b), (a, b, c)):
        assert_matches(scripted(*args), ScaleByRest()(*args))
    with pytest.raises(TypeError) as caught:
        scripted(a, k=b)
    with pytest.raises(TypeError) as wanted:
        ScaleByRest()(a, k=b)
    assert str(caught.value) == str(wanted.value)


# ---- the length and items of a List[int] argument ----


def scaled_by_length(x, shape: List[int]):  # noqa: UP006
    return x.view(shape) * len(shape)


def summed_over_first(x, dims: List[int]):  # noqa: UP006
    if len(dims) == 2:
        return x.sum(dims[0]) * dims[1]
    return x * 1.0


SCALED_BY_LENGTH = frontend.script(scaled_by_length)
SUMMED_OVER_FIRST = frontend.script(summed_over_first)


@pytest.mark.parametrize("shape", [[6], [3, 2], [1, 3, 2]], ids=str)
def test_len_of_a_list_argument(shape: list[int]) -> None:
    x = torch.rand(2, 3)
    assert_matches(SCALED_BY_LENGTH(x, shape), scaled_by_length(x, shape))


@pytest.mark.parametrize("dims", [[1, 3], [0]], ids=str)
def test_items_of_a_list_argument(dims: list[int]) -> None:
    x = torch.rand(2, 3)
    assert_matches(SUMMED_OVER_FIRST(x, dims), summed_over_first(x, dims))
