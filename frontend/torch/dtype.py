"""torch-like dtype objects (`torch.float32`, `torch.long`, ...) built on the dialect's DType table.

A `dtype` is a `DType` (so it can be passed wherever the compiler takes one, e.g. as a
`dtype=` argument of an op) that compares equal to the dialect's own DType of the same name
and adds the attributes PyTorch code reads (`is_floating_point`, `itemsize`, ...).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from dialects.torch.dtypes import ALL_DTYPES, DType, dtype_of_code, dtype_of_name, dtype_of_numpy


@dataclass(frozen=True, eq=False, repr=False)
class dtype(DType):  # noqa: N801  (torch spells the class `torch.dtype`)
    """A tensor element type, spelled and compared like PyTorch's `torch.dtype`."""

    @property
    def is_floating_point(self) -> bool:
        return self.is_float

    @property
    def is_complex(self) -> bool:
        return False

    @property
    def is_signed(self) -> bool:
        return not self.is_bool and self.name != "uint8"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, DType) and other.name == self.name

    def __hash__(self) -> int:
        return DType.__hash__(self)  # equal to the dialect's DType of the same name


DTYPES: dict[str, dtype] = {
    d.name: dtype(d.name, d.numpy, d.torch_attr, d.signless_attr, d.category, d.scalar_type)
    for d in ALL_DTYPES
}
float32 = DTYPES["float32"]
float64 = DTYPES["float64"]
float16 = DTYPES["float16"]
bfloat16 = DTYPES["bfloat16"]
uint8 = DTYPES["uint8"]
int8 = DTYPES["int8"]
int16 = DTYPES["int16"]
int32 = DTYPES["int32"]
int64 = DTYPES["int64"]
bool_ = DTYPES["bool"]

_DEFAULT_FLOAT = [float32]


def get_default_dtype() -> dtype:
    return _DEFAULT_FLOAT[0]


def set_default_dtype(d: Any) -> None:
    """Like torch: the dtype of float tensors made from Python floats (float32 or float64)."""
    resolved = as_dtype(d)
    if not resolved.is_float:
        raise TypeError(f"only floating-point types are supported as the default type, got {d}")
    _DEFAULT_FLOAT[0] = resolved


def as_dtype(value: Any) -> dtype:
    """Our dtype for a dtype spelled any supported way.

    Accepts our dtypes and the dialect's DType, numpy dtypes and scalar types, Python `float`/
    `int`/`bool`, names ("float32", "long") and real `torch.dtype`s (by name, without importing
    torch). TypeError for anything else or an unsupported element type.
    """
    if isinstance(value, dtype):
        return value
    if isinstance(value, DType):
        return DTYPES[value.name]
    python_types = {float: float64, int: int64, bool: bool_}
    if isinstance(value, type) and value in python_types:
        return python_types[value]
    if isinstance(value, int):  # a ScalarType code, as the IR spells dtypes
        return DTYPES[dtype_of_code(value).name]
    if isinstance(value, str) or (type(value).__name__ == "dtype" and hasattr(value, "is_signed")):
        name = str(value).removeprefix("torch.")
        return DTYPES[dtype_of_name(name).name]
    try:
        return DTYPES[dtype_of_numpy(value).name]
    except TypeError:
        raise TypeError(f"unsupported dtype {value!r}") from None


def dtype_of_array(array: np.ndarray) -> dtype:  # type: ignore[type-arg]
    """The dtype of a numpy array (TypeError naming the supported ones otherwise)."""
    return DTYPES[dtype_of_numpy(array.dtype).name]


# ---- torch.finfo ----


@dataclass(frozen=True)
class FloatInfo:
    """What `torch.finfo(dtype)` reports of a floating dtype (scripts read it as constants)."""

    dtype: str
    bits: int
    eps: float
    max: float
    min: float
    tiny: float
    resolution: float

    @property
    def smallest_normal(self) -> float:
        return self.tiny


BFLOAT16_INFO = FloatInfo("bfloat16", 16, 2.0**-7, 3.3895313892515355e38, -3.3895313892515355e38,
                          2.0**-126, 0.01)  # fmt: skip


def finfo(d: Any = None) -> FloatInfo:
    """torch.finfo of a floating dtype (the default dtype if none is given)."""
    resolved = get_default_dtype() if d is None else as_dtype(d)
    if not resolved.is_float:
        raise TypeError(f"torch.finfo() requires a floating point input type, not {resolved}")
    if resolved.name == "bfloat16":
        return BFLOAT16_INFO
    info = np.finfo(resolved.numpy)
    return FloatInfo(
        resolved.name, info.bits, float(info.eps), float(info.max), float(info.min),
        float(info.smallest_normal), 10.0**-info.precision,
    )  # fmt: skip
