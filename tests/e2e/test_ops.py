"""Every registered op x each of its samples: compiled result == eager reference (== PyTorch)."""

from __future__ import annotations

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
    assert_same(run_compiled(op, values), expected)


def torch_function(op: Any) -> Any:
    import torch
    import torch.nn.functional as F

    for spelling in op.PY_NAMES:
        prefix, _, name = spelling.partition(".")
        module = {"torch": torch, "F": F}.get(prefix)
        if module is not None and hasattr(module, name):
            return getattr(module, name)
    return None


@pytest.mark.parametrize(("op", "index", "sample"), CASES, ids=IDS)
def test_eager_matches_pytorch(op: Any, index: int, sample: Any) -> None:
    torch = pytest.importorskip("torch")
    fn = torch_function(op)
    if fn is None:
        pytest.skip(f"{op.name} has no torch.* spelling")
    args, kwargs = sample_inputs(sample)
    values = bound_arguments(op, args, kwargs)
    to_torch = [torch.from_numpy(a) if isinstance(a, np.ndarray) else a for a in args]
    if "dtype" in kwargs:  # the IR spells dtypes as ScalarType codes
        kwargs = {**kwargs, "dtype": getattr(torch, dtype_of_code(kwargs["dtype"]).name)}
    expected = fn(*to_torch, **kwargs)
    expected = tuple(expected) if isinstance(expected, tuple) else expected
    as_numpy = (
        tuple(t.numpy() for t in expected) if isinstance(expected, tuple) else expected.numpy()
    )
    assert_same(op.run_eager(*values), as_numpy)


def test_harness_imports_only_repo_packages() -> None:
    import frontend

    assert "site-packages" not in (frontend.__file__ or ""), frontend.__file__
