"""Scripting of `nn.Module`s (ours in `frontend.torch.nn` or real `torch.nn`) seen through `self`.

Inside a scripted method `self` is a compile-time `ModuleValue`. Reading an attribute gives:
- a parameter or buffer: a tensor argument of the function, named by its path
  (`%self.linear.weight`), added on first use, with the tensor's exact type;
- a submodule: another `ModuleValue`; calling it scripts its `forward` (or, for the standard
  layers, the rule in `frontend/script/leaf_modules.py`) as a callee;
- a method: calling it scripts the method as a callee with the same `self`;
- a plain attribute (number, bool, None, str, tuple or list of those): a constant.
`for m in self.layers:` over a `Sequential`/`ModuleList` (or a tuple) is unrolled, and
`self.layers[i]` / `len(self.layers)` are resolved while scripting.
"""

from __future__ import annotations

import ast
from typing import Any

import numpy as np
from xdsl.ir import SSAValue

from dialects.torch.dtypes import dtype_of_numpy
from dialects.torch.types import ValueTensorType
from frontend.ir.builder import Value
from frontend.run.half_values import HalfCarrier, from_torch
from frontend.script.calls import Callee
from frontend.script.collaborator import Collaborator
from frontend.script.torch_jit_api import is_ignored
from frontend.script.value_kinds import GraphValue, MethodValue, ModuleValue, join_path

CONSTANT_TYPES = (bool, int, float, str, type(None))


def is_module(obj: Any) -> bool:
    """Whether `obj` looks like an `nn.Module` (ours or PyTorch's: the same internal layout)."""
    return all(isinstance(getattr(obj, a, None), dict) for a in ("_parameters", "_modules"))


def is_module_class(cls: type) -> bool:
    """Whether `cls` is an `nn.Module` class (ours or PyTorch's)."""
    return any(k.__name__ == "Module" and ".nn" in k.__module__ for k in cls.__mro__)


def tensor_array(obj: Any) -> np.ndarray | None:
    """The numpy view of a parameter/buffer (ours, PyTorch's or a numpy array), else None."""
    if isinstance(obj, np.ndarray):
        return obj
    detach = getattr(obj, "detach", None)
    if detach is not None and hasattr(obj, "numpy"):  # torch.Tensor
        half = from_torch(obj) if str(obj.dtype) == "torch.bfloat16" else None
        return detach().numpy() if half is None else half  # bfloat16: a float32 carrier
    if hasattr(obj, "__array__") and hasattr(obj, "shape"):  # frontend.torch.Tensor
        return np.asarray(obj)
    return None


def resolve_path(root: Any, path: str) -> Any:
    """The object at a dotted attribute path below `root` (`linear.weight`, `layers.0.bias`)."""
    obj = root
    for part in path.split("."):
        obj = getattr(obj, part)
    return obj


def is_captured_graph(obj: Any) -> bool:
    """A traced function or module (its graph is the program; it has no source to script)."""
    return hasattr(obj, "trace_recorder") and hasattr(obj, "module")


class Modules(Collaborator):
    """The view of `self`: attributes, parameters, submodule and method calls. Interface:
    `module_attribute`, `module_tensor`, `module_items`, `module_index`, `call_module`,
    `call_method`."""

    # ---- attributes ----

    def module_attribute(self, node: ast.Attribute, module: ModuleValue) -> Value:
        obj, name = module.obj, node.attr
        for table in ("_parameters", "_buffers"):
            entries = getattr(obj, table, None) or {}
            if name in entries:
                if entries[name] is None:
                    return None
                return self.module_tensor(module, name, node)
        if name in obj._modules:
            if obj._modules[name] is None:
                return None
            return module.child(name)
        if not hasattr(obj, name):
            raise self.error(
                node,
                f"module `{module.type_name}` has no attribute `{name}`",
                "only attributes set in __init__ can be read in scripted code",
            )
        return self.plain_attribute(node, module, name, getattr(obj, name))

    def plain_attribute(
        self, node: ast.Attribute, module: ModuleValue, name: str, value: Any
    ) -> Value:
        if callable(value) and getattr(value, "__self__", None) is module.obj:
            return MethodValue(module, name)
        if is_module(value):  # a module kept outside `_modules`
            return ModuleValue(value, join_path(module.path, name))
        original = getattr(value, "original", None)
        if is_captured_graph(value):  # a traced function or module: call its graph
            return GraphValue(value)
        if original is not None and is_module(original):  # a ScriptModule kept as attribute
            return ModuleValue(original, join_path(module.path, name))
        if tensor_array(value) is not None:
            return self.module_tensor(module, name, node)
        constant = as_constant(value)
        if constant is not _NOT_CONSTANT:
            return constant
        raise self.error(
            node,
            f"attribute `{name}` of `{module.type_name}` holds a {type(value).__name__}, "
            "which scripted code cannot use",
            "module attributes can be tensors, submodules, numbers, bools, None, strings and "
            "tuples/lists of those",
        )

    def module_tensor(self, module: ModuleValue, path: str, node: ast.AST) -> SSAValue:
        """The function argument that carries the tensor at `module.path + path`."""
        full = join_path(module.path, path)
        if full in self.scripter.param_args:
            return self.scripter.param_args[full]
        assert self.scripter.self_value is not None
        array = tensor_array(resolve_path(self.scripter.self_value.obj, full))
        if array is None:
            raise self.error(node, f"`self.{full}` is not a tensor")
        try:
            dtype = array.half if isinstance(array, HalfCarrier) else dtype_of_numpy(array.dtype)
        except TypeError as err:
            raise self.error(node, f"`self.{full}`: {err}") from None
        arg = self.scripter.entry_block.insert_arg(
            ValueTensorType(list(array.shape), dtype), len(self.scripter.param_args)
        )
        arg.name_hint = f"self.{full}"
        self.scripter.param_args[full] = arg
        return arg

    # ---- calls ----

    def call_module(
        self, node: ast.Call, module: ModuleValue, args: list[Value], kwargs: dict[str, Value]
    ) -> Value:
        from frontend.script.leaf_modules import leaf_rule

        rule = leaf_rule(module.obj)
        if rule is not None:
            problem = rule.check(module.obj)
            if problem:
                raise self.error(node, f"cannot script `{module.type_name}`: {problem}", rule.hint)
            callee = Callee(rule.forward, f"{module.type_name}.forward", module)
            return self.scripter.calls.call_scripted(node, callee, args, kwargs)
        forward = getattr(type(module.obj), "forward", None)
        if forward is None or is_base_forward(type(module.obj)):
            raise self.error(
                node,
                f"`{module.type_name}` is not callable: it defines no forward",
                "iterate over a ModuleList, or call its items",
            )
        return self.scripter.calls.call_scripted(
            node, Callee(forward, f"{module.type_name}.forward", module), args, kwargs
        )

    def call_method(
        self, node: ast.Call, method: MethodValue, args: list[Value], kwargs: dict[str, Value]
    ) -> Value:
        fn = getattr(type(method.module.obj), method.name)
        if is_ignored(fn):  # stays Python, bound to its module
            return self.scripter.calls.call_python(
                node, getattr(method.module.obj, method.name), args, kwargs
            )
        name = f"{method.module.type_name}.{method.name}"
        return self.scripter.calls.call_scripted(
            node, Callee(fn, name, method.module), args, kwargs
        )

    # ---- containers ----

    def module_items(self, node: ast.AST, module: ModuleValue) -> list[ModuleValue]:
        """The children of a `Sequential`/`ModuleList`, in order."""
        if not hasattr(type(module.obj), "__iter__"):
            raise self.error(
                node,
                f"cannot iterate over `{module.type_name}`",
                "iterate over an nn.Sequential or nn.ModuleList",
            )
        return module.children()

    def module_index(self, node: ast.Subscript, module: ModuleValue, index: Value) -> Value:
        items = self.module_items(node, module)
        if not isinstance(index, int) or isinstance(index, bool):
            raise self.error(node.slice, "modules can only be indexed with a constant int")
        if not -len(items) <= index < len(items):
            raise self.error(node, f"index {index} is out of range for {len(items)} modules")
        return items[index]


def is_base_forward(cls: type) -> bool:
    """Whether `cls.forward` is `nn.Module`'s placeholder (no forward of its own)."""
    base = next((k for k in cls.__mro__ if k.__name__ == "Module" and ".nn" in k.__module__), None)
    return base is not None and cls.forward is getattr(base, "forward", None)


_NOT_CONSTANT = object()


def as_constant(value: Any) -> Any:
    """`value` as a scripting constant (numbers, None, str, tuples of them), else _NOT_CONSTANT."""
    if isinstance(value, CONSTANT_TYPES):
        return value
    if isinstance(value, tuple | list):
        items = [as_constant(v) for v in value]
        if any(i is _NOT_CONSTANT for i in items):
            return _NOT_CONSTANT
        return tuple(items) if isinstance(value, tuple) else list(items)
    return _NOT_CONSTANT
