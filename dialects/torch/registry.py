"""The op registry: every torch op class, found by IR name or by Python spelling."""

from __future__ import annotations

import importlib
import pkgutil
from types import ModuleType

import dialects.torch.ops as ops_package
from dialects.torch.op_base import TorchOp


def op_families() -> tuple[ModuleType, ...]:
    """Every module of `dialects/torch/ops/` that declares ops (an `OPS` tuple), by name."""
    names = sorted(m.name for m in pkgutil.iter_modules(ops_package.__path__))
    modules = (importlib.import_module(f"{ops_package.__name__}.{n}") for n in names)
    return tuple(m for m in modules if hasattr(m, "OPS"))


FAMILIES: tuple[ModuleType, ...] = op_families()
"""The op families in name order: what the registry holds, and in which order."""

PRIM_OPS: tuple[type[TorchOp], ...] = next(m.OPS for m in FAMILIES if m.__name__.endswith(".prim"))
ATEN_OPS: tuple[type[TorchOp], ...] = tuple(
    op for m in FAMILIES if not m.__name__.endswith(".prim") for op in m.OPS
)
"""Every op but the constants, lists and control flow of `prim`: families in name order, each
family's ops in its `OPS` order (so a spelling's overloads keep their declaration order)."""
ALL_OPS = (*PRIM_OPS, *ATEN_OPS)

BY_NAME: dict[str, type[TorchOp]] = {op.name: op for op in ATEN_OPS}


def _by_py_name() -> dict[str, tuple[type[TorchOp], ...]]:
    table: dict[str, list[type[TorchOp]]] = {}
    for op in ATEN_OPS:
        for spelling in op.PY_NAMES:
            table.setdefault(spelling, []).append(op)
    return {k: tuple(v) for k, v in table.items()}


BY_PY_NAME: dict[str, tuple[type[TorchOp], ...]] = _by_py_name()
"""Spelling -> overloads in declaration order (`torch.add` -> add.Tensor, add.Scalar)."""

CUSTOM_OPS: list[type[TorchOp]] = []
"""Ops registered at run time (`frontend.library(...).define(...)`), in registration order."""


def register_op(op: type[TorchOp]) -> None:
    """Add an op made at run time to BY_NAME, BY_PY_NAME and CUSTOM_OPS (so also to the torch
    dialect of every new context: `dialects.torch.torch_dialect`). ValueError if an op of
    that name exists: an op, once registered, stays."""
    if op.name in BY_NAME:
        raise ValueError(f"an op named {op.name} is already registered")
    BY_NAME[op.name] = op
    CUSTOM_OPS.append(op)
    for spelling in op.PY_NAMES:
        BY_PY_NAME[spelling] = (*BY_PY_NAME.get(spelling, ()), op)
