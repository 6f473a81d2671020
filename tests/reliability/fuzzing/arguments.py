"""Random non-tensor arguments for a template's call, chosen by schema argument name and type.

Values come from the op's own samples, mutated where the schema says what the argument
means: a `dim` gets any valid dim of the first tensor, `int[] dim` a subset of dims, `dims` a
permutation, `size`/`shape` a reshape of the tensor's elements, `keepdim` either bool.
`torch` argument values must stay expressible in Python source: `render` writes them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from dialects.torch.dtypes import dtype_of_code
from dialects.torch.schema import Argument

DIM_NAMES = {"dim", "dim0", "dim1", "start_dim", "end_dim"}
SMALL_SCALARS = (0, 1, 2, -1, 3, 0.5, -1.5, 2.5)


@dataclass(frozen=True)
class Literal:
    """A Python value written into the program (or `text` when it is an expression)."""

    value: Any
    text: str


def render(value: Any, arg: Argument | None = None) -> str:
    """Python source for a constant argument value."""
    if arg is not None and arg.name == "dtype" and isinstance(value, int):
        return f"torch.{dtype_of_code(value).name}"
    if isinstance(value, float) and not math.isfinite(value):
        return f"float({str(value)!r})"
    if isinstance(value, list | tuple):
        inner = ", ".join(render(v) for v in value)
        return f"[{inner}]" if isinstance(value, list) else f"({inner},)"
    return repr(value)


class ArgumentChooser:
    """Chooses constant arguments; `scalars` are the int variables a program may use instead."""

    def __init__(self, rng: np.random.Generator) -> None:
        self.rng = rng

    def choose(
        self, arg: Argument, seen: list[Any], shape: tuple[int, ...] | None,
        scalars: dict[str, int],
    ) -> Literal:  # fmt: skip
        """A value for `arg`, given the values its samples use and the first tensor's shape."""
        rng = self.rng
        rank = len(shape) if shape is not None else 0
        run_time = arg.type == "Scalar" or (arg.type == "int" and arg.name not in DIM_NAMES)
        if run_time and scalars and rng.random() < 0.15:  # dims must be constants
            name = str(rng.choice(sorted(scalars)))
            return Literal(scalars[name], name)
        if arg.type == "int" and arg.name in DIM_NAMES and rng.random() < 0.8:
            return self._literal(int(rng.integers(-max(rank, 1), max(rank, 1))))
        if arg.type == "int[]" and arg.name in ("dim", "dims") and rank and rng.random() < 0.8:
            return self._literal(self._dims(arg.name, rank))
        if arg.type == "int[]" and arg.name in ("size", "shape") and rng.random() < 0.7:
            return self._size(shape, scalars)
        if arg.type == "int[]" and arg.name == "repeats" and rng.random() < 0.7:
            return self._literal(
                [int(rng.integers(1, 4)) for _ in range(rank + int(rng.random() < 0.3))]
            )
        if arg.type == "bool" and rng.random() < 0.5:
            return self._literal(bool(rng.random() < 0.5))
        if arg.type in ("Scalar", "float") and rng.random() < 0.25:
            return self._literal(SMALL_SCALARS[int(rng.integers(len(SMALL_SCALARS)))])
        return self._pick(seen, arg)

    def _pick(self, seen: list[Any], arg: Argument) -> Literal:
        value = seen[int(self.rng.integers(len(seen)))]
        return Literal(value, render(value, arg))

    def _literal(self, value: Any) -> Literal:
        return Literal(value, render(value))

    def _dims(self, name: str, rank: int) -> list[int]:
        dims = [int(d) for d in self.rng.permutation(rank)]
        if name == "dims":  # permute: every dim once
            return dims
        picked = sorted(dims[: int(self.rng.integers(1, rank + 1))])
        return [d - rank if self.rng.random() < 0.3 else d for d in picked]

    def _size(self, shape: tuple[int, ...] | None, scalars: dict[str, int]) -> Literal:
        """A reshape of `shape`'s elements (one dim maybe -1), or a small new shape."""
        rng = self.rng
        if shape is None:
            sizes = [int(rng.integers(1, 5)) for _ in range(int(rng.integers(0, 4)))]
            return self._literal(sizes)
        sizes = factor_shape(math.prod(shape), rng)
        if rng.random() < 0.4:
            sizes[int(rng.integers(len(sizes)))] = -1
        texts = [str(s) for s in sizes]
        matching = [name for name, value in scalars.items() if value in sizes]
        if matching and rng.random() < 0.5:  # a run-time size: `x.view(n, -1)`
            name = matching[int(rng.integers(len(matching)))]
            texts[sizes.index(scalars[name])] = name
        return Literal(sizes, "[" + ", ".join(texts) + "]")


def factor_shape(numel: int, rng: np.random.Generator) -> list[int]:
    """A random shape with `numel` elements and rank 1-3."""
    if numel == 0:
        return [0] + [int(rng.integers(1, 4)) for _ in range(int(rng.integers(0, 2)))]
    sizes: list[int] = []
    rest = numel
    for _ in range(int(rng.integers(0, 3))):
        divisors = [d for d in range(1, rest + 1) if rest % d == 0]
        d = divisors[int(rng.integers(len(divisors)))]
        sizes.append(d)
        rest //= d
    sizes.append(rest)
    rng.shuffle(sizes)
    return sizes
