"""Call sites (`scripter.call_sites`): what a call reaches once its callee and arguments are
values. A method of `self`, a submodule, a lambda, a traced graph, a dict or list method, a
tensor method (special ones first, then the op registry), a builtin, a `math` function, a
random tensor function, `torch.einsum` / `torch.tensor`, a registered torch op, an ignored
Python function, a `frontend.torch` twin or a Python function scripted as a callee.

Interface: `call_value(node, callee, args, kwargs)`, `method_call(node, receiver, name, args,
kwargs)`.
"""

from __future__ import annotations

import ast
import builtins
import inspect
import math
import sys
from collections.abc import Callable
from typing import Any

from dialects.torch.dtypes import DType
from dialects.torch.ops.scalars import (
    AtenCeilFloatOp,
    AtenExpFloatOp,
    AtenFloorFloatOp,
    AtenLogFloatOp,
    AtenMaxFloatOp,
    AtenMaxIntOp,
    AtenMinFloatOp,
    AtenMinIntOp,
    AtenSqrtFloatOp,
)
from frontend.errors import ScriptError
from frontend.ir.aten_namespace import aten_target, missing_message, nn_binding_target
from frontend.ir.builder import Value, kind_of
from frontend.ir.resolve import (
    frontend_twin,
    is_torch_function,
    ops_for_method,
    ops_for_object,
    tensor_method_twin,
)
from frontend.script.calls import Callee, CompiledFunction
from frontend.script.collaborator import Collaborator
from frontend.script.dicts import ScriptDict
from frontend.script.einsum import einsum_call
from frontend.script.lambdas import LocalLambda
from frontend.script.modules import is_captured_graph, is_module
from frontend.script.random_tensors import random_function_name
from frontend.script.tensor_methods import (
    NOT_SPECIAL,
    is_number_tensor_function,
    number_tensor,
    tensor_literal,
)
from frontend.script.torch_jit_api import NOT_JIT_API, is_ignored, jit_api_value
from frontend.script.value_kinds import GraphValue, MethodValue, ModuleValue, PyObject


class CallSites(Collaborator):
    """What a call reaches: methods, modules, builtins, `math`, torch ops, Python functions."""

    def call_value(
        self, node: ast.Call, callee: Value, args: list[Value], kwargs: dict[str, Value]
    ) -> Value:
        if isinstance(callee, MethodValue):
            return self.scripter.modules.call_method(node, callee, args, kwargs)
        if isinstance(callee, LocalLambda):
            return self.scripter.lambdas.call_lambda(node, callee, args, kwargs)
        if isinstance(callee, ModuleValue):
            return self.scripter.modules.call_module(node, callee, args, kwargs)
        if isinstance(callee, GraphValue):
            return self.scripter.calls.call_graph(node, callee.function, args, kwargs)
        if isinstance(callee, PyObject) and is_captured_graph(callee.obj):
            return self.scripter.calls.call_graph(node, callee.obj, args, kwargs)
        if not isinstance(callee, PyObject):
            raise self.error(node.func, f"a {kind_of(callee)} is not callable")
        return self.function_call(node, callee.obj, args, kwargs)

    def method_call(
        self,
        node: ast.Call,
        receiver: Value,
        name: str,
        args: list[Value],
        kwargs: dict[str, Value],
    ) -> Value:
        if isinstance(receiver, ScriptDict):
            return self.scripter.dicts.dict_method(node, receiver, name, args)
        if isinstance(receiver, list) and name == "append":
            return self.scripter.loops.list_append(node, receiver, args, kwargs)
        if isinstance(receiver, list) and name == "sort":
            return self.scripter.loops.list_sort(node, receiver, args, kwargs)
        if kind_of(receiver) == "Tensor":
            special = self.scripter.tensor_methods.special_tensor_method(
                node, receiver, name, args, kwargs
            )
            if special is not NOT_SPECIAL:
                return special
        candidates = ops_for_method(name)
        twin = tensor_method_twin(name) if kind_of(receiver) == "Tensor" else None
        if not candidates and twin is not None:  # x.unique(...): frontend.torch's Python
            return self.scripter.calls.call_scripted(
                node, Callee(twin, name), [receiver, *args], kwargs
            )
        if not candidates:
            raise self.error(
                node.func,
                f"unknown method `{name}` of a {kind_of(receiver)}",
                "see the README's op table for the supported tensor methods",
            )
        return self.scripter.ops.result(
            self.scripter.ops.emit(node, candidates, [receiver, *args], kwargs)
        )

    def function_call(
        self, node: ast.Call, obj: Any, args: list[Value], kwargs: dict[str, Value]
    ) -> Value:
        builtin = self.python_builtin_call(node, obj, args)
        if builtin is not NOT_JIT_API:
            return builtin
        random_name = random_function_name(obj)
        if random_name is not None:
            return self.scripter.random.random_call(node, obj, random_name, args, kwargs)
        if getattr(obj, "__module__", None) == "math" or obj in _MATH_FUNCTIONS:
            return self.math_call(node, obj, args, kwargs)
        special = self.torch_special_call(node, obj, args, kwargs)
        if special is not NOT_SPECIAL:
            return special
        obj, args, kwargs = self.boolean_dispatch(node, obj, args, kwargs)
        candidates = ops_for_object(obj)
        if candidates:
            return self.scripter.ops.result(self.scripter.ops.emit(node, candidates, args, kwargs))
        if is_ignored(obj):
            return self.scripter.calls.call_python(node, obj, args, kwargs)
        twin = frontend_twin(obj)
        if twin is not None:  # F.embedding: frontend.torch's Python, its errors at this call
            try:
                return self.scripter.calls.call_scripted(
                    node, Callee(twin, twin.__name__), args, kwargs
                )
            except ScriptError as err:
                message = f"{ast.unparse(node.func)}: {err.message}"
                raise self.error(node, message, err.hint) from None
        python_fn = scriptable_function(obj)
        if python_fn is not None:
            callee = Callee(python_fn, getattr(python_fn, "__name__", "fn"))
            return self.scripter.calls.call_scripted(node, callee, args, kwargs)
        raise self.unknown_function(node, obj)

    def unknown_function(self, node: ast.Call, obj: Any) -> ScriptError:
        """The error for a call of `obj` that nothing resolves; a `torch.ops` operator tsjit
        lacks is named with its overload."""
        target = aten_target(obj) or nn_binding_target(obj)
        if target is not None:
            return self.error(
                node.func,
                f"`{ast.unparse(node.func)}`: {missing_message(target)}",
                "docs/ops.md lists the ATen overloads tsjit lowers or decomposes",
            )
        name = getattr(obj, "__qualname__", type(obj).__name__)
        hint = (
            "a module must be an attribute of `self` (a submodule) to be called"
            if is_module(obj)
            else "call registered torch ops (see the README's op table) or Python functions "
            "defined in a .py file"
        )
        return self.error(node.func, f"unknown function `{ast.unparse(node.func)}` ({name})", hint)

    def boolean_dispatch(
        self, node: ast.Call, obj: Any, args: list[Value], kwargs: dict[str, Value]
    ) -> tuple[Any, list[Value], dict[str, Value]]:
        """TorchScript's `boolean_dispatch` (`F.max_pool2d(..., return_indices=True)` is
        `F.max_pool2d_with_indices`): the function a constant flag picks, the flag removed."""
        info = _boolean_dispatched(obj)
        if info is None:
            return obj, args, kwargs
        name, index = info["arg_name"], info["index"]
        original_args, original_kwargs = args, kwargs
        args, kwargs = list(args), dict(kwargs)
        if name in kwargs:
            flag = kwargs.pop(name)
        elif index < len(args):
            flag = args.pop(index)
        else:
            flag = info["default"]
        if not isinstance(flag, bool):
            raise self.error(node, f"`{name}` of {ast.unparse(node.func)} must be a constant bool")
        if not flag:
            return obj, args, kwargs
        if not ops_for_object(info["if_true"]):  # torch.unique's private helpers: its ops bind it
            return obj, original_args, original_kwargs
        return info["if_true"], args, kwargs

    def torch_special_call(
        self, node: ast.Call, obj: Any, args: list[Value], kwargs: dict[str, Value]
    ) -> Any:
        """The torch functions scripting handles itself (einsum, tensor, finfo, NumToTensor),
        else `NOT_SPECIAL`."""
        if is_torch_function(obj, "einsum"):
            return einsum_call(self.scripter, node, args, kwargs)
        if is_torch_function(obj, "tensor"):
            return tensor_literal(self.scripter, node, args, kwargs)
        if is_torch_function(obj, "finfo"):
            return self.float_info(node, args)
        number_function = is_number_tensor_function(obj)
        if number_function is not None:
            return number_tensor(self.scripter, node, number_function, args, kwargs)
        return NOT_SPECIAL

    def float_info(self, node: ast.Call, args: list[Value]) -> Value:
        """`torch.finfo(dtype)` of a dtype known when scripting: its fields are constants."""
        from frontend.torch.dtype import finfo

        if len(args) > 1 or (args and not isinstance(args[0], DType)):
            raise self.error(
                node,
                "torch.finfo() of a dtype known only at run time is not supported",
                "name the dtype: torch.finfo(torch.float16)",
            )
        try:
            return PyObject(finfo(*args))
        except TypeError as err:
            raise self.error(node, str(err)) from None

    def python_builtin_call(self, node: ast.Call, obj: Any, args: list[Value]) -> Value:
        """`print`, `torch.jit` helpers, `len`/`int`/... (`builtin_call`); NOT_JIT_API for
        other functions."""
        if obj is builtins.print:
            return self.scripter.printing.builtin_print(node, args)
        if obj is builtins.abs and args and kind_of(args[0]) == "Tensor":  # torch.abs
            return self.scripter.ops.emit(node, ops_for_method("abs"), args, {})[0]
        jit_value = jit_api_value(obj, args)
        if jit_value is not NOT_JIT_API:
            return jit_value
        builtin = self.scripter.values.builtin_call(node, obj, args)
        return NOT_JIT_API if builtin is None else builtin

    def math_call(
        self, node: ast.Call, fn: Any, args: list[Value], kwargs: dict[str, Value]
    ) -> Value:
        """`math.sqrt(self.head_dim)`: `math` functions of numbers known while scripting fold;
        `math.sqrt(x.size(-1))` of a number known at run time is a scalar op (`RUNTIME_MATH`)."""
        values = [*args, *kwargs.values()]
        if not all(isinstance(v, bool | int | float) for v in values):
            return self.runtime_math(node, fn, args, kwargs)
        try:
            return fn(*args, **kwargs)
        except (ArithmeticError, ValueError, TypeError) as err:
            raise self.error(node, f"{type(err).__name__}: {err}") from None

    def runtime_math(
        self, node: ast.Call, fn: Any, args: list[Value], kwargs: dict[str, Value]
    ) -> Value:
        if fn in (min, max) and len(args) == 2 and not kwargs:
            return self.runtime_extremum(node, fn, args)
        op = RUNTIME_MATH.get(fn)
        kind = kind_of(args[0]) if len(args) == 1 else None
        if op is None or kwargs or kind not in ("int", "float"):
            names = ", ".join(f"math.{f.__name__}" for f in RUNTIME_MATH)
            raise self.error(
                node,
                f"`{ast.unparse(node.func)}` needs numbers known while scripting",
                f"of a number known at run time: {names}; on tensors use the torch function "
                "(torch.sqrt(x))",
            )
        if kind == "int" and fn in (math.floor, math.ceil):
            return args[0]
        return self.scripter.ops.emit(
            node, (op,), [self.scripter.values.to_float(args[0], node)], {}
        )[0]

    def runtime_extremum(self, node: ast.Call, fn: Any, args: list[Value]) -> Value:
        """`min(a, b)` / `max(a, b)` of numbers, one known only at run time (`min(n, 3)`);
        ints stay ints, a float makes both floats."""
        kinds = {kind_of(a) for a in args}
        if not kinds <= {"int", "float"}:
            raise self.error(
                node, f"{fn.__name__}() of {' and '.join(sorted(kinds))} is not supported"
            )
        if "float" in kinds:
            args = [self.scripter.values.to_float(a, node) for a in args]
        ops = {(min, "int"): AtenMinIntOp, (max, "int"): AtenMaxIntOp,
               (min, "float"): AtenMinFloatOp, (max, "float"): AtenMaxFloatOp}  # fmt: skip
        return self.scripter.ops.emit(node, (ops[fn, kind_of(args[0])],), args, {})[0]


def _boolean_dispatched(obj: Any) -> dict[str, Any] | None:
    """PyTorch's record of a function made by `boolean_dispatch`, if `obj` is one."""
    jit_internal = sys.modules.get("torch._jit_internal")
    table = getattr(jit_internal, "boolean_dispatched", None)
    try:
        return None if table is None else table.get(obj)
    except TypeError:  # not weakly referenceable
        return None


def scriptable_function(obj: Any) -> Callable[..., Any] | None:
    """The Python function behind `obj` if it can be scripted as a callee, else None."""
    if isinstance(obj, CompiledFunction):
        return obj.python_fn
    if inspect.isfunction(obj):
        if is_ignored(obj):
            return None
        return obj
    return None


_MATH_FUNCTIONS = {abs, min, max, round}  # builtins that fold like `math` functions
RUNTIME_MATH = {
    math.sqrt: AtenSqrtFloatOp, math.exp: AtenExpFloatOp, math.log: AtenLogFloatOp,
    math.floor: AtenFloorFloatOp, math.ceil: AtenCeilFloatOp,
}  # fmt: skip
"""The `math` functions of a number known at run time, and their scalar ops."""
