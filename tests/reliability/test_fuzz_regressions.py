"""Programs the fuzzer found wrong, shrunk, kept: compiled (and interpreted) == PyTorch eager.

Each program is the fuzzer's reproducer, by hand only renamed. Those still open are
`xfail(strict=True)`, with the reason: fixing the bug turns them into an XPASS failure, so
the marker is removed with the fix.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch
import torch.nn.functional as F  # noqa: N812

import frontend

F32 = np.array([[0.5, -1.25, 2.0], [1.5, 0.25, -0.75]], dtype=np.float32)
INT = np.array([[5, 5], [-4, -5], [4, 2], [3, 0]], dtype=np.int64)
BOOLS = np.array([True, False, True, True])


def dtype_keyword(x):  # torch.float64 was an unknown Python object in scripts
    return (
        x.to(dtype=torch.float64),
        x.sum(dtype=torch.float64),
        torch.zeros([2], dtype=torch.int32),
    )


def dtype_positional(x):
    return x.to(torch.float64)


def power_operator(x):  # `**`, `&`, `|`, `^`, `~` were "not supported" in scripts
    return x**2, 2**x, x ** (x * 0.5)


def bitwise_operators(b):
    return b & b.logical_not(), b | False, b ^ True, ~b


def builtin_abs(x):
    return abs(x)


def max_of_0d(x):  # 0-d tensor, dim=0: IndexError in the reduction shape rule
    values, indices = torch.max(x.sum(), 0, True)
    return values, indices


def mean_then_max_dim(x):
    v1 = x.mean(dtype=torch.float64)
    v4, _ = v1.max(0, True)
    return v4


def argmin_of_unknown_rank(x):  # argmin typed f32 before refinement: interpreter type error
    v1 = x.log_softmax(0, dtype=torch.float32)
    return v1, v1.argmin(1, True)


def sum_0d_over_dim(x):
    return x.sum().sum(0), x.sum().prod(-1), x.sum().argmax(0)


def float_of_string_constants(x):  # float("inf") was "float() of str is not supported"
    return x.clamp(float("-inf"), 1.0) + float("inf") * 0.0


def integer_power_negative_exponent(x):  # numpy's eager pow refused negative int exponents
    return torch.pow(2, x), torch.pow(-1, x), x ** (x * 0 - 2)


def zero_to_a_negative_integer_power(x):
    return x ** (x - 1)


def index_select_of_0d(x):  # ZeroDivisionError in the lowering; shape [1] instead of []
    v1 = x.bool()
    index = v1.bitwise_not().clamp_max(-1).relu()
    return torch.index_select(v1, -1, index), torch.index_select(x * 2, 0, index.view(1))


def subtract_first_column(x):  # x[:, 0:1] is `?` wide in general: was read as x's width
    return x - x[:, 0:1], x * x[..., -1:]


def squeeze_of_a_chunk(x):  # the chunk's `?` width is 1 here: squeeze() kept it
    _, b, c = torch.chunk(x.softmax(0), 3, 1)
    return torch.squeeze(c), b.squeeze(1)


def broadcast_slice_of_the_input(x):  # x[2:3] is 1 row: broadcast against x
    return x[2:3] + x, (x[1:2] * 2).expand_as(x)


def add_bools(x):  # True + True was 2 (numba's +) or False (i1 addi), torch says True
    v2 = x.add(x)
    return v2 + 2.5, (x + x).bitwise_and(True), torch.add(x, x.logical_not())


CASES: list[tuple[Any, tuple[Any, ...]]] = [
    (add_bools, (np.array([[True, False], [True, True]]),)),
    (subtract_first_column, (np.arange(12, dtype=np.float32).reshape(3, 4),)),
    (squeeze_of_a_chunk, (np.arange(10, dtype=np.float32).reshape(2, 5, 1) / 7,)),
    (broadcast_slice_of_the_input, (np.arange(12, dtype=np.float32).reshape(4, 3),)),
    (index_select_of_0d, (np.array(-2, dtype=np.int64),)),
    (float_of_string_constants, (F32,)),
    (integer_power_negative_exponent, (np.array([-3, -1, 1, 2], dtype=np.int64),)),
    (dtype_keyword, (F32,)),
    (dtype_positional, (F32,)),
    (power_operator, (np.abs(F32) + 0.5,)),
    (bitwise_operators, (BOOLS,)),
    (builtin_abs, (F32,)),
    (max_of_0d, (F32,)),
    (mean_then_max_dim, (np.array([5], dtype=np.int32),)),
    (argmin_of_unknown_rank, (INT,)),
    (sum_0d_over_dim, (F32,)),
]


def slice_by_argument_then_broadcast(x, n: int):
    y = x[:n]  # `?` at compile time, 1 at run time: compiled code assumes it equals x's size
    return y + x


def full_by_argument_then_broadcast(x, n: int):
    return torch.ones([n, 3]) * x


def floor_division_of_infinity(x):
    return x.div(2, rounding_mode="floor"), x // 2.0


def floor_division_by_infinity(x):
    return x // float("inf"), x // float("-inf"), torch.floor_divide(x, x.abs() - 4)


def softmax_of_empty(x):  # the interpreter's numpy max of an empty axis has no identity
    v1 = torch.arange(-1.5, -1.5)
    return v1.log_softmax(0, dtype=torch.float32), x[:0].softmax(0), x[:, :0].softmax(-1)


def chunk_by_the_length(x0):  # len(x0) chunks of dim 1: `?` wide unless len(x0) is folded
    _, _, v5 = x0.chunk(len(x0), 1)
    return torch.div(torch.sub(x0, x0, alpha=0.5), v5)


def squeeze_of_a_view(x0):  # the interpreter checked squeeze's [4] against the typed [4, ?]
    v3 = x0.view([4, -1])
    return v3.squeeze(), v3


def softmax_in_a_branch(x0, n: int):  # program 980 of seed 3, as the fuzzer shrunk it
    v1 = x0.div(x0, rounding_mode="floor")
    if n < 2:
        v3 = torch.ones_like(x0)
    else:
        v3 = F.softmax(x0, -2)
    v5 = torch.sum(v3, [-2], True)
    v7 = torch.var(x0, None, correction=0.5, keepdim=False)  # 2.5 in the reproducer: warns
    v8 = F.linear(x0, v1, v7)
    return v5.div(3), v8, v1


def squeeze_of_a_slice(x0):  # a fold drops this squeeze in the exact refinement: compare both
    return torch.squeeze(x0[:1:2, -1:5, -4:], 1)


def subtract_itself_twice(x1):  # program 4669 of seed 3
    for _ in range(2):
        x1 = x1 - x1
    return x1


def sum_of_self_differences(x):  # the reduction form of program 4669: a sum's fold may be
    d = (x - x) - (x - x)  # reordered, but not with the terms it adds up
    return d.sum(-1), (x - x).prod(-1), (d * 2).sum(), d.sum(0)


INF_ROWS = np.tile(np.array([[1.0, -2.0, 3.5, np.inf, 0.5]], np.float32), (3, 8))
INF_ROWS[1, 7] = np.nan
INF_ROWS[2] = 1.0


def rank_from_a_branch(x0):  # program 8362 of seed 4: the rank depends on len(v2)
    _first, v2 = x0.split(3)
    if len(v2) > 1:
        v7 = torch.flatten(v2, -3, 2)
    else:
        v7 = torch.squeeze(v2)
    return torch.ge(v7, 3)


def floor_of_self_division(x0):  # program 9795 of seed 4: arcp made x / x 0.99999994
    v2 = torch.std(x0, [-1], correction=-1, keepdim=True)
    return torch.div(v2, v2, rounding_mode="floor"), torch.div(x0, x0, rounding_mode="floor")


def reshape_in_a_loop(x0, n: int):  # program 2896 of seed 3: scf.for inits [1, 1], carried [?, ?]
    for _ in range(n):
        x0 = x0.reshape([n, -1])
    return torch.stack([x0, x0, x0], -1)


def integer_arange_of_float_bounds(x):  # programs 3049 and 7747 of seed 3
    return (
        torch.arange(0, 2.5, 1, dtype=torch.int64),
        torch.arange(0.5, 0, -3, dtype=torch.int64),
        torch.arange(-1.5, 2, 1, dtype=torch.int32) + x.sum().int(),  # int32: 4 long
        torch.arange(-1.5, 2, 1, dtype=torch.int64),  # int64: 3 long
    )


def square_root_of_a_negative_0d(x0, x1):  # program 7266 of seed 3
    return x0**0.5, x1.var([0, 1, 2], True, True)


def product_of_a_slice(x0):
    return x0[2:4:1].prod(), torch.prod(x0[-1], 0)


def log_softmax_of_size_one_slice(x0):
    v2 = x0[:1, -3]
    return v2.log_softmax(-2, dtype=torch.float32)


CASES += [  # fixed: the python target's ipowi (numba's `**` gave INT64_MIN for 0 ** -1)
    (zero_to_a_negative_integer_power, (np.array([-3, -1, 0, 1, 2], dtype=np.int64),)),
    (zero_to_a_negative_integer_power, (np.array([-3, -1, 0, 1, 2], dtype=np.int32),)),
]
CASES += [  # fixed: float floor division of +-inf is nan, -1 // inf is -1 (torch's fmod-based)
    (
        floor_division_of_infinity,
        (np.array([-np.inf, np.inf, 3.0, -1.0, 0.0, np.nan], np.float32),),
    ),
    (floor_division_by_infinity, (np.array([-1.0, 1.0, 0.0, np.inf, -2.5], np.float32),)),
]
CASES += [  # fixed: the shape guard folds len(x0) of the exact shapes; the interpreter's check
    (chunk_by_the_length, (np.arange(1, 10, dtype=np.float64).reshape(3, 3, 1, 1),)),
    (squeeze_of_a_view, (np.arange(4, dtype=np.float32),)),
]
CASES += [  # fixed: loop inits cast to the carried types; a rule of a loop n == 0 never runs
    (reshape_in_a_loop, (np.array([[-3]], np.int64), 0)),
    (reshape_in_a_loop, (np.array([[-3]], np.int64), 1)),
    (reshape_in_a_loop, (np.ones((2, 2), np.int64), 0)),
]
CASES += [(integer_arange_of_float_bounds, (F32,))]  # fixed: bounds truncated first, like torch
CASES += [(squeeze_of_a_slice, (np.arange(8, dtype=np.float32).reshape(1, 2, 4),))]
CASES += [(softmax_of_empty, (F32,))]
CASES += [  # fixed by d0b062c: b86cdff's plain Python host called numba's `bitcast` (f32 exp)
    (softmax_in_a_branch, (np.array([[0.0119, 1.824]], np.float32), 2)),
]  # fixed: softmax's eager reference on size 0
CASES += [  # fixed: linalg-bufferize no longer walks a stale xDSL worklist entry
    (log_softmax_of_size_one_slice, (np.ones((1, 3, 1), np.float32),)),
    (product_of_a_slice, (np.arange(1, 6, dtype=np.float32),)),
]

CASES += [  # fixed: `int` arguments that feed shapes are checked per value (shape_guard.py)
    (slice_by_argument_then_broadcast, (np.arange(4, dtype=np.float32), 1)),
    (full_by_argument_then_broadcast, (np.ones((4, 3), np.float32), 1)),
]

CASES += [  # fixed: a plain Python host holds only calls, buffers and index arithmetic
    (  # (d0b062c's ran 0-d scalar code: math.sqrt(-1.83) raised 'math domain error')
        square_root_of_a_negative_0d,
        (np.array(-1.83, np.float32), np.arange(2, dtype=np.float32).reshape(2, 1, 1)),
    ),
]

CASES += [  # fixed: no `arcp` (x / y was x * (1 / y))
    (
        floor_of_self_division,
        (
            np.array(
                [[[[-1.361411213874817, -1.7910414934158325, -1.0123518705368042]]]], np.float32
            ),
        ),
    ),
    (floor_of_self_division, (np.linspace(0.1, 9.9, 4096, dtype=np.float32).reshape(64, 64),)),
]
CASES += [  # fixed: a rank left open by the general types compiles for the exact shapes
    (rank_from_a_branch, (np.array([[[2, 2]], [[1, -4]], [[2, -5]], [[-2, 2]]], np.int64),)),
    (rank_from_a_branch, (np.arange(12, dtype=np.int64).reshape(6, 1, 2),)),
    (rank_from_a_branch, (np.arange(8, dtype=np.int64).reshape(4, 2, 1),)),
]


def instance_norm_of_float64_statistics(x0, x1, x2):  # seed 9 program 540: unlocated error
    return torch.instance_norm(x0, None, None, x1, x2, False, 0.1, 0, False)


CASES += [  # fixed: running statistics of another dtype are used in the input's, as torch does
    (
        instance_norm_of_float64_statistics,
        (
            np.array([[[-0.67], [-0.35], [0.61], [0.66]]], np.float32),
            np.array([-1.5, -1.3, 0.97, -1.7], np.float64),
            np.array([0.75, 1.88, 0.77, 1.44], np.float64),
        ),
    ),
]


def movedim_of_a_dot(x2, x3):  # seed 9 program 127: movedim of a 0-d tensor crashed
    return torch.dot(x2, x3).movedim(0, -1)


CASES += [  # fixed: a 0-d tensor's dims are 0 and -1, moving them is the identity (as torch)
    (
        movedim_of_a_dot,
        (np.array([-0.5, -0.5, 1.5], np.float32), np.array([-0.75, -1.5, 1.5], np.float32)),
    ),
]
CASES += [  # fixed: no function-wide `reassoc` (only reductions' folds: scf-vectorize-reductions)
    (subtract_itself_twice, (np.array([[-np.inf, 1.0, np.nan]], np.float32),)),
    (sum_of_self_differences, (INF_ROWS,)),
]


def eager(fn: Any, args: tuple[Any, ...]) -> tuple[Any, ...]:
    tensors = [torch.from_numpy(a.copy()) if isinstance(a, np.ndarray) else a for a in args]
    result = fn(*tensors)
    results = result if isinstance(result, tuple) else (result,)
    return tuple(np.asarray(r) for r in results)


def assert_matches(actual: Any, expected: tuple[Any, ...]) -> None:
    actual = actual if isinstance(actual, tuple) else (actual,)
    assert len(actual) == len(expected)
    for a, e in zip(actual, expected):
        a = np.asarray(a)
        assert (a.dtype, a.shape) == (e.dtype, e.shape)
        np.testing.assert_allclose(a, e, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize(("fn", "args"), CASES, ids=[fn.__name__ for fn, _ in CASES])
@pytest.mark.parametrize("backend", ["compiled", "interpreter"])
def test_fixed(fn: Any, args: tuple[Any, ...], backend: str) -> None:
    assert_matches(frontend.script(fn, backend=backend)(*args), eager(fn, args))


def test_exact_shapes_are_compiled_only_where_needed() -> None:
    """The general code serves every shape it is right for; shapes that make a `?` dim 1 where
    it is broadcast get their own exact-shape code (frontend/run/shape_guard.py)."""
    fn = frontend.script(subtract_first_column)
    for rows, cols in [(3, 4), (5, 4), (2, 7)]:
        x = np.arange(rows * cols, dtype=np.float32).reshape(rows, cols)
        assert_matches(fn(x), eager(subtract_first_column, (x,)))
    general = [s for s in fn._compiled if all(d == -1 for t in s for d in t.sizes)]
    assert len(general) == 1
    assert len(fn._compiled) == 4  # the general code and one exact version per shape set

    plain = frontend.script(builtin_abs)
    for rows in (3, 5, 9):
        plain(np.ones((rows, 4), np.float32))
    assert len(plain._compiled) == 1  # nothing to guard: one compile for all batch sizes


def test_int_arguments_that_feed_shapes_are_checked_per_value() -> None:
    """`x[:n] + x` broadcasts for n == 1 only, and does not fit for other n below len(x):
    each value gets the right code or a clear error, whatever came before (no fast path)."""
    fn = frontend.script(slice_by_argument_then_broadcast)
    x = np.arange(4, dtype=np.float32)
    for n in (4, 1, 4, 1, 9):
        assert_matches(fn(x, n), eager(slice_by_argument_then_broadcast, (x, n)))
    with pytest.raises(ValueError, match=r"slice_by_argument_then_broadcast\(\).*n=2"):
        fn(x, 2)

    def scale_by_argument(x, n: int):  # `n` feeds no shape: one kernel, the fast path
        return x * n

    scaled = frontend.script(scale_by_argument)
    for n in (1, 2, 3):
        assert_matches(scaled(x, n), eager(scale_by_argument, (x, n)))
    assert len(scaled._compiled) == 1 and len(scaled._fast_calls.kernels) == 1


def test_dynamic_dim_is_a_clear_error() -> None:
    """`torch.any(x, n)` with a run-time `n` said "'Dynamic' object is not iterable"."""

    def any_over_argument(x, n: int):
        return torch.any(x, n)

    with pytest.raises(TypeError, match="`dim` must be a constant int"):
        frontend.script(any_over_argument)(F32, 1)


def test_functional_namespace_is_usable() -> None:
    """The fuzzer writes `F.*` calls; keep one here so the import is exercised."""

    def gelu(x):
        return F.gelu(x)

    assert_matches(frontend.script(gelu)(F32), eager(gelu, (F32,)))
