"""`frontend.torch.nn` against `torch.nn`: the same layout, state_dict keys and printout; with
the weights copied by `load_state_dict`, the same outputs (1e-5); init distributions; modes."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest

from dialects.torch.registry import BY_PY_NAME
from frontend import torch as ft


@dataclass(frozen=True)
class Case:
    """One layer: how to build it (with `nn` being ours or torch's), inputs, needed spellings."""

    build: Callable[[Any], Any]
    inputs: tuple[tuple[tuple[int, ...], str], ...]
    needs: tuple[str, ...] = ()
    train: bool = False


def _floats(*shape: int) -> tuple[tuple[int, ...], str]:
    return (shape, "float32")


CASES = {
    "linear": Case(lambda nn: nn.Linear(4, 3), (_floats(2, 4),)),
    "linear-no-bias-3d": Case(lambda nn: nn.Linear(4, 5, bias=False), (_floats(2, 3, 4),)),
    "relu": Case(lambda nn: nn.ReLU(), (_floats(3, 4),)),
    "tanh": Case(lambda nn: nn.Tanh(), (_floats(3, 4),)),
    "sigmoid": Case(lambda nn: nn.Sigmoid(), (_floats(3, 4),)),
    "identity": Case(lambda nn: nn.Identity(), (_floats(3, 4),)),
    "gelu": Case(lambda nn: nn.GELU(), (_floats(3, 4),), ("F.gelu",)),
    "gelu-tanh": Case(lambda nn: nn.GELU(approximate="tanh"), (_floats(3, 4),), ("F.gelu",)),
    "softmax": Case(lambda nn: nn.Softmax(dim=1), (_floats(3, 4),), ("F.softmax",)),
    "sequential": Case(
        lambda nn: nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2), nn.Sigmoid()),
        (_floats(5, 4),),
    ),
    "dropout-eval": Case(lambda nn: nn.Dropout(0.3), (_floats(3, 4),)),
    "flatten": Case(lambda nn: nn.Flatten(), (_floats(2, 3, 4),), ("Tensor.flatten",)),
    "conv2d": Case(lambda nn: nn.Conv2d(2, 3, 3), (_floats(1, 2, 6, 6),), ("F.conv2d",)),
    "conv2d-stride-pad-groups": Case(
        lambda nn: nn.Conv2d(4, 6, (3, 2), stride=2, padding=1, groups=2, bias=False),
        (_floats(2, 4, 7, 5),),
        ("F.conv2d",),
    ),
    "batchnorm2d-eval": Case(
        lambda nn: nn.BatchNorm2d(3), (_floats(2, 3, 4, 4),), ("F.batch_norm",)
    ),
    "batchnorm2d-train": Case(
        lambda nn: nn.BatchNorm2d(3), (_floats(2, 3, 4, 4),), ("F.batch_norm",), train=True
    ),
    "layernorm": Case(lambda nn: nn.LayerNorm(4), (_floats(2, 3, 4),), ("F.layer_norm",)),
    "maxpool2d": Case(lambda nn: nn.MaxPool2d(2), (_floats(1, 2, 6, 6),), ("F.max_pool2d",)),
    "adaptive-avgpool2d": Case(
        lambda nn: nn.AdaptiveAvgPool2d((1, 1)), (_floats(2, 3, 5, 5),), ("F.adaptive_avg_pool2d",)
    ),
    "embedding": Case(lambda nn: nn.Embedding(10, 3), (((2, 4), "int64"),), ("F.embedding",)),
    "lstmcell": Case(lambda nn: nn.LSTMCell(4, 3), (_floats(2, 4),)),
    "lstmcell-unbatched": Case(lambda nn: nn.LSTMCell(4, 3), (_floats(4),), ("Tensor.unsqueeze",)),
    "lstm": Case(lambda nn: nn.LSTM(3, 4, num_layers=2), (_floats(5, 2, 3),), ("torch.stack",)),
    "lstm-batch-first": Case(
        lambda nn: nn.LSTM(3, 4, batch_first=True),
        (_floats(2, 5, 3),),
        ("torch.stack", "Tensor.transpose"),
    ),
}


def _inputs(case: Case, seed: int = 0) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    arrays = []
    for shape, dtype in case.inputs:
        if dtype == "int64":
            arrays.append(rng.integers(0, 10, size=shape).astype(np.int64))
        else:
            arrays.append(rng.standard_normal(shape).astype(np.float32))
    return arrays


def _available(spelling: str) -> bool:
    """Whether frontend.torch has the function or method (from the registry or a wrapper)."""
    prefix, _, name = spelling.partition(".")
    namespace = {"F": ft.nn.functional, "torch": ft, "Tensor": ft.Tensor}[prefix]
    return spelling in BY_PY_NAME or hasattr(namespace, name)


def _pair(name: str) -> tuple[Any, Any, Case]:
    real = pytest.importorskip("torch")
    case = CASES[name]
    missing = [s for s in case.needs if not _available(s)]
    if missing:
        pytest.skip(f"op spelling {missing[0]} is not registered yet")
    real.manual_seed(0)
    theirs = case.build(real.nn)
    ours = case.build(ft.nn)
    ours.load_state_dict(theirs.state_dict())
    ours.train(case.train)
    theirs.train(case.train)
    return ours, theirs, case


def _flat(value: Any) -> list[Any]:
    if isinstance(value, tuple | list):
        return [leaf for v in value for leaf in _flat(v)]
    return [value]


@pytest.mark.parametrize("name", list(CASES))
def test_layer_matches_pytorch(name: str) -> None:
    import torch

    ours, theirs, case = _pair(name)
    arrays = _inputs(case)
    with torch.no_grad():
        expected = theirs(*[torch.from_numpy(a) for a in arrays])
    actual = ours(*[ft.from_numpy(a) for a in arrays])
    for a, e in zip(_flat(actual), _flat(expected), strict=True):
        assert isinstance(a, ft.Tensor)
        assert a.dtype.name == str(e.dtype).removeprefix("torch.")
        np.testing.assert_allclose(a.numpy(), e.numpy(), rtol=1e-5, atol=1e-5)
    for key, value in theirs.state_dict().items():  # running statistics, in training mode
        np.testing.assert_allclose(ours.state_dict()[key].numpy(), value.numpy(), rtol=1e-5)


@pytest.mark.parametrize("name", list(CASES))
def test_layer_layout_and_printout_match_pytorch(name: str) -> None:
    real = pytest.importorskip("torch")
    case = CASES[name]
    theirs, ours = case.build(real.nn), case.build(ft.nn)
    assert repr(ours) == repr(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    for (n1, p1), (n2, p2) in zip(ours.named_parameters(), theirs.named_parameters(), strict=True):
        assert n1 == n2 and tuple(p1.shape) == tuple(p2.shape)
        assert p1.dtype.name == str(p2.dtype).removeprefix("torch.")
    assert [n for n, _ in ours.named_buffers()] == [n for n, _ in theirs.named_buffers()]


class Cell(ft.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.linear = ft.nn.Linear(4, 4)
        self.layers = ft.nn.ModuleList([ft.nn.Linear(4, 4) for _ in range(3)])
        self.register_buffer("scale", ft.ones(4))
        self.gain = ft.nn.Parameter(ft.ones(1))

    def forward(self, x: Any, h: Any) -> Any:
        for layer in self.layers:
            x = layer(x)
        return ft.tanh(self.linear(x) * self.scale * self.gain + h)


def test_module_registration_and_traversal() -> None:
    cell = Cell()
    assert list(cell._parameters) == ["gain"]
    assert list(cell._buffers) == ["scale"]
    assert list(cell._modules) == ["linear", "layers"]
    assert [n for n, _ in cell.named_modules()] == ["", "linear", "layers", "layers.0", "layers.1",
                                                   "layers.2"]  # fmt: skip
    assert [n for n, _ in cell.named_parameters()][:3] == ["gain", "linear.weight", "linear.bias"]
    assert len(list(cell.parameters())) == 9
    assert [n for n, _ in cell.named_children()] == ["linear", "layers"]
    assert list(cell.state_dict())[:2] == ["gain", "scale"]
    with pytest.raises(TypeError, match="cannot assign 'Tensor' object to parameter 'gain'"):
        cell.gain = ft.ones(1)
    cell.gain = None
    assert cell.gain is None and "gain" in cell._parameters
    with pytest.raises(AttributeError, match="'Cell' object has no attribute 'missing'"):
        _ = cell.missing
    assert cell.eval() is cell and not cell.layers[2].training
    assert cell.train().layers[0].training


def test_load_state_dict_takes_torch_numpy_and_our_tensors() -> None:
    torch = pytest.importorskip("torch")
    theirs = torch.nn.Linear(3, 2)
    ours = ft.nn.Linear(3, 2)
    ours.load_state_dict(theirs.state_dict())  # real torch tensors (requires_grad ones too)
    np.testing.assert_array_equal(ours.weight.numpy(), theirs.weight.detach().numpy())
    weight = ours.weight
    ours.load_state_dict({"weight": np.ones((2, 3), np.float32), "bias": ft.zeros(2)})
    assert ours.weight is weight  # copied in place
    np.testing.assert_array_equal(weight.numpy(), np.ones((2, 3)))
    result = ours.load_state_dict({"weight": np.zeros((2, 3))}, strict=False)
    assert result.missing_keys == ["bias"] and result.unexpected_keys == []
    with pytest.raises(RuntimeError, match=r'Missing key\(s\) in state_dict: "bias"'):
        ours.load_state_dict({"weight": np.zeros((2, 3))})
    with pytest.raises(RuntimeError, match=r"size mismatch for weight"):
        ours.load_state_dict({"weight": np.zeros((3, 3)), "bias": np.zeros(2)})


def test_parameter_init_follows_pytorch_bounds() -> None:
    ft.manual_seed(0)
    layer = ft.nn.Linear(50, 400)
    bound = 1 / np.sqrt(50)
    weights = layer.weight.numpy()
    assert np.abs(weights).max() <= bound
    assert np.abs(weights).max() > 0.95 * bound  # uniform over the whole range
    assert abs(float(weights.mean())) < 0.01
    conv = ft.nn.Conv2d(3, 8, 3)
    assert np.abs(conv.weight.numpy()).max() <= 1 / np.sqrt(3 * 9)
    embedding = ft.nn.Embedding(100, 50, padding_idx=0)
    assert abs(float(embedding.weight.numpy()[1:].std()) - 1.0) < 0.1
    assert not embedding.weight.numpy()[0].any()


def test_dropout_in_training_mode() -> None:
    ft.manual_seed(0)
    drop = ft.nn.Dropout(0.25)
    out = drop(ft.ones(10000)).numpy()
    kept = out != 0
    assert abs(kept.mean() - 0.75) < 0.02
    np.testing.assert_allclose(out[kept], 1 / 0.75)
    drop.eval()
    x = ft.ones(5)
    assert drop(x) is x


def test_containers_index_like_pytorch() -> None:
    seq = ft.nn.Sequential(ft.nn.Linear(2, 3), ft.nn.ReLU(), ft.nn.Tanh())
    assert len(seq) == 3 and isinstance(seq[-1], ft.nn.Tanh)
    assert [type(m).__name__ for m in seq[1:]] == ["ReLU", "Tanh"]
    assert list(seq[1:]._modules) == ["1", "2"]
    layers = ft.nn.ModuleList([ft.nn.ReLU()])
    layers.append(ft.nn.Tanh())
    layers.insert(0, ft.nn.Sigmoid())
    assert [type(m).__name__ for m in layers] == ["Sigmoid", "ReLU", "Tanh"]
    with pytest.raises(IndexError):
        _ = layers[3]


def test_user_module_matches_pytorch_after_loading_weights() -> None:
    torch = pytest.importorskip("torch")

    class TorchCell(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.linear = torch.nn.Linear(4, 4)
            self.layers = torch.nn.ModuleList([torch.nn.Linear(4, 4) for _ in range(3)])
            self.register_buffer("scale", torch.ones(4) * 0.5)
            self.gain = torch.nn.Parameter(torch.ones(1) * 2)

        def forward(self, x: Any, h: Any) -> Any:
            for layer in self.layers:
                x = layer(x)
            return torch.tanh(self.linear(x) * self.scale * self.gain + h)

    theirs, ours = TorchCell(), Cell()
    ours.load_state_dict(theirs.state_dict())
    x, h = np.random.default_rng(1).standard_normal((2, 3, 4)).astype(np.float32)
    with torch.no_grad():
        expected = theirs(torch.from_numpy(x), torch.from_numpy(h)).numpy()
    np.testing.assert_allclose(
        ours(ft.tensor(x), ft.tensor(h)).numpy(), expected, rtol=1e-5, atol=1e-6
    )
