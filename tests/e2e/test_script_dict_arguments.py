"""`Dict[str, X]` arguments of the scripted function (`frontend/script/annotations.py`): one
compiled graph per key set, one function argument per value."""

from typing import Dict  # noqa: UP035 (TorchScript's spelling)

import pytest
import torch

import frontend


def weighted(batch: Dict[str, torch.Tensor], scale: float):  # noqa: UP006
    total = batch["x"] * scale
    for key, value in batch.items():
        if key != "x":
            total = total + value.sum()
    return total


def counts(sizes: Dict[str, int], x):  # noqa: UP006
    return x * (sizes["a"] + sizes.get("b", 10))


class Encoder(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = torch.nn.Linear(4, 3)

    def forward(self, features: Dict[str, torch.Tensor]):  # noqa: UP006
        hidden = self.linear(features["tokens"])
        if "mask" in features:
            hidden = hidden * features["mask"].unsqueeze(-1)
        return {"pooled": hidden.mean(1), "hidden": hidden}


X = torch.randn(2, 4)


def test_each_key_set_compiles_its_graph():
    fn = frontend.script(weighted)
    for batch in ({"x": X}, {"x": X, "y": X * 2}, {"y": X, "x": X, "z": X[:, :1]}):
        torch.testing.assert_close(fn(batch, 0.5), weighted(batch, 0.5))


def test_dict_of_ints():
    fn = frontend.script(counts)
    torch.testing.assert_close(fn({"a": 2}, X), counts({"a": 2}, X))
    torch.testing.assert_close(fn({"a": 2, "b": 3}, X), counts({"a": 2, "b": 3}, X))


def test_module_with_a_dict_of_features():
    model = Encoder().eval()
    scripted = frontend.script(model)
    tokens = torch.randn(2, 5, 4)
    mask = (torch.rand(2, 5) > 0.5).float()
    for features in ({"tokens": tokens}, {"tokens": tokens, "mask": mask}):
        got, expected = scripted(features), model(features)
        assert list(got) == list(expected)
        for key in expected:
            torch.testing.assert_close(got[key], expected[key])


def test_default_graph_shows_the_values_read_by_key():
    graph = frontend.script(weighted).graph
    assert "%batch.x" in graph


def test_a_dict_argument_must_be_a_dict():
    fn = frontend.script(weighted)
    with pytest.raises(TypeError, match=r"batch.*expected a dict, got Tensor"):
        fn(X, 1.0)


def test_unannotated_dict_argument_hints_at_the_annotation():
    def unannotated(batch):
        return batch["x"]

    with pytest.raises(frontend.ScriptError, match=r"Dict\[str, Tensor\]"):
        frontend.script(unannotated)


def test_a_dict_argument_is_not_saved(tmp_path):
    with pytest.raises(TypeError, match="keys of a Dict argument"):
        frontend.save(frontend.script(Encoder().eval()), tmp_path / "encoder")
