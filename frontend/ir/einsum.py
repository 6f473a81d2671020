"""`torch.einsum` as sums, permutes, reshapes and one `bmm` per pair of operands.

`plan_einsum` reads the equation (`"bhqd,bhkd->bhqk"`); `run_einsum` carries it out with an
`EinsumOps`: the script frontend's (which emits `torch.aten.*` ops, so the graph shows the
decomposition) or eager tensors' (`frontend.torch.einsum`, which tracing records). For two
operands: subscripts only one operand has and the output lacks are summed first; the rest
are grouped as batch (both and the output), free (one operand and the output) and contracted
(both, not the output) dims, each operand permuted to `[batch, free, contracted]` /
`[batch, contracted, free]` and reshaped to 3-D, one `bmm` multiplies them, and the result
is reshaped and permuted to the output's order. More than two operands contract pairwise,
left to right, as PyTorch does by default: the first two into the subscripts of theirs that a
later operand or the output still has, and so on. `...` and a subscript repeated within one
operand (a diagonal) are errors.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol


class EinsumError(ValueError):
    """A malformed equation (or one outside what `run_einsum` does: `EinsumUnsupported`)."""


class EinsumUnsupported(EinsumError, NotImplementedError):
    """A valid equation outside what `run_einsum` does (`...`, a diagonal)."""


@dataclass(frozen=True)
class EinsumPlan:
    inputs: tuple[str, ...]  # the subscripts of each operand
    output: str


def plan_einsum(equation: str, count: int) -> EinsumPlan:
    text = equation.replace(" ", "")
    if "..." in text:
        raise EinsumUnsupported("einsum: `...` (broadcast dims) is not supported")
    left, arrow, output = text.partition("->")
    inputs = tuple(left.split(","))
    if len(inputs) != count:
        raise EinsumError(f"einsum: the equation has {len(inputs)} operands, {count} given")
    if count == 0:
        raise EinsumError("einsum(): must provide at least one operand")
    letters = "".join(inputs)
    if not arrow:  # implicit output: the subscripts that appear once, sorted
        output = "".join(sorted(s for s in set(letters) if letters.count(s) == 1))
    for subscripts in (*inputs, output):
        if not subscripts.isalpha() and subscripts:
            raise EinsumError(f"einsum: subscripts must be letters, got {subscripts!r}")
        if len(set(subscripts)) != len(subscripts):
            raise EinsumUnsupported(
                f"einsum: a subscript repeated within {subscripts!r} (a diagonal) is not supported"
            )
    missing = [s for s in output if s not in letters]
    if missing:
        raise EinsumError(f"einsum: output subscript {missing[0]!r} is in no operand")
    return EinsumPlan(inputs, output)


class EinsumOps(Protocol):
    def size(self, x: Any, dim: int) -> Any: ...
    def mul(self, a: Any, b: Any) -> Any: ...
    def sum(self, x: Any, dims: list[int]) -> Any: ...
    def permute(self, x: Any, dims: list[int]) -> Any: ...
    def reshape(self, x: Any, sizes: list[Any]) -> Any: ...
    def bmm(self, a: Any, b: Any) -> Any: ...


def run_einsum(plan: EinsumPlan, operands: Sequence[Any], ops: EinsumOps) -> Any:
    subscripts, tensors = list(plan.inputs), list(operands)
    while len(tensors) > 2:  # the first two into what a later operand or the output still has
        later = "".join(subscripts[2:]) + plan.output
        kept = "".join(dict.fromkeys(s for s in subscripts[0] + subscripts[1] if s in later))
        pair = EinsumPlan((subscripts[0], subscripts[1]), kept)
        tensors[:2], subscripts[:2] = [_contract(pair, tensors[:2], ops)], [kept]
    return _contract(EinsumPlan(tuple(subscripts), plan.output), tensors, ops)


def _contract(plan: EinsumPlan, operands: Sequence[Any], ops: EinsumOps) -> Any:
    """One operand, or two: the sums, permutes, reshapes and bmm of the docstring."""
    subscripts = list(plan.inputs)
    tensors = list(operands)
    for i, own in enumerate(subscripts):  # sum what only this operand has and the output lacks
        others = "".join(s for j, s in enumerate(subscripts) if j != i) + plan.output
        summed = [d for d, s in enumerate(own) if s not in others]
        if summed:
            tensors[i] = ops.sum(tensors[i], summed)
            subscripts[i] = "".join(s for s in own if s in others)
    if len(tensors) == 1:
        return _permuted(ops, tensors[0], subscripts[0], plan.output)
    (a, b), (sa, sb) = tensors, subscripts
    sizes = {s: ops.size(a, d) for d, s in enumerate(sa)}
    sizes.update({s: ops.size(b, d) for d, s in enumerate(sb) if s not in sizes})
    batch = [s for s in plan.output if s in sa and s in sb]
    contracted = [s for s in sa if s in sb and s not in plan.output]
    free_a = [s for s in sa if s not in sb]
    free_b = [s for s in sb if s not in sa]

    def product(group: list[str]) -> Any:
        total: Any = 1
        for s in group:
            total = ops.mul(total, sizes[s])
        return total

    a = _permuted(ops, a, sa, "".join(batch + free_a + contracted))
    b = _permuted(ops, b, sb, "".join(batch + contracted + free_b))
    a = ops.reshape(a, [product(batch), product(free_a), product(contracted)])
    b = ops.reshape(b, [product(batch), product(contracted), product(free_b)])
    order = batch + free_a + free_b
    result = ops.reshape(ops.bmm(a, b), [sizes[s] for s in order])
    return _permuted(ops, result, "".join(order), plan.output)


def _permuted(ops: EinsumOps, x: Any, have: str, want: str) -> Any:
    if have == want:
        return x
    return ops.permute(x, [have.index(s) for s in want])
