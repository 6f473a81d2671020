"""A composition of ops (`frontend/ir/aten_aliases.py`) emitted into an IR block whose
arguments are SSA values (`from_torch_export`'s graph): it runs on stand-in tensors of the
values' ranks and dtypes under a trace recorder writing into that block, so each op it calls
is recorded with the SSA values as operands. Compositions decide by ranks, dtypes and Python
constants only, never by tensor values, so the stand-ins' zeros change nothing."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from xdsl.ir import SSAValue

from dialects.torch.types import ValueTensorType
from frontend.ir.builder import IRBuilder
from frontend.torch.interception import intercepting
from frontend.torch.tensor import Tensor
from frontend.trace.recorder import Recorder


def recorded_composition(
    builder: IRBuilder, composition: Callable[..., Any], arguments: dict[str, Any],
    shapes: dict[SSAValue, tuple[int, ...]],
) -> Any:  # fmt: skip
    """The SSA result(s) of `composition(**arguments)`, its ops appended to `builder`'s block
    (arguments: SSA values, Python constants and lists of them; `shapes`: example sizes of
    the tensor values, which the stand-ins take)."""
    recorder = Recorder()
    recorder.block = builder.block
    recorder.builder = builder
    stand_ins = {k: _stand_in(v, recorder, shapes) for k, v in arguments.items()}
    with intercepting(recorder):
        out = composition(**stand_ins)
    if isinstance(out, tuple | list):
        return [recorder.value_of(t) for t in out]
    return recorder.value_of(out)


def _stand_in(value: Any, recorder: Recorder, shapes: dict[SSAValue, tuple[int, ...]]) -> Any:
    if isinstance(value, list | tuple):
        return type(value)(_stand_in(v, recorder, shapes) for v in value)
    if not isinstance(value, SSAValue):
        return value
    typ = value.type
    if not isinstance(typ, ValueTensorType):
        raise TypeError(f"a composition takes tensors and constants, not {typ}")
    if typ.element is None or value not in shapes:
        raise TypeError(f"a composition needs the example shape and dtype of {typ}")
    tensor = Tensor.wrap(np.zeros(shapes[value], dtype=typ.element.numpy))
    recorder.traced[id(tensor)] = (tensor, value)
    return tensor
