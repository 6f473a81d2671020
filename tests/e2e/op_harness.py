"""Builds a one-op program for a registry op and a sample, and runs it compiled and eagerly."""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import FunctionType, ModuleOp
from xdsl.ir import Block, Region

from dialects.torch.op_base import Sample, TorchOp
from dialects.torch.op_base import T as TensorSample
from dialects.torch.ops.prim import PrimListUnpackOp
from dialects.torch.types import ValueTensorType
from frontend.function import ScriptFunction
from frontend.ir.binding import DEFAULT, bind
from frontend.ir.builder import IRBuilder
from frontend.torch.ops import eager_kind

TOLERANCES = {
    np.dtype(np.float32): {"rtol": 1e-5, "atol": 1e-6},
    np.dtype(np.float64): {"rtol": 1e-12, "atol": 1e-12},
}


def sample_inputs(sample: Sample, seed: int = 0) -> tuple[list[Any], dict[str, Any]]:
    """Random arrays for the sample's tensors, also inside lists (`Tensor[]` arguments)."""
    rng = np.random.default_rng(seed)
    args, kwargs = sample.make_inputs(rng)

    def make(value: Any) -> Any:
        if isinstance(value, list) and any(isinstance(v, TensorSample) for v in value):
            return Sample(*value).make_inputs(rng)[0]
        return value

    return [make(a) for a in args], {k: make(v) for k, v in kwargs.items()}


def bound_arguments(op: type[TorchOp], args: list[Any], kwargs: dict[str, Any]) -> list[Any]:
    _, _, values = bind([op], args, kwargs, eager_kind)
    return [v.value if isinstance(v, DEFAULT) else v for v in values]


def one_op_function(
    op: type[TorchOp], values: list[Any], unpack: int | None = None
) -> ScriptFunction:
    """`func @f(tensors...)` calling `op` once. Arrays (also inside lists) become arguments,
    other values constants; a list result is unpacked into `unpack` results."""
    tensor_types = [ValueTensorType(None, None) for _ in arrays_of(values)]
    block = Block(arg_types=tensor_types)
    tensors = iter(block.args)
    builder = IRBuilder(block)

    def operand(value: Any) -> Any:
        if isinstance(value, np.ndarray):
            return next(tensors)
        if isinstance(value, list) and any(isinstance(v, np.ndarray) for v in value):
            return builder.list_of([next(tensors) for _ in value])
        return builder.materialize(value)

    operands = [operand(v) for v in values]
    for i, arg in enumerate(block.args):
        arg.name_hint = f"t{i}"
    new_op = builder.insert(op.build(operands))
    results = list(new_op.results)
    if unpack is not None:
        results = list(builder.insert(PrimListUnpackOp(results[0], unpack)).results)
    block.add_op(func.ReturnOp(*results))
    ftype = FunctionType.from_lists(tensor_types, [r.type for r in results])
    module = ModuleOp([func.FuncOp("f", ftype, Region(block))])
    return ScriptFunction(module, "f")


def arrays_of(values: list[Any]) -> list[np.ndarray]:
    """The arrays among `values` and inside its lists, in order: the function's arguments."""
    flat = [v for value in values for v in (value if isinstance(value, list) else [value])]
    return [v for v in flat if isinstance(v, np.ndarray)]


def run_compiled(op: type[TorchOp], values: list[Any], unpack: int | None = None) -> Any:
    fn = one_op_function(op, values, unpack)
    return fn(*arrays_of(values))


def assert_same(actual: Any, expected: Any) -> None:
    actual_t = tuple(actual) if isinstance(actual, tuple | list) else (actual,)
    expected_t = tuple(expected) if isinstance(expected, tuple | list) else (expected,)
    assert len(actual_t) == len(expected_t)
    for a, e in zip(actual_t, expected_t):
        a, e = np.asarray(a), np.asarray(e)
        assert a.dtype == e.dtype, f"dtype {a.dtype} != expected {e.dtype}"
        assert a.shape == e.shape, f"shape {a.shape} != expected {e.shape}"
        np.testing.assert_allclose(a, e, **TOLERANCES.get(e.dtype, {"rtol": 0, "atol": 0}))


def all_cases(ops: tuple[type[TorchOp], ...]) -> list[tuple[type[TorchOp], int, Sample]]:
    return [(op, i, s) for op in ops for i, s in enumerate(op.SAMPLES)]


__all__ = ["TensorSample"]
