"""Shape rules of data movement, linear algebra, conv and pooling reject what PyTorch rejects,
with PyTorch's wording (the message fragment is checked against real PyTorch when installed)."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from dialects.torch.meta import ShapeError
from dialects.torch.registry import BY_NAME


def z(*shape: int) -> Any:
    return np.zeros(shape, np.float32)


def i(*values: int) -> Any:
    return np.array(values, np.int64)


# (op, arguments in schema order, message fragment, the same call in PyTorch)
CASES: list[tuple[str, list[Any], str, Callable[[Any, Any], Any]]] = [
    ("view", [z(3, 4), [5, -1]], "shape '[5, -1]' is invalid for input of size 12",
     lambda t, F: t.zeros(3, 4).view(5, -1)),
    ("view", [z(3, 4), [-1, -1]], "only one dimension can be inferred",
     lambda t, F: t.zeros(3, 4).view(-1, -1)),
    ("expand", [z(3, 4), [2, 5], False], "the existing size (4) at non-singleton dimension 1",
     lambda t, F: t.zeros(3, 4).expand(2, 5)),
    ("permute", [z(3, 4), [0, 0]], "duplicate dims are not allowed",
     lambda t, F: t.zeros(3, 4).permute(0, 0)),
    ("flatten.using_ints", [z(2, 3, 4), 2, 0], "start_dim cannot come after end_dim",
     lambda t, F: t.zeros(2, 3, 4).flatten(2, 0)),
    ("t", [z(2, 3, 4)], "t() expects a tensor with <= 2 dimensions, but self is 3D",
     lambda t, F: t.zeros(2, 3, 4).t()),
    ("repeat", [z(3, 4), [2]], "Number of dimensions of repeat dims",
     lambda t, F: t.zeros(3, 4).repeat(2)),
    ("cat", [[z(2, 3), z(2, 4)], 0], "Sizes of tensors must match except in dimension 0",
     lambda t, F: t.cat([t.zeros(2, 3), t.zeros(2, 4)])),
    ("stack", [[z(2, 3), z(2, 4)], 0], "stack expects each tensor to be equal size",
     lambda t, F: t.stack([t.zeros(2, 3), t.zeros(2, 4)])),
    ("split.sizes", [z(5, 2), [1, 2], 0], "expects split_sizes to sum exactly to 5",
     lambda t, F: t.zeros(5, 2).split([1, 2])),
    ("chunk", [z(5, 2), 0, 0], "chunk expects `chunks` to be greater than 0, got: 0",
     lambda t, F: t.zeros(5, 2).chunk(0)),
    ("index_select", [z(3, 4), 0, np.zeros((1, 1), np.int64)], "Index is supposed to be a vector",
     lambda t, F: t.zeros(3, 4).index_select(0, t.zeros(1, 1, dtype=t.long))),
    ("gather", [z(3, 4), 1, i(0), False], "Index tensor must have the same number of dimensions",
     lambda t, F: t.zeros(3, 4).gather(1, t.zeros(1, dtype=t.long))),
    ("bmm", [z(2, 2, 3), z(3, 3, 2)], "of batch2 tensor to be: [2, 3] but got: [3, 3].",
     lambda t, F: t.bmm(t.zeros(2, 2, 3), t.zeros(3, 3, 2))),
    ("conv2d", [z(1, 2, 6, 6), z(4, 3, 3, 3), None, [1, 1], [0, 0], [1, 1], 1],
     "expected input[1, 2, 6, 6] to have 3 channels, but got 2 channels instead",
     lambda t, F: F.conv2d(t.zeros(1, 2, 6, 6), t.zeros(4, 3, 3, 3))),
    ("conv2d.padding", [z(1, 2, 6, 6), z(4, 2, 3, 3), None, [2, 2], "same", [1, 1], 1],
     "padding='same' is not supported for strided convolutions",
     lambda t, F: F.conv2d(t.zeros(1, 2, 6, 6), t.zeros(4, 2, 3, 3), stride=2, padding="same")),
    ("max_pool2d", [z(1, 2, 6, 6), [3, 3], [], [2, 2], [1, 1], False],
     "but got pad=2, kernel_size=3 and dilation=1",
     lambda t, F: F.max_pool2d(t.zeros(1, 2, 6, 6), 3, padding=2)),
    ("max_pool2d", [z(1, 2, 6, 6), [7, 7], [], [0, 0], [1, 1], False],
     "Calculated output size: (2x0x0). Output size is too small",
     lambda t, F: F.max_pool2d(t.zeros(1, 2, 6, 6), 7)),
    ("avg_pool2d", [z(1, 2, 6, 6), [2, 2], [], [0, 0], False, True, 0], "divisor must be not zero",
     lambda t, F: F.avg_pool2d(t.zeros(1, 2, 6, 6), 2, divisor_override=0)),
    ("arange.start_step", [0, 5, 0, None], "step must be nonzero",
     lambda t, F: t.arange(0, 5, 0)),
    ("arange.start_step", [5, 0, 1, None], "lower bound inconsistent with step sign",
     lambda t, F: t.arange(5, 0, 1)),
]  # fmt: skip
IDS = [f"{name}-{k}" for k, (name, *_) in enumerate(CASES)]


@pytest.mark.parametrize(("name", "args", "message", "torch_call"), CASES, ids=IDS)
def test_shape_rule_rejects_like_pytorch(
    name: str, args: list[Any], message: str, torch_call: Any
) -> None:
    op = BY_NAME[f"torch.aten.{name}"]
    with pytest.raises(ShapeError, match=re.escape(message)):
        op.run_eager(*args)


@pytest.mark.parametrize(("name", "args", "message", "torch_call"), CASES, ids=IDS)
def test_pytorch_says_the_same(name: str, args: list[Any], message: str, torch_call: Any) -> None:
    torch = pytest.importorskip("torch")
    import torch.nn.functional as F

    with pytest.raises((RuntimeError, IndexError, ValueError), match=re.escape(message)):
        torch_call(torch, F)
