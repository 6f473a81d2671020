"""`frontend.torch.Tensor` and the eager namespace against real PyTorch: values, dtypes, printing,
indexing, operators, conversions, numpy interop, constructors and error messages."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import numpy as np
import pytest

from dialects.torch.dtypes import FLOAT32, FLOAT64
from frontend import torch as ft

# Expressions evaluated with `torch` bound to frontend.torch and to real PyTorch: the results
# must print the same (torch's repr shows values, dtype and shape).
SAME_REPR = [
    "torch.tensor([1., 2.])",
    "torch.tensor(2.5)",
    "torch.tensor([1, 2])",
    "torch.tensor([[1.5, 2e-5], [3, 4]])",
    "torch.tensor([True, False])",
    "torch.tensor([1e10, 1.])",
    "torch.tensor([float('nan'), -1., float('inf')])",
    "torch.tensor([1., 2.], dtype=torch.float64)",
    "torch.tensor([1, 2], dtype=torch.int32)",
    "torch.arange(10).reshape(2, 5)",
    "torch.arange(0, 1, 0.25)",
    "torch.arange(2000.)",
    "torch.arange(24.).reshape(2, 3, 4)",
    "torch.zeros(0, 3)",
    "torch.tensor([], dtype=torch.int64)",
    "torch.full((2,), 3)",
    "torch.full((2, 2), 1.5)",
    "torch.arange(1000.) * 1000",
    "torch.Size([2, 3])",
    "torch.zeros(2, 3).shape",
    "torch.float64",
    "torch.arange(6.).reshape(2, 3).max(1)",
]


def both(expr: str) -> tuple[Any, Any]:
    real = pytest.importorskip("torch")
    return eval(expr, {"torch": ft, "np": np}), eval(expr, {"torch": real, "np": np})


@pytest.mark.parametrize("expr", SAME_REPR)
def test_repr_matches_pytorch(expr: str) -> None:
    ours, theirs = both(expr)
    assert repr(ours) == repr(theirs)


# Expressions whose values and dtypes must match PyTorch's.
SAME_VALUES = [
    "torch.arange(6).reshape(2, 3)[:, 1:]",
    "torch.arange(24).reshape(2, 3, 4)[..., 1]",
    "torch.arange(24).reshape(2, 3, 4)[1, ..., ::2]",
    "torch.arange(24).reshape(2, 3, 4)[-1, 1:3, -2]",
    "torch.arange(6).reshape(2, 3)[:, None, 1]",
    "torch.arange(24).reshape(2, 3, 4)[..., None]",
    "torch.arange(5)[None]",
    "2 - torch.arange(3)",
    "2.5 - torch.arange(3)",
    "2 / torch.arange(1, 4)",
    "2 * torch.arange(3)",
    "1.5 + torch.arange(3, dtype=torch.int32)",
    "torch.arange(1, 4) / 2",
    "torch.arange(3) * 1.5",
    "-torch.arange(3.)",
    "torch.arange(3) == 1",
    "1 < torch.arange(3)",
    "torch.arange(3.) != torch.tensor([0., 5., 2.])",
    "torch.arange(4.).reshape(2, 2) @ torch.arange(4.).reshape(2, 2)",
    "torch.arange(6.).reshape(2, 3).T",
    "torch.arange(6.).reshape(2, 3).sum(1)",
    "torch.arange(6.).reshape(2, 3).sum()",
    "torch.arange(6.).reshape(2, 3).max(1).values",
    "torch.arange(6.).reshape(2, 3).max(dim=1)[1]",
    "torch.tanh(torch.tensor([1, 2]))",
    "torch.tensor([1, 2]) + 0.5",
    "torch.tensor([1, 2], dtype=torch.int32) + torch.tensor(5)",
    "torch.tensor(np.float64(2.0))",
    "torch.tensor(np.arange(3))",
    "torch.arange(1, 10, 3)",
    "torch.arange(-1., 1., 0.3)",
    "torch.zeros(2, 3)",
    "torch.zeros((2, 3), dtype=torch.int64)",
    "torch.ones(2, 1, dtype=torch.float64)",
    "torch.empty(0)",
    "torch.ones_like(torch.zeros(2, dtype=torch.int32))",
    "torch.zeros_like(torch.zeros(2, 3), dtype=torch.float64)",
    "torch.full_like(torch.zeros(2, dtype=torch.int64), 7)",
    "torch.zeros(3).view(3, 1)",
    "torch.arange(6).view(2, 3).permute(1, 0)",
    "torch.arange(6).reshape((3, 2))",
    "torch.tensor([[1, 2], [3, 4]]).flatten()",
    "torch.tensor([True, False]) == torch.tensor([True, True])",
]


@pytest.mark.parametrize("expr", SAME_VALUES)
def test_values_match_pytorch(expr: str) -> None:
    ours, theirs = both(expr)
    assert isinstance(ours, ft.Tensor)
    assert ours.dtype.name == str(theirs.dtype).removeprefix("torch.")
    assert tuple(ours.shape) == tuple(theirs.shape)
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-6)


PYTHON_VALUES = [
    "torch.zeros(2, 3).size(1)",
    "torch.zeros(2, 3).size(-2)",
    "torch.zeros(2, 3).dim()",
    "torch.zeros(2, 3).ndim",
    "torch.zeros(2, 3).numel()",
    "torch.tensor([1., 2.]).tolist()",
    "torch.tensor([[1, 2]]).tolist()",
    "torch.tensor(2.5).item()",
    "float(torch.tensor(2.5))",
    "int(torch.tensor([7]))",
    "bool(torch.tensor(1.))",
    "len(torch.zeros(4, 2))",
    "[int(x) for x in torch.arange(3)]",
    "torch.zeros(2, 3).is_floating_point()",
    "torch.zeros(2).dtype.is_floating_point",
    "torch.int32.itemsize",
    "f'{torch.tensor(2.5):.2f}'",
    "list(range(5))[torch.tensor(3)]",
]


@pytest.mark.parametrize("expr", PYTHON_VALUES)
def test_python_values_match_pytorch(expr: str) -> None:
    ours, theirs = both(expr)
    assert ours == theirs
    assert type(ours) is type(theirs)


def test_functions_take_numpy_arrays_and_return_tensors() -> None:
    x = np.array([0.5, -1.0], np.float32)
    y = ft.tanh(x)
    assert isinstance(y, ft.Tensor)
    assert y.dtype == ft.float32 == FLOAT32
    np.testing.assert_allclose(np.asarray(y), np.tanh(x))
    np.testing.assert_allclose(y, np.tanh(x))  # numpy's testing reads Tensors too


def test_numpy_ufuncs_and_functions_run_registered_ops() -> None:
    x = ft.tensor([[1.0, -2.0], [3.0, 4.0]])
    assert isinstance(np.tanh(x), ft.Tensor)
    assert isinstance(np.ones(2, np.float32) + x, ft.Tensor)  # array on the left
    total = np.sum(x, axis=1)  # numpy keyword names are mapped to the schema's
    assert isinstance(total, ft.Tensor)
    np.testing.assert_allclose(total, [-1.0, 7.0])
    cumulative = np.cumsum(x)  # no registered op: plain numpy, like for torch tensors
    assert isinstance(cumulative, np.ndarray)
    np.testing.assert_allclose(cumulative, [1.0, -1.0, 2.0, 6.0])


def test_inplace_methods_and_operators_write_through() -> None:
    x = ft.zeros(3)
    alias = x
    x += 1
    x.mul_(3)
    x.add_(ft.tensor([1.0, 2.0, 3.0]), alpha=2)
    assert alias is x
    np.testing.assert_allclose(x, [5.0, 7.0, 9.0])
    x[0] = -1
    np.testing.assert_allclose(alias.numpy(), [-1.0, 7.0, 9.0])
    ints = ft.zeros(2, dtype=ft.int64)
    with pytest.raises(RuntimeError, match="result type Float can't be cast"):
        ints.add_(0.5)
    with pytest.raises(RuntimeError, match="doesn't match the broadcast shape"):
        ft.zeros(2).add_(ft.zeros(3, 2))


def test_clone_and_to_keep_dtype_semantics() -> None:
    x = ft.tensor([1.0, 2.0])
    y = x.clone()
    y[0] = 5
    assert x[0].item() == 1.0
    assert x.to(ft.float32) is x
    assert x.to("cpu") is x
    assert x.detach().numpy() is x.numpy()


def test_dtype_objects() -> None:
    assert ft.float == ft.float32 and ft.double == ft.float64 and ft.long == ft.int64
    assert ft.float64 == FLOAT64 and hash(ft.float64) == hash(FLOAT64)
    assert repr(ft.bool) == "torch.bool"
    total = ft.tensor([1, 2]).sum(dtype=ft.float64)  # dtype objects pass as ScalarType
    assert total.dtype == ft.float64 and total.item() == 3.0


def test_random_constructors_are_seeded() -> None:
    ft.manual_seed(3)
    a = ft.rand(2, 3)
    ft.manual_seed(3)
    b = ft.rand((2, 3))
    np.testing.assert_array_equal(a, b)
    assert a.dtype == ft.float32 and tuple(a.shape) == (2, 3)
    assert float(a.numpy().min()) >= 0.0 and float(a.numpy().max()) < 1.0
    ints = ft.randint(2, 5, (1000,))
    assert ints.dtype == ft.int64 and set(np.unique(ints.numpy())) == {2, 3, 4}
    normal = ft.randn(20000, generator=ft.Generator().manual_seed(0))
    assert abs(float(normal.numpy().mean())) < 0.05
    assert abs(float(normal.numpy().std()) - 1.0) < 0.05


ERRORS = [
    ("torch.ones(3) + torch.ones(4)", ValueError, r"cannot be broadcast"),
    ("torch.zeros(2, 3)[2]", IndexError, r"index 2 is out of bounds for dimension 0 with size 2"),
    ("torch.zeros(2, 3)[0, 0, 0]", IndexError, r"too many indices for tensor of dimension 2"),
    ("torch.zeros(2)[::-1]", ValueError, r"step must be greater than zero"),
    ("torch.zeros(2, 3).size(2)", IndexError, r"Dimension out of range"),
    ("bool(torch.zeros(2))", RuntimeError, r"more than one value is ambiguous"),
    ("torch.zeros(2).item()", RuntimeError, r"cannot be converted to Scalar"),
    ("len(torch.tensor(1.))", TypeError, r"len\(\) of a 0-d tensor"),
    ("torch.zeros(2, requires_grad=True)", NotImplementedError, r"no autograd"),
    ("torch.zeros(-1)", RuntimeError, r"negative dimension"),
    ("torch.tanh('x')", TypeError, r"no overload accepts \(str\)"),
    ("torch.zeros(2, 3).view(4, 2)", ValueError, r"shape|size"),
]


@pytest.mark.parametrize(("expr", "error", "message"), ERRORS)
def test_errors_are_clear(expr: str, error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=message):
        eval(expr, {"torch": ft})


def test_programs_run_without_pytorch() -> None:
    """frontend.torch never imports torch: a model runs with `import torch` made impossible."""
    program = (
        "import sys; sys.modules['torch'] = None\n"
        "from frontend import torch\n"
        "torch.manual_seed(0)\n"
        "model = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.ReLU())\n"
        "y = model(torch.rand(2, 4))\n"
        "print(tuple(y.shape), y.dtype, sys.modules['torch'])\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "(2, 3) torch.float32 None"


def test_cpu_is_the_only_device() -> None:
    x = ft.ones(2)
    assert x.device == ft.device("cpu") and str(x.device) == "cpu"
    assert x.to("cpu") is x and x.to(ft.device("cpu")) is x and x.cpu() is x
    assert not ft.cuda.is_available()
    with pytest.raises(RuntimeError, match="only has the cpu device"):
        x.to("cuda:0")
    with pytest.raises(RuntimeError, match="only has the cpu device"):
        ft.zeros(2, device="cuda")
