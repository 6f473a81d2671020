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
later operand or the output still has, and so on. `...` stands for an operand's leading dims
not named by letters, right-aligned across operands (as in broadcasting): `expand_ellipsis`
gives them unused letters once the operands' ranks are known. A dim of size 1 against a
larger one of the same subscript broadcasts, as in PyTorch: the size-1 dim is squeezed out
of its operand (a constant along the subscript), which leaves the subscript to the other.
Sizes known only at run time must be equal. A subscript repeated within one operand (`ii->i`,
`iijj->ij`) takes that diagonal first (`torch.diagonal`, whose dim goes last).
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
    left, arrow, output = text.partition("->")
    inputs = tuple(left.split(","))
    if len(inputs) != count:
        raise EinsumError(f"einsum: the equation has {len(inputs)} operands, {count} given")
    if count == 0:
        raise EinsumError("einsum(): must provide at least one operand")
    letters = "".join(inputs).replace("...", "")
    if not arrow:  # implicit output: `...`, then the subscripts that appear once, sorted
        ellipsis = "..." if any("..." in i for i in inputs) else ""
        output = ellipsis + "".join(sorted(s for s in set(letters) if letters.count(s) == 1))
    for subscripts in (*inputs, output):
        named = subscripts.replace("...", "", 1)
        if not named.isalpha() and named:
            raise EinsumError(f"einsum: subscripts must be letters, got {subscripts!r}")
    named_output = output.replace("...", "", 1)
    if len(set(named_output)) != len(named_output):
        raise EinsumError(f"einsum: output subscript repeated in {output!r}")
    if "..." in output and not any("..." in i for i in inputs):
        raise EinsumError("einsum: the output has `...` but no operand has")
    missing = [s for s in named_output if s not in letters]
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
    def rank(self, x: Any) -> int | None: ...
    def diagonal(self, x: Any, dim1: int, dim2: int) -> Any: ...
    def squeeze(self, x: Any, dim: int) -> Any: ...


def expand_ellipsis(plan: EinsumPlan, ranks: Sequence[int | None]) -> EinsumPlan:
    """The plan with each `...` replaced by unused letters, right-aligned across operands."""
    if not any("..." in s for s in (*plan.inputs, plan.output)):
        return plan
    used = set("".join(plan.inputs) + plan.output)
    fresh = [c for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz" if c not in used]
    counts = []
    for subscripts, rank in zip(plan.inputs, ranks, strict=True):
        if "..." not in subscripts:
            counts.append(0)
            continue
        if rank is None:
            raise EinsumUnsupported("einsum: `...` needs the operand's rank known while scripting")
        count = rank - len(subscripts.replace("...", ""))
        if count < 0:
            raise EinsumError(f"einsum: operand {subscripts!r} has more subscripts than dims")
        counts.append(count)
    letters = "".join(fresh[: max(counts)])
    inputs = tuple(
        s.replace("...", letters[len(letters) - n :] if n else "")
        for s, n in zip(plan.inputs, counts, strict=True)
    )
    return EinsumPlan(inputs, plan.output.replace("...", letters))


def run_einsum(plan: EinsumPlan, operands: Sequence[Any], ops: EinsumOps) -> Any:
    plan = expand_ellipsis(plan, [ops.rank(x) for x in operands])
    subscripts, tensors = list(plan.inputs), list(operands)
    for i in range(len(tensors)):  # a repeated subscript: its diagonal, moved last
        while len(set(subscripts[i])) != len(subscripts[i]):
            own = subscripts[i]
            letter = next(c for c in own if own.count(c) > 1)
            first, second = own.index(letter), own.index(letter, own.index(letter) + 1)
            tensors[i] = ops.diagonal(tensors[i], first, second)
            subscripts[i] = own[:first] + own[first + 1 : second] + own[second + 1 :] + letter
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
    if len(tensors) == 2:
        tensors, subscripts = _broadcast(tensors, subscripts, ops)
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
    for d, s in enumerate(sb):
        sizes.setdefault(s, ops.size(b, d))
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


def _broadcast(
    tensors: list[Any], subscripts: list[str], ops: EinsumOps
) -> tuple[list[Any], list[str]]:
    """Two operands with each size-1 dim that meets a larger one of its subscript squeezed."""
    (a, b), (sa, sb) = tensors, subscripts
    for s in [s for s in sa if s in sb]:
        da, db = sa.index(s), sb.index(s)
        size_a, size_b = ops.size(a, da), ops.size(b, db)
        if size_a == 1 and size_b != 1:
            a, sa = ops.squeeze(a, da), sa.replace(s, "")
        elif size_b == 1 and size_a != 1:
            b, sb = ops.squeeze(b, db), sb.replace(s, "")
        elif isinstance(size_a, int) and isinstance(size_b, int) and size_a != size_b:
            raise EinsumError(
                f"einsum(): operands do not broadcast: subscript {s!r} has sizes {size_a} and "
                f"{size_b}"
            )
    return [a, b], [sa, sb]


def _permuted(ops: EinsumOps, x: Any, have: str, want: str) -> Any:
    if have == want:
        return x
    return ops.permute(x, [have.index(s) for s in want])
