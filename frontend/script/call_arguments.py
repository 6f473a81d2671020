"""How a call's Python arguments become an op's: keywords spelled the Python way
(`F.dropout(x, training=False)` is ATen's `train`, `inplace=` and `memory_format=` of ops that
have none), and a
`dtype=y.dtype` known only at run time, which becomes `type_as(y)` after the call."""

from __future__ import annotations

from typing import Any

from xdsl.ir import SSAValue

from dialects.torch.ops.casts import PrimDtypeOp
from frontend.ir.builder import Value


def is_dtype_code_of(source: SSAValue, value: Value) -> bool:
    """`value` is `source.dtype` as a run-time code (`torch.prim.dtype`)."""
    return (
        isinstance(value, SSAValue)
        and isinstance(value.owner, PrimDtypeOp)
        and value.owner.a is source
    )


def dtype_source(candidates: Any, args: list[Value], kwargs: dict[str, Value]) -> SSAValue | None:
    """The tensor whose run-time dtype code (`y.dtype`) a call takes as its `dtype=` argument
    (or as the dtype of `x.to(y.dtype)`)."""
    values = [kwargs.get("dtype")]
    if any(c.name == "torch.aten.to.dtype" for c in candidates) and len(args) > 1:
        values.append(args[1])
    for value in values:
        if isinstance(value, SSAValue) and isinstance(value.owner, PrimDtypeOp):
            return value.owner.a
    return None


def accepts(op: Any, keyword: str) -> bool:
    """Whether the op's schema has an argument named `keyword`."""
    return any(a.name == keyword for a in op.parsed_schema().arguments)


def takes_int(op: Any, keyword: str) -> bool:
    """Whether the op's schema argument `keyword` is an int (`int memory_format=0`)."""
    return any(a.name == keyword and a.type.startswith("int") for a in op.parsed_schema().arguments)


KEYWORD_SPELLINGS = {"training": "train"}
"""Python keywords whose ATen schema argument has another name (`F.dropout(x, training=...)`
is `aten::dropout(input, p, train)`)."""


def python_keywords(candidates: Any, kwargs: dict[str, Value]) -> dict[str, Value]:
    """`kwargs` as the ops' schemas name them: `inplace=` dropped where no overload takes it
    (`F.relu(x, inplace=True)` computes out of place, as scripts always do), `memory_format=`
    where no overload takes its int code (a layout: the values are the same), Python
    spellings renamed (KEYWORD_SPELLINGS)."""
    renamed: dict[str, Value] = {}
    for keyword, value in kwargs.items():
        if keyword == "memory_format" and not any(takes_int(c, keyword) for c in candidates):
            continue  # `x.to(t, memory_format=...)`: a layout, the same values
        if any(accepts(c, keyword) for c in candidates):
            renamed[keyword] = value
        elif keyword in KEYWORD_SPELLINGS:
            renamed[KEYWORD_SPELLINGS[keyword]] = value
        elif keyword != "inplace":
            renamed[keyword] = value  # the binding reports it
    return renamed
