"""The compile-time values a scripted variable can hold besides IR values and Python
constants: the shape of a tensor (`ShapeValue`), a Python object named by the function
(`PyObject`), a module reached from `self` (`ModuleValue`), one of its methods
(`MethodValue`) or a traced graph (`GraphValue`); and `Unusable`, why a variable cannot be
read where it is. Every collaborator may hold and test them; they depend on nothing of the
scripter.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Any

from xdsl.ir import SSAValue

from frontend.ir.builder import Value, kind_of

SCALAR_KINDS = ("int", "float", "bool")


@dataclass(frozen=True)
class Unusable:
    """Why a variable cannot be read here (defined on one path only, or with two types)."""

    message: str
    node: ast.AST
    hint: str
    places: tuple[tuple[str, ast.AST], ...] = ()  # (what is there, where), shown with the error


@dataclass(frozen=True)
class ShapeValue:
    """`x.shape` / `x.size()`: only indexed, unpacked or measured, never a value of its own."""

    tensor: SSAValue


class PyObject:
    """A Python object named in the function (a module, a function), not an IR value."""

    def __init__(self, obj: Any) -> None:
        self.obj = obj


def is_scalar_or_tensor(value: Value) -> bool:
    return kind_of(value) in ("Tensor", *SCALAR_KINDS)


def is_python_object(value: Value) -> bool:
    return isinstance(value, PyObject)


def join_path(*parts: str) -> str:
    return ".".join(p for p in parts if p)


@dataclass(frozen=True)
class ModuleValue:
    """A module reached from `self` while scripting: the object and its path below `self`."""

    obj: Any
    path: str

    @property
    def type_name(self) -> str:
        return type(self.obj).__name__

    def child(self, name: str) -> ModuleValue:
        return ModuleValue(self.obj._modules[name], join_path(self.path, name))

    def children(self) -> list[ModuleValue]:
        return [self.child(n) for n, m in self.obj._modules.items() if m is not None]


@dataclass(frozen=True)
class GraphValue:
    """A traced function or module reached while scripting: calls import its graph."""

    function: Any


@dataclass(frozen=True)
class MethodValue:
    """`self.helper` (not yet called)."""

    module: ModuleValue
    name: str
