"""Iterating lists of tensors (`for c in x.chunk(3)`, `zip`, `enumerate`, comprehensions over
`x.split(...)` / `x.unbind(...)` / the rows of a tensor) and starred assignment
(`b, *rest = x.shape`), scripted and compared with PyTorch eager."""

from __future__ import annotations

import re

import pytest
import torch
from torch import nn

import frontend
from frontend.errors import ScriptError


def chunk_sums(x):
    outs = []
    for c in x.chunk(3):
        outs.append(c.sum())
    return torch.stack(outs)


def split_columns(x):
    s = torch.zeros(x.size(1))
    for part in torch.split(x, 2):
        s = s + part.sum(0)
    return s


def zipped_chunks(x, y):
    s = x.new_zeros(())
    for a, b in zip(x.chunk(2), y.chunk(2)):
        s = s + (a * b).sum()
    return s


def enumerated_columns(x):
    acc = x.new_zeros(x.size(0))
    for i, c in enumerate(x.split(1, dim=1)):
        acc = acc + c.squeeze(1) * i
    return acc


def comprehended_chunks(x):
    return torch.stack([c.sum() for c in x.chunk(4, -1)])


def comprehended_rows(x):
    return torch.cat([r * i for i, r in enumerate(x, 1)])


def unbound_until_positive(x):
    s = x.new_zeros(())
    for c in x.unbind(1):
        if c.sum() > 0:
            break
        s = s + c.sum()
    return s


def known_sizes(x):
    s = x.new_zeros(())
    for c in x.split([1, 2, 3], 1):  # count known while scripting: unrolled
        s = s + c.sum() * c.size(1)
    return s * len(x.chunk(4)) + len(x.tensor_split(3, 1))


def concatenated(x):
    rows = torch.cat([b * i for i, b in enumerate(x.split(2))])  # the last piece is shorter
    return torch.cat([c.softmax(-1) for c in x.chunk(3, -1)], -1) + rows


def indexed_by_position(x):
    parts = x.chunk(3, 1)
    s = x.new_zeros(x.size(0))
    for i in range(len(parts)):  # parts[i] with i known at run time
        s = s + parts[i].sum(1) * i
    return s + x.split(2)[len(parts) - 4].sum()  # a negative index, known at run time


def sequence_builtins(x):
    s = x.new_zeros(())
    for i, c in enumerate(reversed(x.split(2, 1))):
        s = s * 2 + c.sum() * i
    r = x[0]
    for r in reversed(x):  # the loop variable keeps the last item
        s = s + r.sum()
    first, second = list(x.chunk(2))[-1]  # a tensor unpacks into its rows
    return s + r + first * second


def starred(x):
    b, *rest = x.shape
    *init, last = x.size()
    first, *others = [x, x * 2, x * 3]
    return x.view(b, *rest).sum() + x.view(*init, 1, last).sum() + first + sum(others)


def starred_pieces(x):
    a, *middle, z = x.split([1, 2, 3, 4], 1)
    return a.sum() + z.sum() + len(middle)


CASES = [
    (chunk_sums, (6, 4)),
    (chunk_sums, (2, 3)),  # chunk(3) of 2 rows: 2 pieces
    (chunk_sums, (0, 3)),  # chunk(3) of no rows: 3 empty pieces
    (split_columns, (5, 3)),  # the last piece is shorter
    (zipped_chunks, (5, 4)),
    (enumerated_columns, (3, 4)),
    (comprehended_chunks, (3, 8)),
    (comprehended_rows, (4, 3)),
    (unbound_until_positive, (3, 5)),
    (known_sizes, (5, 6)),
    (sequence_builtins, (4, 5)),
    (indexed_by_position, (5, 7)),
    (concatenated, (5, 7)),
    (starred_pieces, (3, 10)),
]


@pytest.mark.parametrize(
    ("fn", "shape"), CASES, ids=[f"{fn.__name__}-{shape}" for fn, shape in CASES]
)
def test_iteration_matches_pytorch(fn, shape) -> None:
    torch.manual_seed(0)
    args = [torch.randn(shape) for _ in range(fn.__code__.co_argcount)]
    expected = fn(*args)
    actual = frontend.script(fn)(*args)
    torch.testing.assert_close(torch.as_tensor(actual), expected, rtol=1e-5, atol=1e-5)


def test_a_scripted_function_serves_other_sizes() -> None:
    scripted = frontend.script(chunk_sums)
    for rows in (7, 1, 3):
        x = torch.randn(rows, 2)
        torch.testing.assert_close(torch.as_tensor(scripted(x)), chunk_sums(x))


def test_unknown_count_is_a_run_time_loop_and_known_count_unrolls() -> None:
    assert "torch.prim.Loop" in frontend.script(chunk_sums).graph
    assert "torch.prim.Loop" not in frontend.script(known_sizes).graph


def test_starred_assignment_matches_pytorch() -> None:
    x = torch.randn(2, 5, 3)
    expected = starred(x)
    torch.testing.assert_close(torch.as_tensor(frontend.script(starred)(x)), expected)


class Grouped(nn.Module):
    """A forward that runs one layer per chunk of its features and per zipped pair."""

    def __init__(self) -> None:
        super().__init__()
        self.heads = nn.ModuleList([nn.Linear(2, 3) for _ in range(3)])

    def forward(self, x):
        outs = []
        for head, part in zip(self.heads, x.chunk(3, -1)):  # 3 known from the features
            outs.append(head(part))
        pooled = [r.max() for r in x.unbind(0)]
        n, *_ = x.shape
        batched = torch.cat([self.heads[0](b) for b in x[:, :2].split(3)])  # 3, then 1 row
        return torch.cat(outs, -1) * n + torch.stack(pooled).sum() + batched.sum()


def test_module_forward_matches_pytorch() -> None:
    torch.manual_seed(0)
    model = Grouped().eval()
    x = torch.randn(4, 6)
    scripted = frontend.script(model)
    with torch.no_grad():
        torch.testing.assert_close(torch.as_tensor(scripted(x)), model(x), rtol=1e-5, atol=1e-5)


def filtered(x):
    return [c for c in x.chunk(2) if c.sum() > 0]


def starred_unknown(x):
    a, *_rest = x.chunk(3)
    return a


def too_few(x):
    a, b, *_rest = (x,)
    return a + b


def returns_in_loop(x):
    for c in x.unbind(0):
        return c
    return x


TABLE = torch.ones(3)


def reads_a_global_tensor(x):
    return x + TABLE


ERRORS = [
    (filtered, "a list comprehension with `if` over the pieces of `x.chunk(2)`"),
    (starred_unknown, "a starred assignment of a list of tensors whose length is known only"),
    (too_few, "not enough values to unpack (expected at least 2, got 1)"),
    (returns_in_loop, "`return` inside a loop decided at run time is not supported"),
    (reads_a_global_tensor, "`TABLE`: a tensor defined outside the function (a global or"),
]


@pytest.mark.parametrize(("fn", "message"), ERRORS, ids=[fn.__name__ for fn, _ in ERRORS])
def test_unsupported_iteration_is_a_located_error(fn, message) -> None:
    with pytest.raises(ScriptError, match=re.escape(message)) as info:
        frontend.script(fn)
    assert "test_script_iteration.py" in str(info.value)


# ---- F.bilinear / nn.Bilinear (dialects/torch/ops/linear.py) ----


def bilinear(x1, x2, weight, bias):
    return torch.nn.functional.bilinear(x1, x2, weight, bias)


class Pairwise(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.score = nn.Bilinear(4, 3, 2)

    def forward(self, a, b):
        return torch.relu(self.score(a, b))


def test_bilinear_scripts_and_traces_like_pytorch() -> None:
    torch.manual_seed(0)
    x1, x2 = torch.randn(5, 4), torch.randn(5, 3)
    weight, bias = torch.randn(6, 4, 3), torch.randn(6)
    scripted = frontend.script(bilinear)
    torch.testing.assert_close(
        torch.as_tensor(scripted(x1, x2, weight, bias)),
        bilinear(x1, x2, weight, bias),
        rtol=1e-5,
        atol=1e-5,
    )
    model = Pairwise().eval()
    with torch.no_grad():
        expected = model(x1, x2)
        for compiled in (frontend.script(model), frontend.trace(model, (x1, x2))):
            torch.testing.assert_close(torch.as_tensor(compiled(x1, x2)), expected)
    with pytest.raises(ValueError, match=re.escape("input1 size does not match weight size")):
        scripted(x2, x2, weight, bias)


# ---- print in a loop over a constant range (unrolled) ----


def prints_each_step(x):
    for i in range(3):
        x = x * 2
        print("step", i, x.sum())
    for c in x.split([1, 1]):  # a count known while scripting: unrolled
        print(f"piece {c.sum():.1f}")
    return x


def test_print_in_a_loop_over_a_constant_range(capsys) -> None:
    x = torch.ones(2, 2)
    out = frontend.script(prints_each_step)(x)
    torch.testing.assert_close(torch.as_tensor(out), prints_each_step(x))
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 10  # the scripted run, then the eager one: alike
    assert lines[:5] == lines[5:]
