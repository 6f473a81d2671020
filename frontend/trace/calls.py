"""Tracing through compiled programs: a scripted function, method or module called on traced
tensors is recorded as a `func.call` of a copy of its graph, so its control flow survives in
the trace (mixing script into trace). It also runs, compiled, to give the program its values.
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np
from xdsl.dialects import func
from xdsl.ir import Attribute

from frontend.torch.interception import installed
from frontend.torch.tensor import Tensor

NOT_RECORDED = object()


def tracing_active() -> bool:
    """Cheap test, for every compiled call: is any interceptor installed in this thread?"""
    return installed() is not None


def record_compiled_call(function: Any, args: tuple[Any, ...]) -> Any:
    """Run `function` on `args` and, if a trace is recording and reads traced tensors among
    them, record the call; NOT_RECORDED when there is nothing to record."""
    from frontend.trace.recorder import Recorder
    from frontend.trace.torch_tensors import _link, _to_frontend

    recorder = installed()
    if not isinstance(recorder, Recorder):
        return NOT_RECORDED
    torch_tensor = getattr(sys.modules.get("torch"), "Tensor", None)
    torch_mode = torch_tensor is not None and any(isinstance(a, torch_tensor) for a in args)
    mirrors = list(_to_frontend(args, recorder)) if torch_mode else list(args)
    if not recorder.is_traced(mirrors):
        return NOT_RECORDED
    values = [m.numpy() if isinstance(m, Tensor) else m for m in mirrors]
    out = function(*values)  # plain arrays: not traced, so this runs compiled
    outputs = list(out) if isinstance(out, tuple) else [out]
    operands = [recorder.operand(m) for m in mirrors]
    entry = import_callees(recorder, function, [o.type for o in operands])
    call = recorder.builder.insert(
        func.CallOp(entry.sym_name.data, operands, list(entry.function_type.outputs.data))
    )
    results = [Tensor.wrap(np.asarray(o)) for o in outputs]
    for value, tensor in zip(call.results, results):
        recorder.traced[id(tensor)] = (tensor, value)
    mirrored = tuple(results) if isinstance(out, tuple) else results[0]
    if not torch_mode:
        return mirrored
    import torch

    torch_out = tuple(torch.from_numpy(np.asarray(o)) for o in outputs)
    return _link(torch_out if isinstance(out, tuple) else torch_out[0], mirrored, recorder)


def import_callees(recorder: Any, function: Any, operand_types: list[Attribute]) -> func.FuncOp:
    """Copies of `function`'s IR functions for the trace (fresh names, the entry's argument
    types equal to the operands'); the entry copy."""
    from frontend.script.calls import forget_shapes, renamed_copies

    callees: list[func.FuncOp] = recorder.__dict__.setdefault("callees", [])
    taken = {f.sym_name.data for f in callees}
    copies, entry = renamed_copies(function.module, function.name, taken)
    for op in copies:
        forget_shapes(op, operand_types if op is entry else None)
    callees.extend(copies)
    return entry
