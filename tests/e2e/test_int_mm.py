"""`torch._int_mm` (int8 x int8 -> int32) scripted and traced against PyTorch, its checks, and
modules whose buffers are uint8 / int8 / int16 through save, load and pickle."""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest
import torch

import frontend


class Quantized(torch.nn.Module):
    """An int8 weight, a uint8 zero point and an int16 offset, as a quantized layer keeps them."""

    def __init__(self) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.register_buffer("weight", torch.randint(-128, 128, (8, 4), dtype=torch.int8))
        self.register_buffer("zero", torch.randint(0, 256, (4,), dtype=torch.uint8))
        self.register_buffer("offset", torch.randint(-3000, 3000, (4,), dtype=torch.int16))

    def forward(self, x):
        return torch._int_mm(x, self.weight) - self.zero.to(torch.int32) + self.offset


def inputs() -> torch.Tensor:
    return torch.randint(
        -128, 128, (17, 8), dtype=torch.int8, generator=torch.Generator().manual_seed(1)
    )


@pytest.mark.parametrize("kind", ["script", "trace"])
def test_int_mm_matches_pytorch_at_the_int8_extremes(kind) -> None:
    def f(a, b):
        return torch._int_mm(a, b)

    a = torch.tensor([[127, -128, 127, -128]] * 3, dtype=torch.int8)
    b = torch.full((4, 2), -128, dtype=torch.int8)
    program = frontend.script(f) if kind == "script" else frontend.trace(f, (a, b))
    got = torch.as_tensor(program(a, b))
    assert got.dtype == torch.int32
    assert torch.equal(got, torch._int_mm(a, b))
    u = torch.tensor([[255, 0, 200, 1]] * 17, dtype=torch.uint8)  # uint8 self, as torch accepts
    program = frontend.script(f) if kind == "script" else frontend.trace(f, (u, b))
    assert torch.equal(torch.as_tensor(program(u, b)), torch._int_mm(u, b))


@pytest.mark.parametrize(
    ("a", "b", "message"),
    [
        (torch.ones(3, 4), torch.ones(4, 2, dtype=torch.int8), "self dtype to be int8 or uint8"),
        (torch.ones(3, 4, dtype=torch.int8), torch.ones(4, 2, dtype=torch.uint8), "mat2 dtype"),
        (torch.ones(3, 4, dtype=torch.int8), torch.ones(3, 2, dtype=torch.int8), "needs to match"),
    ],
)
def test_int_mm_refuses_what_pytorch_refuses(a, b, message) -> None:
    with pytest.raises(RuntimeError, match=message):
        torch._int_mm(a, b)
    with pytest.raises(Exception, match=message):
        frontend.script(lambda a, b: torch._int_mm(a, b))(a, b)


def test_small_int_buffers_save_load_and_pickle(tmp_path: Path) -> None:
    module = Quantized()
    x = inputs()
    expected = module(x)
    scripted = frontend.script(module)
    scripted.save(tmp_path / "q.tsj")
    loaded = frontend.load(tmp_path / "q.tsj")
    assert {k: v.dtype for k, v in loaded.state_dict().items()} == {
        k: v.numpy().dtype for k, v in module.state_dict().items()
    }
    assert torch.equal(torch.as_tensor(loaded(x)), expected)
    assert torch.equal(torch.as_tensor(pickle.loads(pickle.dumps(scripted))(x)), expected)
    traced = frontend.trace(module, (x,))
    assert torch.equal(torch.as_tensor(pickle.loads(pickle.dumps(traced))(x)), expected)
