"""Runs torch-dialect IR with each op's eager reference: an executor independent of the lowering.

`run_torch_ir(module, "f", args)` executes `func.func @f` op by op. Tensors are numpy arrays,
`!torch.int/float/bool` are Python scalars, lists and tuples are Python lists and tuples.
- `torch.constant.*` give their value, `prim.ListConstruct`/`TupleConstruct` build a list/tuple,
  `prim.ListUnpack`/`TupleUnpack` take one apart;
- every other torch op runs its class's `run_eager` (the numpy reference, cast to the dtype the
  shape rule promises);
- `prim.If` runs the branch its condition picks; `prim.Loop` runs its body while the iteration
  number is below the trip count and the condition holds (TorchScript's prim::Loop);
- `func.call` runs the callee, `func.return` gives the results.
Each op result is checked against its IR type (dtype, rank, static dims, scalar kind), so a
shape rule that disagrees with its eager reference is reported with the op's name.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Attribute, Block, Operation, SSAValue

from dialects.torch.op_base import ConstantLikeOp, TorchOp
from dialects.torch.ops.prim import (
    PrimIfOp,
    PrimListConstructOp,
    PrimListUnpackOp,
    PrimLoopOp,
    PrimRaiseExceptionOp,
    PrimTupleConstructOp,
    PrimTupleUnpackOp,
)
from dialects.torch.types import DYN, BoolType, FloatType, IntType, ValueTensorType

Env = dict[SSAValue, Any]


class TorchInterpreterError(Exception):
    """The IR cannot be run, or a value disagrees with its type; names the op."""


def run_torch_ir(module: ModuleOp, function_name: str, args: Sequence[Any]) -> Any:
    """Run `@function_name` of `module` on `args`: its one result, or a tuple of several."""
    results = TorchInterpreter(module).call(function_name, list(args))
    return results[0] if len(results) == 1 else tuple(results)


class TorchInterpreter:
    """Executes the functions of one module; see the module docstring for the semantics."""

    def __init__(self, module: ModuleOp) -> None:
        self.functions = {f.sym_name.data: f for f in module.ops if isinstance(f, func.FuncOp)}

    def call(self, name: str, args: list[Any]) -> list[Any]:
        function = self.functions.get(name)
        if function is None:
            known = ", ".join(f"@{n}" for n in self.functions) or "none"
            raise TorchInterpreterError(f"no function @{name} in the module (it has {known})")
        block = function.body.block
        if len(args) != len(block.args):
            raise TorchInterpreterError(
                f"@{name} takes {len(block.args)} arguments but {len(args)} were given"
            )
        env: Env = {}
        for index, (arg, value) in enumerate(zip(block.args, args)):
            self.check(value, arg.type, f"argument #{index} of @{name}")
            env[arg] = value
        return self.run_block(block, env)

    def check(self, value: Any, typ: Attribute, where: str) -> None:
        """Raise TorchInterpreterError when `value` cannot have IR type `typ`."""
        check_value(value, typ, where)

    def run_block(self, block: Block, env: Env) -> list[Any]:
        """Run the ops of `block`; what its terminator passes on (returns, yields, conditions)."""
        for op in block.ops:
            if op is block.last_op and not op.results and op.name != "func.call":
                return [env[v] for v in op.operands]
            outputs = self.run_op(op, env)
            if len(outputs) != len(op.results):
                raise TorchInterpreterError(
                    f"{op.name}: gave {len(outputs)} values for {len(op.results)} results"
                )
            for result, value in zip(op.results, outputs):
                self.check(value, result.type, op.name)
                env[result] = value
        raise TorchInterpreterError("a block ended without a terminator")

    def run_op(self, op: Operation, env: Env) -> Sequence[Any]:
        handler = HANDLERS.get(type(op))
        if handler is not None:
            return handler(self, op, env)
        if isinstance(op, ConstantLikeOp):
            return [op.python_value()]
        if isinstance(op, TorchOp):
            return run_eager_op(op, [env[v] for v in op.operands])
        raise TorchInterpreterError(f"{op.name}: the torch interpreter cannot run this op")


def run_eager_op(op: TorchOp, args: list[Any]) -> Sequence[Any]:
    """One torch op through its eager reference."""
    try:
        out = type(op).run_eager(*args)
    except (ValueError, TypeError, IndexError, ArithmeticError) as err:
        raise error_like(err)(f"{op.name}: {err}") from err
    return list(out) if isinstance(out, tuple) else [out]


_ERROR_KINDS: dict[type[Exception], type[TorchInterpreterError]] = {}


def error_like(err: Exception) -> type[TorchInterpreterError]:
    """A TorchInterpreterError that is also an instance of `err`'s type (an IndexError of an
    index out of range stays one, as PyTorch raises it)."""
    kind = type(err)
    if kind not in _ERROR_KINDS:
        _ERROR_KINDS[kind] = type("TorchInterpreterError", (TorchInterpreterError, kind), {})
    return _ERROR_KINDS[kind]


# ---- structural ops ----


def _run_if(interp: TorchInterpreter, op: PrimIfOp, env: Env) -> Sequence[Any]:
    region = op.then_region if env[op.condition] else op.else_region
    return interp.run_block(region.block, env)


def _run_loop(interp: TorchInterpreter, op: PrimLoopOp, env: Env) -> Sequence[Any]:
    body = op.body.block
    trip_count, go = env[op.max_trip_count], env[op.initial_condition]
    carried = [env[v] for v in op.iter_args]
    iteration = 0
    while iteration < trip_count and go:
        env[body.args[0]] = iteration
        env.update(zip(body.args[1:], carried))
        go, *carried = interp.run_block(body, env)
        iteration += 1
    return carried


def _run_call(interp: TorchInterpreter, op: func.CallOp, env: Env) -> Sequence[Any]:
    return interp.call(op.callee.string_value(), [env[v] for v in op.arguments])


def _run_list(interp: TorchInterpreter, op: PrimListConstructOp, env: Env) -> Sequence[Any]:
    return [[env[v] for v in op.elements]]


def _run_tuple(interp: TorchInterpreter, op: PrimTupleConstructOp, env: Env) -> Sequence[Any]:
    return [tuple(env[v] for v in op.elements)]


def _run_unpack(
    interp: TorchInterpreter, op: PrimTupleUnpackOp | PrimListUnpackOp, env: Env
) -> Sequence[Any]:
    value = env[op.operands[0]]
    if len(value) != len(op.results):
        raise TorchInterpreterError(
            f"{op.name}: cannot unpack {len(value)} elements into {len(op.results)} values"
        )
    return list(value)


def _run_raise(interp: TorchInterpreter, op: PrimRaiseExceptionOp, env: Env) -> Sequence[Any]:
    """Raises the script's exception (its class when a builtin one, as compiled code does)."""
    kind = getattr(builtins, op.kind.data, RuntimeError)
    raise kind(op.message.data)


HANDLERS: dict[type[Operation], Callable[[TorchInterpreter, Any, Env], Sequence[Any]]] = {
    PrimRaiseExceptionOp: _run_raise,
    PrimIfOp: _run_if,
    PrimLoopOp: _run_loop,
    func.CallOp: _run_call,
    PrimListConstructOp: _run_list,
    PrimTupleConstructOp: _run_tuple,
    PrimTupleUnpackOp: _run_unpack,
    PrimListUnpackOp: _run_unpack,
}


# ---- type checks ----

_SCALAR_KINDS: dict[type[Attribute], tuple[type, ...]] = {
    IntType: (int, np.integer),
    FloatType: (float, int, np.floating),
    BoolType: (bool, np.bool_),
}


def check_value(value: Any, typ: Attribute, where: str) -> None:
    """Raise TorchInterpreterError when `value` cannot have IR type `typ`."""
    if isinstance(typ, ValueTensorType):
        _check_tensor(value, typ, where)
        return
    kinds = _SCALAR_KINDS.get(type(typ))
    if kinds is None:
        return
    wrong_bool = isinstance(value, bool | np.bool_) and not isinstance(typ, BoolType)
    if wrong_bool or not isinstance(value, kinds):
        raise TorchInterpreterError(f"{where}: got {type(value).__name__} {value!r} for {typ}")


def _check_tensor(value: Any, typ: ValueTensorType, where: str) -> None:
    if not isinstance(value, np.ndarray):
        raise TorchInterpreterError(f"{where}: got {type(value).__name__} for tensor type {typ}")
    element = typ.element
    if element is not None and value.dtype != element.numpy:
        raise TorchInterpreterError(f"{where}: got dtype {value.dtype} for {typ}")
    sizes = typ.sizes
    if sizes is not None and not _fits(tuple(sizes), value.shape):
        raise TorchInterpreterError(f"{where}: got shape {list(value.shape)} for {typ}")


def _fits(sizes: tuple[int, ...], shape: tuple[int, ...]) -> bool:
    """Whether `shape` has the dims `sizes` gives, or those with some `?` dims left out: a type
    written before the sizes were known assumes a `?` dim is not 1, but `squeeze()` of a `?`
    dim that is 1 at run time drops it (the compiled call recompiles for exact shapes then)."""
    if len(sizes) == len(shape):
        return all(d in (DYN, s) for d, s in zip(sizes, shape))
    if len(sizes) < len(shape) or not sizes:
        return False
    if sizes[0] == DYN and _fits(sizes[1:], shape):
        return True
    return bool(shape) and sizes[0] in (DYN, shape[0]) and _fits(sizes[1:], shape[1:])
