"""Random tensors in scripted code (`torch.randn(n, d)`, `torch.rand_like(x)`,
`torch.randint(0, 10, (n,))`): compiled code has no random generator, so each call runs in
Python between compiled parts (`torch.prim.PythonCall`) and calls the function the script
named. A script of `torch.randn` therefore draws from PyTorch's generator, in the same order
as the eager program (`torch.manual_seed` reproduces both); one of `frontend.torch.randn`
from frontend.torch's. Only at the function's top level, like `print`.
"""

from __future__ import annotations

import ast
import sys
from typing import Any

from xdsl.ir import SSAValue

from dialects.torch.dtypes import DType
from dialects.torch.ops.prim import PrimPythonCallOp
from frontend.ir.builder import Value, kind_of
from frontend.run.python_registry import UNKNOWN_TENSOR, register
from frontend.script.collaborator import Collaborator

RANDOM_FUNCTIONS = frozenset(
    {"rand", "randn", "randint", "rand_like", "randn_like", "randint_like", "randperm",
     "normal", "bernoulli", "poisson", "multinomial"}
)  # fmt: skip
DROPPED = ("device", "requires_grad", "layout", "pin_memory")


def random_function_name(obj: Any) -> str | None:
    """The name of PyTorch's or frontend.torch's random tensor function `obj`, else None."""
    name = getattr(obj, "__name__", "")
    module = getattr(obj, "__module__", "") or ""
    if name not in RANDOM_FUNCTIONS:
        return None
    torch = sys.modules.get("torch")
    if torch is not None and getattr(torch, name, None) is obj:
        return name
    return name if module.startswith("frontend.torch") else None


class RandomCall:
    """The Python side of a scripted random call: `fn(*args, **options)` with tensors
    converted to the kind `fn` takes and dtype names back to dtypes."""

    def __init__(self, fn: Any, widths: list[int | None], keywords: list[str]) -> None:
        self.fn = fn
        self.widths = widths  # per positional argument: None for a value, n for an n-tuple
        self.keywords = keywords
        self.__qualname__ = f"random.{getattr(fn, '__name__', 'fn')}"

    def __call__(self, *values: Any) -> Any:
        it = iter(values)
        args = [
            self.converted(next(it)) if width is None else tuple(next(it) for _ in range(width))
            for width in self.widths
        ]
        options = {k: self.converted(next(it), k) for k in self.keywords}
        return self.fn(*args, **options)

    def converted(self, value: Any, keyword: str = "") -> Any:
        torch = sys.modules.get("torch")
        is_torch = torch is not None and getattr(self.fn, "__module__", "").startswith("torch")
        if keyword == "dtype" and isinstance(value, str):
            if is_torch:
                return getattr(torch, value)
            import frontend.torch as ft

            return getattr(ft, value)
        if is_torch and type(value).__module__ == "numpy" and hasattr(value, "shape"):
            return torch.from_numpy(value)  # type: ignore[union-attr]
        return value


class RandomTensors(Collaborator):
    """Random tensor functions. Interface: `random_call(node, fn, name, args, kwargs)`."""

    def random_call(
        self, node: ast.Call, fn: Any, name: str, args: list[Value], kwargs: dict[str, Value]
    ) -> Value:
        if self.scripter.builder.block is not self.scripter.entry_block:
            raise self.error(
                node,
                f"torch.{name}() inside `if` or a loop is not supported (random tensors are "
                "drawn in Python between compiled parts of the program)",
                "draw them before the `if` or loop",
            )
        if "generator" in kwargs or "out" in kwargs:
            raise self.error(node, f"torch.{name}(generator=..., out=...) is not supported")
        positional: list[Value] = []
        widths: list[int | None] = []
        for value in args:  # a size tuple stays one: randint(0, 10, (2, 3))
            is_tuple = isinstance(value, tuple | list)
            positional += list(value) if is_tuple else [value]
            widths.append(len(value) if is_tuple else None)
        options = {k: v for k, v in kwargs.items() if k not in DROPPED}
        options = {k: v.name if isinstance(v, DType) else v for k, v in options.items()}
        operands: list[SSAValue] = []
        for value in (*positional, *options.values()):
            if not isinstance(value, SSAValue | int | float | str | bool | None):
                raise self.error(node, f"torch.{name}() of a {kind_of(value)} is not supported")
            operands.append(self.scripter.builder.materialize(value))
        call = RandomCall(fn, widths, list(options))
        op = self.scripter.builder.insert(
            PrimPythonCallOp(register(call), operands, [UNKNOWN_TENSOR])
        )
        return op.results[0]
