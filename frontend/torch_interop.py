"""PyTorch's graph capture into tsjit: `from_torch_export` and the `torch.compile` backend.

- `from_torch_export(exported_program)` reads a `torch.export` program's FX graph of ATen ops
  (`torch.ops.aten.linear.default`, ...) node by node into the torch dialect: each ATen overload
  is the registry op of the same name (`torch.aten.linear`, `torch.aten.add.Tensor`), bound by
  its schema, or a composition of ops (`frontend/ir/aten_aliases.py`: `aten.convolution`);
  in-place and `out=` overloads give their tensor the result, in its dtype; parameters and
  buffers become `torch.vtensor.literal`s; the user inputs become the function's arguments.
  An ATen op tsjit lacks is an error naming it.
- `compile_backend(graph_module, example_inputs)` is a `torch.compile` backend: it traces the
  FX graph TorchDynamo hands over (torch-level calls) with `frontend.trace` and returns the
  compiled function, which returns what the graph returns.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import FunctionType, ModuleOp
from xdsl.ir import Block, Region, SSAValue

from dialects.torch.dtypes import BFLOAT16, dtype_of_numpy
from dialects.torch.ops.casts import AtenCastBFloat16Op
from dialects.torch.ops.prim import ConstantBoolOp, ValueTensorLiteralOp
from dialects.torch.registry import BY_PY_NAME
from dialects.torch.types import DYN, ValueTensorType
from frontend.export_compositions import recorded_composition
from frontend.function import ScriptFunction
from frontend.ir.aten_namespace import (
    ResolvedOps,
    aten_target,
    functional_composition,
    missing_message,
    named_arguments,
    overload_ops,
)
from frontend.ir.builder import IRBuilder
from frontend.run.half_values import HalfCarrier, from_torch


class ExportError(TypeError):
    """A `torch.export` program tsjit cannot import."""


def from_torch_export(program: Any, name: str = "forward") -> ScriptFunction:
    """The exported program as a ScriptFunction taking the program's user inputs."""
    graph = program.graph_module.graph
    constants = _constants(program)
    placeholders = [n for n in graph.nodes if n.op == "placeholder"]
    user = [n for n in placeholders if n.name not in constants]
    block = Block(arg_types=[_tensor_type(n) for n in user])
    builder = IRBuilder(block)
    values: dict[Any, Any] = {}
    for node, arg in zip(user, block.args):
        arg.name_hint = node.name
        values[node] = arg
    for node in placeholders:
        if node.name in constants:
            values[node] = _constant(builder, constants[node.name], node.name)
    results: list[SSAValue] = []
    for node in graph.nodes:
        if node.op == "call_function":
            values[node] = _call(builder, node, values)
        elif node.op == "output":
            results = [_lookup(values, v) for v in _flat(node.args[0])]
        elif node.op not in ("placeholder",):
            raise ExportError(f"from_torch_export: unsupported FX node kind {node.op!r}")
    block.add_op(func.ReturnOp(*results))
    ftype = FunctionType.from_lists([a.type for a in block.args], [r.type for r in results])
    module = ModuleOp([func.FuncOp(name, ftype, Region(block))])
    module.verify()
    function = ScriptFunction(module, name)
    if len(results) > 1:
        function.result_structure = tuple(None for _ in results)
    return function


def _constants(program: Any) -> dict[str, np.ndarray]:
    """Placeholder name -> array for the program's parameters, buffers and constants."""
    signature = program.graph_signature
    sources = {
        **signature.inputs_to_parameters,
        **signature.inputs_to_buffers,
        **getattr(signature, "inputs_to_lifted_tensor_constants", {}),
    }
    tables = {**program.state_dict, **getattr(program, "constants", {})}
    return {node: _array_of(tables[target]) for node, target in sources.items()}


def _constant(builder: IRBuilder, array: Any, name: str) -> SSAValue:
    """A weight as a literal; a bfloat16 one as its float32 literal cast to bfloat16 (exact)."""
    literal = builder.insert(ValueTensorLiteralOp(array))
    literal.results[0].name_hint = name
    if not isinstance(array, HalfCarrier):
        return literal.results[0]
    flag = builder.insert(ConstantBoolOp(False))
    cast = builder.insert(AtenCastBFloat16Op.build([literal.results[0], flag.results[0]]))
    cast.results[0].name_hint = name
    return cast.results[0]


def _array_of(tensor: Any) -> Any:
    """A weight's numpy array (a bfloat16 one: its float32 carrier)."""
    if str(tensor.dtype) == "torch.bfloat16":
        return from_torch(tensor)
    return tensor.detach().numpy()


def _tensor_type(node: Any) -> ValueTensorType:
    value = node.meta.get("val")
    if value is None or not hasattr(value, "shape"):
        raise ExportError(f"from_torch_export: input {node.name!r} is not a tensor")
    name = str(value.dtype).removeprefix("torch.")
    dtype = BFLOAT16 if name == BFLOAT16.name else dtype_of_numpy(np.dtype(name))
    return ValueTensorType([1 if d == 1 else DYN for d in value.shape], dtype)


def _call(builder: IRBuilder, node: Any, values: dict[Any, Any]) -> Any:
    target = node.target
    args = [_lookup(values, a) for a in node.args]
    kwargs = {k: _lookup(values, v) for k, v in node.kwargs.items()}
    if target is operator.getitem:
        return args[0][args[1]]
    aten = aten_target(target)
    if aten is None:
        raise ExportError(f"from_torch_export: cannot import a call of {target!r}")
    destination = kwargs.pop("out", None) if aten.writes_out else None
    ops = overload_ops(aten)
    if ops:
        results = builder.call(ResolvedOps(ops), args, kwargs)
        result: Any = results[0] if len(results) == 1 else list(results)
    else:
        composition = functional_composition(aten)
        if composition is None:
            raise ExportError(f"from_torch_export: {missing_message(aten)} (from {target})")
        shapes = {values[n]: _example_shape(n) for n in node.all_input_nodes if n in values}
        arguments = named_arguments(aten, args, kwargs)
        result = recorded_composition(builder, composition, arguments, shapes)
    written = node.args[0] if aten.in_place else node.kwargs.get("out") if destination else None
    if written is not None:  # `add_` / `out=`: later uses of the tensor see the result
        result = _in_dtype_of(builder, result, values[written])
        values[written] = result
    return result


def _example_shape(node: Any) -> tuple[int, ...]:
    """The example sizes of a tensor node (a symbolic size: its hint)."""
    value = node.meta.get("val")
    sizes = getattr(value, "shape", ())
    return tuple(int(getattr(getattr(d, "node", None), "hint", d)) for d in sizes)


def _in_dtype_of(builder: IRBuilder, value: SSAValue, destination: SSAValue) -> SSAValue:
    """`value` converted to `destination`'s dtype (an in-place op keeps its tensor's)."""
    if value.type.element == destination.type.element:  # type: ignore[attr-defined]
        return value
    return builder.call(BY_PY_NAME["Tensor.type_as"], [value, destination], {})[0]


def _lookup(values: dict[Any, Any], value: Any) -> Any:
    if isinstance(value, list | tuple):
        return type(value)(_lookup(values, v) for v in value)
    if not _is_node(value):
        return value
    if value not in values:
        raise ExportError(f"from_torch_export: {value} is used before it is defined")
    return values[value]


def _is_node(value: Any) -> bool:
    return type(value).__name__ == "Node"


def _flat(outputs: Any) -> list[Any]:
    return list(outputs) if isinstance(outputs, list | tuple) else [outputs]


def compile_backend(graph_module: Any, example_inputs: list[Any]) -> Callable[..., Any]:
    """A `torch.compile(model, backend=frontend.compile_backend)` backend.

    With dynamic shapes (`dynamic=True`, or dynamo's automatic dynamic after a recompile) the
    graph also takes the symbolic sizes as `SymInt` inputs. The trace has every size open
    (`?`) already, so one trace serves every batch size: the size inputs are dropped, unless
    the graph computes with them, in which case there is one trace per value of the sizes.
    """
    sizes = [i for i, x in enumerate(example_inputs) if _is_sym_int(x)]
    computes_with_sizes = _placeholders_used(graph_module, sizes)
    single = not _returns_a_tuple(graph_module)
    traces: dict[tuple[int, ...], Any] = {}

    def traced_for(args: tuple[Any, ...]) -> Any:
        values = tuple(int(args[i]) for i in sizes) if computes_with_sizes else ()
        if values not in traces:
            traces[values] = _trace_graph(graph_module, args, sizes)
        return traces[values]

    def run(*args: Any) -> Any:
        tensors = [a for i, a in enumerate(args) if i not in sizes]
        out = traced_for(args)(*tensors)
        if single:
            return out
        return out if isinstance(out, tuple) else (out,)

    traced_for(tuple(_concrete(x) for x in example_inputs))  # trace now, as dynamo expects
    return run


def _is_sym_int(value: Any) -> bool:
    return type(value).__name__ == "SymInt"


def _concrete(value: Any) -> Any:
    """A SymInt example input as the int it stands for in this compile (its hint)."""
    if not _is_sym_int(value):
        return value
    hint = getattr(value.node, "hint", None)
    return int(hint if hint is not None else value)


def _placeholders_used(graph_module: Any, positions: list[int]) -> bool:
    placeholders = [n for n in graph_module.graph.nodes if n.op == "placeholder"]
    return any(placeholders[i].users for i in positions)


def _returns_a_tuple(graph_module: Any) -> bool:
    output = next(n for n in graph_module.graph.nodes if n.op == "output")
    return isinstance(output.args[0], tuple | list)


def _trace_graph(graph_module: Any, args: tuple[Any, ...], sizes: list[int]) -> Any:
    """A trace of the graph over its tensor inputs, the size inputs fixed to their values in
    `args` (they matter only when the graph computes with them)."""
    from frontend.trace.tracer import trace

    fixed = {i: int(args[i]) for i in sizes}

    def graph_of_tensors(*tensors: Any) -> Any:
        items = iter(tensors)
        return graph_module(*[fixed[i] if i in fixed else next(items) for i in range(len(args))])

    tensors = tuple(a for i, a in enumerate(args) if i not in fixed)
    return trace(graph_of_tensors, tensors, check_trace=False)
