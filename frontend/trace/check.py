"""`check_trace`: does the traced graph still describe the Python function on other inputs?

For each set of check inputs the function is traced again and the two graphs are compared
op by op: the first op that differs (another op, other constants: a branch or a Python value
that the first trace baked in) raises `TracingCheckError` naming both source lines, as
`torch.jit.trace` does. Then the compiled traced function runs on the inputs and its outputs
are compared with the Python function's; a mismatch warns (`TracerWarning`) naming the output.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import BlockArgument, Operation, SSAValue

from dialects.torch.interpreter import TorchInterpreter
from dialects.torch.op_base import ConstantLikeOp
from frontend.function import ScriptFunction
from frontend.torch.tensor import Tensor
from frontend.trace.errors import TracerWarning, TracingCheckError, report

TOLERANCE = {"rtol": 1e-5, "atol": 1e-5}


def check(
    traced: ScriptFunction,
    fn: Callable[..., Any],
    check_inputs: Sequence[tuple[Any, ...]],
    strict: bool,
    trace_function: Callable[..., ScriptFunction],
    names: dict[int, str] | None = None,
) -> None:
    """Raise TracingCheckError if a retrace differs; warn if outputs differ (see module doc).
    `trace_function(fn, name, inputs, names=...)` traces `fn` again (the tracer's own)."""
    for inputs in check_inputs:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", TracerWarning)  # already reported by the first trace
            again = trace_function(fn, traced.name, _copies(inputs), names=names)
        compare_graphs(traced, again)
        expected = fn(*_copies(inputs))
        actual = traced(*[_callable_argument(x) for x in inputs])
        compare_outputs(actual, expected, again, inputs, strict)


# ---- graphs ----


def _operand_key(value: SSAValue, numbering: dict[SSAValue, int]) -> Any:
    """A constant by its value, an argument by its position, a result by its op's position."""
    owner = value.owner
    if isinstance(owner, ConstantLikeOp):
        python = owner.python_value()
        return ("constant", python.tobytes() if isinstance(python, np.ndarray) else repr(python))
    if isinstance(value, BlockArgument):
        return ("argument", value.index)
    return ("result", numbering.get(owner, -1), value.index)  # type: ignore[arg-type]


def op_keys(function: ScriptFunction) -> list[tuple[Operation, tuple[Any, ...]]]:
    """Each non-constant op with what must agree between two traces: its name, result types
    and operands (constants by value)."""
    block = _body(function.module)
    numbering: dict[Any, int] = {}
    keys = []
    for op in block.ops:
        if isinstance(op, ConstantLikeOp):
            continue  # compared as operands, by value
        numbering[op] = len(keys)
        operands = tuple(_operand_key(v, numbering) for v in op.operands)
        keys.append((op, (op.name, tuple(str(r.type) for r in op.results), operands)))
    return keys


def _body(module: ModuleOp) -> Any:
    return next(iter(module.ops)).regions[0].block


def compare_graphs(first: ScriptFunction, again: ScriptFunction) -> None:
    """TracingCheckError at the first op where the two traces differ."""
    a, b = op_keys(first), op_keys(again)
    (return_a, returned_a), (_, returned_b) = a.pop(), b.pop()
    for (op_a, key_a), (op_b, key_b) in zip(a, b):
        if key_a != key_b:
            raise TracingCheckError(
                "Tracing failed sanity checks! Graphs differed across invocations: the first "
                f"trace ran `{_describe(op_a)}` (at {_line(first, op_a)}), the check inputs ran "
                f"`{_describe(op_b)}` (at {_line(again, op_b)}). The function's control flow "
                "or Python values depend on the inputs: script it, or mix script and trace."
            )
    if len(a) != len(b):
        longer, function = (a, first) if len(a) > len(b) else (b, again)
        op = longer[min(len(a), len(b))][0]
        raise TracingCheckError(
            "Tracing failed sanity checks! Graphs differed across invocations: one trace has "
            f"more ops, starting with `{_describe(op)}` (at {_line(function, op)})."
        )
    if returned_a != returned_b:
        raise TracingCheckError(
            "Tracing failed sanity checks! Graphs differed across invocations: they return "
            f"different values (the first trace: `{_describe(return_a)}`)."
        )


def _describe(op: Operation) -> str:
    """`torch.aten.rsub.Scalar(%x, 2.0, 1)`: the op with its constant operands' values."""
    return f"{op.name}({', '.join(_operand_text(v) for v in op.operands)})"


def _operand_text(value: SSAValue) -> str:
    owner = value.owner
    if isinstance(owner, ConstantLikeOp) and not isinstance(owner.python_value(), np.ndarray):
        return repr(owner.python_value())
    if value.name_hint:
        return f"%{value.name_hint}"
    return f"%<{owner.name.removeprefix('torch.aten.')}>" if isinstance(owner, Operation) else "%?"


def _line(function: ScriptFunction, op: Operation) -> str:
    recorder = getattr(function, "trace_recorder", None)
    line = recorder.lines.get(op) if recorder is not None else None
    return str(line) if line is not None else "an unknown line"


# ---- outputs ----


def compare_outputs(
    actual: Any, expected: Any, again: ScriptFunction, inputs: tuple[Any, ...], strict: bool
) -> None:
    """Warn (or raise, if strict) for each output of the compiled trace that differs."""
    actual_items, expected_items = _leaves(actual), _leaves(expected)
    for index, (a, e) in enumerate(zip(actual_items, expected_items, strict=True)):
        a_values, e_values = _numpy(a), _numpy(e)
        if a_values.shape == e_values.shape and np.allclose(
            a_values, e_values, equal_nan=True, **TOLERANCE
        ):
            continue
        report(
            f"Output nr {index + 1}. of the traced function @{again.name} does not match the "
            f"corresponding output of the Python function: {_difference(a_values, e_values)}. "
            + first_divergence(again, inputs),
            strict,
        )


def first_divergence(traced: ScriptFunction, inputs: tuple[Any, ...]) -> str:
    """Runs the graph op by op with the eager references and compares each value with what
    PyTorch computed while tracing: names the first op that differs."""
    recorder = getattr(traced, "trace_recorder", None)
    observed = recorder.observed if recorder is not None else {}
    block = _body(traced.module)
    interpreter = TorchInterpreter(traced.module)
    env: dict[SSAValue, Any] = dict(zip(block.args, [_numpy(x) for x in inputs]))
    for op in block.ops:
        if op is block.last_op:
            break
        env.update(zip(op.results, interpreter.run_op(op, env)))
        for result in op.results:
            seen = observed.get(result)
            if seen is None or np.allclose(env[result], seen, equal_nan=True, **TOLERANCE):
                continue
            return (
                f"The first op whose value differs from PyTorch's is `{_describe(op)}` (at "
                f"{_line(traced, op)}): {_difference(env[result], seen)}."
            )
    if observed:
        return "Every op of the graph matches PyTorch's values: the compiled code differs."
    return "The graph, run op by op with the eager references, matches: the compiled code differs."


def _difference(actual: Any, expected: Any) -> str:
    actual, expected = np.asarray(actual), np.asarray(expected)
    if actual.shape != expected.shape:
        return f"shape {list(actual.shape)} instead of {list(expected.shape)}"
    error = np.abs(actual.astype(np.float64) - expected.astype(np.float64))
    return f"largest absolute difference {np.nanmax(error):.3g}"


def _leaves(value: Any) -> list[Any]:
    """The outputs in order, nested tuples flattened (`(out, (h, c))`)."""
    if isinstance(value, tuple | list):
        return [leaf for item in value for leaf in _leaves(item)]
    return [value]


def _numpy(value: Any) -> np.ndarray:  # type: ignore[type-arg]
    if isinstance(value, Tensor):
        return value.numpy()
    detach = getattr(value, "detach", None)
    if detach is not None:
        return detach().numpy()
    return np.asarray(value)


def _copies(inputs: tuple[Any, ...]) -> tuple[Any, ...]:
    """Fresh input objects, so a run cannot change the inputs the next run sees."""
    out = []
    for x in inputs:
        if isinstance(x, Tensor):
            out.append(Tensor.wrap(x.numpy().copy()))
        elif isinstance(x, np.ndarray):
            out.append(x.copy())
        else:
            clone = getattr(x, "clone", None)
            out.append(clone() if clone is not None else x)
    return tuple(out)


def _callable_argument(value: Any) -> Any:
    """What the compiled function takes: numpy arrays for frontend.torch tensors."""
    return value.numpy() if isinstance(value, Tensor) else value
