"""`torch.special.entr`: the elementwise entropy term `-x * log(x)`."""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.ir import SSAValue

from dialects.torch.families import UnaryOp
from dialects.torch.op_base import Sample, torch_op
from dialects.torch.op_base import T as Tn
from dialects.torch.scalar_builder import ScalarBuilder


@torch_op
class AtenSpecialEntrOp(UnaryOp):
    """`-x * log(x)` for x > 0, 0 at 0, -inf below 0 (and at +inf), NaN for NaN; integers give
    float32 (`torch.special.entr`)."""

    name = "torch.aten.special_entr"
    SCHEMA = "aten::special_entr(Tensor self) -> Tensor"
    PY_NAMES = ("torch.special.entr",)
    FLOAT_RESULT = True
    SAMPLES = (Sample(Tn((3, 4), low=-0.5, high=3.0)),)

    @staticmethod
    def eager(x: Any) -> Any:
        with np.errstate(all="ignore"):
            positive = -x * np.log(x)
        out = np.where(x > 0, positive, np.where(x == 0, 0, -np.inf))
        return np.where(np.isnan(x), x, out).astype(x.dtype)

    @staticmethod
    def payload(b: ScalarBuilder, x: SSAValue) -> SSAValue:
        zero = b.const(0.0, x)
        positive = b.neg(b.mul(x, b.log(x)))
        below = b.select(b.cmp("eq", x, zero), zero, b.const(float("-inf"), x))
        out = b.select(b.cmp("gt", x, zero), positive, below)
        return b.select(b.is_nan(x), x, out)


OPS = (AtenSpecialEntrOp,)
