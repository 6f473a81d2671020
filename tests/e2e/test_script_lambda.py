"""Scripting lambdas (`frontend/script_lambda.py`): found in their file's `ast`, also where
the line is no statement of its own, and told apart from other lambdas on the same line."""

import pytest
import torch

import frontend

X = torch.randn(3, 4)

PROGRAMS = {
    "relu_then_scale": (lambda x: torch.relu(x) * 2.0 + 1.0, (X,)),
    "two_args": (lambda x, y: (x @ y.T).softmax(-1), (X, X)),
}
PAIR = (lambda x: x + 1, lambda x: x * 3)  # two lambdas on one line, same parameter names


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_lambda_in_a_dict_literal(name):
    fn, args = PROGRAMS[name]
    torch.testing.assert_close(frontend.script(fn)(*args), fn(*args))


def test_lambdas_on_one_line_are_told_apart_by_their_bodies():
    for fn in PAIR:
        torch.testing.assert_close(frontend.script(fn)(X), fn(X))


def test_lambda_errors_point_into_the_file():
    with pytest.raises(frontend.ScriptError) as info:
        frontend.script(lambda x: x.no_such_method())(X)
    assert "test_script_lambda.py" in str(info.value)
    assert "no_such_method" in str(info.value)
