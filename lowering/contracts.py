"""Checks that run after each stage: the IR holds exactly what the stage contract promises."""

from __future__ import annotations

from collections.abc import Callable

from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.ir import Attribute, Operation

from dialects.torch.types import ValueTensorType


class ContractError(Exception):
    """A stage produced IR outside its contract: a compiler bug, named by op and stage."""


class OpenTypeError(ContractError):
    """After `torch-opt` a tensor's rank or dtype is still open: it depends on the sizes of the
    call (`squeeze()` of `?` dims on one branch of an `if`), so no code serves every call of the
    signature. The frontend then compiles for each call's exact shapes."""


def _all_types(op: Operation) -> list[Attribute]:
    types = [r.type for r in op.results] + [v.type for v in op.operands]
    for region in op.regions:
        for block in region.blocks:
            types += [a.type for a in block.args]
    return types


def _check(
    module: ModuleOp,
    stage: str,
    bad: Callable[[Operation], str | None],
    error: type[ContractError] = ContractError,
) -> None:
    for op in module.walk():
        problem = bad(op)
        if problem:
            raise error(f"after stage '{stage}': {op.name}: {problem}")


def verify_torch_opt_contract(module: ModuleOp) -> None:
    def bad(op: Operation) -> str | None:
        if op.name == "torch.aten.__getitem__.t":  # of a list whose length depends on sizes
            return "an item of a list of unknown length"
        for t in _all_types(op):
            if isinstance(t, ValueTensorType) and not t.is_fully_known:
                return f"type {t} is not fully known"
        return None

    _check(module, "torch-opt", bad, OpenTypeError)


def verify_linalg_contract(module: ModuleOp) -> None:
    def bad(op: Operation) -> str | None:
        if op.name.startswith("torch."):
            return "torch op left after convert-torch-to-linalg"
        if any(isinstance(t, ValueTensorType) for t in _all_types(op)):
            return "torch type left after convert-torch-to-linalg"
        return None

    _check(module, "linalg", bad)


def verify_memref_contract(module: ModuleOp) -> None:
    def bad(op: Operation) -> str | None:
        if op.name.startswith("tensor.") or any(isinstance(t, TensorType) for t in _all_types(op)):
            return "tensor value left after linalg-bufferize"
        return None

    _check(module, "memref", bad)


def verify_loops_contract(module: ModuleOp) -> None:
    allowed = ("builtin.", "func.", "arith.", "math.", "scf.", "memref.", "cf.assert")

    def bad(op: Operation) -> str | None:
        if not op.name.startswith(allowed):
            return "op outside func/arith/math/scf/memref/cf.assert after the loops stage"
        return None

    _check(module, "loops", bad)
