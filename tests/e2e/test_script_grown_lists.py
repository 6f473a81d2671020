"""Lists grown by `append` in loops decided at run time (`for t in range(x.size(0))`, `for row
in x`): stacked, concatenated, indexed and measured like in PyTorch."""

from __future__ import annotations

from typing import List  # noqa: UP035 (TorchScript's spelling)

import numpy as np
import pytest
import torch
from torch import nn

import frontend


class RNNOverTime(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.cell = nn.RNNCell(4, 8)

    def forward(self, x, h):  # type: ignore[no-untyped-def]
        outs = []
        for t in range(x.size(0)):
            h = self.cell(x[t], h)
            outs.append(h)
        return torch.stack(outs), h


def columns_concatenated(x, w):  # type: ignore[no-untyped-def]
    outs: List[torch.Tensor] = []  # noqa: UP006 (TorchScript's spelling)
    for i in range(x.shape[1]):
        outs.append(torch.relu(x[:, i] @ w))
    return torch.cat(outs, dim=1)


def rows_with_a_prefix(x):  # type: ignore[no-untyped-def]
    outs = [x[0] * 0]
    for row in x:
        outs.append(row * 2)
    return torch.stack(outs, -1), len(outs), outs[-1], outs[0], outs[2]


def two_lists_negative_dims(x):  # type: ignore[no-untyped-def]
    ys = []
    zs = []
    for i in range(x.size(0)):
        y = x[i] + i
        ys.append(y)
        zs.append(y.sum(0))
    return torch.cat(ys, -1), torch.stack(ys, 1), torch.stack(zs)


def loop_values_after_the_loop(x):  # type: ignore[no-untyped-def]
    acc = torch.zeros_like(x[0])
    outs = []
    for t in range(x.size(0)):
        acc = acc + x[t]
        last = acc * 2
        outs.append(last)
    return torch.stack(outs), acc, last


CASES = [
    (RNNOverTime(), (torch.randn(5, 3, 4), torch.randn(3, 8))),
    (columns_concatenated, (torch.randn(3, 6, 4), torch.randn(4, 5))),
    (rows_with_a_prefix, (torch.randn(4, 3),)),
    (two_lists_negative_dims, (torch.randn(3, 2, 5),)),
    (loop_values_after_the_loop, (torch.randn(6, 2),)),
]


def _flat(value):  # type: ignore[no-untyped-def]
    return [v for item in value for v in _flat(item)] if isinstance(value, tuple) else [value]


@pytest.mark.parametrize(("fn", "args"), CASES, ids=lambda c: getattr(c, "__name__", ""))
def test_grown_list_matches_pytorch(fn, args):  # type: ignore[no-untyped-def]
    torch.manual_seed(0)
    with torch.no_grad():
        expected = _flat(fn(*args))
    got = _flat(frontend.script(fn)(*args))
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        np.testing.assert_allclose(np.asarray(g), np.asarray(e), rtol=1e-5, atol=1e-6)


def test_the_loop_body_is_scripted_once_more_for_its_first_iteration():
    graph = str(frontend.script(columns_concatenated).graph)
    assert graph.count("torch.prim.Loop ") == 1
    assert "torch.aten.select_scatter" in graph
    assert 'torch.prim.RaiseException "RuntimeError"' in graph  # a loop of no iteration


def test_a_conditional_append_is_a_located_error():
    def conditional(x):  # type: ignore[no-untyped-def]
        outs = []
        for t in range(x.size(0)):
            if x[t].sum() > 0:
                outs.append(x[t])
        return torch.stack(outs)

    with pytest.raises(frontend.ScriptError, match="append") as info:
        frontend.script(conditional)
    assert "outs.append(x[t])" in str(info.value)


def test_other_uses_of_a_grown_list_are_located_errors():
    def summed(x):  # type: ignore[no-untyped-def]
        outs = []
        for t in range(x.size(0)):
            outs.append(x[t])
        return torch.add(outs, 1)

    with pytest.raises(frontend.ScriptError, match="can only be stacked or concatenated"):
        frontend.script(summed)
