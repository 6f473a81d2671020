"""Every registered op x each of its samples: compiled result == eager reference (== PyTorch)."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest
from op_harness import all_cases, assert_same, bound_arguments, run_compiled, sample_inputs

from dialects.torch.dtypes import dtype_of_code
from dialects.torch.registry import ATEN_OPS

CASES = all_cases(ATEN_OPS)
IDS = [f"{op.name.removeprefix('torch.')}-{i}" for op, i, _ in CASES]


@pytest.mark.parametrize(("op", "index", "sample"), CASES, ids=IDS)
def test_compiled_matches_eager(op: Any, index: int, sample: Any) -> None:
    if "run" in op.XFAIL_STAGES:
        pytest.xfail(op.XFAIL_STAGES["run"])
    args, kwargs = sample_inputs(sample)
    values = bound_arguments(op, args, kwargs)
    expected = op.run_eager(*values)
    unpack = len(expected) if isinstance(expected, list) else None
    assert_same(run_compiled(op, values, unpack), expected)


def torch_function(op: Any) -> Any:
    """The PyTorch callable of the op's first `torch.*` / `F.*` spelling, else of its first
    `Tensor.*` method spelling (called on the first argument)."""
    import torch
    import torch.nn.functional as F

    for spelling in op.PY_NAMES:
        prefix, _, name = spelling.partition(".")
        found = {"torch": torch, "F": F}.get(prefix)
        if found is None:
            continue
        for part in name.split("."):  # `torch.special.entr`, `torch.linalg.inv`
            found = getattr(found, part, None)
        if found is not None:
            return found
    for spelling in op.PY_NAMES:
        prefix, _, name = spelling.partition(".")
        if prefix == "Tensor" and hasattr(torch.Tensor, name):
            return lambda self, *args, **kwargs: getattr(self, name)(*args, **kwargs)
    return None


def to_torch(value: Any) -> Any:
    import torch

    if isinstance(value, np.ndarray):
        return torch.from_numpy(value)
    if isinstance(value, list) and any(isinstance(v, np.ndarray) for v in value):
        return [to_torch(v) for v in value]
    return value


def from_torch(value: Any) -> Any:
    import torch

    if isinstance(value, list | tuple):
        return tuple(from_torch(v) for v in value)
    if isinstance(value, torch.Tensor) and value.dtype == torch.bfloat16:
        return value.float().numpy()  # numpy has no bfloat16: the eager references' carrier
    return value.numpy() if isinstance(value, torch.Tensor) else value


@pytest.mark.parametrize(("op", "index", "sample"), CASES, ids=IDS)
def test_eager_matches_pytorch(op: Any, index: int, sample: Any) -> None:
    torch = pytest.importorskip("torch")
    fn = torch_function(op)
    if fn is None:
        pytest.skip(f"{op.name} has no torch.* or Tensor.* spelling")
    args, kwargs = sample_inputs(sample)
    values = bound_arguments(op, args, kwargs)
    if "dtype" in kwargs and kwargs["dtype"] is not None:  # the IR spells dtypes as codes
        kwargs = {**kwargs, "dtype": getattr(torch, dtype_of_code(kwargs["dtype"]).name)}
    if getattr(fn, "__module__", "") == "torch.functional" and args and isinstance(args[0], list):
        args = [*args[0], *args[1:]]  # `torch.block_diag(*tensors)`: a schema's Tensor[] spread
    with warnings.catch_warnings():  # PyTorch's own performance hints (conv2d padding="same")
        warnings.simplefilter("ignore", UserWarning)
        expected = from_torch(fn(*[to_torch(a) for a in args], **kwargs))
    actual = op.run_eager(*values)
    if getattr(op, "ARBITRARY_VALUES", False):  # torch.empty: only shape and dtype are defined
        assert (actual.shape, actual.dtype) == (expected.shape, expected.dtype)
        return
    assert_same(actual, expected)


def test_harness_imports_only_repo_packages() -> None:
    import frontend

    assert "site-packages" not in (frontend.__file__ or ""), frontend.__file__
