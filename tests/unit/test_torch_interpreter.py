"""The torch-dialect interpreter: every op sample and every control-flow program, run op by op
through the eager references, against `run_eager` and the Python functions themselves."""
# ruff: noqa: E501  (IR lines in the test programs)

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from interpreter_harness import (
    CONTROL_FLOW_CASES,
    OP_CASES,
    OP_IDS,
    assert_same_typed,
    assert_same_values,
    control_flow,
    one_op_case,
    scripted,
    signature_of,
)
from xdsl.dialects.builtin import ModuleOp
from xdsl.parser import Parser

import frontend
from dialects.torch.interpreter import TorchInterpreterError, run_torch_ir
from frontend import torch
from lowering.pipeline import Stage, lower, make_context


def parse(text: str) -> ModuleOp:
    return Parser(make_context(), text).parse_module()


@pytest.mark.parametrize(("op", "index", "sample"), OP_CASES, ids=OP_IDS)
def test_op_sample_matches_run_eager(op: Any, index: int, sample: Any) -> None:
    """At stage torch (types unknown) and at torch-opt for the exact shapes, where each result
    is checked against the type its shape rule gives and scalar ops are folded to constants
    (and float16 results are float32 holding float16 values: `torch-emulate-half`)."""
    module, args, expected = one_op_case(op, sample)
    assert_same_typed(run_torch_ir(module, "f", args), expected)
    specialized = lower(module, Stage.TORCH_OPT, signature_of(args))
    assert_same_typed(run_torch_ir(specialized, "f", args), emulated(expected))


def emulated(result: Any) -> Any:
    if isinstance(result, tuple | list):
        return type(result)(emulated(r) for r in result)
    if isinstance(result, np.ndarray) and result.dtype == np.float16:
        return result.astype(np.float32)
    return result


@pytest.mark.parametrize(
    ("fn", "inputs"), [pytest.param(fn, i, id=fn.__name__) for fn, i in CONTROL_FLOW_CASES]
)
def test_control_flow_program_matches_python(fn: Any, inputs: list[tuple[Any, ...]]) -> None:
    function = scripted(fn)
    for args in inputs:
        assert_same_values(run_torch_ir(function.module, function.name, list(args)), fn(*args))


def test_calls_between_functions() -> None:
    module = parse(
        """
        func.func @main(%x: !torch.vtensor<[?],f32>, %n: !torch.int) -> (!torch.vtensor<[?],f32>, !torch.int) {
          %y, %m = func.call @twice(%x, %n) : (!torch.vtensor<[?],f32>, !torch.int) -> (!torch.vtensor<[?],f32>, !torch.int)
          %z, %k = func.call @twice(%y, %m) : (!torch.vtensor<[?],f32>, !torch.int) -> (!torch.vtensor<[?],f32>, !torch.int)
          func.return %z, %k : !torch.vtensor<[?],f32>, !torch.int
        }
        func.func @twice(%x: !torch.vtensor<[?],f32>, %n: !torch.int) -> (!torch.vtensor<[?],f32>, !torch.int) {
          %int1 = torch.constant.int 1
          %y = torch.aten.add.Tensor %x, %x, %int1 : !torch.vtensor<[?],f32>, !torch.vtensor<[?],f32>, !torch.int -> !torch.vtensor<[?],f32>
          %m = torch.aten.add.int %n, %n : !torch.int, !torch.int -> !torch.int
          func.return %y, %m : !torch.vtensor<[?],f32>, !torch.int
        }
        """
    )
    x = np.array([1.0, -2.0], np.float32)
    y, k = run_torch_ir(module, "main", [x, 3])
    np.testing.assert_array_equal(y, 4 * x)
    assert k == 12


def test_loop_stops_at_trip_count_or_condition() -> None:
    """prim.Loop runs while `iteration < trip count` and the body's condition holds."""
    module = parse(
        """
        func.func @count(%n: !torch.int, %limit: !torch.int) -> !torch.int {
          %true = torch.constant.bool true
          %int0 = torch.constant.int 0
          %int1 = torch.constant.int 1
          %r = torch.prim.Loop %n, %true, init(%int0) {
          ^bb0(%i: !torch.int, %acc: !torch.int):
            %next = torch.aten.add.int %acc, %int1 : !torch.int, !torch.int -> !torch.int
            %go = torch.aten.lt.int %next, %limit : !torch.int, !torch.int -> !torch.bool
            torch.prim.Loop.condition %go, iter(%next : !torch.int)
          } : (!torch.int, !torch.bool, !torch.int) -> !torch.int
          func.return %r : !torch.int
        }
        """
    )
    assert run_torch_ir(module, "count", [5, 100]) == 5
    assert run_torch_ir(module, "count", [5, 3]) == 3
    assert run_torch_ir(module, "count", [0, 3]) == 0


def test_result_that_contradicts_its_type_is_reported() -> None:
    module = parse(
        """
        func.func @f(%x: !torch.vtensor<[?],f32>) -> !torch.vtensor<[?],si64> {
          %t = torch.aten.tanh %x : !torch.vtensor<[?],f32> -> !torch.vtensor<[?],si64>
          func.return %t : !torch.vtensor<[?],si64>
        }
        """
    )
    with pytest.raises(TorchInterpreterError, match=r"torch.aten.tanh: got dtype float32"):
        run_torch_ir(module, "f", [np.ones(3, np.float32)])


def test_bad_calls_are_reported() -> None:
    module = parse(
        """
        func.func @f(%x: !torch.vtensor<[2],f32>) -> !torch.vtensor<[2],f32> {
          func.return %x : !torch.vtensor<[2],f32>
        }
        """
    )
    with pytest.raises(TorchInterpreterError, match=r"no function @g in the module \(it has @f\)"):
        run_torch_ir(module, "g", [])
    with pytest.raises(TorchInterpreterError, match="@f takes 1 arguments but 2 were given"):
        run_torch_ir(module, "f", [np.ones(2, np.float32), 1])
    with pytest.raises(TorchInterpreterError, match=r"argument #0 of @f: got shape \[3\]"):
        run_torch_ir(module, "f", [np.ones(3, np.float32)])


def test_ops_outside_the_torch_dialect_are_refused() -> None:
    module = parse(
        """
        func.func @f(%a: i64) -> i64 {
          %b = arith.addi %a, %a : i64
          func.return %b : i64
        }
        """
    )
    with pytest.raises(TorchInterpreterError, match=r"arith\.addi: the torch interpreter cannot"):
        run_torch_ir(module, "f", [1])


# ---- frontend.script(fn, backend="interpreter") ----


def scale_or_add(x, y: torch.Tensor | None = None, k: float = 2.0):
    if y is None:
        return x * k
    return x + y, y


def test_script_backend_interpreter_runs_without_compiling() -> None:
    function = frontend.script(control_flow.rnn, backend="interpreter")
    assert function.backend == "interpreter"
    x, h, w, b = (np.ones((4, 3), np.float32), np.zeros(3, np.float32),
                  np.eye(3, dtype=np.float32) * 0.5, np.full(3, 0.1, np.float32))  # fmt: skip
    assert_same_values(function(x, h, w, w, b), control_flow.rnn(x, h, w, w, b))
    assert not function._compiled, "the interpreter backend compiled code"


def test_script_backend_interpreter_with_structured_arguments_and_torch_tensors() -> None:
    real_torch = pytest.importorskip("torch")
    function = frontend.script(scale_or_add, backend="interpreter")
    x, y = np.arange(3, dtype=np.float32), np.ones(3, np.float32)
    assert_same_values(function(x), x * 2.0)
    assert_same_values(function(x, k=3.0), x * 3.0)
    assert_same_values(function(x, y), (x + y, y))
    out = function(real_torch.from_numpy(x))
    assert isinstance(out, real_torch.Tensor)
    assert_same_values(out.numpy(), x * 2.0)


def test_script_backend_is_checked() -> None:
    with pytest.raises(ValueError, match="unknown backend 'gpu'"):
        frontend.script(control_flow.foo, backend="gpu")
