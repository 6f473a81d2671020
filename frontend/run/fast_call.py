"""The per-call fast path of compiled functions: exact argument keys -> the compiled kernel.

A compiled call normally builds the argument signature as torch types, looks it up, checks
the concrete shapes and converts the arguments (tens of microseconds). Once a call with a
given *exact* key (dtype and shape of each array, type of each scalar) has passed all that,
the next call with the same key only needs the kernel: `FastCalls.call` builds the key from
plain Python values (about a microsecond), and anything unusual (keywords, non-contiguous
arrays, other tensor types) falls back to the full path, which raises the clear errors.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

MISS = object()
"""`FastCalls.call`'s answer when the full call path has to run."""

SCALARS = (int, float, bool)
MAX_ENTRIES = 1024  # distinct exact keys remembered per function


class FastCalls:
    """Remembers which kernel ran for an exact argument key, and calls it directly."""

    def __init__(self) -> None:
        self.kernels: dict[tuple[Any, ...], Callable[..., Any]] = {}

    def call(self, args: Sequence[Any]) -> Any:
        """The kernel's result for `args` if their key was seen before, else `MISS`."""
        converted = self.convert(args)
        if converted is None:
            return MISS
        key, values, as_torch = converted
        kernel = self.kernels.get(key)
        if kernel is None:
            return MISS
        result = kernel(*values)
        return to_torch(result) if as_torch else result

    def remember(self, args: Sequence[Any], kernel: Callable[..., Any]) -> None:
        """Called by the full path once `args` were checked and `kernel` chosen for them."""
        converted = self.convert(args)
        if converted is not None and len(self.kernels) < MAX_ENTRIES:
            self.kernels[converted[0]] = kernel

    @staticmethod
    def convert(args: Sequence[Any]) -> tuple[tuple[Any, ...], list[Any], bool] | None:
        """(key, values for the kernel, whether results go back as torch tensors), or None."""
        key: list[Any] = []
        values: list[Any] = []
        as_torch = False
        torch_tensor = torch_tensor_type()
        for arg in args:
            kind = type(arg)
            if kind is torch_tensor:
                try:
                    arg, as_torch = arg.detach().numpy(), True
                except (TypeError, RuntimeError):  # bfloat16, cuda: the full path says so
                    return None
                kind = np.ndarray
            if kind is np.ndarray:
                if not arg.flags.c_contiguous or not arg.dtype.isnative:  # `>f4`: same num
                    return None
                if arg.dtype == np.float16:  # the full path converts it to float32
                    return None
                key.append((arg.dtype.num, arg.shape))
            elif kind in SCALARS:
                if kind is int and not -(2**63) <= arg < 2**63:  # the full path refuses it
                    return None
                key.append(kind)
            else:
                return None
            values.append(arg)
        return tuple(key), values, as_torch


def torch_tensor_type() -> Any:
    torch = sys.modules.get("torch")
    return None if torch is None else torch.Tensor


def to_torch(result: Any) -> Any:
    if isinstance(result, tuple):
        return tuple(to_torch(r) for r in result)
    if isinstance(result, np.ndarray):
        import torch

        return torch.from_numpy(result if result.flags.writeable else result.copy())  # constants
    return result
