"""`torch.einsum(...)` in scripted code: the decomposition of `dialects/torch/einsum_plan.py`,
emitted as `torch.aten.*` ops (sum, permute, reshape, bmm) at the call's location when the
operands' ranks are known while scripting, else one `torch.aten.einsum` op that
`torch-decompose` decomposes the same way for the call's signature (its ranks and dims of
size 1)."""

from __future__ import annotations

import ast
from typing import Any

from dialects.torch.einsum_plan import EinsumError, plan_einsum, run_einsum
from dialects.torch.ops.data_movement import AtenSizeIntOp
from dialects.torch.ops.einsum import AtenEinsumOp
from frontend.ir.builder import Value, kind_of
from frontend.ir.resolve import ops_for_method


class _ScriptOps:
    """`EinsumOps` that emit torch ops through a `FunctionScripter`."""

    def __init__(self, scripter: Any, node: ast.Call) -> None:
        self.scripter, self.node = scripter, node

    def _method(self, name: str, args: list[Value]) -> Any:
        return self.scripter.ops.emit(self.node, ops_for_method(name), args, {})[0]

    def size(self, x: Value, dim: int) -> Any:
        return self.scripter.ops.emit(self.node, (AtenSizeIntOp,), [x, dim], {})[0]

    def mul(self, a: Value, b: Value) -> Any:
        if isinstance(a, int) and isinstance(b, int):
            return a * b
        if a == 1:
            return b
        return self.scripter.values.scalar_binop(self.node, "mul", a, b)

    def sum(self, x: Value, dims: list[int]) -> Any:
        return self._method("sum", [x, dims])

    def permute(self, x: Value, dims: list[int]) -> Any:
        return self._method("permute", [x, dims])

    def reshape(self, x: Value, sizes: list[Any]) -> Any:
        return self._method("reshape", [x, sizes])

    def bmm(self, a: Value, b: Value) -> Any:
        return self._method("bmm", [a, b])

    def rank(self, x: Value) -> int | None:
        return getattr(x.type, "rank", None)

    def diagonal(self, x: Value, dim1: int, dim2: int) -> Any:
        return self._method("diagonal", [x, 0, dim1, dim2])

    def squeeze(self, x: Value, dim: int) -> Any:
        return self._method("squeeze", [x, dim])


def einsum_call(
    scripter: Any, node: ast.Call, args: list[Value], kwargs: dict[str, Value]
) -> Value:
    if kwargs or not args or not isinstance(args[0], str):
        raise scripter.error(node, "einsum() takes an equation known while scripting and tensors")
    operands = list(args[1:])
    if len(operands) == 1 and isinstance(operands[0], tuple | list):
        operands = list(operands[0])
    if any(kind_of(x) != "Tensor" for x in operands):
        raise scripter.error(node, "einsum(): the operands must be tensors")
    try:
        plan = plan_einsum(args[0], len(operands))
        if any(getattr(x.type, "rank", None) is None for x in operands):  # decomposed later
            return scripter.ops.emit(node, (AtenEinsumOp,), [args[0], operands], {})[0]
        return run_einsum(plan, operands, _ScriptOps(scripter, node))  # type: ignore[no-any-return]
    except EinsumError as err:
        raise scripter.error(node, str(err)) from None
