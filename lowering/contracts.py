"""Checks that run after each stage: the IR holds exactly what the stage contract promises."""

from __future__ import annotations

from collections.abc import Callable

from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.ir import Attribute, Operation
from xdsl.utils.exceptions import PassFailedException

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

    def half(op: Operation) -> str | None:
        for t in _all_types(op):
            if isinstance(t, ValueTensorType) and t.element is not None and t.element.is_half:
                return f"type {t} is half: torch-emulate-half leaves float32 only"
        return None

    _check(module, "torch-opt", half)


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


# ---- which stage an input is at (for passes and targets given IR by hand) ----


class StageError(PassFailedException):
    """IR of the wrong stage for a pass or target: the message is one line naming the stage it
    needs and the named pipeline that gets there."""


def stage_of(module: ModuleOp) -> str:
    """The earliest stage whose contract `module` can be at: `torch` (torch ops or types, some
    tensor type not known), `torch-opt` (torch, every tensor type known), `linalg` (builtin
    tensors), `memref` (linalg on buffers) or `loops`. One walk over the module."""
    torch, unknown, tensors, linalg = False, False, False, False
    for op in module.walk():
        torch = torch or op.name.startswith("torch.")
        linalg = linalg or op.name.startswith("linalg.")
        for t in _all_types(op):
            if isinstance(t, ValueTensorType):
                torch, unknown = True, unknown or not t.is_fully_known
            tensors = tensors or isinstance(t, TensorType)
    if torch:
        return "torch" if unknown else "torch-opt"
    return "linalg" if tensors else "memref" if linalg else "loops"


STAGE_ORDER = ("torch", "torch-opt", "linalg", "memref", "loops")
STAGE_MAKERS = {
    "torch-opt": "torch-refine-types",
    "linalg": "convert-torch-to-linalg",
    "memref": "linalg-bufferize",
    "loops": "convert-linalg-to-parallel-loops",
}
"""The pass whose output first has each stage's contract."""


def require_stage(module: ModuleOp, user: str, needs: str) -> None:
    """Raise a one-line `StageError` if `module` is at a stage before `needs` (`user` names the
    pass or target that needs it). IR of a later stage passes: the pass has nothing to do."""
    found = stage_of(module)
    if STAGE_ORDER.index(found) >= STAGE_ORDER.index(needs):
        return
    signature = '{signature="f32[?]"}' if found == "torch" else ""
    raise StageError(
        f"{user}: needs IR of stage '{needs}' (made by {STAGE_MAKERS[needs]}), but this input is "
        f"at stage '{found}'; get there with: xdsl-opt FILE -p 'tsjit-to-{needs}{signature}'"
    )
