"""`frontend.trace`: the seed's failing trace, MyCell from PyTorch and from frontend.torch,
numpy programs, warnings and errors with the user's line, check_trace, trace_module."""

from __future__ import annotations

import inspect
import re
import warnings
from typing import Any

import numpy as np
import pytest

import frontend
from frontend import torch as ft

# ---- the seed's failing trace ----


def seed_test(x):
    if x > 2.0:  # the line the warning names
        r = 1.0 - x
    else:
        r = 2.0 - x
    return r


BRANCH_LINE = inspect.getsourcelines(seed_test)[1] + 1


def _real_torch() -> Any:
    return pytest.importorskip("torch")


@pytest.mark.parametrize("flavour", ["frontend.torch", "torch"])
def test_seed_trace_warns_at_the_users_line(flavour: str) -> None:
    ones = ft.ones(1) if flavour == "frontend.torch" else _real_torch().ones(1)
    with pytest.warns(frontend.TracerWarning, match="Converting a tensor to a Python boolean") as w:
        traced = frontend.trace(seed_test, (ones,), check_trace=False)
    assert [(r.filename, r.lineno) for r in w] == [(__file__, BRANCH_LINE)]
    graph = traced.graph
    assert "torch.aten.rsub.Scalar %x, %float" in graph
    assert "torch.constant.float 2.000000e+00" in graph  # the else branch, baked in
    assert "1.000000e+00" not in graph and "torch.aten.gt" not in graph


def test_seed_trace_raises_with_strict() -> None:
    with pytest.raises(frontend.TraceError, match=rf"test_trace.py:{BRANCH_LINE} \(in seed_test\)"):
        frontend.trace(seed_test, (ft.ones(1),), strict=True)


def test_seed_trace_bakes_the_branch_and_script_keeps_both() -> None:
    with pytest.warns(frontend.TracerWarning):
        traced = frontend.trace(seed_test, (ft.ones(1),))  # check_trace passes on ones(1)
    five = np.full(1, 5.0, np.float32)
    np.testing.assert_array_equal(traced(five), [-3.0])  # 2 - 5: the recorded branch
    np.testing.assert_array_equal(seed_test(ft.tensor(five)).numpy(), [-4.0])  # eager: 1 - 5
    scripted = frontend.script(seed_test)
    assert "torch.prim.If" in scripted.graph
    np.testing.assert_array_equal(scripted(five), [-4.0])


def test_check_inputs_find_the_first_diverging_op() -> None:
    message = (
        r"Graphs differed across invocations: the first trace ran "
        r"`torch\.aten\.rsub\.Scalar\(%x, 2\.0, 1\)` \(at .*test_trace\.py:\d+ \(in seed_test\)\), "
        r"the check inputs ran `torch\.aten\.rsub\.Scalar\(%x, 1\.0, 1\)`"
    )
    with (
        pytest.warns(frontend.TracerWarning),
        pytest.raises(frontend.TracingCheckError, match=message),
    ):
        frontend.trace(seed_test, (ft.ones(1),), check_inputs=[(ft.full((1,), 5.0),)])


# ---- MyCell: real PyTorch and frontend.torch give the same IR ----


def _ft_cell() -> Any:
    class MyCell(ft.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.linear = ft.nn.Linear(4, 4)

        def forward(self, x: Any, h: Any) -> Any:
            new_h = ft.tanh(self.linear(x) + h)
            return new_h, new_h

    return MyCell()


def _torch_cell() -> Any:
    torch = _real_torch()

    class MyCell(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.linear = torch.nn.Linear(4, 4)

        def forward(self, x: Any, h: Any) -> Any:
            new_h = torch.tanh(self.linear(x) + h)
            return new_h, new_h

    return MyCell()


def _without_names(graph: str) -> str:
    return re.sub(r"%[\w.$-]+", "%_", graph)


def test_mycell_from_pytorch_and_frontend_torch_trace_to_the_same_ir() -> None:
    torch = _real_torch()
    theirs, ours = _torch_cell(), _ft_cell()
    ours.load_state_dict(theirs.state_dict())
    x, h = torch.rand(3, 4), torch.rand(3, 4)
    traced_theirs = frontend.trace(theirs, (x, h))
    traced_ours = frontend.trace(ours, (ft.tensor(x.numpy()), ft.tensor(h.numpy())))
    assert _without_names(traced_theirs.graph) == _without_names(traced_ours.graph)
    assert "%self.linear.weight = torch.vtensor.literal(" in traced_theirs.graph
    assert "torch.aten.linear %x, %self.linear.weight, %self.linear.bias" in traced_theirs.graph
    with torch.no_grad():
        expected = theirs(x, h)
    actual = traced_theirs(x, h)  # torch tensors in, torch tensors out
    assert isinstance(actual[0], torch.Tensor)
    for a, e in zip(actual, expected, strict=True):
        np.testing.assert_allclose(a.numpy(), e.numpy(), rtol=1e-6, atol=1e-6)
    batch = torch.rand(7, 4), torch.rand(7, 4)  # another batch size runs the same trace
    with torch.no_grad():
        np.testing.assert_allclose(traced_ours(*batch)[0].numpy(), theirs(*batch)[0].numpy(),
                                   rtol=1e-6, atol=1e-6)  # fmt: skip


# ---- numpy programs ----

SCALE = np.array([1.0, -2.0, 0.5], np.float32)


def numpy_program(x: Any, w: Any) -> Any:
    y = np.tanh(x @ w) * SCALE  # a global array: a literal in the trace
    return y + np.sum(x, axis=1, keepdims=True), 2 - y


def test_numpy_functions_trace_through_array_protocols() -> None:
    rng = np.random.default_rng(0)
    x, w = rng.standard_normal((2, 4), np.float32), rng.standard_normal((4, 3), np.float32)
    traced = frontend.trace(numpy_program, (x, w))
    graph = traced.graph
    for op in ("torch.aten.matmul %x, %w", "torch.aten.tanh", "torch.vtensor.literal(dense<[1.0",
               "torch.aten.sum.dim_IntList %x", "torch.aten.rsub.Scalar"):  # fmt: skip
        assert op in graph, op
    x2 = rng.standard_normal((5, 4), np.float32)
    for actual, expected in zip(traced(x2, w), numpy_program(x2, w), strict=True):
        np.testing.assert_allclose(actual, expected, rtol=1e-5, atol=1e-6)


# ---- values leaving the graph ----

LEAVING = [
    (lambda x: x * float(x.sum()), "Converting a tensor to a Python float"),
    (lambda x: x * x.sum().item(), "Converting a tensor to a Python number"),
    (lambda x: x[: int(x[0])], "Converting a tensor to a Python integer"),
    (lambda x: x * len(x), "Using len to get tensor shape"),
    (lambda x: sum(row for row in x), "Iterating over a tensor"),
    (lambda x: x * np.asarray(x).max(), "Converting a tensor to a NumPy array"),
    (lambda x: x + x.tolist()[0], "Converting a tensor to a Python list"),
]


@pytest.mark.parametrize(("fn", "message"), LEAVING)
@pytest.mark.parametrize("flavour", ["frontend.torch", "torch"])
def test_values_leaving_the_graph_warn_and_strict_raises(
    fn: Any, message: str, flavour: str
) -> None:
    values = np.array([2.0, 3.0, 4.0], np.float32)
    example = ft.tensor(values) if flavour == "frontend.torch" else _real_torch().tensor(values)
    if flavour == "torch" and "NumPy" in message:
        example = example.numpy()  # np.asarray of a torch tensor goes around __torch_function__
    with pytest.warns(frontend.TracerWarning, match=message) as w:
        frontend.trace(fn, (example,), check_trace=False)
    assert w[0].filename == __file__
    with pytest.raises(frontend.TraceError, match=message):
        frontend.trace(fn, (example,), check_trace=False, strict=True)


def test_shape_queries_do_not_warn() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        traced = frontend.trace(lambda x: x.view(x.shape[0] * x.size(1)), (ft.ones(2, 3),))
    assert "torch.aten.view" in traced.graph


# ---- what cannot be traced ----


def test_untraceable_calls_raise_clear_errors() -> None:
    torch = _real_torch()
    with pytest.raises(frontend.TraceError, match=r"cannot trace .*lgamma.*no op for it"):
        frontend.trace(lambda x: torch.lgamma(x), (torch.ones(3),), check_trace=False)
    with pytest.raises(frontend.TraceError, match=r"input of type float \(argument 'y'\)"):
        frontend.trace(lambda x, y: x * y, (ft.ones(2), 2.0))
    with pytest.raises(frontend.TraceError, match=r"the output of the traced function is a float"):
        frontend.trace(lambda x: 1.0, (ft.ones(2),))

    def assign(x: Any) -> Any:
        x[0] = 1.0
        return x

    with pytest.raises(frontend.TraceError, match=r"test_trace.py:\d+ \(in assign\): an indexed"):
        frontend.trace(assign, (ft.ones(2),))


# ---- in-place ops, indexing, constants, several methods ----


def _program(x: Any) -> Any:
    y = x.clone()
    y += 1.0  # in place: recorded functionally
    y.mul_(2.0)
    first = y[0]
    z = y[:, 1:3] * first[1:3]
    return z.sum(1), x  # an input returned as it is


@pytest.mark.parametrize("flavour", ["frontend.torch", "torch"])
def test_inplace_ops_and_indexing_record_functionally(flavour: str) -> None:
    values = np.arange(12, dtype=np.float32).reshape(3, 4)
    example = ft.tensor(values) if flavour == "frontend.torch" else _real_torch().tensor(values)
    traced = frontend.trace(_program, (example,))
    graph = traced.graph
    assert "torch.aten.select.int" in graph and "torch.aten.slice.Tensor" in graph
    assert graph.count("torch.aten.add.Scalar") == 1 and graph.count("torch.aten.mul.Scalar") == 1
    other = np.random.default_rng(1).standard_normal((3, 4)).astype(np.float32)
    expected = _program(ft.tensor(other))
    actual = traced(other)
    np.testing.assert_allclose(actual[0], expected[0].numpy(), rtol=1e-5)
    np.testing.assert_array_equal(actual[1], other)


def test_trace_module_traces_several_methods() -> None:
    class Encoder(ft.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.proj = ft.nn.Linear(3, 2)

        def forward(self, x: Any) -> Any:
            return ft.relu(self.proj(x))

        def encode(self, x: Any, y: Any) -> Any:
            return self.proj(x) - self.proj(y)

    module = Encoder()
    x, y = ft.rand(4, 3), ft.rand(4, 3)
    traced = frontend.trace_module(module, {"forward": (x,), "encode": (x, y)})
    assert isinstance(traced, frontend.TracedModule) and set(traced.methods) == {
        "forward",
        "encode",
    }
    assert "func.func @Encoder.forward" in traced.graph
    assert "func.func @Encoder.encode" in traced.encode.graph
    assert traced.encode.graph.count("%self.proj.weight = torch.vtensor.literal") == 1
    np.testing.assert_allclose(traced(x.numpy()), module(x).numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(traced.encode(x.numpy(), y.numpy()), module.encode(x, y).numpy(),
                               rtol=1e-5, atol=1e-6)  # fmt: skip
    with pytest.raises(AttributeError, match="no traced method 'decode'"):
        _ = traced.decode


def test_real_torch_layers_trace_through_their_functional_calls() -> None:
    torch = _real_torch()
    nn = torch.nn
    torch.manual_seed(0)
    net = nn.Sequential(
        nn.Linear(4, 8), nn.ReLU(inplace=True), nn.Dropout(0.5), nn.Linear(8, 3), nn.Softmax(dim=1)
    ).eval()
    traced = frontend.trace(net, torch.rand(2, 4))
    graph = traced.graph
    assert "%self.0.weight" in graph and "%self.3.bias" in graph
    assert "torch.aten.relu" in graph and "dropout" not in graph  # eval: identity
    x = torch.rand(6, 4)
    with torch.no_grad():
        expected = net(x.clone())
    np.testing.assert_allclose(traced(x).numpy(), expected.numpy(), rtol=1e-5, atol=1e-6)
