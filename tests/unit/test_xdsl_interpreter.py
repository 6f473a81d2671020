"""xDSL's interpreter (with tsjit's additions) runs the linalg, memref and loops IR of op samples
and scripted programs: an executor independent of the numba path, checked against eager."""
# ruff: noqa: E501  (IR lines in the test programs)

from __future__ import annotations

import struct

import numpy as np
import pytest
from interpreter_harness import (
    CONTROL_FLOW_CASES,
    assert_same_typed,
    assert_same_values,
    one_op_case,
    scripted,
    signature_of,
)
from xdsl.dialects.builtin import ModuleOp
from xdsl.parser import Parser
from xdsl.utils.exceptions import InterpretationError

from dialects.torch.registry import BY_NAME
from lowering.pipeline import lower, make_context
from lowering.xdsl_interpreter import run_xdsl_ir

STAGES = ("linalg", "memref", "loops")

# One sample per lowering family: broadcasting and promotion, transcendental payloads (expanded
# to polynomials at `loops`), comparisons to bool, reductions with two outputs, products,
# indexing, views, tensor-to-scalar.
OP_SAMPLES = [
    ("torch.aten.add.Tensor", 1), ("torch.aten.div.Tensor", 5), ("torch.aten.add.Scalar", 2),
    ("torch.aten.tanh", 0), ("torch.aten.exp", 2), ("torch.aten.gt.Tensor", 2),
    ("torch.aten.sum.dim_IntList", 0), ("torch.aten.max.dim", 0), ("torch.aten.mm", 0),
    ("torch.aten.matmul", 5), ("torch.aten.linear", 1), ("torch.aten.select.int", 1),
    ("torch.aten.slice.Tensor", 1), ("torch.aten.transpose.int", 0), ("torch.aten.reshape", 0),
    ("torch.aten.Int.Tensor", 0),
]  # fmt: skip
PROGRAMS = ["foo", "cell", "while_break", "for_break_tensor", "carried_scalar_and_tensor",
            "index_slices", "int_arithmetic"]  # fmt: skip


@pytest.mark.parametrize("stage", STAGES)
@pytest.mark.parametrize(
    ("name", "index"), OP_SAMPLES, ids=[f"{n[11:]}-{i}" for n, i in OP_SAMPLES]
)
def test_op_sample_matches_eager(name: str, index: int, stage: str) -> None:
    op = BY_NAME[name]
    module, args, expected = one_op_case(op, op.SAMPLES[index])
    lowered = lower(module, stage, signature_of(args, exact=False))
    assert_same_typed(run_xdsl_ir(lowered, "f", args), expected)


@pytest.mark.parametrize("stage", STAGES)
@pytest.mark.parametrize("program", PROGRAMS)
def test_control_flow_program_matches_python(program: str, stage: str) -> None:
    fn, inputs = next((f, i) for f, i in CONTROL_FLOW_CASES if f.__name__ == program)
    function = scripted(fn)
    for args in inputs:
        lowered = lower(function.module, stage, signature_of(list(args), exact=False))
        assert_same_values(run_xdsl_ir(lowered, function.name, list(args)), fn(*args))


# ---- the implementations tsjit adds, on IR the lowering may not emit yet ----


def parse(text: str) -> ModuleOp:
    return Parser(make_context(), text).parse_module()


def test_parallel_loop_with_a_reduction_and_dynamic_buffers() -> None:
    module = parse(
        """
        func.func @f(%x: memref<?xf32>) -> (f32, memref<?xf32>) {
          %c0 = arith.constant 0 : index
          %c1 = arith.constant 1 : index
          %zero = arith.constant 0.0 : f32
          %n = memref.dim %x, %c0 : memref<?xf32>
          %out = memref.alloc(%n) : memref<?xf32>
          %sum = "scf.parallel"(%c0, %n, %c1, %zero) <{operandSegmentSizes = array<i32: 1, 1, 1, 1>}> ({
          ^bb0(%i: index):
            %v = memref.load %x[%i] : memref<?xf32>
            %twice = arith.addf %v, %v : f32
            memref.store %twice, %out[%i] : memref<?xf32>
            scf.reduce(%v : f32) {
            ^bb1(%a: f32, %b: f32):
              %s = arith.addf %a, %b : f32
              scf.reduce.return %s : f32
            }
          }) : (index, index, index, f32) -> f32
          func.return %sum, %out : f32, memref<?xf32>
        }
        """
    )
    x = np.array([1.5, -2.0, 4.25], np.float32)
    total, doubled = run_xdsl_ir(module, "f", [x])
    assert total == pytest.approx(3.75)
    np.testing.assert_array_equal(doubled, 2 * x)


def test_generic_with_two_outputs_and_linalg_index() -> None:
    """An argmax: each output gets its own value (upstream wrote both into the first)."""
    module = parse(
        """
        func.func @f(%x: tensor<4xf32>) -> (tensor<f32>, tensor<i64>) {
          %lo = arith.constant -1.0e30 : f32
          %c0 = arith.constant 0 : i64
          %m0 = tensor.empty() : tensor<f32>
          %i0 = tensor.empty() : tensor<i64>
          %m = linalg.fill ins(%lo : f32) outs(%m0 : tensor<f32>) -> tensor<f32>
          %i = linalg.fill ins(%c0 : i64) outs(%i0 : tensor<i64>) -> tensor<i64>
          %r:2 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]} ins(%x : tensor<4xf32>) outs(%m, %i : tensor<f32>, tensor<i64>) {
          ^bb0(%v: f32, %best: f32, %at: i64):
            %k = linalg.index 0 : index
            %ki = arith.index_cast %k : index to i64
            %gt = arith.cmpf ogt, %v, %best : f32
            %nb = arith.select %gt, %v, %best : f32
            %na = arith.select %gt, %ki, %at : i64
            linalg.yield %nb, %na : f32, i64
          } -> tensor<f32>, tensor<i64>
          func.return %r#0, %r#1 : tensor<f32>, tensor<i64>
        }
        """
    )
    best, at = run_xdsl_ir(module, "f", [np.array([0.5, 3.0, -1.0, 2.0], np.float32)])
    assert best == 3.0 and at == 1


SCALAR_PROGRAM = """
func.func @f(%a: i64, %b: i64, %x: f32, %y: f64) -> (f64, i64, f64, f32, i64, i64, i32, f32, i64, i64, f32, f32) {
  %0 = arith.sitofp %a : i64 to f64
  %1 = arith.fptosi %y : f64 to i64
  %2 = arith.extf %x : f32 to f64
  %3 = arith.truncf %y : f64 to f32
  %4 = arith.ceildivsi %a, %b : i64
  %5 = arith.maxsi %a, %b : i64
  %6 = arith.bitcast %x : f32 to i32
  %7 = arith.bitcast %6 : i32 to f32
  %8 = math.absi %b : i64
  %9 = math.ipowi %b, %a : i64
  %10 = math.round %x : f32
  %11 = arith.divf %x, %3 : f32
  func.return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11 : f64, i64, f64, f32, i64, i64, i32, f32, i64, i64, f32, f32
}
"""


def test_casts_and_scalar_ops() -> None:
    x, y = np.float32(-2.5), 7.999
    results = run_xdsl_ir(parse(SCALAR_PROGRAM), "f", [3, -2, x, y])
    (sitofp, fptosi, extf, truncf, ceildiv, maxsi, bits, back, absi, ipowi, rounded, ratio) = (
        results
    )
    assert (sitofp, fptosi, extf, ceildiv, maxsi, absi, ipowi) == (3.0, 7, -2.5, -1, 3, 2, -8)
    assert truncf == float(np.float32(y))
    assert bits == struct.unpack("<i", struct.pack("<f", x))[0] and back == x
    assert rounded == -3.0  # math.round: half away from zero
    assert ratio == float(np.float32(x) / np.float32(y))  # rounded to f32 like the hardware


def test_undefined_conversion_is_reported() -> None:
    with pytest.raises(InterpretationError, match=r"arith\.fptosi of nan is undefined"):
        run_xdsl_ir(parse(SCALAR_PROGRAM), "f", [3, -2, np.float32(1), float("nan")])


def test_results_keep_their_types() -> None:
    module = parse(
        """
        func.func @f(%b: memref<3xi1>, %i: memref<3xi32>, %flag: i1) -> (memref<3xi1>, memref<3xi32>, i1) {
          func.return %b, %i, %flag : memref<3xi1>, memref<3xi32>, i1
        }
        """
    )
    flags, ints, flag = run_xdsl_ir(
        module, "f", [np.array([True, False, True]), np.array([1, -2, 3], np.int32), True]
    )
    assert flags.dtype == np.bool_ and flags.tolist() == [True, False, True]
    assert ints.dtype == np.int32 and ints.tolist() == [1, -2, 3]
    assert flag is True


@pytest.mark.parametrize("stage", STAGES)
def test_tensor_literals(stage: str) -> None:
    """A traced weight: a dense `arith.constant` at linalg, a `memref.global` below."""
    module = parse(
        """
        func.func @f(%x: !torch.vtensor<*,unk>) -> !torch.vtensor<*,unk> {
          %w = torch.vtensor.literal(dense<[2.5, -1.0]> : tensor<2xf32>) : !torch.vtensor<[2],f32>
          %int1 = torch.constant.int 1
          %r = torch.aten.add.Tensor %x, %w, %int1 : !torch.vtensor<*,unk>, !torch.vtensor<[2],f32>, !torch.int -> !torch.vtensor<*,unk>
          func.return %r : !torch.vtensor<*,unk>
        }
        """
    )
    x = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)
    result = run_xdsl_ir(lower(module, stage, "f32[?,2]"), "f", [x])
    np.testing.assert_array_equal(result, x + np.array([2.5, -1.0], np.float32))
