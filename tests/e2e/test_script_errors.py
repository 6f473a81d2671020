"""Unsupported constructs and type errors: a ScriptError at the right line and column.

Each program marks its offending line with a `# <-- col N` comment (N is 0-based, as in `ast`);
the test finds that line in this file and checks `err.line`, `err.col` and the message.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import frontend
from frontend import torch


def try_except(x):
    try:  # <-- col 4
        y = x + 1
    except ValueError:
        y = x
    return y


def uses_lambda(x):
    f = lambda v, k=1: v + k  # <-- col 8  # noqa: E731
    return f(x)


def nested_def(x):
    def inner(v):  # <-- col 4
        return v

    return inner(x)


def star_args(*xs):  # <-- col 15
    return xs[0]


def star_kwargs(x, **kw):  # <-- col 21
    return x


COUNTER = 0


def uses_global(x):
    global COUNTER  # <-- col 4
    return x


def comprehension(x):
    ys = [x * i for i in range(x.shape[0])]  # <-- col 25
    return ys[0]


def unknown_function(x):
    return hash(x)  # <-- col 11


def unknown_attribute(x):
    return x.foo  # <-- col 11


def unknown_torch_attribute(x):
    return torch.not_an_op(x)  # <-- col 11


def branch_type_mismatch(x, n: int):
    if n > 0:
        y = x
    else:
        y = 1
    return y  # <-- col 11


def defined_in_one_branch(x, n: int):
    if n > 0:
        z = x
    return z  # <-- col 11


def return_type_mismatch(x, n: int):
    if n > 0:
        return x
    return n  # <-- col 4


def return_count_mismatch(x, n: int):
    if n > 0:
        return x, x
    return x  # <-- col 4


def loop_type_change(x, n: int):
    acc = 0
    for i in range(n):
        acc = x * i  # <-- col 8
    return acc


def loop_local_after_loop(x, n: int):
    for i in range(n):
        y = x * i
    return y  # <-- col 11


def return_in_loop(x, n: int):
    for _ in range(n):
        return x  # <-- col 8
    return x


def iterate_int(x, n: int):
    for row in n:  # <-- col 15
        x = x + row
    return x


def for_else(x, n: int):
    for i in range(n):
        x = x + i
    else:  # <-- col 4
        x = x * 2
    return x


def while_else(x, n: int):
    while n > 0:
        n = n - 1
    else:  # <-- col 4
        x = x * 2
    return x


def missing_return(x, n: int):
    if n > 0:  # <-- col 4
        return x


def tensor_index_by_float(x):
    return x[1.5, 0]  # <-- col 13


def float_range(x):
    for i in range(2.5):  # <-- col 19
        x = x + i
    return x


def dynamic_shape_index(x, d: int):
    return x.shape[d]  # <-- col 11


def tensor_ternary_mismatch(x, n: int):
    return x if n > 0 else 1.5  # <-- col 27


def bare_reraise(x):
    if x.sum() > 0:
        raise  # <-- col 8
    return x


def raise_while_scripting(x, mode: str = "fast"):
    if mode != "fast":
        return x
    raise NotImplementedError(mode)  # <-- col 4


CASES: list[tuple[Callable[..., Any], str]] = [
    (try_except, "`Try` statements are not supported"),
    (uses_lambda, "a lambda with defaults"),
    (nested_def, "`FunctionDef` statements are not supported"),
    (star_args, "*args is not supported"),
    (star_kwargs, "**kwargs is not supported"),
    (uses_global, "`Global` statements are not supported"),
    (comprehension, "a list comprehension over range() needs numbers known while scripting"),
    (unknown_function, "unknown function `hash`"),
    (unknown_attribute, "unknown attribute `foo` of a Tensor"),
    (unknown_torch_attribute, "has no attribute `not_an_op`"),
    (branch_type_mismatch, "`y` is a Tensor in the true branch and an int in the false branch"),
    (defined_in_one_branch, "`z` is not defined on every path"),
    (return_type_mismatch, "the return value is an int here but a Tensor on another path"),
    (return_count_mismatch, "this path returns 1 values but another returns 2"),
    (loop_type_change, "`acc` is an int before the loop but a Tensor after an iteration"),
    (loop_local_after_loop, "`y` is only defined inside the loop"),
    (return_in_loop, "`return` inside a loop decided at run time is not supported"),
    (iterate_int, "cannot iterate over an int"),
    (for_else, "`for ... else` is not supported"),
    (while_else, "`while ... else` is not supported"),
    (missing_return, "does not end with a `return`"),
    (tensor_index_by_float, "can only be indexed by ints, slices and index tensors"),
    (float_range, "range() needs ints, got a float"),
    (dynamic_shape_index, "`shape` must be indexed with a constant int"),
    (tensor_ternary_mismatch, "the conditional expression is a float here but a Tensor"),
    (bare_reraise, "a bare `raise` (re-raise) is not supported"),
    (raise_while_scripting, "the program raises NotImplementedError(mode)"),
]


def marked_location(fn: Callable[..., Any]) -> tuple[int, int]:
    """(line, col) of the line in `fn` carrying a `# <-- col N` marker."""
    lines, first = inspect.getsourcelines(fn)
    for offset, text in enumerate(lines):
        if "# <-- col " in text:
            col = int(text.split("# <-- col ")[1].split()[0])
            return first + offset, col
    raise AssertionError(f"{fn.__name__} has no `# <-- col N` marker")


@pytest.mark.parametrize(("fn", "message"), CASES, ids=[f.__name__ for f, _ in CASES])
def test_script_error_location(fn: Callable[..., Any], message: str) -> None:
    with pytest.raises(frontend.ScriptError) as info:
        frontend.script(fn)
    err = info.value
    assert message in err.message
    assert (err.line, err.col) == marked_location(fn)
    assert "<--- HERE" in str(err)
    assert err.location is not None and err.location.filename == __file__


def test_mismatch_points_at_both_places() -> None:
    with pytest.raises(frontend.ScriptError) as info:
        frontend.script(branch_type_mismatch)
    line, _ = marked_location(branch_type_mismatch)
    assert f"line {line - 4}" in str(info.value)  # the `if` that made the two types


def test_valid_program_still_runs() -> None:
    """Errors are raised while scripting; a program without them runs (sanity check)."""

    assert np.isfinite(frontend.script(dead_mismatch)(np.ones(2, np.float32), 1)).all()


def dead_mismatch(x, n: int):
    # `y` has two types, but it is never read afterwards: fine, as in TorchScript.
    if n > 0:
        y = x
    else:
        y = 1  # noqa: F841
    return x + 1.0
