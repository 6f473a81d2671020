"""`squeeze(d)` of a dim whose size is computed inside the program (`?` in the compiled
code): kept, and a run-time size of 1 raises RuntimeError instead of a silently wrong
shape; sizes that come from the arguments are decided by the shape guard."""

import pytest
import torch

import frontend


def row_slice_squeezed(x, i: int):
    return x[i : i + 1].squeeze(0) * 2


def middle_squeezed(x):
    return x.squeeze(1) + 1


def test_run_time_size_one_raises():
    scripted = frontend.script(row_slice_squeezed)
    with pytest.raises(RuntimeError, match=r"squeeze\(\): dim 0 has size 1 at run time"):
        scripted(torch.randn(5, 4), 2)


def test_run_time_size_other_than_one_keeps_the_dim():
    scripted = frontend.script(row_slice_squeezed)
    x = torch.randn(5, 4)
    torch.testing.assert_close(scripted(x, 7), row_slice_squeezed(x, 7))  # empty slice


@pytest.mark.parametrize("shape", [(3, 1, 2), (3, 4, 2)])
def test_argument_sizes_follow_pytorch(shape):
    scripted = frontend.script(middle_squeezed)
    x = torch.randn(*shape)
    torch.testing.assert_close(scripted(x), middle_squeezed(x))
