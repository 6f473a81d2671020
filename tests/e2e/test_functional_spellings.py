"""`F.embedding` and `F.batch_norm`, whose arguments come in another order than their ops'
(`torch.embedding`, `torch.batch_norm`): scripts run frontend.torch's Python for them."""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as F

import frontend
import frontend.torch.nn.functional as FF
from frontend.errors import ScriptError

IDS = np.array([[0, 2, 3], [1, 1, 0]], np.int64)
TABLE = np.random.default_rng(0).standard_normal((4, 3)).astype(np.float32)
X = np.random.default_rng(1).standard_normal((2, 3, 4, 5)).astype(np.float32)
MEAN = np.array([0.5, -1.0, 0.25], np.float32)
VAR = np.array([1.5, 0.5, 2.0], np.float32)


def embedding_twice(ids, table):
    return F.embedding(ids, table) * 2 + F.embedding(ids, table, padding_idx=1)


def frontend_embedding(ids, table):
    return FF.embedding(ids, weight=table)


def batch_norm_eval(x, mean, var, weight, bias):
    return F.relu(F.batch_norm(x, mean, var, weight, bias, False, 0.1, 1e-3))


def batch_norm_no_affine(x, mean, var):
    return F.batch_norm(x, mean, var)


def batch_norm_training(x, weight, bias):  # statistics of the batch: run as Python
    return F.batch_norm(x, None, None, weight, bias, training=True) + 1


def embedding_max_norm(ids, table):
    return F.embedding(ids, table, max_norm=1.0)


def torch_embedding(ids, table):
    return F.embedding(ids, table)


CASES = [  # (scripted, its PyTorch reference)
    (embedding_twice, embedding_twice, (IDS, TABLE)),
    (frontend_embedding, torch_embedding, (IDS, TABLE)),
    (batch_norm_eval, batch_norm_eval, (X, MEAN, VAR, VAR, MEAN)),
    (batch_norm_no_affine, batch_norm_no_affine, (X[:, :, 0], MEAN, VAR)),
    (batch_norm_training, batch_norm_training, (X, VAR, MEAN)),
]


@pytest.mark.parametrize(("fn", "reference", "args"), CASES, ids=[c[0].__name__ for c in CASES])
def test_scripted_matches_torch(fn, reference, args) -> None:
    with torch.no_grad():
        expected = reference(*[torch.from_numpy(a.copy()) for a in args]).numpy()
    np.testing.assert_allclose(frontend.script(fn)(*args), expected, rtol=1e-5, atol=1e-6)


def test_unsupported_argument_is_located_at_the_call() -> None:
    """The error names the user's call (`max_norm` renormalizes the table in place)."""
    with pytest.raises(ScriptError, match=r"F\.embedding: the program raises NotImpl") as info:
        frontend.script(embedding_max_norm)
    assert info.value.location is not None
    assert "test_functional_spellings.py" in info.value.location.render()
    assert "F.embedding(ids, table, max_norm=1.0)" in str(info.value)
