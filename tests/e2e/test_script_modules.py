"""Scripting `torch.nn.Module`s: parameters, submodules, containers, methods, export/ignore.

Each module runs compiled and is compared with PyTorch's eager result.
"""

from __future__ import annotations

from typing import Optional

import numpy as np
import pytest

import frontend

torch = pytest.importorskip("torch")
nn = torch.nn


def assert_close(actual, expected, tol: float = 1e-5) -> None:
    actual_t = actual if isinstance(actual, tuple) else (actual,)
    expected_t = expected if isinstance(expected, tuple) else (expected,)
    assert len(actual_t) == len(expected_t)
    for a, e in zip(actual_t, expected_t):
        np.testing.assert_allclose(np.asarray(a), e.detach().numpy(), rtol=tol, atol=tol)


# ---- the tutorial's modules ----


class MyDecisionGate(nn.Module):
    def forward(self, x):
        if x.sum() > 0:
            return x
        else:
            return -x


class MyCell(nn.Module):
    def __init__(self, dg=None):
        super().__init__()
        self.dg = dg if dg is not None else MyDecisionGate()
        self.linear = nn.Linear(4, 4)

    def forward(self, x, h):
        new_h = torch.tanh(self.dg(self.linear(x)) + h)
        return new_h, new_h


def test_my_cell_keeps_the_gate_branch_and_matches_torch() -> None:
    torch.manual_seed(0)
    cell = MyCell()
    scripted = frontend.script(cell)
    assert "torch.prim.If" in scripted.graph
    assert "func.call @MyDecisionGate.forward" in scripted.graph
    assert "%self.linear.weight: !torch.vtensor<[4,4],f32>" in scripted.graph
    for sign in (1.0, -1.0):
        x, h = sign * torch.rand(3, 4), torch.rand(3, 4)
        out = scripted(x, h)
        assert isinstance(out, tuple) and isinstance(out[0], torch.Tensor)
        assert_close(out, cell(x, h), 1e-6)
    assert "func.call" not in scripted.ir("torch-opt")  # inlined


def test_print_shows_the_hierarchy_and_each_submodule_has_a_graph() -> None:
    scripted = frontend.script(MyCell())
    assert repr(scripted) == (
        "RecursiveScriptModule(original_name=MyCell\n"
        "  (dg): RecursiveScriptModule(original_name=MyDecisionGate)\n"
        "  (linear): RecursiveScriptModule(original_name=Linear))"
    )
    assert "torch.prim.If" in scripted.dg.graph
    assert "torch.aten.linear" in scripted.linear.graph
    assert scripted.linear.weight is scripted.original.linear.weight  # reads through


def test_new_weights_are_used_without_rescripting() -> None:
    cell = MyCell()
    scripted = frontend.script(cell)
    x, h = torch.rand(2, 4), torch.rand(2, 4)
    scripted(x, h)
    with torch.no_grad():
        cell.linear.weight.mul_(2.0)
    assert_close(scripted(x, h), cell(x, h), 1e-6)


# ---- containers, attributes, methods ----


class Stack(nn.Module):
    def __init__(self, width: int, depth: int):
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(width, width) for _ in range(depth)])
        self.head = nn.Sequential(nn.Linear(width, 3), nn.ReLU(), nn.Linear(3, 2))
        self.scale = 0.5
        self.residual = True

    def forward(self, x):
        for layer in self.layers:
            y = torch.relu(layer(x))
            if self.residual:
                x = x + self.scale * y
            else:
                x = y
        first = self.layers[0](x) * 0.0
        return self.head(x + first) + len(self.layers)


def test_modulelist_and_sequential_are_unrolled() -> None:
    torch.manual_seed(1)
    model = Stack(5, 3)
    scripted = frontend.script(model)
    assert "torch.prim.Loop" not in scripted.graph
    assert "%self.layers.2.weight" in scripted.graph
    x = torch.randn(4, 5)
    assert_close(scripted(x), model(x))


class WithMethods(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(3, 3, bias=False)
        self.register_buffer("offset", torch.arange(3, dtype=torch.float32))

    def shift(self, x, times: int):
        for _ in range(times):
            x = x + self.offset
        return x

    def forward(self, x):
        return self.shift(self.proj(x), 2)

    @frontend.export
    def twice(self, x):
        return self.forward(x) * 2.0

    @frontend.ignore
    def debug(self, x):
        print("not compiled", x)
        return x


def test_methods_buffers_export_and_ignore() -> None:
    torch.manual_seed(2)
    model = WithMethods()
    scripted = frontend.script(model)
    assert set(scripted.methods) == {"forward", "twice"}
    assert "%self.offset" in scripted.graph
    x = torch.randn(2, 3)
    assert_close(scripted(x), model(x))
    assert_close(scripted.twice(x), model.twice(x))
    assert scripted.debug(x) is x  # ignored: the original Python method


SEEN: list[tuple[str, float]] = []


@frontend.ignore
def log_max(x, tag: str) -> None:
    SEEN.append((tag, float(x.abs().max())))


@frontend.ignore
def sort_rows(x) -> torch.Tensor:  # numpy code the compiler cannot see
    return torch.from_numpy(np.sort(x.detach().numpy(), axis=-1))


class CallsIgnored(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x):
        y = torch.relu(self.fc(x))
        self.report(y)
        return sort_rows(y) * 2.0 + x, y

    @frontend.ignore
    def report(self, y) -> None:
        log_max(y, "relu")


def test_ignored_calls_run_in_python_between_compiled_segments() -> None:
    model = CallsIgnored()
    scripted = frontend.script(model)
    assert scripted.graph.count("torch.prim.PythonCall") == 2
    x = torch.randn(3, 4)
    SEEN.clear()
    out = scripted(x)
    assert [tag for tag, _ in SEEN] == ["relu"]
    with torch.no_grad():
        assert_close(out, model(x))


class IgnoredInBranch(nn.Module):
    def forward(self, x):
        if x.sum() > 0:
            log_max(x, "positive")
        return x * 2.0


def test_an_ignored_call_inside_a_branch_is_refused() -> None:
    with pytest.raises(frontend.ScriptError, match="inside `if` or a loop"):
        frontend.script(IgnoredInBranch())


class OptionalState(nn.Module):
    def __init__(self):
        super().__init__()
        self.cell = nn.Linear(4, 4)

    def forward(self, x, h: Optional[torch.Tensor] = None):  # noqa: UP045 (tested spelling)
        if h is None:
            h = x * 0.0
        return torch.tanh(self.cell(x) + h)


def test_optional_argument_specializes_on_none() -> None:
    model = OptionalState()
    scripted = frontend.script(model)
    x, h = torch.randn(2, 4), torch.randn(2, 4)
    assert_close(scripted(x), model(x))
    assert_close(scripted(x, h), model(x, h))
    assert_close(scripted(x, h=h), model(x, h=h))


def test_batch_norm_in_training_mode_is_refused_with_a_hint() -> None:
    bn = nn.BatchNorm2d(3)
    with pytest.raises(frontend.ScriptError, match="training mode") as info:
        frontend.script(bn)
    assert ".eval()" in str(info.value)


class UsesGlobalModule(nn.Module):
    def forward(self, x):
        return GLOBAL_LINEAR(x)


GLOBAL_LINEAR = nn.Linear(2, 2)


def test_a_module_outside_self_is_a_located_error() -> None:
    with pytest.raises(frontend.ScriptError, match="submodule") as info:
        frontend.script(UsesGlobalModule())
    assert info.value.line == UsesGlobalModule.forward.__code__.co_firstlineno + 1


def test_scripting_a_class_asks_for_an_instance() -> None:
    with pytest.raises(frontend.ScriptError, match="instance"):
        frontend.script(MyCell)


# ---- mixing: traced submodules inside a scripted module (the seed's MyModule) ----


class MixedLinear(nn.Module):
    def __init__(self):
        super().__init__()
        self.first = frontend.trace(nn.Linear(6, 5), torch.rand(2, 6))
        self.second = frontend.trace(nn.Linear(5, 3), torch.rand(2, 5))

    def forward(self, x):
        if x.sum() > 0:
            x = torch.relu(self.first(x))
        else:
            x = torch.tanh(self.first(x))
        return self.second(x)


def test_traced_submodules_are_called_through_their_graphs() -> None:
    torch.manual_seed(3)
    model = MixedLinear()
    scripted = frontend.script(model)
    assert "torch.vtensor.literal" in scripted.graph  # the traced weights
    assert "torch.prim.If" in scripted.graph  # the scripted control flow
    for sign in (1.0, -1.0):
        x = sign * torch.rand(4, 6)  # another batch size than traced
        eager = model.second.original(
            (torch.relu if sign > 0 else torch.tanh)(model.first.original(x))
        )
        assert_close(scripted(x), eager)


class SeedMyModule(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = frontend.trace(nn.Conv2d(1, 20, 5), torch.rand(1, 1, 16, 16))
        self.conv2 = frontend.trace(nn.Conv2d(20, 20, 5), torch.rand(1, 20, 16, 16))

    def forward(self, input):
        input = torch.nn.functional.relu(self.conv1(input))
        input = torch.nn.functional.relu(self.conv2(input))
        return input


def test_seed_my_module_traced_convs_in_a_scripted_module() -> None:
    from dialects.torch.registry import BY_PY_NAME

    if "F.conv2d" not in BY_PY_NAME:
        pytest.skip("conv2d is not registered yet")
    torch.manual_seed(4)
    model = SeedMyModule()
    scripted = frontend.script(model)
    x = torch.rand(2, 1, 16, 16)
    relu = torch.nn.functional.relu
    expected = relu(model.conv2.original(relu(model.conv1.original(x))))
    assert_close(scripted(x), expected, 1e-4)


# ---- recurrent cells: a 2-layer LSTM over 20 steps ----


class TwoLayerLstm(nn.Module):
    def __init__(self):
        super().__init__()
        self.cell1 = nn.LSTMCell(3, 5)
        self.cell2 = nn.LSTMCell(5, 5)

    def forward(self, xs):
        h1, c1 = self.cell1(xs[0])
        h2, c2 = self.cell2(h1)
        for t in range(1, xs.shape[0]):
            h1, c1 = self.cell1(xs[t], (h1, c1))
            h2, c2 = self.cell2(h1, (h2, c2))
        return h2, c2


def test_two_layer_lstm_over_twenty_steps() -> None:
    torch.manual_seed(5)
    model = TwoLayerLstm()
    scripted = frontend.script(model)
    xs = torch.randn(20, 2, 3)
    with torch.no_grad():
        assert_close(scripted(xs), model(xs), 1e-5)
