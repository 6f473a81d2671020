"""Lists of ints built from shapes while the rank is unknown (scripting): `x.shape[:-1]` is
`torch.aten.slice.t` of `torch.aten.size`, `x.shape[:-1] + (h, d)` and
`x.view(*x.shape[:-1], h, d)` add `torch.aten.add.t` (TorchScript's list ops).

Once `torch-refine-types` expands `torch.aten.size` into a `torch.prim.ListConstruct`, each
decomposes (`torch-decompose`) into the `ListConstruct` of the elements it picks, and the
users' shape rules read the sizes one by one.

```mlir
%s = torch.aten.size %x : !torch.vtensor<*,unk> -> !torch.list<int>
%l = torch.aten.slice.t %s, %none, %int-1, %int1 : !torch.list<int>, !torch.none, !torch.int, !torch.int -> !torch.list<int>
```
"""

from __future__ import annotations

from typing import Any

from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import operand_def, result_def

from dialects.torch.op_base import Sample, TorchOp, arg_value, torch_op
from dialects.torch.ops.prim import PrimListConstructOp
from dialects.torch.types import IntType, ListType, NoneType


def list_elements(value: SSAValue) -> list[SSAValue] | None:
    """The element values of a list made by `torch.prim.ListConstruct`, else None."""
    owner = value.owner
    return list(owner.elements) if isinstance(owner, PrimListConstructOp) else None


def _rebuilt(elements: list[SSAValue]) -> list[Operation]:
    return [PrimListConstructOp(elements, IntType())]


@torch_op
class AtenSliceTOp(TorchOp):
    """`l[start:end:step]` of a list of ints (`x.shape[1:]` of a tensor of unknown rank)."""

    name = "torch.aten.slice.t"
    SCHEMA = "aten::slice.t(int[] l, int? start=None, int? end=None, int step=1) -> int[]"
    PY_NAMES = ()  # the frontend emits it for a shape sliced while its rank is unknown
    SAMPLES = (Sample([2, 3, 4], None, -1), Sample([5, 6, 7, 8], 1, None, 2))
    l = operand_def(ListType)  # noqa: E741 (the schema's name)
    start = operand_def(IntType | NoneType)
    end = operand_def(IntType | NoneType)
    step = operand_def(IntType)
    result = result_def(ListType)

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        step = args[3]
        if isinstance(step, int) and step == 0:
            raise ValueError("slice step cannot be zero")
        return [ListType(IntType())]

    @staticmethod
    def eager(items: Any, start: Any = None, end: Any = None, step: int = 1) -> Any:
        return list(items)[start:end:step]

    def decompose(self) -> Any:
        elements = list_elements(self.l)
        bounds = [arg_value(v) for v in (self.start, self.end, self.step)]
        if elements is None or not all(b is None or isinstance(b, int) for b in bounds):
            return None
        return _rebuilt(elements[slice(*bounds)])


@torch_op
class AtenAddTOp(TorchOp):
    """`a + b` of two lists of ints (`x.shape[:-1] + (h, d)`)."""

    name = "torch.aten.add.t"
    SCHEMA = "aten::add.t(int[] a, int[] b) -> int[]"
    PY_NAMES = ()  # the frontend emits it for a sliced shape joined with more sizes
    SAMPLES = (Sample([2, 3], [4]), Sample([], [5, 6]))
    a = operand_def(ListType)
    b = operand_def(ListType)
    result = result_def(ListType)

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        return [ListType(IntType())]

    @staticmethod
    def eager(a: Any, b: Any) -> Any:
        return list(a) + list(b)

    def decompose(self) -> Any:
        first, second = list_elements(self.a), list_elements(self.b)
        if first is None or second is None:
            return None
        return _rebuilt(first + second)


OPS = (AtenSliceTOp, AtenAddTOp)
