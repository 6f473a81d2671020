"""expand-math: the float32 polynomial exp/tanh/log/erf, compiled by numba, against float64."""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import pytest
from xdsl.context import Context
from xdsl.dialects.arith import Arith
from xdsl.dialects.builtin import Builtin, ModuleOp
from xdsl.dialects.func import Func
from xdsl.dialects.math import Math
from xdsl.dialects.memref import MemRef
from xdsl.dialects.scf import Scf
from xdsl.parser import Parser

from lowering.loops.expand_math import ExpandMathPass
from lowering.python_target import emit_python
from lowering.run import jit

FUNCTIONS = ("exp", "tanh", "log", "erf", "log1p", "expm1")

KERNEL = """
func.func @{name}(%x: memref<?xf32>, %out: memref<?xf32>) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %x, %c0 : memref<?xf32>
  "scf.parallel"(%c0, %n, %c1) <{{operandSegmentSizes = array<i32: 1, 1, 1, 0>}}> ({{
  ^bb0(%i: index):
    %v = memref.load %x[%i] : memref<?xf32>
    %r = math.{name} %v : f32
    memref.store %r, %out[%i] : memref<?xf32>
    scf.reduce
  }}) : (index, index, index) -> ()
  func.return
}}
"""

REFERENCES: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "exp": np.exp,
    "tanh": np.tanh,
    "log": np.log,
    "erf": np.vectorize(math.erf, otypes=[np.float64]),
    "log1p": np.log1p,
    "expm1": np.expm1,
}

# Max error in float32 ulps of the correctly rounded result (see math_polynomials).
MAX_ULP = {"exp": 5, "tanh": 3, "log": 2, "erf": 3, "log1p": 3, "expm1": 3}

SPECIALS = np.array(
    [np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-45, -1e-45, 1e-38, 3.4e38, -3.4e38, 88.72, 88.73,
     -87.33, -87.34, -103.9, -104.5, 0.625, -0.625, 9.0, 10.5, 1.0, -1.0, 3.9, 4.1],
    dtype=np.float32,
)  # fmt: skip


def parse(text: str) -> ModuleOp:
    ctx = Context()
    for dialect in (Builtin, Func, Arith, Math, MemRef, Scf):
        ctx.load_dialect(dialect)
    return Parser(ctx, text).parse_module()


@pytest.fixture(scope="module")
def kernels() -> dict[str, Callable[[np.ndarray], np.ndarray]]:
    module = parse("".join(KERNEL.format(name=name) for name in FUNCTIONS))
    ExpandMathPass().apply(Context(), module)
    source = emit_python(module)
    assert "math." not in source.split('"""', 2)[2].replace("import math", "")
    compiled = {name: jit.compile_function(source, name) for name in FUNCTIONS}

    def run(name: str) -> Callable[[np.ndarray], np.ndarray]:
        def call(x: np.ndarray) -> np.ndarray:
            out = np.empty_like(x)
            compiled[name](x, out)
            return out

        return call

    return {name: run(name) for name in FUNCTIONS}


def inputs(name: str) -> np.ndarray:
    """Wide ranges on a log scale, both signs, plus the special values."""
    rng = np.random.default_rng(1)
    magnitudes = np.exp(rng.uniform(np.log(1e-30), np.log(3e38), 20000))
    dense = {"exp": 110.0, "tanh": 12.0, "log": 1e3, "erf": 6.0, "log1p": 1e3, "expm1": 110.0}
    dense = dense[name]
    linear = np.linspace(-dense, dense, 100001)
    values = np.concatenate([magnitudes, -magnitudes, linear, SPECIALS])
    if name in ("log", "log1p"):
        values = np.concatenate([np.abs(values), np.float32(2.0) ** np.arange(-149, 128), values])
    if name in ("exp", "expm1"):  # where exp overflows, and where it gives subnormals
        values = np.concatenate(
            [values, np.linspace(88.6, 89.2, 20001), np.linspace(-104.5, -85, 20001)]
        )
    if name in ("log1p", "expm1"):  # near 0, where 1 + x and exp(x) - 1 would cancel
        values = np.concatenate([values, np.linspace(-1e-3, 1e-3, 20001), [-1.0, -0.999999]])
    return values.astype(np.float32)


def ulp_errors(actual: np.ndarray, x: np.ndarray, reference: Callable) -> np.ndarray:
    with np.errstate(all="ignore"):
        exact = reference(x.astype(np.float64))
        rounded = exact.astype(np.float32)
        ulp = np.spacing(np.abs(rounded)).astype(np.float64)
        error = np.abs(actual.astype(np.float64) - exact) / ulp
    both_inf_or_nan = (actual == rounded) | (np.isnan(actual) & np.isnan(rounded))
    return np.where(both_inf_or_nan, 0.0, error)


@pytest.mark.parametrize("name", FUNCTIONS)
def test_accuracy_in_ulp(kernels, name):
    x = inputs(name)
    errors = ulp_errors(kernels[name](x), x, REFERENCES[name])
    worst = int(np.argmax(errors))
    assert errors[worst] <= MAX_ULP[name], f"{name}({x[worst]!r}): {errors[worst]:.1f} ulp"


@pytest.mark.parametrize("name", FUNCTIONS)
def test_special_values_match_numpy(kernels, name):
    x = np.array([np.nan, np.inf, -np.inf, 0.0, -1.0, 200.0, -200.0], dtype=np.float32)
    with np.errstate(all="ignore"):
        expected = REFERENCES[name](x.astype(np.float64)).astype(np.float32)
    np.testing.assert_array_equal(kernels[name](x), expected)


def test_tanh_keeps_the_sign_and_stays_within_one(kernels):
    """tanh's sign comes from the bits of x (-0.0 and negative subnormals stay negative), its
    magnitude never exceeds 1, and it is 1 from 9.01 on (the float32 rounding of tanh)."""
    tiny = np.array([-0.0, 0.0, -1e-45, 1e-45, -1e-39, 1e-39, -1e-30, 1e-30], dtype=np.float32)
    np.testing.assert_array_equal(kernels["tanh"](tiny), tiny)
    np.testing.assert_array_equal(np.signbit(kernels["tanh"](tiny)), np.signbit(tiny))
    x = np.linspace(-30, 30, 600001, dtype=np.float32)
    t = kernels["tanh"](x)
    assert np.max(np.abs(t)) == 1.0
    saturated = np.abs(x) >= 9.02
    np.testing.assert_array_equal(t[saturated], np.sign(x[saturated]))


NAN_PAYLOADS = np.array(
    [0x7FC00000, 0xFFC00000, 0x7FC00001, 0x7FFFFFFF, 0x7F800001, 0xFFF00F0F], dtype=np.uint32
).view(np.float32)


@pytest.mark.parametrize("name", FUNCTIONS)
def test_nan_with_a_payload_is_nan(kernels, name):
    """exp and tanh build 2^n from the bits of n, which NaN makes some number: the result
    stays NaN through float multiplies, whatever the payload."""
    assert np.all(np.isnan(kernels[name](NAN_PAYLOADS)))


def test_subnormal_results_of_exp(kernels):
    x = np.array([-90.0, -100.0, -103.0], dtype=np.float32)
    expected = np.exp(x.astype(np.float64)).astype(np.float32)
    assert np.all(expected > 0)
    np.testing.assert_allclose(kernels["exp"](x), expected, rtol=0, atol=2e-45)


def test_f64_is_left_to_libm():
    module = parse(KERNEL.format(name="exp").replace("f32", "f64"))
    ExpandMathPass().apply(Context(), module)
    assert "math.exp" in str(module)


SIGMOID_KERNEL = """
func.func @sigmoid(%x: memref<?xf32>, %out: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1.0 : f32
  %n = memref.dim %x, %c0 : memref<?xf32>
  "scf.parallel"(%c0, %n, %c1) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> ({
  ^bb0(%i: index):
    %v = memref.load %x[%i] : memref<?xf32>
    %m = arith.negf %v : f32
    %e = math.exp %m : f32
    %s = arith.addf %one, %e : f32
    %r = arith.divf %one, %s : f32
    memref.store %r, %out[%i] : memref<?xf32>
    scf.reduce
  }) : (index, index, index) -> ()
  func.return
}
"""


def test_exp_added_to_one_skips_subnormal_scaling():
    """sigmoid's exp (only used in 1 + exp) is expanded without the two-step scaling (no
    `arith.minsi`), and gives 1 / (1 + exp(-x)) as float32 does: 0 below -88.73."""
    module = parse(SIGMOID_KERNEL)
    ExpandMathPass().apply(Context(), module)
    assert "arith.minsi" not in str(module)
    sigmoid = jit.compile_function(emit_python(module), "sigmoid")
    x = np.concatenate([inputs("exp"), SPECIALS, [-88.7, -88.8, -86.1, -85.9, 86.5, 104.0]])
    x = np.concatenate([x, -np.linspace(88.7, 89.1, 4001)]).astype(np.float32)
    x = np.concatenate([x, NAN_PAYLOADS])
    out = np.empty_like(x)
    sigmoid(x, out)
    with np.errstate(all="ignore"):
        exp = np.exp(-x.astype(np.float64))
        expected = (1 / (1 + exp)).astype(np.float32)
    expected[exp > np.finfo(np.float32).max] = 0.0  # float32 exp is inf there
    np.testing.assert_array_equal(np.isnan(out), np.isnan(expected))
    ulp = np.spacing(np.maximum(np.abs(expected), np.finfo(np.float32).tiny))
    assert np.nanmax(np.abs(out.astype(np.float64) - expected) / ulp) <= 4


def test_exp_of_a_nonpositive_argument():
    """An exp marked `tsjit.nonpositive_argument` (softmax's x - max) has no overflow branch
    (no 88.72 bound) and still gives exp's values on [-inf, 0], subnormals and NaN."""
    marked = KERNEL.format(name="exp").replace(
        "math.exp %v : f32", "math.exp %v {tsjit.nonpositive_argument} : f32"
    )
    module = parse(marked)
    ExpandMathPass().apply(Context(), module)
    assert "88.72" not in str(module)
    kernel = jit.compile_function(emit_python(module), "exp")
    x = -np.abs(inputs("exp"))
    x = np.concatenate([x, [np.nan, -np.inf, 0.0, -0.0, -90.0, -103.0, -104.5]]).astype(np.float32)
    out = np.empty_like(x)
    kernel(x, out)
    errors = ulp_errors(out, x, np.exp)
    assert errors.max() <= MAX_ULP["exp"], x[np.argmax(errors)]
    np.testing.assert_array_equal(np.isnan(out), np.isnan(x))
