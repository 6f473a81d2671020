"""Programs and inputs shared by the interpreter and pass tests: every op sample as a one-op
function, and the scripted control-flow programs of tests/e2e with their inputs."""

from __future__ import annotations

import sys
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Attribute

sys.path.insert(0, str(Path(__file__).parents[1] / "e2e"))

import op_harness  # noqa: E402
import test_script_control_flow as control_flow  # noqa: E402

import frontend  # noqa: E402
from dialects.torch.dtypes import dtype_of_numpy  # noqa: E402
from dialects.torch.op_base import Sample, TorchOp  # noqa: E402
from dialects.torch.registry import ATEN_OPS  # noqa: E402
from dialects.torch.types import DYN, BoolType, FloatType, IntType, ValueTensorType  # noqa: E402
from lowering.signature import format_signature  # noqa: E402

Program = Callable[..., Any]
CONTROL_FLOW_CASES: list[tuple[Program, list[tuple[Any, ...]]]] = control_flow.CASES
OP_CASES = op_harness.all_cases(ATEN_OPS)
OP_IDS = [f"{op.name.removeprefix('torch.')}-{i}" for op, i, _ in OP_CASES]
assert_same_values = control_flow.assert_same  # rtol/atol 1e-5, tuples element by element
assert_same_typed = op_harness.assert_same  # also dtype and shape, per-dtype tolerances


def signature_of(values: list[Any], exact: bool = True) -> str:
    """The call signature of `values`: tensors with their shapes (or `?` dims), scalar kinds."""
    types: list[Attribute] = []
    for value in values:
        if isinstance(value, np.ndarray):
            dims = value.shape if exact else [1 if d == 1 else DYN for d in value.shape]
            types.append(ValueTensorType(list(dims), dtype_of_numpy(value.dtype)))
        elif isinstance(value, bool):
            types.append(BoolType())
        else:
            types.append(IntType() if isinstance(value, int) else FloatType())
    return format_signature(types)


def arrays_of(values: list[Any]) -> list[np.ndarray]:
    """The arrays among `values` and inside its lists: the arguments of a one-op function."""
    flat = [v for value in values for v in (value if isinstance(value, list) else [value])]
    return [v for v in flat if isinstance(v, np.ndarray)]


def one_op_case(op: type[TorchOp], sample: Sample) -> tuple[ModuleOp, list[Any], Any]:
    """(module with `@f` calling `op` once, the arguments of `@f`, the eager result)."""
    args, kwargs = op_harness.sample_inputs(sample)
    values = op_harness.bound_arguments(op, args, kwargs)
    function = op_harness.one_op_function(op, values)
    return function.module, arrays_of(values), op.run_eager(*values)


@cache
def scripted(fn: Program) -> frontend.ScriptFunction:
    return frontend.script(fn)
