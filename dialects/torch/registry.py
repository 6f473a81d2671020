"""The op registry: every torch op class, found by IR name or by Python spelling."""

from __future__ import annotations

from dialects.torch.op_base import TorchOp
from dialects.torch.ops import (
    activations,
    arithmetic,
    casts,
    constructors,
    conv,
    data_movement,
    elementwise,
    indexing,
    joining,
    linear,
    logical,
    normalization,
    pooling,
    prim,
    reduction,
    scalar,
    variance,
    views,
)

ATEN_OPS: tuple[type[TorchOp], ...] = (
    *elementwise.OPS,
    *arithmetic.OPS,
    *activations.OPS,
    *logical.OPS,
    *casts.OPS,
    *normalization.OPS,
    *reduction.OPS,
    *variance.OPS,
    *linear.OPS,
    *scalar.OPS,
    *data_movement.OPS,
    *views.OPS,
    *joining.OPS,
    *indexing.OPS,
    *constructors.OPS,
    *conv.OPS,
    *pooling.OPS,
)
ALL_OPS = (*prim.OPS, *ATEN_OPS)

BY_NAME: dict[str, type[TorchOp]] = {op.name: op for op in ATEN_OPS}


def _by_py_name() -> dict[str, tuple[type[TorchOp], ...]]:
    table: dict[str, list[type[TorchOp]]] = {}
    for op in ATEN_OPS:
        for spelling in op.PY_NAMES:
            table.setdefault(spelling, []).append(op)
    return {k: tuple(v) for k, v in table.items()}


BY_PY_NAME: dict[str, tuple[type[TorchOp], ...]] = _by_py_name()
"""Spelling -> overloads in declaration order (`torch.add` -> add.Tensor, add.Scalar)."""
