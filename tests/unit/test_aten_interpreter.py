"""The eager tier for torch tensors: torch-dialect IR run with PyTorch's aten ops.

Every op sample runs as a one-op function through `run_with_aten` and must agree with the op's
eager reference (dtype, shape, values), and through aten itself for most ops: a census counts
the ops that found their aten overload, so a binding that silently falls back to the numpy
references everywhere fails here."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch
from interpreter_harness import (
    CONTROL_FLOW_CASES,
    OP_CASES,
    OP_IDS,
    assert_same_typed,
    assert_same_values,
    one_op_case,
    scripted,
)

import frontend
from dialects.torch import aten_interpreter
from dialects.torch.aten_interpreter import AtenInterpreter, run_with_aten

RAN_ON_ATEN: dict[str, bool] = {}


@pytest.fixture
def aten_census(monkeypatch: pytest.MonkeyPatch) -> dict[str, bool]:
    """op name -> whether its aten overload computed its result (else the reference did)."""
    run_aten = AtenInterpreter.run_aten

    def recorded(self: AtenInterpreter, op: Any, args: list[Any]) -> Any:
        outputs = run_aten(self, op, args)
        RAN_ON_ATEN[op.name] = RAN_ON_ATEN.get(op.name, False) or outputs is not None
        return outputs

    monkeypatch.setattr(AtenInterpreter, "run_aten", recorded)
    return RAN_ON_ATEN


@pytest.mark.parametrize(("op", "index", "sample"), OP_CASES, ids=OP_IDS)
def test_op_sample_matches_its_eager_reference(
    op: Any, index: int, sample: Any, aten_census: dict[str, bool]
) -> None:
    module, args, expected = one_op_case(op, sample)
    assert_same_typed(run_with_aten(module, "f", args), expected)


def test_most_ops_run_on_aten() -> None:
    """Runs after the samples (same module): most ops found an aten overload that took their
    operands; the rest are named, so a new op that falls back shows up here."""
    if len(RAN_ON_ATEN) < 100:
        pytest.skip("the op samples did not run in this process")
    on_aten = sorted(name for name, ran in RAN_ON_ATEN.items() if ran)
    share = len(on_aten) / len(RAN_ON_ATEN)
    print(f"{len(on_aten)} of {len(RAN_ON_ATEN)} ops ran on aten; the others:",
          sorted(set(RAN_ON_ATEN) - set(on_aten)))  # fmt: skip
    assert share > 0.85, (share, sorted(set(RAN_ON_ATEN) - set(on_aten)))


@pytest.mark.parametrize(
    ("fn", "inputs"), [pytest.param(fn, i, id=fn.__name__) for fn, i in CONTROL_FLOW_CASES]
)
def test_control_flow_program_matches_python(fn: Any, inputs: list[tuple[Any, ...]]) -> None:
    function = scripted(fn)
    for args in inputs:
        assert_same_values(run_with_aten(function.module, function.name, list(args)), fn(*args))


def attention(q, k, v):
    scores = torch.matmul(q, k.transpose(-2, -1)) / 8.0
    return torch.matmul(torch.softmax(scores, dim=-1), v).sum(dim=1)


def test_aten_kernels_compute_the_program() -> None:
    """The program's ops run as PyTorch's aten kernels (seen by a dispatch mode), and the
    result equals PyTorch's."""
    from torch.utils._python_dispatch import TorchDispatchMode

    class Seen(TorchDispatchMode):
        def __init__(self) -> None:
            super().__init__()
            self.ops: list[str] = []

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):  # noqa: ANN001
            self.ops.append(str(func))
            return func(*args, **(kwargs or {}))

    f = scripted(attention)
    q, k, v = (torch.randn(2, 4, 8) for _ in range(3))
    seen = Seen()
    with seen:
        out = run_with_aten(f.module, f.name, [t.numpy() for t in (q, k, v)])
    torch.testing.assert_close(torch.from_numpy(out), attention(q, k, v), rtol=1e-5, atol=1e-5)
    assert {"aten.transpose.int", "aten.sum.dim_IntList"} <= set(seen.ops), seen.ops
    assert {"aten.bmm.default", "aten.mm.default"} & set(seen.ops), seen.ops  # matmul's kernels
    assert any("softmax" in name for name in seen.ops), seen.ops


def test_a_tiered_call_with_torch_tensors_matches_pytorch() -> None:
    f = frontend.script(attention, compile="background")
    q, k, v = (torch.randn(2, 4, 8) for _ in range(3))
    out = f(q, k, v)  # the eager tier, or compiled code a warm process has on record
    assert isinstance(out, torch.Tensor)
    torch.testing.assert_close(out, attention(q, k, v), rtol=1e-5, atol=1e-5)
    assert f.wait_compiled(timeout=120)
    torch.testing.assert_close(f(q, k, v), attention(q, k, v), rtol=1e-5, atol=1e-5)


def test_an_op_without_aten_runs_its_reference() -> None:
    assert aten_interpreter.aten_overload("torch.prim.NumToTensor.Scalar", 1) == (None, None)
    assert aten_interpreter.aten_overload("torch.aten.no_such_op", 1) == (None, None)
    assert aten_interpreter.aten_overload("torch.aten.add.Tensor", 7) == (None, None)


def test_index_errors_are_the_compiled_codes() -> None:
    def pick(x, i: torch.Tensor):
        return torch.index_select(x, 0, i)

    f = frontend.script(pick, compile="background")
    x = torch.randn(3, 2)
    with pytest.raises(IndexError):
        f(x, torch.tensor([0, 5]))
    np.testing.assert_array_equal(f(x, torch.tensor([2, 0])).numpy(), x.numpy()[[2, 0]])
