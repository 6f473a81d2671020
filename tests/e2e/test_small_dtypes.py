"""uint8, int8 and int16 tensors as arguments, results and `.to()` targets, scripted and traced,
against PyTorch: wraparound, promotion, comparisons, reductions to int64, casts; dtypes tsjit
does not support are refused with the argument's name."""

from __future__ import annotations

import pytest
import torch

import frontend
from dialects.torch.dtypes import ALL_DTYPES, promote
from lowering.signature import format_signature, parse_signature


def elementwise(x, y):
    return (
        x + y, x * 3, torch.relu(x), x > y, torch.where(x > y, x, y), x.sum(), x.max(),
        x.to(torch.int16), (x * y).to(torch.float32), (x + y) > 0, (x * y) // 7, -(x - y),
        torch.abs(x + y), (x * y).max(dim=1)[0], x + y.to(torch.int32), x.to(torch.int8),
        x.to(torch.uint8), x.to(torch.float32).to(torch.uint8), x.min(dim=0)[0], x // y,
    )  # fmt: skip


SCRIPTED = frontend.script(elementwise)
EXTREMES = {torch.uint8: (0, 255), torch.int8: (-128, 127), torch.int16: (-32768, 32767)}


def operands(dtype: torch.dtype) -> tuple[torch.Tensor, torch.Tensor]:
    lo, hi = EXTREMES[dtype]
    x = torch.tensor([[hi - 27, lo + 7, 3], [hi, lo, 0]], dtype=dtype)
    y = torch.tensor([[hi - 27, lo + 5, hi - 3], [1, hi, 9]], dtype=dtype)
    return x, y


def assert_same(got: tuple, want: tuple) -> None:
    assert len(got) == len(want)
    for i, (g, w) in enumerate(zip(got, want)):
        assert g.dtype == w.dtype, (i, g.dtype, w.dtype)
        assert torch.equal(g, w), (i, g, w)


@pytest.mark.parametrize("dtype", [torch.uint8, torch.int8, torch.int16])
def test_scripted_small_ints_match_torch(dtype: torch.dtype) -> None:
    x, y = operands(dtype)
    assert_same(SCRIPTED(x, y), elementwise(x, y))


@pytest.mark.parametrize("dtype", [torch.uint8, torch.int8])
def test_traced_small_ints_match_torch(dtype: torch.dtype) -> None:
    x, y = operands(dtype)
    traced = frontend.trace(elementwise, (x, y))
    assert_same(traced(x, y), elementwise(x, y))


MIXED = frontend.script(lambda a, b: (a + b, a * b, a > b, torch.maximum(a, b), a + 250))


@pytest.mark.parametrize(("left", "right"), [
    (torch.int8, torch.int16), (torch.uint8, torch.int8), (torch.uint8, torch.int16),
    (torch.bool, torch.uint8),
])  # fmt: skip
def test_mixed_small_ints_promote_like_torch(left: torch.dtype, right: torch.dtype) -> None:
    """uint8 with int8 is int16, as torch.promote_types has it; a Python int keeps the dtype."""
    a = torch.tensor([[200, 5, 7], [0, 255, 2]]).to(left)
    b = torch.tensor([[-100, 100, 7], [127, -1, 2]]).to(right)
    assert_same(MIXED(a, b), (a + b, a * b, a > b, torch.maximum(a, b), a + 250))


def integer_ops(x, y):
    return (
        x % 3, x >> 1, x & y, torch.clamp(x, 5, 100), torch.cumsum(x, 1), torch.mm(x, y.t()),
        torch.sort(x, dim=1)[0], x < 100, x.prod(dim=1), torch.argmax(x, dim=1), x.float() * 0.5,
    )  # fmt: skip


INTEGER_OPS = frontend.script(integer_ops)


@pytest.mark.parametrize("dtype", [torch.uint8, torch.int16])
def test_integer_ops_on_small_ints_match_torch(dtype: torch.dtype) -> None:
    """uint8 shifts, remainders, orders and products are unsigned ones, as in torch."""
    x, y = operands(dtype)
    assert_same(INTEGER_OPS(x, y), integer_ops(x, y))


def test_promotion_of_every_dtype_pair_is_torchs() -> None:
    for a in ALL_DTYPES:
        for b in ALL_DTYPES:
            want = torch.promote_types(getattr(torch, a.name), getattr(torch, b.name))
            assert promote(a, b).name == str(want).removeprefix("torch."), (a, b)


def test_signatures_spell_small_ints_as_torch_mlir_does() -> None:
    text = "ui8[?,4],si8[2],si16[]"
    assert format_signature(parse_signature(text)) == text
