"""torch.einsum, scripted, traced and eager (frontend.torch), against PyTorch: sums, permutes,
reshapes and one bmm per pair of operands, contracted left to right, size-1 dims broadcast
(dialects/torch/einsum_plan.py; unannotated scripts through `torch.aten.einsum`)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import frontend
from frontend import torch as ft
from frontend.errors import ScriptError

RNG = np.random.default_rng(0)


def r(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


CASES = [
    ("bij,bjk->bik", (r(2, 3, 4), r(2, 4, 5))),
    ("bhqd,bhkd->bhqk", (r(2, 3, 4, 8), r(2, 3, 6, 8))),
    ("ij,kj", (r(3, 4), r(5, 4))),  # implicit output: "ik"
    ("ijk->kij", (r(2, 3, 4),)),
    ("i,i->", (r(6), r(6))),
    ("bi,bj->bij", (r(2, 3), r(2, 4))),
    ("ik,kj->", (r(3, 4), r(4, 5))),
    ("ijk->j", (r(2, 3, 4),)),
    ("ij,jk->ki", (r(3, 4), r(4, 2))),
    ("ij,jk,kl->il", (r(2, 3), r(3, 4), r(4, 2))),
    ("bi,bj,bk->bjk", (r(2, 3), r(2, 4), r(2, 3))),
    ("...ij,...jk->...ik", (r(2, 3, 4), r(2, 4, 5))),
    ("ij,...jk", (r(2, 3), r(4, 3, 5))),  # implicit output: "...ik"
    ("iijj->ij", (r(3, 3, 2, 2),)),
    ("ii->", (r(3, 3),)),
    ("bii,bj->bij", (r(2, 3, 3), r(2, 4))),
    ("ij,ij->ij", (r(1, 4), r(3, 4))),  # size-1 dims broadcast
    ("...ij,...jk->...ik", (r(2, 1, 3, 4), r(5, 4, 2))),
    ("ij,jk->ik", (r(3, 1), r(4, 2))),  # a contracted size-1 dim against 4
]


def make(equation):
    def program(*operands):
        return torch.einsum(equation, *operands)

    return program


@pytest.mark.parametrize("kind", ["script", "trace", "eager"])
@pytest.mark.parametrize(("equation", "operands"), CASES, ids=[c[0] for c in CASES])
def test_einsum_matches_pytorch(kind, equation, operands) -> None:
    expected = torch.einsum(equation, *map(torch.from_numpy, operands)).numpy()
    if kind == "eager":
        actual = ft.einsum(equation, *map(ft.from_numpy, operands)).numpy()
    elif kind == "script":  # unannotated: `torch.aten.einsum`, decomposed at the signature
        program = {1: one_operand, 2: two_operands, 3: three_operands}[len(operands)]
        actual = frontend.script(program)(*operands, equation=equation)
    else:
        actual = frontend.trace(make(equation), tuple(map(torch.from_numpy, operands)))(*operands)
    np.testing.assert_allclose(actual, expected, rtol=1e-5, atol=1e-5)
    assert np.asarray(actual).shape == expected.shape


def two_operands(a, b, equation: str = "ij,jk->ik"):
    return torch.einsum(equation, a, b)


def three_operands(a, b, c, equation: str = "ij,jk,kl->il"):
    return torch.einsum(equation, a, b, c)


def one_operand(a, equation: str = "ij->ji"):
    return torch.einsum(equation, [a])


def test_sizes_that_do_not_broadcast_are_refused() -> None:
    with pytest.raises(ValueError, match="do not broadcast"):
        ft.einsum("ij,ij->ij", ft.from_numpy(r(2, 3)), ft.from_numpy(r(4, 3)))
    with pytest.raises(Exception, match="do not broadcast"):
        frontend.script(two_operands)(r(2, 3), r(4, 3), equation="ij,ij->ij")


def unknown_subscript(a):
    return torch.einsum("ij->k", a)


def test_malformed_equations_are_located_errors() -> None:
    with pytest.raises(ScriptError, match="output subscript 'k' is in no operand"):
        frontend.script(unknown_subscript)
