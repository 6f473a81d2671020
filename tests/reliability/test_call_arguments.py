"""Bad and unusual arguments at call time: a clear error naming the argument, or the right
result (non-contiguous, negative-stride and read-only arrays, zero-size dims, NaN and inf).

Every check runs twice where it matters: once on a fresh function (the full call path) and
once after a good call with the same shapes has primed the per-call fast path.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest
import torch

import frontend

RNG = np.random.default_rng(0)
X = RNG.uniform(-2, 2, (3, 4)).astype(np.float32)
B = RNG.uniform(-2, 2, 4).astype(np.float32)


def affine(x, b):
    return torch.tanh(x) * 2 + b


def scaled(x, n: int, s: float):
    return x * n + s


def reductions(x):
    return x.sum(0), x.mean(1), x.amax(1), x @ x.t()


AFFINE = frontend.script(affine)
SCALED = frontend.script(scaled)


def expected(fn: Any, *args: Any) -> Any:
    tensors = [torch.from_numpy(np.array(a)) if isinstance(a, np.ndarray) else a for a in args]
    result = fn(*tensors)
    return tuple(r.numpy() for r in result) if isinstance(result, tuple) else result.numpy()


def assert_same(actual: Any, wanted: Any) -> None:
    pairs = zip(actual, wanted) if isinstance(wanted, tuple) else [(actual, wanted)]
    for a, w in pairs:
        a = np.asarray(a)
        assert (a.dtype, a.shape) == (w.dtype, w.shape)
        np.testing.assert_allclose(a, w, rtol=1e-5, atol=1e-6, equal_nan=True)


# ---- wrong arguments: TypeError naming the argument ----


def quantized(x: torch.Tensor) -> torch.Tensor:
    """x as qint8 (torch warns that quantized tensors are deprecated)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return torch.quantize_per_tensor(x, 0.1, 0, torch.qint8)


WRONG_TENSORS = [
    ("str", "a", r"argument 'x' must be a tensor .* not str"),
    ("list", [1.0, 2.0], r"argument 'x' must be a tensor .* not list"),
    ("None", None, r"argument 'x' must be a tensor .* not NoneType"),
    ("numpy scalar", np.float32(2.0), r"argument 'x' must be a tensor .* not float32"),
    ("complex64", X.astype(np.complex64), r"argument 'x' has dtype complex64, which tsjit"),
    ("uint32", X.astype(np.uint32), r"argument 'x' has dtype uint32, which tsjit"),
    ("uint16", X.astype(np.uint16),
     r"argument 'x' has dtype uint16, which tsjit"),
    ("big-endian", X.astype(">f4"), r"argument 'x' has dtype >f4, which tsjit"),
    ("torch qint8", quantized(torch.ones(3, 4)),
     r"argument 'x' has dtype qint8, which tsjit"),
    ("torch float8", torch.ones(3, 4).to(torch.float8_e4m3fn),
     r"argument 'x' has dtype float8_e4m3fn, which tsjit"),
    ("torch complex128", torch.ones(3, 4, dtype=torch.complex128),
     r"argument 'x' has dtype complex128, which tsjit"),
    ("torch meta tensor", torch.empty(3, 4, device="meta"),
     r"argument 'x' is a torch tensor on meta \(can't convert"),
]  # fmt: skip


@pytest.mark.parametrize("primed", [False, True], ids=["fresh", "primed"])
@pytest.mark.parametrize(("value", "message"), [w[1:] for w in WRONG_TENSORS],
                         ids=[w[0] for w in WRONG_TENSORS])  # fmt: skip
def test_wrong_tensor_argument(value: Any, message: str, primed: bool) -> None:
    fn = frontend.script(affine) if not primed else AFFINE
    if primed:
        fn(X, B)
    with pytest.raises(TypeError, match=rf"^affine\(\): {message}"):
        fn(value, B)


WRONG_SCALARS = [
    ("float for int", (2.5, 1.0), r"argument 'n' must be int, not float"),
    ("bool for int", (True, 1.0), r"argument 'n' must be int, not bool"),
    ("array for int", (X, 1.0), r"argument 'n' must be int, not ndarray"),
    ("str for float", (2, "1"), r"argument 's' must be float, not str"),
    ("int beyond int64", (2**70, 1.0), r"argument 'n' does not fit in int64"),
    ("int below int64", (-(2**63) - 1, 1.0), r"argument 'n' does not fit in int64"),
]


@pytest.mark.parametrize("primed", [False, True], ids=["fresh", "primed"])
@pytest.mark.parametrize(("values", "message"), [w[1:] for w in WRONG_SCALARS],
                         ids=[w[0] for w in WRONG_SCALARS])  # fmt: skip
def test_wrong_scalar_argument(values: tuple[Any, Any], message: str, primed: bool) -> None:
    fn = frontend.script(scaled) if not primed else SCALED
    if primed:
        fn(X, 2, 1.0)
    with pytest.raises(TypeError, match=rf"^scaled\(\): {message}"):
        fn(X, *values)


def with_defaults(x, b, k: int = 2, s: float = 0.5):
    return x * k + b * s


class Forward(torch.nn.Module):
    def forward(self, x, b, k: int = 2):
        return x * k + b


WITH_DEFAULTS = frontend.script(with_defaults)
FORWARD = Forward()
SCRIPTED_FORWARD = frontend.script(FORWARD)

CALL_MISTAKES = [
    ("missing one", (X,), {}),
    ("missing all", (), {}),
    ("missing by keyword", (), {"x": X}),
    ("too many positional", (X, B, B, B, B), {}),
    ("unexpected keyword", (X, B), {"z": B}),
    ("duplicated", (X, B), {"x": X}),
    ("duplicated and unexpected", (X,), {"x": X, "q": 1}),
]
"""Calls Python refuses: the scripted function must refuse them with Python's own message."""

CALLABLES = [
    ("function", affine, AFFINE),
    ("defaults", with_defaults, WITH_DEFAULTS),
    ("forward", FORWARD, SCRIPTED_FORWARD),
]


def python_message(fn: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> str:
    """The TypeError the plain Python function (or module) gives for this call."""
    tensors = tuple(torch.from_numpy(a) if isinstance(a, np.ndarray) else a for a in args)
    try:
        fn(*tensors, **kwargs)
    except TypeError as err:
        return str(err)
    raise AssertionError("Python accepted the call")


@pytest.mark.parametrize(("fn", "scripted"), [c[1:] for c in CALLABLES],
                         ids=[c[0] for c in CALLABLES])  # fmt: skip
@pytest.mark.parametrize(("args", "kwargs"), [m[1:] for m in CALL_MISTAKES],
                         ids=[m[0] for m in CALL_MISTAKES])  # fmt: skip
def test_call_mistakes_read_as_python(fn: Any, scripted: Any, args: Any, kwargs: Any) -> None:
    wanted = python_message(fn, args, kwargs)
    with pytest.raises(TypeError) as caught:
        scripted(*args, **kwargs)
    assert str(caught.value) == wanted


def test_the_message_names_the_python_function_not_the_ir_symbol() -> None:
    with pytest.raises(TypeError, match=r"^affine\(\) missing 1 required positional argument"):
        AFFINE(X)
    with pytest.raises(TypeError, match=r"^Forward\.forward\(\) missing 1 required"):
        SCRIPTED_FORWARD(X)


def paired(x, pair):
    return x + pair[0] * pair[1]


def test_a_traced_function_with_a_python_signature_reads_as_python() -> None:
    t = torch.from_numpy(B)
    traced = frontend.trace(paired, (t, (t, t)))
    np.testing.assert_allclose(traced(t, (t, t)).numpy(), paired(t, (t, t)).numpy(), rtol=1e-6)
    with pytest.raises(TypeError) as caught:
        traced(t)
    assert str(caught.value) == python_message(paired, (B,), {})


CALLS_PYTHON_TAKES = [
    ("positional", (X, B), {}),
    ("keywords", (), {"b": B, "x": X}),
    ("one default given", (X, B, 3), {}),
    ("a default by keyword", (X, B), {"s": 2.0}),
]


@pytest.mark.parametrize(("args", "kwargs"), [c[1:] for c in CALLS_PYTHON_TAKES],
                         ids=[c[0] for c in CALLS_PYTHON_TAKES])  # fmt: skip
def test_calls_python_takes_bind_as_python(args: Any, kwargs: Any) -> None:
    assert_same(WITH_DEFAULTS(*args, **kwargs), expected(with_defaults, *_bound(args, kwargs)))


def _bound(args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, ...]:
    import inspect

    bound = inspect.signature(with_defaults).bind(*args, **kwargs)
    bound.apply_defaults()
    return tuple(bound.arguments.values())


def test_rank_and_dtype_of_a_traced_function_are_checked() -> None:
    traced = frontend.trace(lambda x: x * 2, (torch.ones(2, 3),))
    with pytest.raises(TypeError, match=r"argument 'x' must have rank 2, got shape \[3\]"):
        traced(np.ones(3, np.float32))
    with pytest.raises(TypeError, match=r"argument %x .* declared .*f32.*f64"):
        traced(np.ones((2, 3), np.float64))


def test_shapes_that_do_not_broadcast_name_the_shapes() -> None:
    with pytest.raises(ValueError, match=r"shapes f32\[3,4\],f32\[5\] do not fit"):
        AFFINE(X, np.ones(5, np.float32))


# ---- unusual layouts: the right result ----

LAYOUTS = [
    ("transposed", lambda: np.ascontiguousarray(X.T).T),
    ("strided", lambda: np.repeat(X, 2, axis=1)[:, ::2]),
    ("negative strides", lambda: X[::-1, ::-1].copy()[::-1, ::-1]),
    ("fortran order", lambda: np.asfortranarray(X)),
    ("read-only", lambda: _read_only(X)),
    ("torch transposed", lambda: torch.from_numpy(np.ascontiguousarray(X.T)).T),
    ("torch requires_grad", lambda: torch.from_numpy(X.copy()).requires_grad_()),
]


def _read_only(array: np.ndarray) -> np.ndarray:
    copy = array.copy()
    copy.flags.writeable = False
    return copy


@pytest.mark.parametrize("primed", [False, True], ids=["fresh", "primed"])
@pytest.mark.parametrize("make", [m for _, m in LAYOUTS], ids=[n for n, _ in LAYOUTS])
def test_unusual_layouts_give_the_right_result(make: Any, primed: bool) -> None:
    fn = frontend.script(affine) if not primed else AFFINE
    if primed:
        fn(X.copy(), B)
    value = make()
    before = as_numpy(value).copy()
    assert_same(as_numpy(fn(value, B)), expected(affine, X, B))
    np.testing.assert_array_equal(as_numpy(value), before)  # the argument is unchanged


def as_numpy(value: Any) -> np.ndarray:
    return value.detach().numpy() if isinstance(value, torch.Tensor) else np.asarray(value)


def test_negative_strides_reach_the_kernel_in_order() -> None:
    flipped = X[::-1]
    assert_same(AFFINE(flipped, B[::-1]), expected(affine, flipped.copy(), B[::-1].copy()))


# ---- zero-size dims, NaN and inf: like PyTorch ----

REDUCTIONS = frontend.script(reductions)


@pytest.mark.parametrize("shape", [(0, 4), (3, 0), (0, 0)])
def test_zero_size_dims(shape: tuple[int, int]) -> None:
    x = np.ones(shape, np.float32)
    assert_same(
        AFFINE(x, np.ones(shape[1], np.float32)), expected(affine, x, np.ones(shape[1], np.float32))
    )
    if shape[1] == 0:  # amax over an empty dim: PyTorch refuses, so does tsjit
        with pytest.raises(ValueError, match=r"reductions\(\): arguments of shapes .* do not fit"):
            REDUCTIONS(x)
        with pytest.raises(IndexError):
            reductions(torch.from_numpy(x))
        return
    assert_same(REDUCTIONS(x), expected(reductions, x))


def special_values(x):
    return (
        torch.tanh(x), torch.exp(x), torch.sigmoid(x), torch.relu(x), x.sum(0), x.max(),
        x.amax(1), x.argmax(1), x.min(0)[0], torch.softmax(x, 1), x > 0,
        torch.where(x > 0, x, -x), x.clamp(-1, 1), torch.maximum(x, x * 0), x.mean(),
        torch.sqrt(x), x.prod(1), x @ x, torch.log(x),
    )  # fmt: skip


def test_nan_and_inf_follow_pytorch() -> None:
    x = np.array([[np.nan, 1.0, -np.inf], [np.inf, -2.0, 0.5], [0.0, -0.0, 3.0]], np.float32)
    assert_same(frontend.script(special_values)(x), expected(special_values, x))
