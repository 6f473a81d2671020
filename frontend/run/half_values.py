"""float16 / bfloat16 values at the call boundary: arguments in, results out.

Compiled code computes half tensors as float32 tensors (`torch-emulate-half`), so:

- a float16 argument (a numpy `float16` array, a torch `float16` tensor) or a torch
  `bfloat16` tensor is converted to a float32 `HalfCarrier`: the same values, exact, which
  remembers the dtype it came as (the signature keeps `f16` / `bf16`);
- a result whose torch dtype is half (known from the program's types refined for the call's
  signature, `ResultHalves`) is converted back: float16 results are `float16` arrays (torch
  `float16` tensors for torch callers), bfloat16 results are torch `bfloat16` tensors for
  torch callers. numpy has no bfloat16: a caller that passed no torch tensor gets a float32
  array holding the bfloat16 values (exactly what `t.bfloat16().float()` would hold).
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.traits import IsTerminator

from dialects.torch.dtypes import BFLOAT16, FLOAT16, DType, dtype_of_name
from dialects.torch.op_base import TorchOp
from dialects.torch.ops.prim import ConstantIntOp
from dialects.torch.types import ValueTensorType


class HalfCarrier(np.ndarray):  # type: ignore[type-arg]
    """A float32 array holding half values, marked with the half dtype they are (`half`).

    numpy passes it as a plain float32 array wherever the compiled code receives it
    (`np.require` drops the subclass)."""

    half: DType = FLOAT16

    def __array_finalize__(self, obj: Any) -> None:
        self.half = getattr(obj, "half", FLOAT16)


def carry(values: Any, half: DType) -> HalfCarrier:
    carrier = np.ascontiguousarray(values, dtype=np.float32).view(HalfCarrier)
    carrier.half = half
    return carrier


def from_torch(tensor: Any) -> HalfCarrier | None:
    """A CPU torch float16 / bfloat16 tensor as a carrier; None for other tensors."""
    name = str(tensor.dtype).removeprefix("torch.")
    if name not in (FLOAT16.name, BFLOAT16.name) or tensor.device.type != "cpu":
        return None
    return carry(tensor.detach().float().numpy(), dtype_of_name(name))


def from_numpy(array: np.ndarray) -> HalfCarrier | None:  # type: ignore[type-arg]
    """A numpy float16 array as a carrier; None for other arrays."""
    if array.dtype != np.float16 or isinstance(array, HalfCarrier):
        return None
    return carry(array, FLOAT16)


# ---- results ----


def restore(result: Any, halves: tuple[DType | None, ...], torch_caller: bool) -> Any:
    """The flat results of a call with each half result in its dtype (see the module)."""
    if not any(halves):
        return result
    if isinstance(result, tuple | list):
        return type(result)(_restore_one(r, h, torch_caller) for r, h in zip(result, halves))
    return _restore_one(result, halves[0], torch_caller)


def _restore_one(value: Any, half: DType | None, torch_caller: bool) -> Any:
    if half is None or not isinstance(value, np.ndarray):
        return value
    if half is FLOAT16:
        return value.astype(np.float16)
    if not torch_caller:
        return np.asarray(value)  # float32 array holding bfloat16 values: numpy has no bf16
    import torch

    return torch.from_numpy(np.array(value, dtype=np.float32)).to(torch.bfloat16)


class ResultHalves:
    """Per signature, the half dtype of each result of one function (None: not half)."""

    def __init__(self, module: ModuleOp, name: str) -> None:
        self.module = module
        self.name = name
        self.by_signature: dict[Any, tuple[DType | None, ...]] = {}
        self.may_make_half = _may_make_half(module)
        self.lock = threading.Lock()

    def of(self, signature: tuple[Any, ...], text: str) -> tuple[DType | None, ...]:
        if not self.may_make_half and not any(_is_half_spec(s) for s in signature):
            return ()
        with self.lock:
            found = self.by_signature.get(signature)
            if found is None:
                found = self.by_signature[signature] = self._refine(text)
        return found

    def _refine(self, text: str) -> tuple[DType | None, ...]:
        """The results' half dtypes; () when the types do not refine (the call's own path
        then raises the program's error, with its location)."""
        from xdsl.utils.exceptions import DiagnosticException

        from lowering.pipeline import make_context
        from lowering.torch_opt.inline import TorchInlinePass
        from lowering.torch_opt.refine_types import TorchRefineTypesPass

        ctx = make_context()
        copy = self.module.clone()
        try:
            TorchInlinePass().apply(ctx, copy)
            TorchRefineTypesPass(signature=text).apply(ctx, copy)
        except DiagnosticException:
            return ()
        entry = next(
            f for f in copy.ops if isinstance(f, func.FuncOp) and f.sym_name.data == self.name
        )
        outputs = entry.function_type.outputs.data
        return tuple(_half_element(t) for t in outputs)


def _half_element(typ: Any) -> DType | None:
    if isinstance(typ, ValueTensorType) and typ.element is not None and typ.element.is_half:
        return typ.element
    return None


def _is_half_spec(spec: Any) -> bool:
    return _half_element(spec) is not None


HALF_CASTS = ("torch.aten._cast_Half", "torch.aten._cast_BFloat16")
HALF_CODES = (FLOAT16.scalar_type, BFLOAT16.scalar_type)


def _may_make_half(module: ModuleOp) -> bool:
    """Whether the program can make a half tensor from other dtypes: a half cast, a half
    type, or a half dtype's code as a `ScalarType` argument (`dtype=torch.float16`)."""
    for op in module.walk():
        if op.name in HALF_CASTS or any(_half_element(v.type) is not None for v in op.results):
            return True
        code = isinstance(op, ConstantIntOp) and op.python_value() in HALF_CODES
        if code and any(_is_dtype_argument(use.operation, use.index) for use in op.result.uses):
            return True
    return False


def _is_dtype_argument(op: Operation, index: int) -> bool:
    if isinstance(op, func.CallOp) or op.has_trait(IsTerminator):
        return True  # passed on (to a callee, out of a branch): it may become a dtype
    if not isinstance(op, TorchOp) or not getattr(op, "SCHEMA", ""):
        return False
    arguments = op.parsed_schema().arguments
    return index < len(arguments) and arguments[index].type == "ScalarType"
