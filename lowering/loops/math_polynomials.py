"""Vectorizable float32 exp / tanh / log / erf / log1p / expm1 built from arith ops (no libm
calls).

numba 0.68 has no SVML, so `math.exp` and friends stay scalar libm calls that block
vectorization (20x slower measured). These expansions use only `+ - * /`, `min`/`max`,
`floor`, `select` and integer bit tricks, which LLVM vectorizes. Each returns the same
special values as libm: NaN in -> NaN out, `exp(-inf) = 0`, `exp(inf) = inf`,
`tanh(+-inf) = +-1`, `log(0) = -inf`, `log(x < 0) = NaN`, `erf(+-inf) = +-1`; overflow,
underflow and subnormal results are handled by range clamps and by scaling with 2^n in float
multiplies (exp and tanh need no select: on AVX2 a select is a compare and a two-uop
`vblendvps`).

Accuracy (measured against float64 numpy / `math.erf` in `tests/unit/test_expand_math.py`):
exp within 5 ulp (1 ulp before `reassoc` fastmath folds the two Cody-Waite constants),
tanh within 3 ulp (2.3 measured), log and erf within a few ulp. The exp and log polynomials
are Cephes' `expf` / `logf` minimax polynomials, tanh is `m / (m + 2)` for m = expm1(2|x|)
from exp's polynomial; the erf polynomials are least-squares (Lawson, minimax-like) fits on
Chebyshev nodes: `erf(x) / x` in `x*x` on `|x| < 1`, and `x * exp(x*x) * erfc(x)` in `1/x`
on `[1, 4]`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.dialects import arith, math
from xdsl.dialects.builtin import Float32Type, FloatAttr, IntegerAttr, IntegerType
from xdsl.ir import Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter

F32 = Float32Type()
I32 = IntegerType(32)

LOG2E = 1.4426950408889634
LN2_HI, LN2_LO = 0.693359375, -2.12194440e-4  # Cody-Waite split: n * LN2_HI is exact
EXP_LO = -104.0  # exp(x) rounds to 0 below
EXP_OVERFLOW = 89.0  # exp(x) is inf above 88.7228; 2^n stays in scale's range (n <= 129)
ROUNDING_SHIFTER = 12582912.0  # 1.5 * 2^23: y + it rounds y to an integer, its low bits
SHIFTER_BITS = 0x4B400000  # the bits of ROUNDING_SHIFTER
EXP_LO_BEFORE_ONE = -86.0  # 1 + exp(x) rounds to 1 below, and 2^n stays normal (n >= -124)
EXP_P = (1.9875691500e-4, 1.3981999507e-3, 8.3334519073e-3, 4.1665795894e-2, 1.6666665459e-1,
         5.0000001201e-1)  # fmt: skip
TANH_CLAMP = 10.0  # tanh(x) rounds to 1 above 9.01
FLT_MIN = 1.1754943508222875e-38
SIGN_BIT = -(2**31)  # 0x80000000 as an int32
SQRT_HALF = 0.70710678118654752440
LOG_P = (7.0376836292e-2, -1.1514610310e-1, 1.1676998740e-1, -1.2420140846e-1,
         1.4249322787e-1, -1.6668057665e-1, 2.0000714765e-1, -2.4999993993e-1,
         3.3333331174e-1)  # fmt: skip
ERF_SPLIT, ERF_CLAMP = 1.0, 4.0  # erf(x) rounds to 1 above 3.92
ERF_SMALL = (7.853861321418363e-05, -0.0008010193672245505, 0.0051883276990056255,
             -0.026853811947872216, 0.11283585149122743, -0.3761262582431574,
             1.1283791657267475)  # fmt: skip
ERFC_LARGE = (0.05451051805642495, -0.31227056693767197, 0.7588564509097125,
              -0.9781743176505905, 0.6184694146743482, 0.01809317900024522,
              -0.29910626136855684, 0.0032315140031954626, 0.5639736692145717)  # fmt: skip


@dataclass
class Emitter:
    """Inserts float32 / int32 scalar arith ops before the op being rewritten."""

    rewriter: PatternRewriter

    def emit(self, op: Operation) -> SSAValue:
        self.rewriter.insert(op)
        return op.results[0]

    # ---- constants ----

    def f(self, value: float) -> SSAValue:
        return self.emit(arith.ConstantOp(FloatAttr(value, F32)))

    def i(self, value: int) -> SSAValue:
        return self.emit(arith.ConstantOp(IntegerAttr(value, I32)))

    # ---- float arithmetic ----

    def add(self, x: SSAValue, y: SSAValue) -> SSAValue:
        return self.emit(arith.AddfOp(x, y))

    def sub(self, x: SSAValue, y: SSAValue) -> SSAValue:
        return self.emit(arith.SubfOp(x, y))

    def mul(self, x: SSAValue, y: SSAValue) -> SSAValue:
        return self.emit(arith.MulfOp(x, y))

    def div(self, x: SSAValue, y: SSAValue) -> SSAValue:
        return self.emit(arith.DivfOp(x, y))

    def neg(self, x: SSAValue) -> SSAValue:
        return self.emit(arith.NegfOp(x))

    def fma(self, x: SSAValue, y: SSAValue, z: SSAValue) -> SSAValue:
        """`x * y + z` (fused by LLVM under the `contract` fastmath flag)."""
        return self.add(self.mul(x, y), z)

    def minimum(self, x: SSAValue, y: SSAValue) -> SSAValue:
        """NaN-propagating min."""
        return self.emit(arith.MinimumfOp(x, y))

    def maximum(self, x: SSAValue, y: SSAValue) -> SSAValue:
        return self.emit(arith.MaximumfOp(x, y))

    def at_least(self, x: SSAValue, low: float) -> SSAValue:
        """`max(x, low)`, NaN-propagating: one `maxps` against a constant (the python target's
        `llvm.maximum`), where a compare and select is one op alone but a clamp of both ends
        five."""
        return self.maximum(x, self.f(low))

    def at_most(self, x: SSAValue, high: float) -> SSAValue:
        """`min(x, high)`, NaN-propagating (see `at_least`)."""
        return self.minimum(x, self.f(high))

    def abs(self, x: SSAValue) -> SSAValue:
        return self.emit(math.AbsFOp(x))

    def floor(self, x: SSAValue) -> SSAValue:
        return self.emit(math.FloorOp(x))

    def horner(self, x: SSAValue, coefficients: Sequence[float]) -> SSAValue:
        """The polynomial with `coefficients` (highest degree first) at `x`."""
        result = self.f(coefficients[0])
        for c in coefficients[1:]:
            result = self.fma(result, x, self.f(c))
        return result

    # ---- comparisons and selection ----

    def cmp(self, predicate: str, x: SSAValue, y: SSAValue) -> SSAValue:
        """An ordered (`olt`, `ogt`, `oeq`) or unordered (`uno`) float comparison."""
        return self.emit(arith.CmpfOp(x, y, predicate))

    def select(self, condition: SSAValue, x: SSAValue, y: SSAValue) -> SSAValue:
        return self.emit(arith.SelectOp(condition, x, y))

    def copysign_of(self, x: SSAValue, magnitude: SSAValue) -> SSAValue:
        """`magnitude` with the sign of `x` (`magnitude` >= 0; NaN stays NaN)."""
        return self.select(self.cmp("olt", x, self.f(0.0)), self.neg(magnitude), magnitude)

    def with_sign_of(self, x: SSAValue, magnitude: SSAValue) -> SSAValue:
        """`magnitude` (sign bit clear) with the sign bit of `x`: two integer ops, no select."""
        sign = self.andi(self.to_bits(x), SIGN_BIT)
        return self.from_bits(self.emit(arith.OrIOp(self.to_bits(magnitude), sign)))

    def keep_nan(self, x: SSAValue, result: SSAValue) -> SSAValue:
        """`x` where `x` is NaN, else `result`."""
        return self.select(self.cmp("uno", x, x), x, result)

    # ---- int32 bit manipulation ----

    def to_bits(self, x: SSAValue) -> SSAValue:
        return self.emit(arith.BitcastOp(x, I32))

    def from_bits(self, bits: SSAValue) -> SSAValue:
        return self.emit(arith.BitcastOp(bits, F32))

    def to_int(self, x: SSAValue) -> SSAValue:
        return self.emit(arith.FPToSIOp(x, I32))

    def to_float(self, x: SSAValue) -> SSAValue:
        return self.emit(arith.SIToFPOp(x, F32))

    def addi(self, x: SSAValue, y: SSAValue) -> SSAValue:
        return self.emit(arith.AddiOp(x, y))

    def subi(self, x: SSAValue, y: SSAValue) -> SSAValue:
        return self.emit(arith.SubiOp(x, y))

    def mini(self, x: SSAValue, y: SSAValue) -> SSAValue:
        return self.emit(arith.MinSIOp(x, y))

    def shli(self, x: SSAValue, bits: int) -> SSAValue:
        return self.emit(arith.ShLIOp(x, self.i(bits)))

    def shri(self, x: SSAValue, bits: int) -> SSAValue:
        return self.emit(arith.ShRSIOp(x, self.i(bits)))

    def andi(self, x: SSAValue, mask: int) -> SSAValue:
        return self.emit(arith.AndIOp(x, self.i(mask)))

    def ori(self, x: SSAValue, mask: int) -> SSAValue:
        return self.emit(arith.OrIOp(x, self.i(mask)))


# ---- exp ----


def exp_f32(e: Emitter, x: SSAValue) -> SSAValue:
    """exp(x): x = n ln2 + r with |r| <= ln2 / 2, exp(r) by polynomial, times 2^n."""
    n, p = exp_reduced(e, e.at_most(e.at_least(x, EXP_LO), EXP_OVERFLOW))
    return scale_by_power_of_two(e, p, n)


def exp_of_nonpositive(e: Emitter, x: SSAValue) -> SSAValue:
    """exp(x) for x <= 0 or NaN (a `NONPOSITIVE_ARGUMENT` exp): no upper clamp (measured: a
    row softmax 14% faster)."""
    n, p = exp_reduced(e, e.at_least(x, EXP_LO))
    return scale_by_small_power_of_two(e, p, n)


def exp_before_add_one(e: Emitter, x: SSAValue) -> SSAValue:
    """exp(x) for a value only ever used as `1 + exp(x)`: below `EXP_LO_BEFORE_ONE` that sum
    is 1 whatever exp gives, so the clamp there keeps 2^n normal and one step scales."""
    n, p = exp_reduced(e, e.at_most(e.at_least(x, EXP_LO_BEFORE_ONE), EXP_OVERFLOW))
    return scale_by_normal_power_of_two(e, p, n)


def exp_of_bounded(e: Emitter, x: SSAValue) -> SSAValue:
    """exp(x) for x known to be in [-80, 80]: no clamp, no special value (for NaN some value,
    which callers replace)."""
    n, p = exp_reduced(e, x)
    return e.from_bits(e.addi(e.to_bits(p), e.shli(n, 23)))


def exp_reduced(e: Emitter, x: SSAValue) -> tuple[SSAValue, SSAValue]:
    """(n, p) with exp(x) = p * 2^n, n an int32 and p = exp(r) in [0.7, 1.42], |x| < 2^21.

    n = round(x log2 e) comes from `ROUNDING_SHIFTER`: x log2 e + 1.5 * 2^23 rounds to an
    integer, which is then the low bits of the sum (one add and an integer subtract, where a
    floor and a float-to-int conversion are three ops on x86, and the conversion of NaN is
    undefined in LLVM)."""
    shifted, r = exp_argument_reduction(e, x)
    p = e.fma(e.horner(r, EXP_P), e.mul(r, r), e.add(r, e.f(1.0)))
    return e.subi(e.to_bits(shifted), e.i(SHIFTER_BITS)), p


def exp_argument_reduction(e: Emitter, x: SSAValue) -> tuple[SSAValue, SSAValue]:
    """(shifted, r): `x log2 e + ROUNDING_SHIFTER`, whose low bits are n = round(x log2 e),
    and r = x - n ln2 (Cody-Waite), |r| <= ln2 / 2."""
    shifted = e.fma(x, e.f(LOG2E), e.f(ROUNDING_SHIFTER))
    n = e.sub(shifted, e.f(ROUNDING_SHIFTER))
    return shifted, e.sub(e.sub(x, e.mul(n, e.f(LN2_HI))), e.mul(n, e.f(LN2_LO)))


def power_of_two(e: Emitter, k: SSAValue) -> SSAValue:
    """2^k as a float, for an int32 k in [-126, 127]."""
    return e.from_bits(e.shli(e.addi(k, e.i(127)), 23))


def scale_by_normal_power_of_two(e: Emitter, p: SSAValue, n: SSAValue) -> SSAValue:
    """`p * 2^n` for p in [0.7, 1.42] and n in [-124, 128]: `p * 2^(n - 1) * 2`, float
    multiplies only, so exp overflows to inf by itself (x clamped to `EXP_OVERFLOW`, not to
    the largest finite exp) and NaN stays NaN (p is NaN, times whatever 2^n then is): no
    select, where a select is a compare and a two-uop `vblendvps` on AVX2."""
    return e.mul(e.mul(p, power_of_two(e, e.subi(n, e.i(1)))), e.f(2.0))


def scale_by_small_power_of_two(e: Emitter, p: SSAValue, n: SSAValue) -> SSAValue:
    """`p * 2^n` for p in [0.7, 1.42] and n in [-150, 100], subnormal results included:
    `p * 2^(n + 24) * 2^-24`, the first factor normal and the second a constant, so the
    product rounds once (half the integer ops of `scale_by_power_of_two`)."""
    raised = e.mul(p, power_of_two(e, e.addi(n, e.i(24))))
    return e.mul(raised, e.f(2.0**-24))


def scale_by_power_of_two(e: Emitter, p: SSAValue, n: SSAValue) -> SSAValue:
    """`p * 2^n` for p in [0.7, 1.42] and n in [-150, 129], subnormal results and overflow
    included: `p * 2^h * 2^(n - h)` for h = n >> 1, both factors normal, so the product
    rounds once (into the subnormals, or to inf) and NaN stays NaN (see above)."""
    half = e.shri(n, 1)
    return e.mul(e.mul(p, power_of_two(e, half)), power_of_two(e, e.subi(n, half)))


# ---- tanh ----


def tanh_f32(e: Emitter, x: SSAValue) -> SSAValue:
    """tanh(x) = m / (m + 2) for m = expm1(2|x|), with the sign of x: one exp, no branch and
    no select (a select is a two-uop `vblendvps` on AVX2). 2|x| is clamped to
    2 * `TANH_CLAMP`, where the ratio rounds to 1, so exp needs no clamp or special value.
    expm1 keeps its accuracy near 0 as `2^n (p - 1) + (2^n - 1)`, p - 1 = r + r^2 P(r) summed
    without the 1. NaN stays NaN through the polynomial (2^n is then some value, times NaN)."""
    magnitude = e.abs(x)
    shifted, r = exp_argument_reduction(e, e.at_most(e.add(magnitude, magnitude), 2 * TANH_CLAMP))
    p_minus_one = e.fma(e.horner(r, EXP_P), e.mul(r, r), r)
    power = e.from_bits(e.shli(e.subi(e.to_bits(shifted), e.i(SHIFTER_BITS - 127)), 23))
    m = e.fma(power, p_minus_one, e.sub(power, e.f(1.0)))
    return e.with_sign_of(x, e.div(m, e.add(m, e.f(2.0))))


# ---- log ----


def log_f32(e: Emitter, x: SSAValue) -> SSAValue:
    """log(x): x = m 2^k with m in [sqrt(1/2), sqrt(2)), log(m) by polynomial + k ln2."""
    subnormal = e.cmp("olt", x, e.f(FLT_MIN))
    scaled = e.select(subnormal, e.mul(x, e.f(2.0**23)), x)
    bits = e.to_bits(scaled)
    k = e.subi(e.andi(e.shri(bits, 23), 0xFF), e.i(126))
    k = e.subi(k, e.emit(arith.SelectOp(subnormal, e.i(23), e.i(0))))
    m = e.from_bits(e.ori(e.andi(bits, 0x007FFFFF), 0x3F000000))  # in [0.5, 1)
    below = e.cmp("olt", m, e.f(SQRT_HALF))
    k = e.to_float(e.subi(k, e.emit(arith.SelectOp(below, e.i(1), e.i(0)))))
    m = e.sub(e.select(below, e.add(m, m), m), e.f(1.0))
    z = e.mul(m, m)
    y = e.mul(e.mul(e.horner(m, LOG_P), m), z)
    y = e.fma(k, e.f(LN2_LO), y)
    y = e.fma(z, e.f(-0.5), y)
    result = e.fma(k, e.f(LN2_HI), e.add(m, y))
    return log_special_values(e, x, result)


def log_special_values(e: Emitter, x: SSAValue, result: SSAValue) -> SSAValue:
    inf = e.f(float("inf"))
    result = e.select(e.cmp("oeq", x, inf), inf, result)
    result = e.select(e.cmp("oeq", x, e.f(0.0)), e.neg(inf), result)
    result = e.select(e.cmp("olt", x, e.f(0.0)), e.f(float("nan")), result)
    return e.keep_nan(x, result)


# ---- erf ----


def erf_f32(e: Emitter, x: SSAValue) -> SSAValue:
    """erf(x): an odd polynomial below 1, `1 - exp(-x*x) * P(1/x) / x` up to 4, then 1 (x
    clamped to [1, 4] there, so exp's argument is in [-16, -1]: no clamp or special value)."""
    small = e.mul(x, e.horner(e.mul(x, x), ERF_SMALL))
    a = e.at_most(e.at_least(e.abs(x), ERF_SPLIT), ERF_CLAMP)
    t = e.div(e.f(1.0), a)
    erfc = e.mul(exp_of_bounded(e, e.neg(e.mul(a, a))), e.mul(t, e.horner(t, ERFC_LARGE)))
    large = e.copysign_of(x, e.sub(e.f(1.0), erfc))
    return e.keep_nan(x, e.select(e.cmp("olt", e.abs(x), e.f(ERF_SPLIT)), small, large))


# ---- log1p, expm1: log and exp with the rounding of 1 + x undone ----


def log1p_f32(e: Emitter, x: SSAValue) -> SSAValue:
    """log1p(x) as `log(u) * (x / (u - 1))` for u = 1 + x rounded (Goldberg): u - 1 is
    exact, so the ratio undoes u's rounding; x itself where u rounds to 1, inf for inf (the
    ratio would be inf / inf), -inf at -1 and NaN below it (log's)."""
    u = e.add(x, e.f(1.0))
    d = e.sub(u, e.f(1.0))
    result = e.mul(log_f32(e, u), e.div(x, d))
    result = e.select(e.cmp("oeq", d, e.f(0.0)), x, result)
    return e.select(e.cmp("oeq", x, e.f(float("inf"))), x, result)


def expm1_f32(e: Emitter, x: SSAValue) -> SSAValue:
    """expm1(x) as `(u - 1) * (x / log(u))` for u = exp(x) (Kahan): the ratio undoes most of
    u's error near 0; x where u is 1, -1 where u - 1 is (x below -17), inf where u is."""
    u = exp_f32(e, x)
    d = e.sub(u, e.f(1.0))
    result = e.mul(d, e.div(x, log_f32(e, u)))
    result = e.select(e.cmp("oeq", u, e.f(1.0)), x, result)
    result = e.select(e.cmp("oeq", d, e.f(-1.0)), d, result)
    result = e.select(e.cmp("oeq", u, e.f(float("inf"))), u, result)
    return e.keep_nan(x, result)


EXPANSIONS = {
    math.ExpOp: exp_f32, math.TanhOp: tanh_f32, math.LogOp: log_f32, math.ErfOp: erf_f32,
    math.Log1pOp: log1p_f32, math.ExpM1Op: expm1_f32,
}  # fmt: skip
"""The math ops with a float32 expansion, and their builders."""
