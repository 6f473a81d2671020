"""Scripting lambdas (`frontend/script/lambdas.py`): found in their file's `ast`, also where
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


def box_iou(a, b):
    area = lambda t: (t[:, 2] - t[:, 0]) * (t[:, 3] - t[:, 1])  # noqa: E731
    lt = torch.max(a[:, None, :2], b[None, :, :2])
    rb = torch.min(a[:, None, 2:], b[None, :, 2:])
    wh = (rb - lt).clamp(min=0)
    inter = wh[..., 0] * wh[..., 1]
    return inter / (area(a)[:, None] + area(b)[None, :] - inter)


def late_binding(x):
    scale = 2.0
    times = lambda t, k: t * scale + k  # noqa: E731
    first = times(x, 1)
    scale = 3.0  # read when called, as in Python
    return first, times(k=0, t=x)


def test_lambdas_inside_scripted_functions():
    boxes = torch.rand(5, 4)
    boxes[:, 2:] += boxes[:, :2]
    torch.testing.assert_close(frontend.script(box_iou)(boxes, boxes), box_iou(boxes, boxes))
    torch.testing.assert_close(frontend.script(late_binding)(X), late_binding(X))


def test_local_lambda_called_with_wrong_arguments():
    def wrong(x):
        double = lambda t: t * 2  # noqa: E731
        return double(x, x)

    with pytest.raises(frontend.ScriptError, match="the lambda takes 1 arguments"):
        frontend.script(wrong)


def centroids(x, assign, k: int):
    sums = torch.zeros(k, x.size(1)).index_add_(0, assign, x)
    counts = torch.zeros(k).index_add_(0, assign, torch.ones(x.size(0)))
    return sums / counts.clamp(min=1).unsqueeze(1), x.clone().mul_(2)


def test_in_place_methods_on_fresh_tensors():
    x, assign = torch.randn(10, 3), torch.randint(0, 4, (10,))
    got = frontend.script(centroids)(x, assign, 4)
    torch.testing.assert_close(got, centroids(x, assign, 4))


def test_in_place_method_on_a_view_expression_is_refused():
    def through_view(x):
        y = x.clone()
        y[0].add_(1)
        return y

    with pytest.raises(frontend.ScriptError, match="only a plain variable can be updated"):
        frontend.script(through_view)
