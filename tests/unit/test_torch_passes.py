"""The torch-opt passes keep every program's meaning: each program runs through the torch
interpreter before and after them. Structure is checked in tests/lit/torch-opt."""
# ruff: noqa: E501  (IR lines in the test programs)

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pytest
from interpreter_harness import (
    CONTROL_FLOW_CASES,
    OP_CASES,
    assert_same_typed,
    assert_same_values,
    one_op_case,
    scripted,
    signature_of,
)
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.parser import Parser

import lowering
from dialects.torch.interpreter import run_torch_ir
from dialects.torch.op_base import TorchOp
from dialects.torch.ops.prim import PrimLoopOp
from frontend import torch
from lowering.pipeline import Stage, lower, make_context
from lowering.torch_opt import (
    TorchCanonicalizePass,
    TorchDecomposePass,
    TorchUnrollLoopsPass,
    torch_optimization_passes,
)
from lowering.torch_opt.decompose import decomposable_ops
from lowering.torch_opt.refine_types import TorchRefineTypesPass

TORCH_PASSES = ["torch-canonicalize", "torch-dce", "torch-unroll-loops", "torch-decompose"]


def parse(text: str) -> ModuleOp:
    return Parser(make_context(), text).parse_module()


def ops_named(module: ModuleOp, prefix: str) -> list[Operation]:
    return [op for op in module.walk() if op.name.startswith(prefix)]


@pytest.mark.parametrize(
    ("fn", "inputs"), [pytest.param(fn, i, id=fn.__name__) for fn, i in CONTROL_FLOW_CASES]
)
def test_optimized_program_matches_python(fn: Any, inputs: list[tuple[Any, ...]]) -> None:
    """torch-opt for the exact shapes (most folding) and for `?` dims (what calls compile)."""
    function = scripted(fn)
    for args, exact in itertools.product(inputs, (True, False)):
        optimized = lower(function.module, Stage.TORCH_OPT, signature_of(list(args), exact))
        assert_same_values(run_torch_ir(optimized, function.name, list(args)), fn(*args))


def _on_constants_to_scalar(op: Any, sample: Any) -> bool:
    """Whether the sample call takes no tensor and gives a Python scalar (`7 // 3`)."""
    _, args, expected = one_op_case(op, sample)
    return not args and isinstance(expected, bool | int | float)


SCALAR_CASES = [(op, i, s) for op, i, s in OP_CASES if _on_constants_to_scalar(op, s)]


@pytest.mark.parametrize(
    ("op", "index", "sample"),
    SCALAR_CASES,
    ids=[f"{op.name.removeprefix('torch.')}-{i}" for op, i, _ in SCALAR_CASES],
)
def test_scalar_op_on_constants_folds_to_its_eager_value(op: Any, index: int, sample: Any) -> None:
    module, args, expected = one_op_case(op, sample)
    optimized = lower(module, Stage.TORCH_OPT, "")
    assert not ops_named(optimized, "torch.aten."), f"{op.name} was not folded"
    assert run_torch_ir(optimized, "f", args) == expected


def test_folding_leaves_what_would_fail_or_overflow_to_the_run_time() -> None:
    module = parse(
        """
        func.func @f() -> (!torch.int, !torch.int) {
          %big = torch.constant.int 4611686018427387904
          %int4 = torch.constant.int 4
          %int0 = torch.constant.int 0
          %a = torch.aten.mul.int %big, %int4 : !torch.int, !torch.int -> !torch.int
          %b = torch.aten.remainder.int %int4, %int0 : !torch.int, !torch.int -> !torch.int
          func.return %a, %b : !torch.int, !torch.int
        }
        """
    )
    TorchCanonicalizePass().apply(make_context(), module)
    assert [op.name for op in ops_named(module, "torch.aten.")] == [
        "torch.aten.mul.int",
        "torch.aten.remainder.int",
    ]


# ---- identity folds: exactly when the result type is `self`'s ----

IDENTITY_OPS = {
    "add": ("torch.aten.add.Scalar", 0, True),
    "sub": ("torch.aten.sub.Scalar", 0, True),
    "mul": ("torch.aten.mul.Scalar", 1, False),
    "div": ("torch.aten.div.Scalar", 1, False),
}
SCALAR_SPELLINGS = {int: "int", float: "float", bool: "bool"}
DTYPES = ["float32", "float64", "int64", "int32", "bool"]


def identity_program(op_name: str, alpha: bool, constant: Any) -> ModuleOp:
    kind = SCALAR_SPELLINGS[type(constant)]
    literal = str(constant).lower() if kind == "bool" else repr(constant)
    alpha_operand, alpha_type = (", %int1", ", !torch.int") if alpha else ("", "")
    return parse(
        f"""
        func.func @f(%x: !torch.vtensor<*,unk>) -> !torch.vtensor<*,unk> {{
          %int1 = torch.constant.int 1
          %c = torch.constant.{kind} {literal}
          %r = {op_name} %x, %c{alpha_operand} : !torch.vtensor<*,unk>, !torch.{kind}{alpha_type} -> !torch.vtensor<*,unk>
          func.return %r : !torch.vtensor<*,unk>
        }}
        """
    )


def refined(module: ModuleOp, signature: str) -> ModuleOp:
    """`module` typed for `signature`, not optimized."""
    copy = module.clone()
    TorchRefineTypesPass(signature=signature).apply(make_context(), copy)
    return copy


IDENTITY_CASES = [
    (name, dtype) for name in IDENTITY_OPS for dtype in DTYPES if (name, dtype) != ("sub", "bool")
]  # torch rejects `-` on bool tensors


@pytest.mark.parametrize(("name", "dtype"), IDENTITY_CASES)
def test_identity_folds_exactly_when_types_agree(name: str, dtype: str) -> None:
    op_name, identity, alpha = IDENTITY_OPS[name]
    x = np.arange(6) % 2 == 0 if dtype == "bool" else (np.arange(-2, 4) * 0.75).astype(dtype)
    signature = signature_of([x], exact=False)
    for constant in (identity, float(identity), bool(identity)):
        module = identity_program(op_name, alpha, constant)
        expected = run_torch_ir(refined(module, signature), "f", [x])
        optimized = lower(module, Stage.TORCH_OPT, signature)
        assert_same_typed(run_torch_ir(optimized, "f", [x]), expected)
        folded = not ops_named(optimized, op_name)
        assert folded == (expected.dtype == x.dtype), f"{op_name} on {dtype} with {constant!r}"


# ---- unrolling ----


def nested_sums(x, n: int):
    total = 0
    for i in range(4):
        for j in range(i):
            total = total + i * j + n
    acc = x
    for k in range(3):
        acc = torch.tanh(acc * 0.5 + k)
    for _ in range(9):  # more than max-trip-count: stays a loop
        acc = acc + 1.0
    return acc, total


def test_unrolled_program_matches_python() -> None:
    function = scripted(nested_sums)
    x = np.linspace(-1, 1, 5, dtype=np.float32)
    optimized = lower(function.module, Stage.TORCH_OPT, "f32[?],int")
    loops = [op for op in optimized.walk() if isinstance(op, PrimLoopOp)]
    assert len(loops) == 1, "only the 9-iteration loop should be left"
    assert_same_values(run_torch_ir(optimized, function.name, [x, 3]), nested_sums(x, 3))


def test_max_trip_count_option() -> None:
    function = scripted(nested_sums)
    module = lower(function.module, Stage.TORCH_OPT, "f32[?],int")
    TorchUnrollLoopsPass(max_trip_count=9).apply(make_context(), module)
    assert not [op for op in module.walk() if isinstance(op, PrimLoopOp)]
    x = np.linspace(-1, 1, 5, dtype=np.float32)
    assert_same_values(run_torch_ir(module, function.name, [x, 2]), nested_sums(x, 2))


# ---- decomposition ----

DECOMPOSE_CASES = [(op, i, s) for op, i, s in OP_CASES if op in decomposable_ops()]


@pytest.mark.parametrize(
    ("op", "index", "sample"),
    DECOMPOSE_CASES,
    ids=[f"{op.name.removeprefix('torch.')}-{i}" for op, i, _ in DECOMPOSE_CASES],
)
def test_decomposition_matches_the_op(op: Any, index: int, sample: Any) -> None:
    module, args, expected = one_op_case(op, sample)
    typed = refined(module, signature_of(args))
    TorchDecomposePass().apply(make_context(), typed)
    typed.verify()
    assert_same_typed(run_torch_ir(typed, "f", args), expected)


def test_core_set_is_what_remains() -> None:
    """The decomposable ops are exactly those with a hook; at least `t` decomposes."""
    names = {op.name for op in decomposable_ops()}
    assert "torch.aten.t" in names
    for op in decomposable_ops():
        assert op.decompose is not TorchOp.decompose


# ---- the passes as named passes ----


@pytest.mark.parametrize("name", TORCH_PASSES)
def test_pass_is_registered_with_a_contract(name: str) -> None:
    pass_class = lowering.get_all_passes()[name]()
    assert pass_class.name == name
    doc = __import__(pass_class.__module__, fromlist=["_"]).__doc__ or ""
    assert "**Expects:**" in doc and "**Produces:**" in doc, f"{name} has no contract"


def test_default_pipeline_runs_the_optimizations_after_refinement() -> None:
    names = [p.name for p in torch_optimization_passes()]
    assert names[0] == "torch-canonicalize" and names[-1] == "torch-dce"
    assert {"torch-unroll-loops", "torch-decompose", "cse"} <= set(names)
    module = parse(
        """
        func.func @f(%x: !torch.vtensor<*,unk>) -> !torch.int {
          %int1 = torch.constant.int 1
          %s = torch.aten.size.int %x, %int1 : !torch.vtensor<*,unk>, !torch.int -> !torch.int
          func.return %s : !torch.int
        }
        """
    )
    optimized = lower(module, Stage.TORCH_OPT, "f32[?,7]")
    returned = next(op for op in optimized.walk() if isinstance(op, func.ReturnOp))
    assert returned.operands[0].owner.python_value() == 7  # type: ignore[union-attr]
