"""`torch.as_strided` / `Tensor.as_strided` of contiguous tensors (overlapping windows, zero
strides, storage offsets, the `torch.ops.aten` spelling) scripted and traced against PyTorch;
offsets past the storage raise PyTorch's RuntimeError; the input of a transposing view is
refused by name."""

from __future__ import annotations

import pytest
import torch

import frontend


def windows(x, y):
    return (
        torch.as_strided(x, (3, 4), (2, 1)),  # overlapping rows
        x.as_strided([2, 2, 3], [6, 0, 1], 1),  # a zero stride repeats
        torch.ops.aten.as_strided.default(y, [4], [5], 2),
        (x * 2).as_strided((2, 2), (1, 3), 3),
    )


@pytest.mark.parametrize("kind", ["script", "trace"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.int64])
def test_as_strided_matches_pytorch(kind, dtype) -> None:
    x, y = torch.arange(12).reshape(3, 4).to(dtype), torch.arange(20).to(dtype)
    program = frontend.script(windows) if kind == "script" else frontend.trace(windows, (x, y))
    for got, want in zip(program(x, y), windows(x, y), strict=True):
        assert torch.equal(torch.as_tensor(got), want)


@pytest.mark.parametrize("kind", ["script", "trace"])
def test_an_offset_past_the_storage_raises(kind) -> None:
    def past(x):
        return x.as_strided((3, 3), (4, 1), 2)

    x = torch.arange(12.0)
    with pytest.raises(RuntimeError, match="out of bounds for storage of size 48"):
        past(x)

    def compile_and_run():
        program = frontend.script(past) if kind == "script" else frontend.trace(past, (x,))
        return program(x)

    with pytest.raises(Exception, match="out of bounds for storage of size 48"):
        compile_and_run()


def test_as_strided_of_a_transposed_view_is_refused() -> None:
    def of_view(x):
        return x.t().as_strided((2, 2), (1, 2))

    with pytest.raises(Exception, match=r"as_strided of the result of torch\.aten\.t"):
        frontend.script(of_view)(torch.randn(3, 4))
