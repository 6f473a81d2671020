"""`frontend.torch.einsum`: eager einsum through the decomposition of
`dialects/torch/einsum_plan.py` (sums, permutes, reshapes and one bmm per pair of operands),
which tracing records like any other ops."""

from __future__ import annotations

from typing import Any

from dialects.torch.einsum_plan import plan_einsum, run_einsum
from frontend.torch.tensor import Tensor


class _EagerOps:
    """`EinsumOps` on frontend.torch tensors."""

    def size(self, x: Tensor, dim: int) -> int:
        return int(x.shape[dim])

    def mul(self, a: int, b: int) -> int:
        return a * b

    def sum(self, x: Tensor, dims: list[int]) -> Tensor:
        return x.sum(dims)  # type: ignore[attr-defined,no-any-return]

    def permute(self, x: Tensor, dims: list[int]) -> Tensor:
        return x.permute(dims)  # type: ignore[attr-defined,no-any-return]

    def reshape(self, x: Tensor, sizes: list[int]) -> Tensor:
        return x.reshape(sizes)  # type: ignore[attr-defined,no-any-return]

    def bmm(self, a: Tensor, b: Tensor) -> Tensor:
        return a.bmm(b)  # type: ignore[attr-defined,no-any-return]

    def rank(self, x: Tensor) -> int:
        return len(x.shape)

    def diagonal(self, x: Tensor, dim1: int, dim2: int) -> Tensor:
        return x.diagonal(0, dim1, dim2)  # type: ignore[attr-defined,no-any-return]

    def squeeze(self, x: Tensor, dim: int) -> Tensor:
        return x.squeeze(dim)  # type: ignore[attr-defined,no-any-return]


def einsum(equation: str, *operands: Any) -> Tensor:
    """`torch.einsum(equation, a, b, ...)` (or with the operands as one list)."""
    if len(operands) == 1 and isinstance(operands[0], list | tuple):
        operands = tuple(operands[0])
    return run_einsum(plan_einsum(equation, len(operands)), operands, _EagerOps())  # type: ignore[no-any-return]
