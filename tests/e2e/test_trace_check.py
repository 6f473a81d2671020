"""`check_trace`: graphs compared op by op across traces, outputs compared with the Python
function, and the first op whose value differs from what PyTorch computed."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import frontend
from frontend import torch as ft
from frontend.trace.check import compare_outputs, first_divergence


def scale_by_max(x: Any) -> Any:
    return x * float(x.max())  # a Python float: baked into the trace


def test_baked_python_values_fail_the_check_on_other_inputs() -> None:
    with (
        pytest.warns(frontend.TracerWarning, match="Python float"),
        pytest.raises(
            frontend.TracingCheckError, match=r"mul\.Scalar\(%x, 2\.0\).*mul\.Scalar\(%x, 7\.0\)"
        ),
    ):
        frontend.trace(
            scale_by_max, (ft.tensor([1.0, 2.0]),), check_inputs=[(ft.tensor([7.0, 1.0]),)]
        )


def test_extra_ops_in_one_trace_are_reported() -> None:
    def grow(x: Any) -> Any:
        for _ in range(int(x.sum())):
            x = x + 1
        return x

    with (
        pytest.warns(frontend.TracerWarning),
        pytest.raises(frontend.TracingCheckError, match="more ops"),
    ):
        frontend.trace(grow, (ft.ones(1),), check_inputs=[(ft.ones(1) * 2,)])


def _torch_traced() -> tuple[Any, Any]:
    torch = pytest.importorskip("torch")
    x = torch.tensor([[0.5, -1.0], [2.0, 0.25]])
    traced = frontend.trace(lambda x: torch.tanh(x @ x) - x, (x,), check_trace=False)
    return traced, x


def test_first_divergence_names_the_op_that_differs_from_pytorch() -> None:
    traced, x = _torch_traced()
    recorder = traced.trace_recorder
    assert "matches PyTorch's values" in first_divergence(traced, (x,))
    tanh = next(op for op in traced.module.walk() if op.name == "torch.aten.tanh")
    recorder.observed[tanh.results[0]] = (
        recorder.observed[tanh.results[0]] + 1.0
    )  # as if torch differed
    message = first_divergence(traced, (x,))
    assert message.startswith(
        "The first op whose value differs from PyTorch's is `torch.aten.tanh("
    )
    assert "test_trace_check.py" in message and "largest absolute difference 1" in message


def test_output_mismatch_warns_and_strict_raises() -> None:
    traced, x = _torch_traced()
    good = np.tanh(x.numpy() @ x.numpy()) - x.numpy()
    compare_outputs(good, good, traced, (x,), strict=False)  # equal: silent
    with pytest.warns(
        frontend.TracerWarning, match=r"Output nr 1\. of the traced function .* does not match"
    ):
        compare_outputs(good + 1, good, traced, (x,), strict=False)
    with pytest.raises(frontend.TraceError, match="largest absolute difference 1"):
        compare_outputs(good + 1, good, traced, (x,), strict=True)
