"""A random program: typed inputs, a tree of statements, returns, and its Python source."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

import numpy as np

FUNCTION_NAME = "program"


@dataclass(frozen=True)
class TensorInput:
    """A tensor argument; its values come from `seed` (and `special` plants NaN/inf)."""

    name: str
    shape: tuple[int, ...]
    dtype: str
    seed: int
    special: bool = False
    low: float = -2.0  # value range (integers: low..high-1; an op sample's range for indices)
    high: float = 2.0

    def value(self) -> np.ndarray:
        rng = np.random.default_rng(self.seed)
        if self.dtype == "bool":
            return np.asarray(rng.random(self.shape) > 0.5)
        if self.dtype.startswith("int"):
            low, high = (-5, 6) if (self.low, self.high) == (-2.0, 2.0) else (self.low, self.high)
            return np.asarray(rng.integers(int(low), max(int(high), int(low) + 1), self.shape),
                              dtype=self.dtype)  # fmt: skip
        values = np.asarray(rng.uniform(self.low, self.high, self.shape), dtype=self.dtype)
        if self.special and values.size:
            flat = values.reshape(-1)
            picks = rng.integers(0, flat.size, 3)
            flat[picks] = np.array([np.nan, np.inf, -np.inf], dtype=self.dtype)
        return values


@dataclass(frozen=True)
class IntInput:
    """An `int` argument and the value the program is called with."""

    name: str
    value: int


@dataclass
class Assign:
    """`target = expr` (`target` may be `a, b` to unpack a list of tensors)."""

    target: str
    expr: str

    def lines(self, indent: str) -> list[str]:
        return [f"{indent}{self.target} = {self.expr}"]


@dataclass
class If:
    cond: str
    then: list[Any]
    orelse: list[Any]

    def lines(self, indent: str) -> list[str]:
        out = [f"{indent}if {self.cond}:", *body_lines(self.then, indent + "    ")]
        if self.orelse:
            out += [f"{indent}else:", *body_lines(self.orelse, indent + "    ")]
        return out


@dataclass
class For:
    """`for <var> in <iterable>:` (`range(...)` or a tensor: rows of its first dim)."""

    var: str
    iterable: str
    body: list[Any]

    def lines(self, indent: str) -> list[str]:
        return [
            f"{indent}for {self.var} in {self.iterable}:",
            *body_lines(self.body, indent + "    "),
        ]


Statement = Assign | If | For


def body_lines(body: list[Statement], indent: str) -> list[str]:
    lines = [line for stmt in body for line in stmt.lines(indent)]
    return lines or [f"{indent}pass"]


@dataclass
class Program:
    tensors: list[TensorInput]
    ints: list[IntInput]
    body: list[Statement] = field(default_factory=list)
    returns: list[str] = field(default_factory=list)

    def parameters(self) -> list[str]:
        return [t.name for t in self.tensors] + [f"{i.name}: int" for i in self.ints]

    def source(self) -> str:
        """The program as a Python function (names `torch` and `F` come from its globals)."""
        header = f"def {FUNCTION_NAME}({', '.join(self.parameters())}):"
        result = ", ".join(self.returns) if self.returns else "None"
        return "\n".join([header, *body_lines(self.body, "    "), f"    return {result}", ""])

    def arguments(self) -> list[Any]:
        """Fresh argument values: numpy arrays for tensors, then Python ints."""
        return [t.value() for t in self.tensors] + [i.value for i in self.ints]

    def copy(self) -> Program:
        return dataclasses.replace(
            self, tensors=list(self.tensors), ints=list(self.ints),
            body=copy_body(self.body), returns=list(self.returns),
        )  # fmt: skip

    def statement_count(self) -> int:
        return count_statements(self.body)


def copy_body(body: list[Statement]) -> list[Statement]:
    out: list[Statement] = []
    for stmt in body:
        if isinstance(stmt, If):
            out.append(If(stmt.cond, copy_body(stmt.then), copy_body(stmt.orelse)))
        elif isinstance(stmt, For):
            out.append(For(stmt.var, stmt.iterable, copy_body(stmt.body)))
        else:
            out.append(Assign(stmt.target, stmt.expr))
    return out


def count_statements(body: list[Statement]) -> int:
    total = 0
    for stmt in body:
        total += 1
        if isinstance(stmt, If):
            total += count_statements(stmt.then) + count_statements(stmt.orelse)
        elif isinstance(stmt, For):
            total += count_statements(stmt.body)
    return total


def reproducer(program: Program, note: str = "") -> str:
    """A standalone script: the program, its exact inputs, and the comparison with PyTorch."""
    inputs = [_literal(t) for t in program.tensors] + [
        f"{i.value!r},  # {i.name}" for i in program.ints
    ]
    comment = "".join(f"# {line}\n" for line in note.splitlines())
    return f"""{comment}import numpy as np
import torch
import torch.nn.functional as F

import frontend

{program.source()}

args = [
{"".join(f"    {text}{chr(10)}" for text in inputs)}]
tensors = [torch.from_numpy(a.copy()) if isinstance(a, np.ndarray) else a for a in args]
expected = {FUNCTION_NAME}(*tensors)
actual = frontend.script({FUNCTION_NAME})(*args)
print("expected:", expected)
print("actual:  ", actual)
"""


def _literal(t: TensorInput) -> str:
    items = _float_safe(t.value().tolist())
    return f"np.array({items}, dtype=np.{t.dtype}).reshape({t.shape}),  # {t.name}"


def _float_safe(items: Any) -> str:
    return repr(items).replace("nan", "float('nan')").replace("inf", "float('inf')")
