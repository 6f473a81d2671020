"""Finds the op a Python object stands for, by identity (docs/design.md, "Name resolution"):
`torch.tanh`, `np.tanh`, `frontend.torch.tanh` and `F.relu` all resolve through the spellings
each op declares; `torch.ops.aten.tanh.default` and the other `torch.ops` objects by the op's
IR name (`frontend/ir/aten_namespace.py`)."""

from __future__ import annotations

import importlib
import sys
from functools import cache
from typing import Any

from dialects.torch.op_base import TorchOp
from dialects.torch.registry import BY_PY_NAME
from frontend.ir.aten_namespace import (
    AtenTarget,
    PacketOps,
    aten_composition,
    aten_target,
    builtin_composition,
    nn_binding_target,
    registry_ops,
)

# Spelling prefix -> modules whose attribute of that name is the same function.
_PREFIX_MODULES = {
    "torch": ("frontend.torch", "torch"),
    "F": ("frontend.torch.nn.functional", "torch.nn.functional"),
    "np": ("numpy",),
    "operator": ("operator",),
    "ops": ("frontend.ops",),  # custom ops: `ops.my_ops.warp_perspective`
}


def _module(name: str) -> Any:
    """Real PyTorch is only consulted if the user already imported it."""
    if name == "torch" or name.startswith("torch."):
        return sys.modules.get(name)
    try:
        return importlib.import_module(name)
    except ImportError:
        return None


def _attribute(obj: Any, dotted: str) -> Any:
    for name in dotted.split("."):
        obj = getattr(obj, name, None)
    return obj


@cache
def _table(torch_loaded: bool, spellings: int) -> dict[int, str]:
    """id(object) -> spelling; rebuilt when PyTorch is imported or spellings are registered."""
    table: dict[int, str] = {}
    for spelling in BY_PY_NAME:
        prefix, _, attr = spelling.partition(".")
        for module_name in _PREFIX_MODULES.get(prefix, ()):
            module = _module(module_name)
            obj = _attribute(module, attr) if module is not None else None
            if obj is not None and callable(obj):
                table.setdefault(id(obj), spelling)
    return table


def spelling_of(obj: Any) -> str | None:
    """`torch.tanh` for the object `np.tanh`'s op spelling..., or None if it is not an op."""
    torch_loaded = "torch" in sys.modules and "torch.nn.functional" in sys.modules
    return _table(torch_loaded, len(BY_PY_NAME)).get(id(obj))


def ops_for_object(obj: Any) -> tuple[type[TorchOp], ...]:
    """The overloads `obj` stands for: its spelling's, or a `torch.ops` object's registry ops
    (none for an in-place or `out=` overload: a call of one cannot write its tensor here)."""
    target = aten_target(obj)
    if target is not None:
        return ops_for_object_target(target)
    spelling = spelling_of(obj)
    if spelling is None:
        binding = nn_binding_target(obj)  # torch._C._nn.upsample_nearest2d
        return ops_for_object_target(binding) if binding is not None else ()
    return BY_PY_NAME.get(spelling, ())


def ops_for_object_target(target: AtenTarget) -> tuple[type[TorchOp], ...]:
    """A `torch.ops` target's registry ops (a packet's resolved per call: `PacketOps`)."""
    if target.in_place or target.writes_out:
        return ()
    ops = registry_ops(target)
    return PacketOps(ops, target) if target.overload is None and ops else ops


def ops_for_method(name: str) -> tuple[type[TorchOp], ...]:
    """Overloads of the tensor method `x.<name>(...)`."""
    return BY_PY_NAME.get(f"Tensor.{name}", ())


def ops_for_operator(name: str) -> tuple[type[TorchOp], ...]:
    """Overloads of a Python operator (`add`, `mul`, `matmul`, `gt`, `neg`, ...)."""
    return BY_PY_NAME.get(f"operator.{name}", ())


# PyTorch modules whose functions frontend.torch may write as Python (docs/design.md, "Name
# resolution"): the same name in the twin module, if a Python function of frontend.torch, is what
# a script of it runs.
_TWIN_MODULES = {
    "torch.nn.functional": "frontend.torch.nn.functional",
    "torch._C._nn": "frontend.torch.nn.functional",  # F.scaled_dot_product_attention
    "torch": "frontend.torch",
    "torch.functional": "frontend.torch",  # torch.unique (Python in PyTorch)
}


def frontend_twin(obj: Any) -> Any:
    """frontend.torch's Python function standing for the PyTorch function `obj` (`F.embedding`,
    whose arguments come in another order than its op's), else None. A `torch.ops` object
    the registry lacks may be a composition of ops (`frontend/ir/aten_aliases.py`)."""
    target = aten_target(obj)
    if target is not None:
        return aten_composition(target)
    twin_module = _TWIN_MODULES.get(getattr(obj, "__module__", None) or "")
    name = getattr(obj, "__name__", None)
    if twin_module is None or name is None or not callable(obj):
        return None
    twin = getattr(_module(twin_module), name, None)
    is_python = getattr(twin, "__module__", "").startswith("frontend.torch")
    if is_python and hasattr(twin, "__code__"):
        return twin
    if twin_module == "frontend.torch.nn.functional":  # torch._C._nn.upsample_nearest2d
        binding = nn_binding_target(obj)
        return aten_composition(binding) if binding is not None else None
    return builtin_composition(obj) if twin_module == "frontend.torch" else None


def tensor_method_twin(name: str) -> Any:
    """frontend.torch's Python function that a script runs for the tensor method `name` (one
    marked `__tsjit_scriptable__`: `x.unique(return_counts=True)`), else None."""
    from frontend.torch.tensor import Tensor

    method = getattr(Tensor, name, None)
    return method if getattr(method, "__tsjit_scriptable__", False) else None


def is_torch_function(obj: Any, name: str) -> bool:
    """`obj` is PyTorch's or frontend.torch's function `name` (`torch.einsum`, `torch.tensor`),
    which scripting handles itself rather than through an op."""
    module = getattr(obj, "__module__", "") or ""
    return getattr(obj, "__name__", "") == name and module.startswith(("torch", "frontend.torch"))
