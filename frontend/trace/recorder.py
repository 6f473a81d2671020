"""Records the ops run on traced tensors into one torch-dialect function body.

The recorder is the `Interceptor` that `frontend.torch.dispatch` calls while a trace runs: it
runs each op eagerly (the values keep flowing through the user's Python) and, when an
argument is a traced tensor, appends the same op to the block. Tensors it has not seen are
constants: their values become `torch.vtensor.literal`s (named after the module parameter
they are, if any). Values that leave the graph (a tensor turned into a Python bool, a row
iteration, a numpy array) are reported with the user's source line.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from xdsl.ir import Block, Operation, SSAValue

from dialects.torch.dtypes import DType, dtype_of_numpy
from dialects.torch.ops.prim import PrimListUnpackOp, ValueTensorLiteralOp
from dialects.torch.types import DYN, ListType, ValueTensorType
from frontend.ir.builder import IRBuilder
from frontend.torch.dispatch import Candidates, bind_call, run_bound
from frontend.torch.interception import Interceptor
from frontend.torch.tensor import Tensor
from frontend.trace.errors import SourceLine, TraceError, report, user_line

_CONSTANT_ADVICE = (
    " might cause the trace to be incorrect. We can't record the data flow of Python values, so "
    "this value will be treated as a constant in the future. This means that the trace might "
    "not generalize to other inputs!"
)
CONVERSION_MESSAGES = {
    "a Python int (len)": "Using len to get tensor shape might cause the trace to be incorrect. "
    "Recommended usage would be tensor.shape[0]. Passing a tensor of different shape might lead "
    "to errors or silently give incorrect results.",
    "an iterator (one row per step)": "Iterating over a tensor might cause the trace to be "
    "incorrect. Passing a tensor of different shape won't change the number of iterations "
    "executed (and might lead to errors or silently give incorrect results).",
}


def conversion_message(target: str) -> str:
    return CONVERSION_MESSAGES.get(target, f"Converting a tensor to {target}{_CONSTANT_ADVICE}")


class Recorder(Interceptor):
    """Builds the body of the traced function while the program runs (see module docstring)."""

    def __init__(self, strict: bool = False, names: dict[int, str] | None = None) -> None:
        self.block = Block()
        self.builder = IRBuilder(self.block)
        self.strict = strict
        self.names = names or {}
        # id(tensor) -> (tensor, value); the tensor is kept alive so that its id stays unique
        self.traced: dict[int, tuple[Any, SSAValue]] = {}
        self.constants: dict[int, tuple[Any, SSAValue]] = {}
        self.lines: dict[Operation, SourceLine | None] = {}
        # id(torch tensor) -> (it, its frontend.torch mirror), for programs using real PyTorch
        self.mirrors: dict[int, tuple[Any, Tensor]] = {}
        self.inputs: list[Tensor] = []  # the traced inputs, in argument order
        # values PyTorch computed for recorded results (programs using real PyTorch)
        self.observed: dict[SSAValue, np.ndarray] = {}  # type: ignore[type-arg]
        # where the program first read an open (`?`) size as a Python int: the recorded ops
        # may hold it as a constant, so the trace is good for the example's shapes only
        self.size_read: SourceLine | None = None
        self.reads_sizes = False

    # ---- what is traced ----

    def add_input(self, tensor: Tensor, name: str) -> SSAValue:
        """A function argument: the example's rank and dtype, every size left open (`?`), so
        that other sizes run the same trace (sizes the trace baked in are checked per call)."""
        values = tensor.numpy()
        typ = ValueTensorType([DYN] * values.ndim, dtype_of_numpy(values.dtype))
        arg = self.block.insert_arg(typ, len(self.block.args))
        arg.name_hint = name
        self.traced[id(tensor)] = (tensor, arg)
        self.inputs.append(tensor)
        return arg

    def is_traced(self, value: Any) -> bool:
        if isinstance(value, list | tuple):
            return any(self.is_traced(v) for v in value)
        return id(value) in self.traced and self.traced[id(value)][0] is value

    def value_of(self, tensor: Any) -> SSAValue:
        """The SSA value of a traced tensor, or the literal of a constant one."""
        if self.is_traced(tensor):
            return self.traced[id(tensor)][1]
        return self.constant(tensor)

    def constant(self, tensor: Any) -> SSAValue:
        known = self.constants.get(id(tensor))
        if known is not None and known[0] is tensor:
            return known[1]
        values = tensor.numpy() if isinstance(tensor, Tensor) else np.asarray(tensor)
        literal = self.builder.insert(ValueTensorLiteralOp(values))
        name = self.names.get(id(tensor))
        if name is not None:
            literal.results[0].name_hint = name
        self.constants[id(tensor)] = (tensor, literal.results[0])
        return literal.results[0]

    def operand(self, value: Any) -> SSAValue:
        """An op argument as IR: traced tensors, literals, constants, lists of them."""
        if isinstance(value, Tensor | np.ndarray):
            return self.value_of(value)
        is_list = isinstance(value, list | tuple)
        if is_list and any(isinstance(v, Tensor | np.ndarray) for v in value):
            return self.builder.list_of([self.operand(v) for v in value])
        if isinstance(value, DType):
            return self.builder.materialize(value.scalar_type)
        if isinstance(value, list | tuple):
            return self.builder.materialize([v if isinstance(v, float) else int(v) for v in value])
        return self.builder.materialize(value)

    # ---- the interceptor hooks ----

    def dispatch(self, candidates: Candidates, args: Sequence[Any], kwargs: dict[str, Any]) -> Any:
        call = bind_call(candidates, args, kwargs)
        result = run_bound(call)
        if not any(self.is_traced(v) for v in call.values) or not _tensors_in(result):
            return result
        operands = [
            self.operand([v] if a.type.startswith("int[") and isinstance(v, int) else v)
            for a, v in zip(call.arguments, call.values)
        ]
        op = call.op.build(operands)
        self.builder.insert(op)
        self.lines[op] = user_line()
        self._bind_results(op, result)
        return result

    def _bind_results(self, op: Operation, result: Any) -> None:
        results: list[SSAValue] = list(op.results)
        outputs = _tensors_in(result)
        if len(results) == 1 and isinstance(results[0].type, ListType):
            unpack = self.builder.insert(PrimListUnpackOp(results[0], len(outputs)))
            results = list(unpack.results)
        if len(results) != len(outputs):
            raise TraceError(f"{op.name}: the eager reference gave {len(outputs)} tensors for "
                             f"{len(results)} results")  # fmt: skip
        for value, tensor in zip(results, outputs):
            self.traced[id(tensor)] = (tensor, value)

    def converting(self, tensor: Any, target: str) -> None:
        if self.is_traced(tensor):
            report(conversion_message(target), self.strict)

    def aliased(self, new: Any, source: Any) -> None:
        if self.is_traced(source):
            self.traced[id(new)] = (new, self.traced[id(source)][1])

    def updated(self, tensor: Any, value: Any) -> None:
        if self.is_traced(value):
            self.traced[id(tensor)] = (tensor, self.traced[id(value)][1])
        else:
            self.traced.pop(id(tensor), None)
            self.constants.pop(id(tensor), None)

    def reading_size(self, tensor: Any, dim: int | None) -> None:
        if self.reads_sizes or not self.is_traced(tensor):
            return
        sizes = self.traced[id(tensor)][1].type.sizes  # type: ignore[attr-defined]
        read = sizes if dim is None or sizes is None else [sizes[dim]]
        if read is None or DYN in read:
            self.reads_sizes = True
            self.size_read = user_line()

    def mutating(self, tensor: Any, how: str) -> None:
        if self.is_traced(tensor):
            raise TraceError(
                f"{user_line()}: {how} on a traced tensor cannot be recorded; "
                "compute the new tensor with ops instead"
            )
        self.constants.pop(id(tensor), None)  # its values change: a later use is a new literal


def _tensors_in(value: Any) -> list[Any]:
    if isinstance(value, Tensor):
        return [value]
    if isinstance(value, list | tuple):
        return [t for v in value for t in _tensors_in(v)]
    return []
