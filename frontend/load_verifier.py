"""What the IR of a loaded file may hold: only what `save` writes (an allow-list).

`save` writes each method's torch-stage IR: a `builtin.module` of `func.func` definitions
whose bodies hold torch dialect ops (ATen ops, constants, literals, lists and tuples,
`prim.If` / `prim.Loop` and their terminators, `prim.RaiseException`), registered custom
ops, and `func.call` / `func.return`. Its types and attributes are the torch types and the
few builtin ones those ops carry. So a file is parsed in a context that knows only the
builtin, func and torch dialects (`load_context`), and then `verify_loaded` walks the IR and
refuses, with a `LoadError` naming it:
- any op whose class is not in `allowed_ops` (memref, arith, scf, linalg, ... never parse;
  `torch.prim.PythonCall`, which `save` refuses to write, and custom ops the manifest does
  not list are refused here), and ops in the wrong place (a `func.func` that is not at the
  module's top level, a module inside a function, a function without a body);
- any type or attribute, however deeply nested, whose class is not in `ALLOWED_ATTRIBUTES`,
  and integer types of a width tsjit does not use;
- literals whose bytes do not fill their type, calls to symbols that are not functions of the
  module, recursion (a cycle of calls), and an entry symbol that is not a function.
"""

from __future__ import annotations

from xdsl.context import Context
from xdsl.dialects.builtin import (
    ArrayAttr,
    BFloat16Type,
    Builtin,
    BytesAttr,
    DenseIntOrFPElementsAttr,
    DictionaryAttr,
    Float16Type,
    Float32Type,
    Float64Type,
    FloatAttr,
    FloatData,
    FunctionType,
    IntAttr,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    NoneAttr,
    SignednessAttr,
    StringAttr,
    SymbolRefAttr,
    TensorType,
)
from xdsl.dialects.func import CallOp, Func, FuncOp, ReturnOp
from xdsl.ir import Attribute, Operation, ParametrizedAttribute

from dialects.torch import torch_dialect
from dialects.torch.ops.prim import PrimPythonCallOp, ValueTensorLiteralOp
from dialects.torch.registry import ALL_OPS, BY_NAME
from dialects.torch.types import ALL_TYPES
from frontend.errors import LoadError

ALLOWED_ATTRIBUTES: frozenset[type[Attribute]] = frozenset({
    *ALL_TYPES,  # !torch.vtensor, !torch.int, !torch.list<...>, ...
    IntAttr, NoneAttr, ArrayAttr, DictionaryAttr,  # vtensor shapes, unknown parts, containers
    IntegerType, SignednessAttr, Float32Type, Float64Type,  # element types (si64, i1, f32)
    Float16Type, BFloat16Type,  # f16, bf16
    IntegerAttr, FloatAttr, FloatData, StringAttr,  # constants' values, names, messages
    DenseIntOrFPElementsAttr, TensorType, BytesAttr,  # torch.vtensor.literal
    FunctionType, SymbolRefAttr,  # func.func types, func.call callees
})  # fmt: skip
INTEGER_WIDTHS = frozenset({1, 8, 16, 32, 64})  # bool, (u)int8, int16, int32, int64


def load_context() -> Context:
    """A context with only the dialects `save` writes: builtin, func and torch (with the
    custom ops registered so far)."""
    ctx = Context()
    for dialect in (Builtin, Func, torch_dialect()):
        ctx.load_dialect(dialect)
    return ctx


def allowed_ops(custom_ops: list[str]) -> frozenset[type[Operation]]:
    """The op classes a loaded file may use: the torch ops `save` writes, the custom ops the
    manifest lists (registered: checked before), and the module, function, call, return."""
    builtin_torch = {op for op in ALL_OPS if op is not PrimPythonCallOp}
    custom = {BY_NAME[name] for name in custom_ops if name in BY_NAME}
    return frozenset({*builtin_torch, *custom, ModuleOp, FuncOp, CallOp, ReturnOp})


def verify_loaded(module: ModuleOp, entry: str, custom_ops: list[str], where: str) -> None:
    """LoadError (prefixed by `where`) unless `module` holds only what `save` writes and
    `entry` is one of its functions (see the module docstring)."""
    allowed = allowed_ops(custom_ops)
    functions: dict[str, FuncOp] = {}
    for op in module.body.ops:
        if not isinstance(op, FuncOp):
            raise LoadError(f"{where}: op {op.name} at the top level (only func.func is allowed)")
        if not op.body.blocks:
            raise LoadError(f"{where}: function @{op.sym_name.data} has no body")
        functions[op.sym_name.data] = op
    _check_attributes(module, where)
    for op in module.body.walk():
        if type(op) not in allowed or isinstance(op, ModuleOp):
            raise LoadError(f"{where}: op {op.name} is not one a saved file holds")
        if isinstance(op, FuncOp) and op.parent_op() is not module:
            raise LoadError(f"{where}: function @{op.sym_name.data} is nested in another op")
        _check_attributes(op, where)
        if isinstance(op, ValueTensorLiteralOp):
            _check_literal(op, where)
    if entry not in functions:
        raise LoadError(f"{where}: the entry function @{entry} is not in the IR")
    _check_calls(functions, where)


def _check_attributes(op: Operation, where: str) -> None:
    values = [*op.attributes.values(), *op.properties.values(), *(r.type for r in op.results)]
    values += [arg.type for region in op.regions for block in region.blocks for arg in block.args]
    for value in values:
        _check_attribute(value, op, where)


def _check_attribute(attr: Attribute, op: Operation, where: str) -> None:
    if type(attr) not in ALLOWED_ATTRIBUTES:
        raise LoadError(f"{where}: {op.name} carries {attr}, not an attribute a saved file holds")
    if isinstance(attr, IntegerType) and attr.width.data not in INTEGER_WIDTHS:
        raise LoadError(f"{where}: {op.name} uses integer type {attr}")
    if isinstance(attr, ArrayAttr):
        children: tuple[Attribute, ...] = attr.data
    elif isinstance(attr, DictionaryAttr):
        children = tuple(attr.data.values())
    elif isinstance(attr, ParametrizedAttribute):
        children = attr.parameters
    else:
        return
    for child in children:
        _check_attribute(child, op, where)


def _check_literal(op: ValueTensorLiteralOp, where: str) -> None:
    try:
        op.python_value()  # the bytes must fill the literal's static shape and dtype exactly
    except Exception as err:
        raise LoadError(f"{where}: torch.vtensor.literal does not hold its type: {err}") from None


def _check_calls(functions: dict[str, FuncOp], where: str) -> None:
    """Every func.call names a function of the module, and no function reaches itself."""
    callees: dict[str, set[str]] = {}
    for name, function in functions.items():
        callees[name] = set()
        for op in function.walk():
            if isinstance(op, CallOp):
                callee = op.callee.root_reference.data
                if callee not in functions or op.callee.nested_references.data:
                    raise LoadError(f"{where}: @{name} calls @{callee}, not a function here")
                callees[name].add(callee)
    done: set[str] = set()
    for start in functions:
        _visit(start, callees, done, [], where)


def _visit(name: str, callees: dict[str, set[str]], done: set[str], path: list[str],
           where: str) -> None:  # fmt: skip
    if name in path:
        raise LoadError(f"{where}: @{name} calls itself (through {' -> '.join(path)})")
    if name in done:
        return
    path.append(name)
    for callee in sorted(callees[name]):
        _visit(callee, callees, done, path, where)
    path.pop()
    done.add(name)
