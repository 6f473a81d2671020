"""The base of ops computed row by row along one dim by a kernel: sorts, selections, scans.

Such an op (`dialects/torch/ops/sorting.py`, `scans.py`) declares `KERNEL`, the `KernelRef` of a
numba kernel (`lowering/run/kernels/along_dim.py`, whose docstring has the calling contract), and
answers `plan()`: which dim its rows run along (None: the whole tensor, flattened, is one
row), the int scalars the kernel takes, and which of the kernel's outputs are the op's results.
`lowering/torch_to_linalg/along_dim.py` turns that into the kernel call.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from dialects.torch.kernel_refs import KernelRef
from dialects.torch.meta import Dynamic, TensorMeta, normalize_dim
from dialects.torch.op_base import TorchOp


@dataclass(frozen=True)
class KernelPlan:
    """How one op instance calls its kernel.

    `dim`: the dim of the rows (normalized), or None for the flattened tensor;
    `scalars`: the kernel's int arguments after `(x, outer, n, inner)`;
    `outputs`: per kernel output (values first, then indices), the op result it is, or None
    for a scratch buffer the op does not return (argsort's values).
    """

    kernel: KernelRef
    dim: int | None
    scalars: tuple[int, ...]
    outputs: tuple[int | None, ...]


class AlongDimOp(TorchOp):
    """An op lowered to a call of the kernel `KERNEL` (see the module docstring)."""

    KERNEL: ClassVar[KernelRef]

    @classmethod
    def named_args(cls, args: tuple[Any, ...]) -> dict[str, Any]:
        return {a.name: v for a, v in zip(cls.parsed_schema().arguments, args)}

    def named(self) -> dict[str, Any]:
        return self.named_args(tuple(self.arg_values()))

    def plan(self) -> KernelPlan:
        raise NotImplementedError


def constant(cls: Any, named: dict[str, Any], name: str) -> Any:
    """The compile-time value of argument `name`; TypeError when it is known only at run time."""
    value = named.get(name)
    if isinstance(value, Dynamic):
        raise TypeError(f"{cls.name}: argument `{name}` must be known while scripting")
    return value


def row_dim(cls: Any, named: dict[str, Any], name: str = "dim") -> int | None:
    """The normalized dim of the rows (0 for a 0-d tensor), or None when the rank is unknown."""
    x: TensorMeta = named["self"]
    dim = constant(cls, named, name)
    if not isinstance(dim, int):
        raise TypeError(f"{cls.name}: `{name}` must be an int, got {dim!r}")
    return None if x.rank is None else normalize_dim(dim, x.rank)


def sized_along(shape: tuple[int, ...] | None, dim: int, size: int | None) -> Any:
    """`shape` with dim `dim` of size `size` (None: dropped); 0-d shapes stay 0-d."""
    if shape is None or not shape:
        return shape
    if size is None:
        return shape[:dim] + shape[dim + 1 :]
    return (*shape[:dim], size, *shape[dim + 1 :])


# ---- numpy references ----


def stable_order(x: np.ndarray, axis: int, descending: bool) -> np.ndarray:  # type: ignore[type-arg]
    """Positions along `axis` in stable sorted order (NaN above every number), as int64."""
    if x.ndim == 0:
        return np.zeros((), np.int64)
    if not descending:
        return np.argsort(x, axis=axis, kind="stable").astype(np.int64)
    n = x.shape[axis]
    flipped = np.argsort(np.flip(x, axis), axis=axis, kind="stable")
    return np.flip(n - 1 - flipped, axis).astype(np.int64)


def taken(x: np.ndarray, order: np.ndarray, axis: int) -> np.ndarray:  # type: ignore[type-arg]
    return x.copy() if x.ndim == 0 else np.take_along_axis(x, order, axis)
