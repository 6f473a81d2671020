"""A loop's per-step product of an input's row by a weight runs once for all steps in front
of the loop (`linalg-hoist-row-contractions`, vector rows; batched rows stay in the loop by
default): same results as PyTorch, at any step count."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import frontend

torch = pytest.importorskip("torch")
F = torch.nn.functional


def rnn(x, h, w, u, b):
    for t in range(x.shape[0]):
        h = torch.tanh(x[t] @ w + h @ u + b)
    return h


def linear_rnn(x, h, w, u):
    for t in range(x.shape[0]):
        h = torch.tanh(F.linear(x[t], w) + F.linear(h, u))
    return h


def decaying_input(x, h, w):
    for t in range(x.shape[0]):
        h = h + x[t] @ w
        x = x * 0.5  # x changes in the loop: its rows are multiplied step by step
    return h


def arrays(*shapes: tuple[int, ...], seed: int = 0) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [(rng.standard_normal(s) * 0.3).astype(np.float32) for s in shapes]


def torch_result(program, *args: np.ndarray) -> np.ndarray:
    with torch.no_grad():
        return program(*(torch.from_numpy(a) for a in args)).numpy()


def assert_matches_torch(compiled, program, *args: np.ndarray) -> None:
    actual = np.asarray(compiled(*args))
    np.testing.assert_allclose(actual, torch_result(program, *args), rtol=1e-5, atol=1e-5)


def matmul_calls(compiled, *args: np.ndarray) -> tuple[int, int]:
    """The library matmul calls of the loops stage (any kernel variant): (in front of loops,
    inside an `scf.for`)."""
    from xdsl.dialects import func, scf
    from xdsl.parser import Parser

    from lowering.pipeline import make_context

    signature = ",".join(f"f32[{','.join('?' * a.ndim)}]" for a in args)
    module = Parser(make_context(), compiled.ir("loops", signature)).parse_module()
    counts = [0, 0]
    for op in module.walk():
        if isinstance(op, func.CallOp) and "matmul" in op.callee.root_reference.data:
            counts[any(isinstance(p, scf.ForOp) for p in parents(op))] += 1
    return counts[0], counts[1]


def parents(op):
    while (op := op.parent_op()) is not None:
        yield op


def test_batched_rnn_matches_torch_at_any_step_count() -> None:
    compiled = frontend.script(rnn)
    for steps in (5, 1, 0):
        x, h, w, u, b = arrays((steps, 6, 40), (6, 48), (40, 48), (48, 48), (48,), seed=steps)
        assert_matches_torch(compiled, rnn, x, h, w, u, b)
    # rows are not collapsed by default: both products in the loop, one matmul_pair call
    assert matmul_calls(compiled, x, h, w, u, b) == (0, 1)


def rnn_of_collapsed_rows(x, h, w, u, b):  # rnn under another name: its own cached program
    for t in range(x.shape[0]):
        h = torch.tanh(x[t] @ w + h @ u + b)
    return h


def test_collapsed_rows_hoisted_match_torch_at_any_step_count(monkeypatch) -> None:
    from lowering.linalg_opt.hoist_row_contractions import LinalgHoistRowContractionsPass as Hoist

    original = Hoist.apply

    def collapsing(self, ctx, op) -> None:
        original(dataclasses.replace(self, collapse_rows=True), ctx, op)

    monkeypatch.setattr(Hoist, "apply", collapsing)
    compiled = frontend.script(rnn_of_collapsed_rows)
    for steps in (5, 1, 0):
        x, h, w, u, b = arrays((steps, 6, 40), (6, 48), (40, 48), (48, 48), (48,), seed=steps)
        assert_matches_torch(compiled, rnn_of_collapsed_rows, x, h, w, u, b)
    assert matmul_calls(compiled, x, h, w, u, b) == (1, 1)  # x @ w in front, h @ u in the loop
    code = compiled.ir("python", "f32[?,?,?],f32[?,?],f32[?,?],f32[?,?],f32[?]")
    assert ".reshape((x.shape[0] * x.shape[1], x.shape[2]))" in code  # a view, no copy


def test_linear_of_each_step_matches_torch() -> None:
    compiled = frontend.script(linear_rnn)
    x, h, w, u = arrays((3, 5, 40), (5, 36), (36, 40), (36, 36))
    assert_matches_torch(compiled, linear_rnn, x, h, w, u)


def test_an_input_changed_in_the_loop_stays_per_step() -> None:
    compiled = frontend.script(decaying_input)
    x, h, w = arrays((4, 5, 40), (5, 36), (40, 36))
    assert_matches_torch(compiled, decaying_input, x, h, w)
    assert matmul_calls(compiled, x, h, w) == (0, 1)  # x[t] @ w stays in the loop


def test_vector_steps_become_one_matmul_and_match_torch() -> None:
    compiled = frontend.script(rnn)
    x, h, w, u, b = arrays((7, 40), (48,), (40, 48), (48, 48), (48,))
    assert_matches_torch(compiled, rnn, x, h, w, u, b)
    assert matmul_calls(compiled, x, h, w, u, b)[0] == 1  # x @ w in front of the loop
