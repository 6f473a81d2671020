# ruff: noqa: F401, F821, F841, E731, B007, RUF059, UP006, UP035
"""Programs `frontend.script` must reject with a located `ScriptError` (never a traceback).

Each function's docstring is `error: <regex>` (searched in the message, case-insensitive);
the offending line carries `# <-- col N` (0-based column, as in `ast`). The test scripts each
function and checks the line, the column and the message.
"""

import math
from typing import Dict, List, Optional

import numpy as np
import torch

from frontend import torch as ft

GLOBAL_ARRAY = np.ones(3, np.float32)
GLOBAL_LIST = [1, 2, 3]
COUNTER = 0


def helper(x):
    return x + 1


def helper_two(x, y):
    return x + y


def recursive(x):
    """error: recurs"""
    return recursive(x)  # <-- col 11


# ---- statements tsjit does not script ----


def try_except(x):
    """error: try"""
    try:  # <-- col 4
        y = x + 1
    except ValueError:
        y = x
    return y


def try_finally(x):
    """error: try"""
    try:  # <-- col 4
        y = x + 1
    finally:
        pass
    return y


def with_statement(x):
    """error: only `with torch.no_grad"""
    with open("log.txt"):  # <-- col 9
        y = x + 1
    return y


def lambda_expression(x):
    """error: lambda"""
    f = lambda v, k=1: v + k  # <-- col 8
    return f(x)


def nested_function(x):
    """error: nested|def"""

    def inner(v):  # <-- col 4
        return v

    return inner(x)


def nested_class(x):
    """error: class"""

    class Inner:  # <-- col 4
        pass

    return x


def star_args(*xs):  # <-- col 15
    """error: \\*args"""
    return xs[0]


def star_kwargs(x, **kw):  # <-- col 21
    """error: \\*\\*kw"""
    return x


def global_statement(x):
    """error: global"""
    global COUNTER  # <-- col 4
    return x


def delete_statement(x):
    """error: del"""
    y = x + 1
    del y  # <-- col 4
    return x


def import_inside(x):
    """error: import"""
    import os  # <-- col 4

    return x


def import_from_inside(x):
    """error: import"""
    from math import pi  # <-- col 4

    return x * pi


def raise_statement(x):
    """error: bare `raise`"""
    if x.sum() > 0:
        raise  # <-- col 8
    return x


def yield_statement(x):
    """error: yield|generator"""
    yield x  # <-- col 4


def while_else(x):
    """error: `while ... else` is not supported"""
    i = 0
    while i < 3:
        i += 1
    else:  # <-- col 4
        x = x + 1
    return x


def for_else(x):
    """error: `for ... else` is not supported"""
    for i in range(3):
        x = x + i
    else:  # <-- col 4
        x = x + 1
    return x


def for_else_over_rows(x):
    """error: `for ... else` is not supported"""
    for row in x:
        x = x + row
    else:  # <-- col 4
        x = x + 1
    return x


def for_else_on_one_line(x):
    """error: `for ... else` is not supported"""
    for i in range(2):
        x = x + i
    else: x = x + 1  # <-- col 4  # noqa: E701
    return x


async def async_function(x):  # <-- col 0
    """error: cannot script `async def async_function`"""
    return x


def int_and_tensor_in_branches(x, flag: bool):
    """error: `y` is an int in the true branch and a Tensor in the false branch"""
    if flag:
        y = 1
    else:
        y = x + 1
    return y  # <-- col 11


def match_statement(x, n: int):
    """error: match"""
    match n:  # <-- col 4
        case 1:
            return x
    return x


def assert_that_fails_while_scripting(x):
    """error: fails `assert"""
    assert isinstance(x, int)  # <-- col 4
    return x


# ---- expressions tsjit does not script ----


def list_comprehension_over_a_runtime_range(x):
    """error: list comprehension over range"""
    ys = [x * i for i in range(x.shape[0])]  # <-- col 25
    return ys[0]


def dict_comprehension(x):
    """error: DictComp"""
    ys = {i: x for i in range(3)}  # <-- col 9
    return ys[0]


def set_comprehension(x):
    """error: SetComp"""
    ys = {i for i in range(3)}  # <-- col 9
    return x


def generator_expression(x):
    """error: GeneratorExp"""
    total = sum(x * i for i in range(3))  # <-- col 15
    return total


def dict_literal(x):
    """error: KeyError"""
    d = {"a": x}
    return d["b"]  # <-- col 11


def set_literal(x):
    """error: set"""
    s = {1, 2}  # <-- col 8
    return x


def f_string(x):
    """error: len.. of FormattedString"""
    s = f"{x}"
    return x + len(s)  # <-- col 15


def walrus(x):
    """error: :=|NamedExpr|assignment expression"""
    if (y := x + 1) is not None:  # <-- col 8
        return y
    return x


def chained_comparison(x):
    """error: `in` is only supported"""
    if x.sum() in (0, 1):  # <-- col 7
        return x
    return x + 1


def is_between_tensors(x):
    """error: is"""
    if x is x:  # <-- col 7
        return x
    return x + 1


def in_operator(x, n: int):
    """error: in"""
    if n in [1, 2]:  # <-- col 7
        return x
    return x + 1


def starred_assignment(x):
    """error: starred assignment of a list of tensors whose length is known only at run time"""
    a, *b = x.chunk(3)  # <-- col 4
    return a


def await_expression(x):
    """error: await|async|coroutine|yield|generator"""
    yield x  # <-- col 4


def slice_object(x):
    """error: slice"""
    s = slice(0, 2)  # <-- col 8
    return x[s]


def string_method(x):
    """error: str|method"""
    name = "a".upper()  # <-- col 11
    return x


def subscript_of_int(x, n: int):
    """error: subscript|index|int"""
    return x + n[0]  # <-- col 15


def call_of_int(x, n: int):
    """error: not callable"""
    return n(x)  # <-- col 11


def attribute_of_int(x, n: int):
    """error: attribute"""
    return x + n.real  # <-- col 15


def float_annotation_attribute(x, f: float):
    """error: attribute"""
    return x * f.imag  # <-- col 15


# ---- names and calls ----


def undefined_name(x):
    """error: undefined name `y`"""
    return x + y  # <-- col 15


def unknown_torch_function(x):
    """error: unknown function|fft"""
    return torch.fft.fft(x)  # <-- col 11


def unknown_numpy_function(x):
    """error: unknown function"""
    return np.linalg.inv(x)  # <-- col 11


def unknown_method(x):
    """error: unknown method `frobnicate`"""
    return x.frobnicate()  # <-- col 11


def missing_torch_attribute(x):
    """error: has no attribute"""
    return torch.not_a_function(x)  # <-- col 11


def too_many_arguments(x):
    """error: wrong arguments for torch.aten.tanh"""
    return torch.tanh(x, x, x)  # <-- col 11


def unknown_keyword(x):
    """error: wrong arguments"""
    return torch.tanh(x, banana=1)  # <-- col 11


def string_as_size(x):
    """error: wrong arguments for torch.aten.view"""
    return x.view("a")  # <-- col 11


def tensor_as_list(x):
    """error: wrong arguments for torch.aten.cat"""
    return torch.cat(x, 0)  # <-- col 11


def string_dim(x):
    """error: wrong arguments"""
    return torch.sum(x, dim="a")  # <-- col 11


def string_dtype(x):
    """error: wrong arguments"""
    return torch.zeros([2], dtype="float32")  # <-- col 11


def float_size(x):
    """error: wrong arguments"""
    return torch.zeros([2.5])  # <-- col 11


def none_as_tensor(x):
    """error: wrong arguments"""
    return torch.tanh(None)  # <-- col 11


def int_as_tensor(x, n: int):
    """error: wrong arguments"""
    return torch.tanh(n)  # <-- col 11


def method_of_int(x, n: int):
    """error: int"""
    return x + n.sum()  # <-- col 15


def helper_wrong_count(x):
    """error: helper|argument"""
    return helper(x, x)  # <-- col 11


def helper_unknown_keyword(x):
    """error: helper|argument|keyword"""
    return helper(x, y=1)  # <-- col 11


def global_array(x):
    """error: `GLOBAL_ARRAY`: a tensor defined outside the function"""
    return x + GLOBAL_ARRAY  # <-- col 11


def math_of_tensor(x):
    """error: needs numbers known while scripting"""
    return math.sqrt(x)  # <-- col 11


def builtin_abs_of_string(x):
    """error: abs"""
    return x + abs("s")  # <-- col 15


def len_two_arguments(x):
    """error: len"""
    return x + len(x, x)  # <-- col 15


def int_with_base(x):
    """error: int"""
    return x + int("3", 2)  # <-- col 15


def range_outside_for(x):
    """error: range"""
    r = range(3)  # <-- col 8
    return x


def print_call(x):
    """error: inside `if` or a loop"""
    if x.sum() > 0:
        print(x)  # <-- col 8
    return x


def isinstance_of_a_value(x):
    """error: isinstance"""
    if isinstance(x, 3):  # <-- col 21
        return x
    return x + 1


def super_call(x):
    """error: super"""
    return super().forward(x)  # <-- col 11


def torch_tensor_constructor(x):
    """error: torch.Tensor|unknown function|tensor"""
    return torch.Tensor(3)  # <-- col 11


def cuda_device(x):
    """error: cuda|device"""
    return x.to("cuda")  # <-- col 11


def no_grad_call(x):
    """error: no_grad|unknown function"""
    torch.no_grad()  # <-- col 4
    return x


def numpy_method(x):
    """error: numpy"""
    return x.numpy()  # <-- col 11


def backward_call(x):
    """error: backward"""
    x.backward()  # <-- col 4
    return x


# ---- assignments ----


def subscript_assignment(x):
    """error: assign|index|in-place"""
    x[0] = 1.0  # <-- col 4
    return x


def augmented_subscript(x):
    """error: assign|index|in-place"""
    x[0] += 1.0  # <-- col 4
    return x


def attribute_assignment(x):
    """error: assignment to `x.name` is not supported"""
    x.name = "a"  # <-- col 4
    return x


def shape_assignment(x):
    """error: assignment to `x.shape` is not supported"""
    x.shape = (3,)  # <-- col 4
    return x


def unpack_count_mismatch(x):
    """error: unpack|values"""
    a, b, c = x, x  # <-- col 4
    return a


def unpack_int(x, n: int):
    """error: unpack|int"""
    a, b = n  # <-- col 4
    return x


def augmented_attribute(x):
    """error: augmented assignment"""
    x.count += 1  # <-- col 4
    return x


def chained_target_subscript(x):
    """error: assign|index|in-place"""
    y = x[0] = x  # <-- col 8
    return y


# ---- types that do not agree ----


def tensor_or_int_on_branches(x, n: int):
    """error: type"""
    if n > 0:
        y = x
    else:
        y = 1
    return y + 1  # <-- col 11


def tensor_or_float_on_branches(x, f: float):
    """error: type"""
    if f > 0:
        y = x
    else:
        y = f
    return y * 2  # <-- col 11


def defined_in_one_branch(x, n: int):
    """error: `y`"""
    if n > 0:
        y = x
    return y  # <-- col 11


def return_types_differ(x, n: int):
    """error: return|type"""
    if n > 0:
        return x
    return 1  # <-- col 4


def conditional_expression_types(x, n: int):
    """error: type|branches"""
    return x if n > 0 else "s"  # <-- col 27


def loop_changes_type(x, n: int):
    """error: type|loop"""
    y = 0
    for i in range(n):
        y = x  # <-- col 8
    return y


def range_of_float(x, f: float):
    """error: range"""
    for i in range(f):  # <-- col 19
        x = x + 1
    return x


def range_of_tensor_list(x):
    """error: range"""
    for i in range([1, 2]):  # <-- col 19
        x = x + 1
    return x


def range_four_arguments(x):
    """error: range"""
    for i in range(1, 2, 3, 4):  # <-- col 13
        x = x + 1
    return x


def for_over_int(x, n: int):
    """error: iterate|loop|for"""
    for i in n:  # <-- col 13
        x = x + 1
    return x


def for_unpacks_int(x):
    """error: loop variable must be a plain name"""
    for a, b in range(3):  # <-- col 8
        x = x + a
    return x


def bool_of_string(x):
    """error: bool|str"""
    if "yes":  # <-- col 7
        return x
    return x + 1


def string_arithmetic(x):
    """error: str|string"""
    return x + ("a" + 1)  # <-- col 16


def division_by_zero_constant(x):
    """error: ZeroDivisionError"""
    return x * (1 / 0)  # <-- col 16


def bool_arithmetic(x, b: bool):
    """error: bool"""
    return x * (b + 1)  # <-- col 16


# ---- annotations and arguments ----


def dict_annotation(x: Dict[str, List[int]]):  # <-- col 23
    """error: annotation|Dict"""
    return x


def object_annotation(x: object):  # <-- col 25
    """error: annotation|object"""
    return x


def str_without_default(x, mode: str):  # <-- col 27
    """error: str"""
    return x


def keyword_only_argument(x, *, scale: float = 1.0):  # <-- col 32
    """error: keyword"""
    return x * scale


def list_of_tensors_annotation(x, ys: List[int]):
    """error: wrong arguments|list"""
    return torch.tanh(ys)  # <-- col 11


# ---- loops and returns ----


def return_in_range_loop(x, n: int):
    """error: return"""
    for i in range(n):
        return x  # <-- col 8
    return x + 1


def return_in_while_loop(x, n: int):
    """error: return"""
    i = 0
    while i < n:
        return x  # <-- col 8
    return x + 1


def break_in_unrolled_list(x):
    """error: break|continue|unrolled|loop"""
    for v in [1, 2]:
        if v > 1:
            break  # <-- col 12
        x = x + v
    return x


def unreachable_code(x):
    """error: unreachable|after"""
    return x
    x = x + 1  # <-- col 4


def continue_after_return(x, n: int):
    """error: unreachable|after"""
    for i in range(n):
        continue
        x = x + 1  # <-- col 8
    return x


# ---- shapes and indexing known while scripting ----


def index_with_string(x):
    """error: index"""
    return x["a"]  # <-- col 13


def index_with_float(x):
    """error: index"""
    return x[1.5]  # <-- col 13


def index_with_list(x):
    """error: index"""
    return x[[0.5, 1.5]]  # <-- col 13


def index_with_none(x, idx):
    """error: index|None"""
    return x[..., idx]  # <-- col 18


def two_ellipses(x):
    """error: ellipsis|\\.\\.\\."""
    return x[..., ...]  # <-- col 13


def shape_index_by_string(x):
    """error: index|shape"""
    return x.shape["a"]  # <-- col 11


def size_of_string(x):
    """error: wrong arguments|size"""
    return x.size("a")  # <-- col 11


def tuple_index_out_of_range(x):
    """error: index|range"""
    t = (x, x)
    return t[2]  # <-- col 11


def tuple_index_by_runtime_int(x, n: int):
    """error: index|tuple"""
    t = (x, x)
    return t[n]  # <-- col 13


def chunk_into_zero(x):
    """error: chunk expects `chunks` to be greater than 0"""
    a, b = x.chunk(0)  # <-- col 11
    return a


# ---- a correction known only at run time (refused while scripting) ----


def std_correction_from_argument(x, n: int):
    """error: `correction` must be a number known while scripting"""
    y = x * 2
    return torch.std(y, None, correction=n)  # <-- col 11


def std_overloads_correction_from_argument(x, n: int):
    """error: `correction` must be a number known while scripting"""
    y = x.std(False)
    return y + torch.std(x, None, correction=n)  # <-- col 15


def std_twice_one_correction_from_argument(x, n: int):
    """error: `correction` must be a number known while scripting"""
    y = torch.std(x, None, correction=0, keepdim=True)
    return y + torch.std(x, None, correction=n)  # <-- col 15
