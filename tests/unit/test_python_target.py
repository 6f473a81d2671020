"""Runs hand-written loops-level modules through the python target and numba against numpy."""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable
from types import ModuleType
from typing import Any

import numba
import numpy as np
import pytest
from numba.core import compiler, registry, typed_passes, types
from xdsl.context import Context
from xdsl.dialects.arith import Arith
from xdsl.dialects.builtin import Builtin, ModuleOp
from xdsl.dialects.func import Func
from xdsl.dialects.math import Math
from xdsl.dialects.memref import MemRef
from xdsl.dialects.scf import Scf
from xdsl.parser import Parser

from lowering.python_target import PythonEmitError, emit_python
from lowering.run import jit

TOLERANCES = {np.float32: {"rtol": 2e-6, "atol": 1e-6}, np.float64: {"rtol": 1e-12, "atol": 0}}
RNG = np.random.default_rng(0)


def parse(text: str) -> ModuleOp:
    ctx = Context()
    for dialect in (Builtin, Func, Arith, Math, MemRef, Scf):
        ctx.load_dialect(dialect)
    return Parser(ctx, text).parse_module()


def parallel_1d(n: str, body: str, iv: str = "%i") -> str:
    """An `scf.parallel` over `0..n` in xDSL 0.75's generic syntax."""
    return f"""
  "scf.parallel"(%c0, {n}, %c1) <{{operandSegmentSizes = array<i32: 1, 1, 1, 0>}}> ({{
  ^bb0({iv}: index):
    {body}
    scf.reduce
  }}) : (index, index, index) -> ()"""


PRELUDE = """
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index"""

# ---- kernels: one module, compiled once per test session ----

AXPY_BODY = """%v = memref.load %x[%i] : memref<?xf64>
    %t = arith.mulf %a, %v : f64
    %r = arith.addf %t, %tenth : f64
    memref.store %r, %out[%i] : memref<?xf64>"""

ROWSUM_BODY = """%acc = scf.for %j = %c0 to %m step %c1 iter_args(%acc_in = %zero) -> (f32) {
      %v = memref.load %x[%i, %j] : memref<?x?xf32>
      %acc_new = arith.addf %acc_in, %v : f32
      scf.yield %acc_new : f32
    }
    memref.store %acc, %out[%i] : memref<?xf32>"""

ELEMENTWISE = f"""
func.func @ew(%x: memref<?x4xf32>, %b: memref<4xf32>, %alpha: f32) -> memref<?x4xf32> {{
  {PRELUDE}
  %c4 = arith.constant 4 : index
  %one = arith.constant 1.0 : f32
  %n = memref.dim %x, %c0 : memref<?x4xf32>
  %out = memref.alloc(%n) : memref<?x4xf32>
  "scf.parallel"(%c0, %c0, %n, %c4, %c1, %c1) <{{operandSegmentSizes = array<i32: 2, 2, 2, 0>}}> ({{
  ^bb0(%i: index, %j: index):
    %v = memref.load %x[%i, %j] : memref<?x4xf32>
    %bj = memref.load %b[%j] : memref<4xf32>
    %t = arith.mulf %v, %alpha : f32
    %u = arith.addf %t, %bj : f32
    %th = math.tanh %u : f32
    %nv = arith.negf %v : f32
    %e = math.exp %nv : f32
    %d = arith.addf %one, %e : f32
    %sig = arith.divf %one, %d : f32
    %r = arith.mulf %th, %sig : f32
    memref.store %r, %out[%i, %j] : memref<?x4xf32>
    scf.reduce
  }}) : (index, index, index, index, index, index) -> ()
  func.return %out : memref<?x4xf32>
}}

func.func @axpy64(%x: memref<?xf64>, %a: f64) -> memref<?xf64> {{
  {PRELUDE}
  %tenth = arith.constant 0.1 : f64
  %n = memref.dim %x, %c0 : memref<?xf64>
  %out = memref.alloc(%n) : memref<?xf64>
  {parallel_1d("%n", AXPY_BODY)}
  func.return %out : memref<?xf64>
}}
"""

REDUCTIONS = f"""
func.func @rowsum(%x: memref<?x?xf32>) -> (memref<?xf32>, memref<f32>) {{
  {PRELUDE}
  %zero = arith.constant 0.0 : f32
  %n = memref.dim %x, %c0 : memref<?x?xf32>
  %m = memref.dim %x, %c1 : memref<?x?xf32>
  %out = memref.alloc(%n) : memref<?xf32>
  {parallel_1d("%n", ROWSUM_BODY)}
  %total = memref.alloc() : memref<f32>
  memref.store %zero, %total[] : memref<f32>
  scf.for %k = %c0 to %n step %c1 {{
    %t = memref.load %total[] : memref<f32>
    %v = memref.load %out[%k] : memref<?xf32>
    %s = arith.addf %t, %v : f32
    memref.store %s, %total[] : memref<f32>
  }}
  func.return %out, %total : memref<?xf32>, memref<f32>
}}

func.func @psum(%x: memref<?xf32>) -> f32 {{
  {PRELUDE}
  %zero = arith.constant 0.0 : f32
  %n = memref.dim %x, %c0 : memref<?xf32>
  %sum = "scf.parallel"(%c0, %n, %c1, %zero) <{{operandSegmentSizes = array<i32: 1, 1, 1, 1>}}> ({{
  ^bb0(%i: index):
    %v = memref.load %x[%i] : memref<?xf32>
    "scf.reduce"(%v) ({{
    ^bb1(%lhs: f32, %rhs: f32):
      %s = arith.addf %lhs, %rhs : f32
      "scf.reduce.return"(%s) : (f32) -> ()
    }}) : (f32) -> ()
  }}) : (index, index, index, f32) -> f32
  func.return %sum : f32
}}
"""

CONTROL = """
func.func @collatz(%n0: i64) -> (i64, i64) {
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %c2 = arith.constant 2 : i64
  %c3 = arith.constant 3 : i64
  %res:2 = scf.while (%n = %n0, %k = %c0) : (i64, i64) -> (i64, i64) {
    %more = arith.cmpi sgt, %n, %c1 : i64
    scf.condition(%more) %n, %k : i64, i64
  } do {
  ^bb0(%n1: i64, %k1: i64):
    %r = arith.remsi %n1, %c2 : i64
    %odd = arith.cmpi ne, %r, %c0 : i64
    %next = scf.if %odd -> (i64) {
      %t = arith.muli %n1, %c3 : i64
      %t1 = arith.addi %t, %c1 : i64
      scf.yield %t1 : i64
    } else {
      %h = arith.divsi %n1, %c2 : i64
      scf.yield %h : i64
    }
    %k2 = arith.addi %k1, %c1 : i64
    scf.yield %next, %k2 : i64, i64
  }
  %twice = func.call @double(%res#1) : (i64) -> i64
  func.return %res#0, %twice : i64, i64
}

func.func @double(%x: i64) -> i64 {
  %s = arith.addi %x, %x : i64
  func.return %s : i64
}

func.func @fill_specials(%out: memref<5xf32>, %flag: memref<i1>) -> memref<5xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %nan = arith.constant 0x7FC00000 : f32
  %inf = arith.constant 0x7F800000 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %tenth = arith.constant 0.1 : f32
  %true = arith.constant true
  memref.store %nan, %out[%c0] : memref<5xf32>
  memref.store %inf, %out[%c1] : memref<5xf32>
  memref.store %ninf, %out[%c2] : memref<5xf32>
  memref.store %tenth, %out[%c3] : memref<5xf32>
  %copy = memref.alloc() : memref<5xf32>
  "memref.copy"(%out, %copy) : (memref<5xf32>, memref<5xf32>) -> ()
  scf.for %i = %c0 to %c4 step %c2 {
    %v = memref.load %copy[%i] : memref<5xf32>
    memref.store %v, %out[%c4] : memref<5xf32>
  }
  memref.store %true, %flag[] : memref<i1>
  func.return %copy : memref<5xf32>
}
"""


def rows_kernel(name: str, ty: str, out_ty: str, rows: list[str]) -> str:
    """`@name(%xa, %xb: memref<?xTY>) -> memref<Kx?xOUT_TY>`: row k from statement k, which
    reads `%a`, `%b` (element i of `%xa`, `%xb`) and defines `%r`. The loop is a serial
    `scf.for`: numba compiles it 2-3x faster than a prange, and these test op semantics."""
    out = f"memref<{len(rows)}x?x{out_ty}>"
    stores = "".join(
        f"\n    {row.replace('%r ', f'%r{k} ')}\n    memref.store %r{k}, %out[%k{k}, %i] : {out}"
        for k, row in enumerate(rows)
    )
    consts = "".join(f"\n  %k{k} = arith.constant {k} : index" for k in range(len(rows)))
    return f"""
func.func @{name}(%xa: memref<?x{ty}>, %xb: memref<?x{ty}>) -> {out} {{{PRELUDE}{consts}
  %n = memref.dim %xa, %c0 : memref<?x{ty}>
  %out = memref.alloc(%n) : {out}
  scf.for %i = %c0 to %n step %c1 {{
    %a = memref.load %xa[%i] : memref<?x{ty}>
    %b = memref.load %xb[%i] : memref<?x{ty}>{stores}
  }}
  func.return %out : {out}
}}
"""


CMPF_PREDICATES = [
    "false", "oeq", "ogt", "oge", "olt", "ole", "one", "ord",
    "ueq", "ugt", "uge", "ult", "ule", "une", "uno", "true",
]  # fmt: skip
CMPF = rows_kernel(
    "cmpf", "f32", "i1", [f"%r = arith.cmpf {p}, %a, %b : f32" for p in CMPF_PREDICATES]
)

MINMAX_OPS = ["maximumf", "minimumf", "maxnumf", "minnumf"]
SELECT = "%lt = arith.cmpf olt, %a, %b : f32\n    %r = arith.select %lt, %a, %b : f32"
MINMAX = rows_kernel(
    "minmax", "f32", "f32", [f"%r = arith.{op} %a, %b : f32" for op in MINMAX_OPS] + [SELECT]
)

INT_OPS = [
    "divsi", "remsi", "floordivsi", "ceildivsi", "maxsi", "minsi",
    "muli", "addi", "subi", "andi", "ori", "xori",
]  # fmt: skip
INT_KERNELS = "".join(
    rows_kernel(f"int_{ty}", ty, ty, [f"%r = arith.{op} %a, %b : {ty}" for op in INT_OPS])
    for ty in ("i64", "i32")
)

# op -> (statement on %a (any sign) / %b (positive), numpy reference of (a, b) in float64)
MATH_OPS: dict[str, tuple[str, Callable[..., np.ndarray]]] = {
    "exp": ("math.exp %a", lambda a, b: np.exp(a)),
    "log": ("math.log %b", lambda a, b: np.log(b)),
    "tanh": ("math.tanh %a", lambda a, b: np.tanh(a)),
    "sqrt": ("math.sqrt %b", lambda a, b: np.sqrt(b)),
    "rsqrt": ("math.rsqrt %b", lambda a, b: 1 / np.sqrt(b)),
    "absf": ("math.absf %a", lambda a, b: np.abs(a)),
    "erf": ("math.erf %a", lambda a, b: np.vectorize(math.erf)(a)),
    "sin": ("math.sin %a", lambda a, b: np.sin(a)),
    "cos": ("math.cos %a", lambda a, b: np.cos(a)),
    "floor": ("math.floor %a", lambda a, b: np.floor(a)),
    "ceil": ("math.ceil %a", lambda a, b: np.ceil(a)),
    "trunc": ("math.trunc %a", lambda a, b: np.trunc(a)),
    "log1p": ("math.log1p %b", lambda a, b: np.log1p(b)),
    "expm1": ("math.expm1 %a", lambda a, b: np.expm1(a)),
    "powf": ("math.powf %b, %a", lambda a, b: np.power(b, a)),
    "fma": ("math.fma %a, %a, %b", lambda a, b: a * a + b),
    "atan2": ("math.atan2 %a, %b", lambda a, b: np.arctan2(a, b)),
}
MATH = rows_kernel("math_ops", "f32", "f32", [f"%r = {s} : f32" for s, _ in MATH_OPS.values()])

CASTS = """
func.func @casts(%x: f32, %k: i64, %flag: i1)
    -> (f32, i64, f64, f32, i32, i64, i64, f32, f32, i32, i64, i1) {
  %sitofp = arith.sitofp %k : i64 to f32
  %fptosi = arith.fptosi %x : f32 to i64
  %extf = arith.extf %x : f32 to f64
  %truncf = arith.truncf %extf : f64 to f32
  %trunci = arith.trunci %k : i64 to i32
  %extsi = arith.extsi %trunci : i32 to i64
  %extui = arith.extui %trunci : i32 to i64
  %uitofp = arith.uitofp %flag : i1 to f32
  %sitofp1 = arith.sitofp %flag : i1 to f32
  %bitcast = arith.bitcast %x : f32 to i32
  %idx = arith.index_cast %k : i64 to index
  %back = arith.index_cast %idx : index to i64
  %bit = arith.trunci %k : i64 to i1
  func.return %sitofp, %fptosi, %extf, %truncf, %trunci, %extsi, %extui, %uitofp, %sitofp1,
    %bitcast, %back, %bit : f32, i64, f64, f32, i32, i64, i64, f32, f32, i32, i64, i1
}

"""

SOURCE = (
    "builtin.module {"
    + "".join((ELEMENTWISE, REDUCTIONS, CONTROL, CMPF, MINMAX, INT_KERNELS, MATH, CASTS))
    + "}"
)


@pytest.fixture(scope="module")
def kernels() -> ModuleType:
    """All kernels in one generated module (in the session's cache, see tests/conftest.py)."""
    return jit.load_module(emit_python(parse(SOURCE)))


def float_types(dispatcher: Any, *args: object) -> set[str]:
    """The float types numba infers for the named variables of `dispatcher` called with `args`.

    Arguments are left out (a Python float passed for an f32 argument is a float64 until the
    entry casts it), and so are numba temporaries (the float64 literal inside `np.float32(2.0)`).
    Type inference alone, no compile: the disk cache keeps no type annotations.
    """
    registry.cpu_target.typing_context.refresh()
    result = typed_passes.type_inference_stage(
        registry.cpu_target.typing_context,
        registry.cpu_target.target_context,
        compiler.run_frontend(dispatcher.py_func),
        tuple(numba.typeof(a) for a in args),
        None,
    )
    params = set(inspect.signature(dispatcher.py_func).parameters)
    named = {v: t for v, t in result.typemap.items() if v[0] != "$" and "arg." not in v}
    return {str(t) for v, t in named.items() if v not in params and isinstance(t, types.Float)}


def check(actual: np.ndarray, expected: np.ndarray, dtype: type[np.generic]) -> None:
    assert actual.dtype == dtype
    np.testing.assert_allclose(actual, expected.astype(dtype), **TOLERANCES[dtype])


# ---- floats ----


def test_elementwise_float32_stays_float32(kernels: ModuleType) -> None:
    x = RNG.standard_normal((7, 4), dtype=np.float32)
    b = RNG.standard_normal(4, dtype=np.float32)
    # A Python float for an f32 argument is coerced, not widened.
    out = kernels.ew(x, b, 2.0)
    check(out, np.tanh(2 * x + b) / (1 + np.exp(-x)), np.float32)
    assert float_types(kernels.ew_parallel, x, b, 2.0) == {"float32"}
    assert float_types(kernels.ew_serial, x, b, 2.0) == {"float32"}
    kernels.ew(x[:3], b, 2.0)  # another batch size reuses the same compiled code
    assert len(kernels.ew_serial.signatures) == 1


def test_float64_stays_float64(kernels: ModuleType) -> None:
    x = RNG.standard_normal(9)
    check(kernels.axpy64(x, 3.0), 3.0 * x + 0.1, np.float64)
    assert float_types(kernels.axpy64_serial, x, 3.0) == {"float64"}


def test_special_constants_copy_and_0d(kernels: ModuleType) -> None:
    out, flag = np.zeros(5, np.float32), np.zeros((), np.bool_)
    copy = kernels.fill_specials(out, flag)
    expected = np.array([np.nan, np.inf, -np.inf, 0.1, -np.inf], np.float32)
    np.testing.assert_array_equal(out, expected)
    np.testing.assert_array_equal(copy, expected[:4].tolist() + [0])
    assert copy.dtype == np.float32
    assert bool(flag[()])


@pytest.mark.parametrize("op", MATH_OPS)
def test_math_ops_float32(kernels: ModuleType, op: str) -> None:
    x = np.concatenate([np.linspace(-3, 3, 61), [0.5, -0.5, 1.5, -2.5]]).astype(np.float32)
    p = np.linspace(0.05, 4, x.size, dtype=np.float32)
    out = kernels.math_ops(x, p)
    row = list(MATH_OPS).index(op)
    expected = MATH_OPS[op][1](x.astype(np.float64), p.astype(np.float64))
    np.testing.assert_allclose(out[row], expected, rtol=4e-6, atol=1e-6)
    assert out.dtype == np.float32


def test_math_ops_keep_nan_and_inf(kernels: ModuleType) -> None:
    """fastmath must not change special values (no nnan/ninf; rsqrt dodges arcp's estimate)."""
    specials = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45, 1.0, -1.0], np.float32)
    x, p = np.repeat(specials, specials.size), np.tile(specials, specials.size)
    out = kernels.math_ops(x, p)
    wide = x.astype(np.float64), p.astype(np.float64)
    for row, (op, (_, reference)) in enumerate(MATH_OPS.items()):
        with np.errstate(all="ignore"):
            expected = reference(*wide).astype(np.float32)
        np.testing.assert_allclose(out[row], expected, rtol=4e-6, atol=0, err_msg=op)


def test_math_ops_never_widen(kernels: ModuleType) -> None:
    x = np.ones(3, np.float32)
    assert float_types(kernels.math_ops, x, x) == {"float32"}


# ---- comparisons and NaN ----

SPECIALS = np.array([1.0, 2.0, np.nan, 1.0, np.inf, -np.inf, np.nan, 0.0], np.float32)
OTHERS = np.array([2.0, 1.0, 1.0, 1.0, np.inf, 3.0, np.nan, -0.0], np.float32)


def cmpf_reference(a: np.ndarray, b: np.ndarray) -> dict[str, np.ndarray]:
    with np.errstate(invalid="ignore"):
        uno = np.isnan(a) | np.isnan(b)
        ordered = {"eq": a == b, "gt": a > b, "ge": a >= b, "lt": a < b, "le": a <= b}
        ordered["ne"] = (a < b) | (a > b)
    reference = {"false": np.zeros_like(uno), "true": np.ones_like(uno), "ord": ~uno}
    reference |= {"uno": uno, "une": a != b}
    reference |= {f"o{k}": v for k, v in ordered.items()}
    reference |= {f"u{k}": v | uno for k, v in ordered.items() if k != "ne"}
    return reference


def test_cmpf_predicates_with_nan(kernels: ModuleType) -> None:
    out = kernels.cmpf(SPECIALS, OTHERS)
    reference = cmpf_reference(SPECIALS, OTHERS)
    assert out.dtype == np.bool_
    for row, predicate in enumerate(CMPF_PREDICATES):
        np.testing.assert_array_equal(out[row], reference[predicate], err_msg=predicate)


def test_min_max_nan_semantics_and_select(kernels: ModuleType) -> None:
    out = kernels.minmax(SPECIALS, OTHERS)
    a, b = SPECIALS, OTHERS
    expected = [np.maximum(a, b), np.minimum(a, b), np.fmax(a, b), np.fmin(a, b)]
    expected.append(np.where(a < b, a, b))
    np.testing.assert_array_equal(out, np.array(expected))
    assert out.dtype == np.float32


# ---- integers ----


def int_reference(a: np.ndarray, b: np.ndarray) -> list[np.ndarray]:
    trunc = np.sign(a) * np.sign(b) * (np.abs(a) // np.abs(b))
    return [
        trunc, np.fmod(a, b), a // b, -(-a // b), np.maximum(a, b), np.minimum(a, b),
        a * b, a + b, a - b, a & b, a | b, a ^ b,
    ]  # fmt: skip


@pytest.mark.parametrize(("ty", "dtype"), [("i64", np.int64), ("i32", np.int32)])
def test_integer_ops_follow_arith(kernels: ModuleType, ty: str, dtype: type[np.integer]) -> None:
    a = np.array([7, -7, 7, -7, 6, 0, 2**30, -(2**30) + 5], dtype)
    b = np.array([2, 2, -2, -2, 3, 5, 4, 3], dtype)
    out = getattr(kernels, f"int_{ty}")(a, b)
    assert out.dtype == dtype
    with np.errstate(over="ignore"):
        expected = np.array(int_reference(a, b), dtype)
    for row, op in enumerate(INT_OPS):
        np.testing.assert_array_equal(out[row], expected[row], err_msg=op)


def test_casts(kernels: ModuleType) -> None:
    k = 2**33 + 2**31 + 5  # trunci to i32 wraps to a negative number
    r = kernels.casts(np.float32(-2.75), np.int64(k), True)
    wrapped = int(np.array(k).astype(np.int32))
    assert r[:7] == (float(np.float32(k)), -2, -2.75, -2.75, wrapped, wrapped, wrapped % 2**32)
    assert r[7:] == (1.0, -1.0, int(np.float32(-2.75).view(np.int32)), k, True)
    result_types = [str(t) for t in kernels.casts.nopython_signatures[0].return_type]
    assert result_types == [
        "float32", "int64", "float64", "float32", "int32", "int64", "int64",
        "float32", "float32", "int32", "int64", "bool",
    ]  # fmt: skip


# ---- loops and control flow ----


def test_for_iter_args_and_0d_result(kernels: ModuleType) -> None:
    x = RNG.standard_normal((6, 5), dtype=np.float32)
    rows, total = kernels.rowsum(x)
    check(rows, x.sum(axis=1), np.float32)
    assert total.shape == ()
    assert total.dtype == np.float32
    np.testing.assert_allclose(total, x.sum(), rtol=1e-5)


def test_parallel_reduction(kernels: ModuleType) -> None:
    x = np.arange(10, dtype=np.float32)
    assert kernels.psum(x) == 45.0


def test_while_if_and_call(kernels: ModuleType) -> None:
    assert kernels.collatz(27) == (1, 2 * 111)


# ---- emission ----


def test_unknown_op_names_op_and_target() -> None:
    module = parse("""func.func @f(%a: i64) -> i64 {
      %r = arith.ceildivui %a, %a : i64
      func.return %r : i64
    }""")
    with pytest.raises(PythonEmitError, match=r"python target: cannot emit op 'arith\.ceildivui'"):
        emit_python(module)


def test_source_is_deterministic() -> None:
    assert emit_python(parse(SOURCE)) == emit_python(parse(SOURCE))


def test_unsigned_ops_read_their_operands_as_unsigned() -> None:
    """uint8's ui8 and a signless i64 `remui`: unsigned operands (a signed read gives -1 % 10)."""
    module = parse("""func.func @f(%a: ui8, %b: ui8, %c: i64, %d: i64) -> (ui8, ui8, i1, i64, f32) {
      %q = arith.divui %a, %b : ui8
      %m = arith.maxui %a, %b : ui8
      %l = arith.cmpi ult, %a, %b : ui8
      %r = arith.remui %c, %d : i64
      %f = arith.uitofp %a : ui8 to f32
      func.return %q, %m, %l, %r, %f : ui8, ui8, i1, i64, f32
    }""")
    f = jit.load_module(emit_python(module)).ENTRY_POINTS["f"]
    q, m, lt, r, fl = f(np.uint8(200), np.uint8(7), np.int64(-1), np.int64(10))
    assert (q, m, lt, fl) == (28, 200, False, 200.0)
    assert r == (2**64 - 1) % 10  # -1 read as 2**64 - 1


# ---- the numba helpers' digest in the generated text ----


def test_generated_modules_name_the_digest_of_the_numba_helpers(tmp_path) -> None:
    """numba's disk cache of a generated module does not look at the helpers its functions
    compile in: their digest is in the text, so an edited helper makes new modules."""
    import re
    import shutil
    from pathlib import Path

    from lowering.python_target import tables
    from lowering.python_target.library_kernels import LIBRARY_HELPERS
    from lowering.python_target.shared_modules import CHUNK_IMPORT

    digest = tables.runtime_digest()[:24]
    assert digest in tables.HEADER and digest in tables.LIBRARY_HEADER
    texts = [tables.HEADER, *tables.HELPERS.values(), LIBRARY_HELPERS]
    covered = {name.removesuffix(".py").replace("/", ".") for name in tables.RUNTIME_SOURCES}
    found = re.findall(r"from lowering\.([\w.]+) import \(?\s*(\w+)", "\n".join(texts))
    imported = {f"{m}.{n}" if f"{m}.{n}" in covered else m for m, n in found}  # a module or a name
    python_side = {"run.thread_chunks", "run.custom_kernels"}  # plain Python, or digest-bound
    assert imported - python_side <= covered, CHUNK_IMPORT
    lowering = Path(tables.__file__).resolve().parent.parent
    for name in tables.RUNTIME_SOURCES:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(lowering / name, tmp_path / name)
    assert tables.runtime_digest(tmp_path) == tables.runtime_digest()
    with (tmp_path / "python_target" / "wide_vectors.py").open("a") as file:
        file.write("# edited\n")
    assert tables.runtime_digest(tmp_path) != tables.runtime_digest()
