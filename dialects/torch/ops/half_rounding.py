"""Rounding float32 values to float16 / bfloat16 values, kept in float32: the op that
`torch-emulate-half` puts after each op whose torch result is half.

PyTorch's CPU kernels compute half ops in float32 and round each op's result to half; tsjit
does the same on float32 tensors. The rounding is integer arithmetic on the float32 bits
(round to nearest, ties to even), so it vectorizes and needs no float16 loads or stores:

- float16: keep 10 of the 23 mantissa bits; magnitudes from 65520 up overflow to inf, those
  below 2^-14 round to a multiple of 2^-24 (float16's subnormals: `(|x| + 0.5) - 0.5` in
  float32 rounds there, ties to even), NaN keeps its sign and the top 10 bits of its payload
  (made nonzero), as numpy's `astype(np.float16)` does.
- bfloat16: keep 7 of the 23 mantissa bits (the exponent is float32's, so float32's
  subnormals and overflow need nothing more); NaN becomes torch's canonical bfloat16 NaN.

Neither op is an ATen op (tsjit adds them, like `_cast_Bool`): no Python spelling names them.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from xdsl.dialects import arith
from xdsl.dialects.builtin import f32, i32
from xdsl.ir import SSAValue

from dialects.torch.families import UnaryOp
from dialects.torch.op_base import Sample, torch_op
from dialects.torch.op_base import T as Tn
from dialects.torch.scalar_builder import ScalarBuilder


def _signed(bits: int) -> int:
    """An unsigned 32-bit pattern as the signed int32 constant with the same bits."""
    return bits - (1 << 32) if bits >= 1 << 31 else bits


SIGN = 0x80000000
ABS = 0x7FFFFFFF
INF = 0x7F800000


# ---- the rounding rules, once for the payload and once for numpy ----


class HalfFormat:
    """The bits a half format keeps of a float32 and where its special ranges begin."""

    def __init__(self, dropped: int, overflow: int, smallest_normal: int, nan: int | None):
        self.dropped = dropped  # float32 mantissa bits the format lacks (13, 16)
        self.keep_mask = (0xFFFFFFFF << dropped) & 0xFFFFFFFF
        self.overflow = overflow  # |bits| from which the rounded value is inf
        self.smallest_normal = smallest_normal  # |bits| below it: round to the subnormal grid
        self.nan = nan  # the NaN's float32 bits (None: keep the payload's top bits)


FLOAT16 = HalfFormat(dropped=13, overflow=0x47800000, smallest_normal=0x38800000, nan=None)
BFLOAT16 = HalfFormat(dropped=16, overflow=INF, smallest_normal=0, nan=0x7FC00000)


def round_bits(b: ScalarBuilder, x: SSAValue, fmt: HalfFormat) -> SSAValue:
    """The payload: `x` (float32) rounded to `fmt`, as float32."""
    bits = b.emit(arith.BitcastOp(x, i32))
    magnitude = b.and_(bits, b.const(ABS, i32))
    odd = b.and_(b.emit(arith.ShRUIOp(magnitude, b.const(fmt.dropped, i32))), b.const(1, i32))
    half_ulp = b.const((1 << (fmt.dropped - 1)) - 1, i32)
    rounded = b.and_(b.add(b.add(magnitude, half_ulp), odd), b.const(_signed(fmt.keep_mask), i32))
    if fmt.overflow != INF:
        big = b.cmp("ge", rounded, b.const(fmt.overflow, i32))
        rounded = b.select(big, b.const(INF, i32), rounded)
    if fmt.smallest_normal:
        tiny = b.emit(arith.BitcastOp(magnitude, f32))
        grid = b.sub(b.add(tiny, b.const(0.5, f32)), b.const(0.5, f32))
        is_tiny = b.cmp("lt", magnitude, b.const(fmt.smallest_normal, i32))
        rounded = b.select(is_tiny, b.emit(arith.BitcastOp(grid, i32)), rounded)
    signed = b.or_(rounded, b.and_(bits, b.const(_signed(SIGN), i32)))
    is_nan = b.cmp("gt", magnitude, b.const(INF, i32))
    result = b.select(is_nan, _nan_bits(b, bits, fmt), signed)
    return b.emit(arith.BitcastOp(result, f32))


def _nan_bits(b: ScalarBuilder, bits: SSAValue, fmt: HalfFormat) -> SSAValue:
    if fmt.nan is not None:
        return b.const(fmt.nan, i32)
    kept = b.and_(bits, b.const(_signed(fmt.keep_mask), i32))
    payload = b.and_(kept, b.const(0x007FFFFF, i32))
    lowest = b.const(1 << fmt.dropped, i32)
    empty = b.cmp("eq", payload, b.const(0, i32))
    return b.select(empty, b.or_(kept, lowest), kept)


def round_array(x: Any, fmt: HalfFormat) -> Any:
    """The eager reference: the same rules on a numpy float32 array."""
    values = np.asarray(x, dtype=np.float32)
    bits = values.view(np.uint32)
    magnitude = bits & np.uint32(ABS)
    odd = (magnitude >> np.uint32(fmt.dropped)) & np.uint32(1)
    half_ulp = np.uint32((1 << (fmt.dropped - 1)) - 1)
    rounded = (magnitude + half_ulp + odd) & np.uint32(fmt.keep_mask)
    rounded = np.where(rounded >= fmt.overflow, np.uint32(INF), rounded).astype(np.uint32)
    if fmt.smallest_normal:
        tiny = magnitude.view(np.float32)
        with np.errstate(invalid="ignore"):  # NaNs' lanes, replaced below
            grid = ((tiny + np.float32(0.5)) - np.float32(0.5)).view(np.uint32)
        rounded = np.where(magnitude < fmt.smallest_normal, grid, rounded)
    signed = rounded | (bits & np.uint32(SIGN))
    if fmt.nan is not None:
        nan = np.full_like(bits, fmt.nan)
    else:
        kept = bits & np.uint32(fmt.keep_mask)
        nan = np.where(kept & np.uint32(0x007FFFFF), kept, kept | np.uint32(1 << fmt.dropped))
    result = np.where(magnitude > INF, nan, signed).astype(np.uint32)
    return result.view(np.float32).reshape(values.shape)


# ---- the ops ----

ROUNDING_SAMPLES = (Sample(Tn((3, 4), low=-3.0, high=3.0)), Sample(Tn((5,), low=-1e5, high=1e5)))


class RoundToHalfOp(UnaryOp):
    """float32 in, float32 out: each value rounded to the half format `FORMAT`."""

    FORMAT: ClassVar[HalfFormat]
    PY_NAMES = ()
    SAMPLES = ROUNDING_SAMPLES

    @classmethod
    def eager(cls, x: Any) -> Any:  # type: ignore[override]
        return round_array(x, cls.FORMAT)

    @classmethod
    def payload(cls, b: ScalarBuilder, x: SSAValue) -> SSAValue:  # type: ignore[override]
        return round_bits(b, x, cls.FORMAT)


@torch_op
class AtenRoundToFloat16Op(RoundToHalfOp):
    """float32 values rounded to float16 values, as float32 (`x.half().float()`).

    ```mlir
    %r = torch.aten._round_to_float16 %x : !torch.vtensor<[?],f32> -> !torch.vtensor<[?],f32>
    ```
    """

    name = "torch.aten._round_to_float16"
    SCHEMA = "aten::_round_to_float16(Tensor self) -> Tensor"
    FORMAT = FLOAT16


@torch_op
class AtenRoundToBFloat16Op(RoundToHalfOp):
    """float32 values rounded to bfloat16 values, as float32 (`x.bfloat16().float()`).

    ```mlir
    %r = torch.aten._round_to_bfloat16 %x : !torch.vtensor<[?],f32> -> !torch.vtensor<[?],f32>
    ```
    """

    name = "torch.aten._round_to_bfloat16"
    SCHEMA = "aten::_round_to_bfloat16(Tensor self) -> Tensor"
    FORMAT = BFLOAT16


OPS = (AtenRoundToFloat16Op, AtenRoundToBFloat16Op)
