"""Dicts in scripted code: built, read, updated and looped over while scripting (their keys
known then), like TorchScript's `Dict[str, Tensor]`."""

from __future__ import annotations

from typing import Dict  # noqa: UP035 (TorchScript's spelling)

import numpy as np
import pytest
import torch

import frontend


def dict_of_tensors(x):  # type: ignore[no-untyped-def]
    d: Dict[str, torch.Tensor] = {"a": x, "b": x * 2}  # noqa: UP006
    d["c"] = x + 1
    s = torch.zeros_like(x)
    for _k, v in d.items():
        s = s + v
    for k in d:
        s = s + d[k]
    if "a" in d and "z" not in d:
        s = s * 2
    return s + d.get("b", x) + len(d) + d["a"] * d["c"]


def test_dict_matches_pytorch():
    x = torch.randn(3)
    np.testing.assert_allclose(
        np.asarray(frontend.script(dict_of_tensors)(x)), dict_of_tensors(x).numpy(), rtol=1e-6
    )


def missing_key(x):  # type: ignore[no-untyped-def]
    d = {"a": x}
    return d["b"]


def store_under_a_condition(x):  # type: ignore[no-untyped-def]
    d = {"a": x}
    if x.sum() > 0:
        d["a"] = x * 2
    return d["a"]


def returns_a_dict(x):  # type: ignore[no-untyped-def]
    return {"a": x}


@pytest.mark.parametrize(
    ("fn", "message"),
    [
        (missing_key, "KeyError: 'b' is not in the dict"),
        (store_under_a_condition, "assignment into a dict inside a branch"),
        (returns_a_dict, "cannot return a dict"),
    ],
)
def test_dict_errors_are_located(fn, message):  # type: ignore[no-untyped-def]
    with pytest.raises(frontend.ScriptError, match=message):
        frontend.script(fn)
