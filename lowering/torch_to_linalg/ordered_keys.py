"""A softmax's row max as an integer max of order-preserving keys (it vectorizes).

Generated code has no function-wide `reassoc`, and LLVM does not vectorize a NaN-propagating
float max written as a compare and a select (`scf-vectorize-reductions` splits it into 8
accumulators: the row max of a [1024, 1024] float32 tensor takes 0.58 ms). An integer max is
associative, so LLVM vectorizes it as it is: 0.15 ms (measured, numba 0.68, one thread).

The key of a float is its bits read as a signed integer of the same width, with the magnitude
bits of negative numbers flipped:

    key(x) = bits(x) ^ ((bits(x) >> (w - 1)) & (2^(w-1) - 1))      (its own inverse)

so -inf < ... < -0.0 < +0.0 < ... < +inf as signed integers: the order of `arith.maximumf`,
which also takes -0.0 < +0.0. NaNs are not ordered: a NaN with the sign bit clear has a key
above +inf's (the max is that NaN), one with the sign bit set a key below -inf's (it is
passed over). So the result is the max when the values hold no NaN, and a NaN or the max of
the other values when they do; exactly what softmax needs, whose sum of `exp(x - max)`
makes a NaN anywhere in a row NaN everywhere in it. (A NaN test per element, as a select,
kept LLVM from vectorizing the row max in a `prange` body: the softmax took 1.7 ms, not 0.67.)
"""

from __future__ import annotations

import struct
from collections.abc import Sequence

from xdsl.dialects import arith
from xdsl.dialects.builtin import Float32Type, Float64Type, IntegerType, TensorType
from xdsl.ir import Attribute, SSAValue
from xdsl.ir.affine import AffineMap
from xdsl.pattern_rewriter import PatternRewriter

from dialects.torch.scalar_builder import ScalarBuilder
from lowering.torch_to_linalg.reduction import fold, pointwise, reduced_type
from lowering.torch_to_linalg.utils import static_shape

FORMATS = {Float32Type: ("<f", "<i", 32), Float64Type: ("<d", "<q", 64)}
"""The float types with keys: struct formats of the float and of the same-width int, width."""


def has_keys(element: Attribute) -> bool:
    return type(element) in FORMATS


def key_of_constant(value: float, element: Attribute) -> int:
    """The key of a float constant of type `element` (see the module doc)."""
    float_format, int_format, width = FORMATS[type(element)]
    (bits,) = struct.unpack(int_format, struct.pack(float_format, value))
    return bits ^ ((bits >> (width - 1)) & ((1 << (width - 1)) - 1))


def key_of(b: ScalarBuilder, x: SSAValue) -> SSAValue:
    """The key of float `x` (see the module doc)."""
    width = FORMATS[type(x.type)][2]
    return flip_negative(b, b.emit(arith.BitcastOp(x, IntegerType(width))), width)


def float_of_key(b: ScalarBuilder, key: SSAValue, element: Attribute) -> SSAValue:
    width = FORMATS[type(element)][2]
    return b.emit(arith.BitcastOp(flip_negative(b, key, width), element))


def flip_negative(b: ScalarBuilder, bits: SSAValue, width: int) -> SSAValue:
    """`bits ^ ((bits >> (width - 1)) & (2^(width-1) - 1))`: the map between bits and keys."""
    sign = b.emit(arith.ShRSIOp(bits, b.const(width - 1, bits.type)))
    magnitude = b.and_(sign, b.const((1 << (width - 1)) - 1, bits.type))
    return b.xor(bits, magnitude)


def max_unless_nan(
    rewriter: PatternRewriter, x: SSAValue, dim: int, element: Attribute
) -> SSAValue:
    """The max of `x` (cast to `element`) along `dim`, keeping the dim as size 1, for values
    without NaN (see the module doc): an integer max fold of the keys, then one small generic
    turning keys back into floats."""
    rank = len(static_shape(x.type))
    width = FORMATS[type(element)][2]
    lowest = key_of_constant(float("-inf"), element)

    def largest_key(b: ScalarBuilder, args: Sequence[SSAValue]) -> list[SSAValue]:
        # a compare and a select, not arith.maxsi: numba's max() there kept LLVM from
        # vectorizing the softmax's exp loop after it (serial variant: 1.83 vs 0.75 ms)
        key = key_of(b, b.cast(args[0], element))
        return [b.select(b.cmp("gt", args[1], key), args[1], key)]

    identity = AffineMap.identity(rank)
    inits = [(IntegerType(width), lowest)]
    (keys,) = fold(rewriter, [x], [identity], [dim], True, inits, largest_key)

    def to_float(b: ScalarBuilder, args: Sequence[SSAValue]) -> list[SSAValue]:
        return [float_of_key(b, args[0], element)]

    result_type: TensorType = reduced_type(x, [dim], True, element)
    return pointwise(rewriter, [keys], [identity], result_type, keys, to_float)
