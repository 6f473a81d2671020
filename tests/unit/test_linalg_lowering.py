"""linalg-bufferize and convert-linalg-to-parallel-loops: the IR verifies and computes the same.

Each case is a `linalg`-stage program with a numpy reference. It is bufferized, then lowered to
loops, and both results are run in xDSL's interpreter on tiny shapes:
- the `memref` stage through xDSL's own `convert-linalg-to-loops` (an independent lowering,
  so a bufferization bug cannot hide behind a matching loops bug);
- the `loops` stage as we produce it, with `scf.parallel` iterations run in *reverse* order,
  so a loop nest that depends on the order of its parallel iterations fails.
Arguments are checked to be unchanged after the call: no pass may write into a caller's buffer.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from itertools import product
from typing import Any

import numpy as np
import pytest
from xdsl.context import Context
from xdsl.dialects import arith, memref, scf
from xdsl.dialects.builtin import (
    Float32Type,
    Float64Type,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    TensorType,
    f32,
    f64,
    i32,
    i64,
)
from xdsl.interpreter import (
    Interpreter,
    InterpreterFunctions,
    PythonValues,
    ReturnedValues,
    impl,
    impl_terminator,
    register_impls,
)
from xdsl.interpreters import register_implementations
from xdsl.interpreters.builtin import scalar_attr
from xdsl.interpreters.math import MathFunctions
from xdsl.interpreters.shaped_array import ShapedArray
from xdsl.interpreters.utils.ptr import TypedPtr
from xdsl.ir import Attribute
from xdsl.parser import Parser
from xdsl.pattern_rewriter import GreedyRewritePatternApplier, PatternRewriteWalker
from xdsl.transforms.convert_linalg_to_loops import ConvertLinalgToLoopsPass
from xdsl.transforms.lower_affine import LowerAffinePass
from xdsl.universe import Universe
from xdsl.utils.exceptions import PassFailedException

from lowering.bufferize.bufferize import LinalgBufferizePass
from lowering.ir_marks import NONNEGATIVE_LOOP
from lowering.loops.parallel_loops import (
    ConvertLinalgToParallelLoopsPass,
    GeneralizeBroadcastOp,
    GeneralizeReduceOp,
)

# ---- interpreter support ----

NP_TO_XDSL: dict[Any, Attribute] = {
    np.float32: f32,
    np.float64: f64,
    np.int64: i64,
    np.int32: i32,
}


@register_impls
class LoopsFunctions(InterpreterFunctions):
    """What xDSL's interpreter lacks for our `memref` and `loops` stages."""

    @impl(scf.ParallelOp)
    def run_parallel(
        self, interpreter: Interpreter, op: scf.ParallelOp, args: PythonValues
    ) -> PythonValues:
        n = len(op.lowerBound)
        ranges = [
            range(lb.value.data, ub.value.data, step.value.data)
            for lb, ub, step in zip(args[:n], args[n : 2 * n], args[2 * n : 3 * n], strict=True)
        ]
        for ivs in reversed(list(product(*ranges))):
            index_args = tuple(scalar_attr(i, IndexType(), interpreter.index_bitwidth) for i in ivs)
            interpreter.run_ssacfg_region(op.body, index_args, "scf.parallel")
        return ()

    @impl_terminator(scf.ReduceOp)
    def run_reduce(
        self, interpreter: Interpreter, op: scf.ReduceOp, args: PythonValues
    ) -> tuple[ReturnedValues, PythonValues]:
        return ReturnedValues(args), ()

    @impl(memref.AllocOp)
    def run_alloc(
        self, interpreter: Interpreter, op: memref.AllocOp, args: PythonValues
    ) -> PythonValues:
        dynamic = iter(size.value.data for size in args)
        shape = [d if d >= 0 else next(dynamic) for d in op.memref.type.get_shape()]
        xtype = op.memref.type.element_type
        return (ShapedArray(TypedPtr.zeros(math.prod(shape), xtype=xtype), shape),)

    @impl(memref.DimOp)
    def run_dim(
        self, interpreter: Interpreter, op: memref.DimOp, args: PythonValues
    ) -> PythonValues:
        source, index = args
        return (scalar_attr(source.shape[index.value.data], IndexType(), 64),)

    @impl(memref.CopyOp)
    def run_copy(
        self, interpreter: Interpreter, op: memref.CopyOp, args: PythonValues
    ) -> PythonValues:
        source, destination = args
        for i, value in enumerate(source.data):
            destination.data_ptr[i] = value
        return ()

    @impl(arith.SIToFPOp)
    def run_sitofp(
        self, interpreter: Interpreter, op: arith.SIToFPOp, args: PythonValues
    ) -> PythonValues:
        return (FloatAttr(float(args[0].value.data), op.result.type),)

    @impl(arith.CeilDivSIOp)
    def run_ceildivsi(
        self, interpreter: Interpreter, op: arith.CeilDivSIOp, args: PythonValues
    ) -> PythonValues:
        quotient = -(-args[0].value.data // args[1].value.data)
        return (scalar_attr(quotient, op.result.type, interpreter.index_bitwidth),)

    @impl(arith.MinSIOp)
    def run_minsi(
        self, interpreter: Interpreter, op: arith.MinSIOp, args: PythonValues
    ) -> PythonValues:
        smaller = min(args[0].value.data, args[1].value.data)
        return (scalar_attr(smaller, op.result.type, interpreter.index_bitwidth),)

    @impl(arith.DivfOp)
    def run_divf(
        self, interpreter: Interpreter, op: arith.DivfOp, args: PythonValues
    ) -> PythonValues:
        return (FloatAttr(args[0].value.data / args[1].value.data, op.result.type),)


def to_runtime(value: np.ndarray | float | bool) -> Any:
    if isinstance(value, bool):
        return IntegerAttr.from_bool(value)
    if isinstance(value, float):
        return FloatAttr(value, f32)
    if isinstance(value, int):
        return IntegerAttr(value, IndexType())
    xtype = NP_TO_XDSL[value.dtype.type]
    return ShapedArray(TypedPtr.new(value.ravel().tolist(), xtype=xtype), list(value.shape))


def to_numpy(value: ShapedArray[Any]) -> np.ndarray:
    xtype = value.element_type
    if isinstance(xtype, Float32Type | Float64Type):
        dtype = np.float32 if isinstance(xtype, Float32Type) else np.float64
    else:
        assert isinstance(xtype, IntegerType)
        dtype = np.int64 if xtype.bitwidth == 64 else np.int32
    return np.array(value.data, dtype=dtype).reshape(value.shape)


def run(module: ModuleOp, ctx: Context, args: tuple[Any, ...]) -> list[np.ndarray]:
    interpreter = Interpreter(module)
    register_implementations(interpreter, ctx)
    interpreter.register_implementations(MathFunctions())
    interpreter.register_implementations(LoopsFunctions(), override=True)
    runtime_args = tuple(to_runtime(a) for a in args)
    results = interpreter.call_op("main", runtime_args)
    for before, after in zip(args, runtime_args, strict=True):
        if isinstance(before, np.ndarray):
            np.testing.assert_array_equal(to_numpy(after), before, "an argument was written")
    return [to_numpy(r) for r in results]


# ---- cases ----


@dataclass(frozen=True)
class Case:
    name: str
    ir: str
    args: tuple[Any, ...]
    reference: Callable[..., tuple[np.ndarray, ...]]


def rand(*shape: int, dtype: Any = np.float32) -> np.ndarray:
    return np.random.default_rng(sum(shape) + len(shape)).standard_normal(shape).astype(dtype)


ID2 = "affine_map<(d0, d1) -> (d0, d1)>"

CASES = [
    Case(
        "broadcast_captured_scalar_dynamic",
        f"""
func.func @main(%x: tensor<?x4xf32>, %b: tensor<4xf32>, %s: tensor<f32>) -> tensor<?x4xf32> {{
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x4xf32>
  %e = tensor.empty(%n) : tensor<?x4xf32>
  %sv = tensor.extract %s[] : tensor<f32>
  %r = linalg.generic {{indexing_maps = [{ID2}, affine_map<(d0, d1) -> (d1)>, {ID2}],
      iterator_types = ["parallel", "parallel"]}}
      ins(%x, %b : tensor<?x4xf32>, tensor<4xf32>) outs(%e : tensor<?x4xf32>) {{
  ^bb0(%a: f32, %c: f32, %o: f32):
    %t = arith.addf %a, %c : f32
    %u = arith.mulf %t, %sv : f32
    linalg.yield %u : f32
  }} -> tensor<?x4xf32>
  func.return %r : tensor<?x4xf32>
}}""",
        (rand(3, 4), rand(4), np.array(1.5, np.float32)),
        lambda x, b, s: ((x + b) * s,),
    ),
    Case(
        "row_sum_fill_chain_and_column_sum_reduction_first",
        f"""
func.func @main(%x: tensor<?x5xf32>) -> (tensor<?xf32>, tensor<5xf32>) {{
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %n = tensor.dim %x, %c0 : tensor<?x5xf32>
  %e = tensor.empty(%n) : tensor<?xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  %rows = linalg.generic {{indexing_maps = [{ID2}, affine_map<(d0, d1) -> (d0)>],
      iterator_types = ["parallel", "reduction"]}}
      ins(%x : tensor<?x5xf32>) outs(%f : tensor<?xf32>) {{
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  }} -> tensor<?xf32>
  %e2 = tensor.empty() : tensor<5xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<5xf32>) -> tensor<5xf32>
  %cols = linalg.generic {{indexing_maps = [{ID2}, affine_map<(d0, d1) -> (d1)>],
      iterator_types = ["reduction", "parallel"]}}
      ins(%x : tensor<?x5xf32>) outs(%f2 : tensor<5xf32>) {{
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  }} -> tensor<5xf32>
  func.return %rows, %cols : tensor<?xf32>, tensor<5xf32>
}}""",
        (rand(3, 5),),
        lambda x: (x.sum(axis=1), x.sum(axis=0)),
    ),
    Case(
        "full_max_to_0d_and_elementwise_0d",
        f"""
func.func @main(%x: tensor<2x3xf32>) -> tensor<f32> {{
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<f32>
  %f = linalg.fill ins(%ninf : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %m = linalg.generic {{indexing_maps = [{ID2}, affine_map<(d0, d1) -> ()>],
      iterator_types = ["reduction", "reduction"]}}
      ins(%x : tensor<2x3xf32>) outs(%f : tensor<f32>) {{
  ^bb0(%a: f32, %acc: f32):
    %s = arith.maximumf %a, %acc : f32
    linalg.yield %s : f32
  }} -> tensor<f32>
  %e2 = tensor.empty() : tensor<f32>
  %d = linalg.generic {{indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>],
      iterator_types = []}} ins(%m : tensor<f32>) outs(%e2 : tensor<f32>) {{
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %a : f32
    linalg.yield %s : f32
  }} -> tensor<f32>
  func.return %d : tensor<f32>
}}""",
        (rand(2, 3),),
        lambda x: (np.array(2 * x.max(), np.float32),),
    ),
    Case(
        "matmul_transpose_named",
        """
func.func @main(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) -> tensor<4x2xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x4xf32>) -> tensor<2x4xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<2x3xf32>, tensor<3x4xf32>)
      outs(%f : tensor<2x4xf32>) -> tensor<2x4xf32>
  %et = tensor.empty() : tensor<4x2xf32>
  %t = linalg.transpose ins(%mm : tensor<2x4xf32>) outs(%et : tensor<4x2xf32>) permutation = [1, 0]
  func.return %t : tensor<4x2xf32>
}""",
        (rand(2, 3), rand(3, 4)),
        lambda a, b: ((a @ b).T,),
    ),
    Case(
        "conv1d_window_with_index",
        """
func.func @main(%x: tensor<7xf64>, %w: tensor<3xf64>) -> tensor<5xf64> {
  %zero = arith.constant 0.0 : f64
  %e = tensor.empty() : tensor<5xf64>
  %f = linalg.fill ins(%zero : f64) outs(%e : tensor<5xf64>) -> tensor<5xf64>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0 + d1)>,
      affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0)>],
      iterator_types = ["parallel", "reduction"]}
      ins(%x, %w : tensor<7xf64>, tensor<3xf64>) outs(%f : tensor<5xf64>) {
  ^bb0(%a: f64, %b: f64, %acc: f64):
    %i = linalg.index 0 : index
    %ii = arith.index_cast %i : index to i64
    %if = arith.sitofp %ii : i64 to f64
    %m = arith.mulf %a, %b : f64
    %mi = arith.addf %m, %if : f64
    %s = arith.addf %mi, %acc : f64
    linalg.yield %s : f64
  } -> tensor<5xf64>
  func.return %r : tensor<5xf64>
}""",
        (rand(7, dtype=np.float64), rand(3, dtype=np.float64)),
        lambda x, w: (np.convolve(x, w[::-1], "valid") + 3 * np.arange(5),),
    ),
    Case(
        "iota_i64_dynamic",
        """
func.func @main(%x: tensor<?xf32>) -> tensor<?xi64> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?xf32>
  %e = tensor.empty(%n) : tensor<?xi64>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>],
      iterator_types = ["parallel"]} outs(%e : tensor<?xi64>) {
  ^bb0(%o: i64):
    %i = linalg.index 0 : index
    %v = arith.index_cast %i : index to i64
    linalg.yield %v : i64
  } -> tensor<?xi64>
  func.return %r : tensor<?xi64>
}""",
        (rand(4),),
        lambda x: (np.arange(4, dtype=np.int64),),
    ),
    Case(
        "init_is_argument_relu_select",
        """
func.func @main(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %zero = arith.constant 0.0 : f32
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>],
      iterator_types = ["parallel", "parallel"]} outs(%x : tensor<2x3xf32>) {
  ^bb0(%o: f32):
    %pos = arith.cmpf ogt, %o, %zero : f32
    %v = arith.select %pos, %o, %zero : f32
    linalg.yield %v : f32
  } -> tensor<2x3xf32>
  func.return %r, %x : tensor<2x3xf32>, tensor<2x3xf32>
}""",
        (rand(2, 3),),
        lambda x: (np.maximum(x, 0), x),
    ),
    Case(
        "control_flow_for_if_call",
        """
func.func @double(%x: tensor<3xf32>) -> tensor<3xf32> {
  %e = tensor.empty() : tensor<3xf32>
  %r = linalg.add ins(%x, %x : tensor<3xf32>, tensor<3xf32>)
      outs(%e : tensor<3xf32>) -> tensor<3xf32>
  func.return %r : tensor<3xf32>
}
func.func @main(%x: tensor<3xf32>, %n: index, %c: i1) -> (tensor<3xf32>, tensor<3xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %e = tensor.empty() : tensor<3xf32>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %x) -> (tensor<3xf32>) {
    %g = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>,
        affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
        ins(%acc, %x : tensor<3xf32>, tensor<3xf32>) outs(%e : tensor<3xf32>) {
    ^bb0(%a: f32, %b: f32, %o: f32):
      %s = arith.addf %a, %b : f32
      linalg.yield %s : f32
    } -> tensor<3xf32>
    scf.yield %g : tensor<3xf32>
  }
  %s = scf.if %c -> (tensor<3xf32>) {
    %d = func.call @double(%r) : (tensor<3xf32>) -> tensor<3xf32>
    scf.yield %d : tensor<3xf32>
  } else {
    scf.yield %r : tensor<3xf32>
  }
  func.return %s, %x : tensor<3xf32>, tensor<3xf32>
}""",
        (rand(3), 2, True),
        lambda x, n, c: (2 * (x + n * x), x),
    ),
    Case(
        "broadcast_reduce_named",
        """
func.func @main(%v: tensor<3xf32>) -> tensor<3xf32> {
  %zero = arith.constant 0.0 : f32
  %eb = tensor.empty() : tensor<2x3xf32>
  %b = linalg.broadcast ins(%v : tensor<3xf32>) outs(%eb : tensor<2x3xf32>) dimensions = [0]
  %er = tensor.empty() : tensor<3xf32>
  %f = linalg.fill ins(%zero : f32) outs(%er : tensor<3xf32>) -> tensor<3xf32>
  %r = linalg.reduce ins(%b : tensor<2x3xf32>) outs(%f : tensor<3xf32>) dimensions = [0]
    (%in: f32, %init: f32) {
      %s = arith.addf %in, %init : f32
      linalg.yield %s : f32
    }
  func.return %r : tensor<3xf32>
}""",
        (rand(3),),
        lambda v: (2 * v,),
    ),
]


# ---- helpers ----

LOOPS_DIALECTS = frozenset({"builtin", "func", "arith", "math", "scf", "memref"})


@pytest.fixture(scope="module")
def ctx() -> Context:
    context = Context()
    for name, factory in Universe.get_multiverse().all_dialects.items():
        context.register_dialect(name, factory)
    return context


def parse(ctx: Context, text: str) -> ModuleOp:
    module = Parser(ctx, text).parse_module()
    module.verify()
    return module


def types_in(module: ModuleOp) -> list[Attribute]:
    return [
        v.type
        for op in module.walk()
        for v in (
            *op.results,
            *op.operands,
            *(a for r in op.regions for b in r.blocks for a in b.args),
        )
    ]


def bufferize(ctx: Context, case: Case) -> ModuleOp:
    module = parse(ctx, case.ir)
    LinalgBufferizePass().apply(ctx, module)
    module.verify()
    assert not any(isinstance(t, TensorType) for t in types_in(module))
    assert {op.dialect_name() for op in module.walk()} <= LOOPS_DIALECTS | {"linalg"}
    return module


def upstream_loops(ctx: Context, module: ModuleOp) -> ModuleOp:
    """The memref stage lowered by xDSL's own passes: an independent executor for it."""
    module = module.clone()
    generalize = GreedyRewritePatternApplier([GeneralizeBroadcastOp(), GeneralizeReduceOp()])
    PatternRewriteWalker(generalize).rewrite_module(module)
    ConvertLinalgToLoopsPass().apply(ctx, module)
    LowerAffinePass().apply(ctx, module)
    return module


def check_all_close(results: list[np.ndarray], expected: tuple[np.ndarray, ...]) -> None:
    assert len(results) == len(expected)
    for got, want in zip(results, expected, strict=True):
        assert got.dtype == np.asarray(want).dtype
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


# ---- tests ----


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_memref_stage_runs_like_numpy(ctx: Context, case: Case) -> None:
    module = bufferize(ctx, case)
    check_all_close(run(upstream_loops(ctx, module), ctx, case.args), case.reference(*case.args))


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_loops_stage_runs_like_numpy(ctx: Context, case: Case) -> None:
    module = bufferize(ctx, case)
    ConvertLinalgToParallelLoopsPass().apply(ctx, module)
    module.verify()
    assert {op.dialect_name() for op in module.walk()} <= LOOPS_DIALECTS
    check_all_close(run(module, ctx, case.args), case.reference(*case.args))


def test_reduction_carries_accumulator_in_iter_args(ctx: Context) -> None:
    """The row sum carries its accumulator in `iter_args`; the column sum (a reduced dim
    before the contiguous one) runs the rows outside a loop over a block of columns, which
    reads and writes the outputs (`lowering/loops/outer_reduction_loops.py`)."""
    module = bufferize(ctx, CASES[1])
    ConvertLinalgToParallelLoopsPass().apply(ctx, module)
    loops = [op for op in module.walk() if isinstance(op, scf.ForOp)]
    carrying = [loop for loop in loops if loop.iter_args]
    assert len(carrying) == 1
    assert isinstance(carrying[0].parent_op(), scf.ParallelOp)
    assert not any(isinstance(op, memref.StoreOp) for op in carrying[0].body.walk())
    rows, columns = [loop for loop in loops if not loop.iter_args]
    assert isinstance(rows.parent_op(), scf.ParallelOp)
    assert columns.parent_op() is rows
    assert NONNEGATIVE_LOOP in columns.attributes
    assert any(isinstance(op, memref.StoreOp) for op in columns.body.walk())


def test_bufferize_rejects_unknown_tensor_op(ctx: Context) -> None:
    module = parse(
        ctx,
        """
func.func @main(%v: f32) -> tensor<3xf32> {
  %r = tensor.splat %v : tensor<3xf32>
  func.return %r : tensor<3xf32>
}""",
    )
    with pytest.raises(PassFailedException, match=r"linalg-bufferize.*'tensor.splat'"):
        LinalgBufferizePass().apply(ctx, module)


def test_loops_rejects_tensors(ctx: Context) -> None:
    module = parse(ctx, CASES[0].ir)
    with pytest.raises(PassFailedException, match=r"convert-linalg-to-parallel-loops.*bufferize"):
        ConvertLinalgToParallelLoopsPass().apply(ctx, module)
