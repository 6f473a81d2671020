"""The torch dialect's types and syntax: round trips, verification, promotion rules."""

from __future__ import annotations

import pytest
from xdsl.parser import Parser
from xdsl.utils.exceptions import ParseError, VerifyException

from dialects.torch.dtypes import ALL_DTYPES, result_type
from dialects.torch.op_base import types_compatible
from dialects.torch.types import ValueTensorType
from lowering.pipeline import make_context

TYPES = [
    "!torch.vtensor<[3,?],f32>",
    "!torch.vtensor<*,unk>",
    "!torch.vtensor<[],si64>",
    "!torch.vtensor<[2,1],i1>",
    "!torch.vtensor<[?],unk>",
    "!torch.int",
    "!torch.float",
    "!torch.bool",
    "!torch.none",
    "!torch.list<int>",
    "!torch.list<vtensor<[?],f32>>",
    "!torch.tuple<vtensor<[2],f32>, int>",
]


@pytest.mark.parametrize("text", TYPES)
def test_type_round_trip(text: str) -> None:
    parsed = Parser(make_context(), text).parse_type()
    assert str(parsed) == text
    assert Parser(make_context(), str(parsed)).parse_type() == parsed


def test_bad_types_are_rejected() -> None:
    with pytest.raises(ParseError):
        Parser(make_context(), "!torch.vtensor<[3,-2],f32>").parse_type()
    with pytest.raises(VerifyException, match="unsupported element type"):
        Parser(make_context(), "!torch.vtensor<[3],f80>").parse_type()


def test_types_compatible() -> None:
    known = ValueTensorType([3, 4], None)
    assert types_compatible(known, ValueTensorType([-1, 4], None))
    assert types_compatible(known, ValueTensorType(None, None))
    assert not types_compatible(known, ValueTensorType([3], None))


def test_result_type_matches_torch() -> None:
    torch = pytest.importorskip("torch")
    as_torch = {d: getattr(torch, d.name) for d in ALL_DTYPES}
    for a in ALL_DTYPES:
        for b in ALL_DTYPES:
            for ra, rb in ((1, 1), (0, 1), (1, 0), (0, 0)):
                x = torch.zeros([2] * ra, dtype=as_torch[a])
                y = torch.zeros([2] * rb, dtype=as_torch[b])
                assert as_torch[result_type([(a, ra), (b, rb)], [])] == torch.result_type(x, y)
        for kind, value in (("int", 3), ("float", 2.5), ("bool", True)):
            x = torch.zeros([2], dtype=as_torch[a])
            assert as_torch[result_type([(a, 1)], [kind])] == torch.result_type(x, value)
