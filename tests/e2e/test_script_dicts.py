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


def passes_a_tuple_in_a_dict(x):  # type: ignore[no-untyped-def]
    return takes_a_dict({"a": (x, x)})


def takes_a_dict(d):  # type: ignore[no-untyped-def]
    return d["a"]


@pytest.mark.parametrize(
    ("fn", "message"),
    [
        (missing_key, "KeyError: 'b' is not in the dict"),
        (store_under_a_condition, "assignment into a dict inside a branch"),
        (passes_a_tuple_in_a_dict, "the dict's value for 'a' is a tuple"),
    ],
)
def test_dict_errors_are_located(fn, message):  # type: ignore[no-untyped-def]
    with pytest.raises(frontend.ScriptError, match=message):
        frontend.script(fn)


def outputs(x):  # type: ignore[no-untyped-def]
    hidden = torch.tanh(x)
    return {"logits": hidden.sum(-1), "hidden": hidden, "pair": (x, x + 1)}


def uses_returned_dict(x):  # type: ignore[no-untyped-def]
    out = outputs(x)
    return out["logits"] * 2, {"first": out["pair"][0], "n": out["hidden"].mean()}


def check_same(got, expected):  # type: ignore[no-untyped-def]
    if isinstance(expected, dict):
        assert type(got) is dict and list(got) == list(expected)
        for key in expected:
            check_same(got[key], expected[key])
    elif isinstance(expected, tuple):
        assert isinstance(got, tuple) and len(got) == len(expected)
        for g, e in zip(got, expected):
            check_same(g, e)
    else:
        torch.testing.assert_close(got, expected)


def test_returned_dicts_keep_their_keys_and_nesting():
    x = torch.randn(2, 3)
    check_same(frontend.script(outputs)(x), outputs(x))
    check_same(frontend.script(uses_returned_dict)(x), uses_returned_dict(x))


class DictHead(torch.nn.Module):
    def __init__(self):  # type: ignore[no-untyped-def]
        super().__init__()
        self.linear = torch.nn.Linear(3, 2)

    def forward(self, x):  # type: ignore[no-untyped-def]
        y = self.linear(x)
        return {"scores": y, "best": y.argmax(-1)}


def test_module_returning_a_dict_saves_and_loads(tmp_path):  # type: ignore[no-untyped-def]
    model = DictHead().eval()
    x = torch.randn(4, 3)
    scripted = frontend.script(model)
    check_same(scripted(x), model(x))
    frontend.save(scripted, tmp_path / "head")
    check_same(frontend.load(tmp_path / "head")(x), model(x))


def combine(d, scale: float):  # type: ignore[no-untyped-def]
    total = torch.zeros_like(d["x"])
    for key, value in d.items():
        total = total + value * (2.0 if key == "y" else 1.0)
    d["total"] = total * scale
    return d


def passes_dicts(x, y):  # type: ignore[no-untyped-def]
    first = combine({"x": x, "y": y}, 0.5)
    second = combine({"x": x, "n": x.size(0) + y.sum()}, 2.0)
    return first["total"] + second["total"], second


def test_dicts_passed_to_called_functions():
    x, y = torch.randn(3), torch.randn(3)
    scripted = frontend.script(passes_dicts)
    check_same(scripted(x, y), passes_dicts(x, y))
    assert scripted.graph.count("func.func") >= 3  # combine specialized per key set
