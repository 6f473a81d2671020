"""Programs `frontend.trace(fn, inputs, strict=True)` must reject with a `TraceError` that
names the user's line (`file:line`), never with a traceback from inside tsjit.

Each function's docstring is `error: <regex>`; the line the error names carries
`# <-- here` (errors about the inputs and outputs name the argument or the output instead).
Inputs are `INPUTS[name]` (default: one float32 tensor of shape [2, 3]). The programs use
real PyTorch; `ft` (frontend.torch) where PyTorch's own checks would fire first.
"""

import numpy as np
import torch

from frontend import torch as ft

INPUTS = {
    "float_argument": lambda: (torch.ones(2, 3), 2.0),
    "string_argument": lambda: (torch.ones(2, 3), "a"),
    "list_argument": lambda: (torch.ones(2, 3), [1, 2]),
    "none_argument": lambda: (torch.ones(2, 3), None),
    "no_op_linalg_qr": lambda: (torch.tensor([[2.0, 1.0], [1.0, 3.0]]),),
}


def default_inputs():
    return (torch.ones(2, 3),)


# ---- tensors that leave the graph (strict mode refuses what would only warn) ----


def item_to_number(x):
    """error: Converting a tensor to a Python number"""
    return x * x.sum().item()  # <-- here


def int_of_element(x):
    """error: Converting a tensor to a Python integer"""
    return x[: int(x[0, 0])]  # <-- here


def float_of_mean(x):
    """error: Converting a tensor to a Python (number|float)"""
    return x * float(x.mean())  # <-- here


def bool_of_max(x):
    """error: Converting a tensor to a Python boolean"""
    if bool(x.max() > 0):  # <-- here
        return x
    return -x


def branch_on_tensor(x):
    """error: Converting a tensor to a Python boolean"""
    if x.sum() > 0:  # <-- here
        return x
    return -x


def while_on_tensor(x):
    """error: Converting a tensor to a Python boolean"""
    while x.sum() < 100:  # <-- here
        x = x * 2
    return x


def len_of_tensor(x):
    """error: Using len to get tensor shape"""
    return x * len(x)  # <-- here


def iterate_rows(x):
    """error: Iterating over a tensor"""
    total = x[0] * 0
    for row in x:  # <-- here
        total = total + row
    return total


def tolist(x):
    """error: Converting a tensor to a Python list"""
    return x + x.tolist()[0][0]  # <-- here


def numpy_array_of_tensor(x):
    """error: Converting a tensor to a NumPy array"""
    return x * np.asarray(ft.tensor(x.numpy())).max() + ft.tensor(x.numpy())  # <-- here


def argmax_as_index(x):
    """error: Converting a tensor to a Python number"""
    return x[x.argmax().item() % 2]  # <-- here


def max_in_condition_expression(x):
    """error: Converting a tensor to a Python boolean"""
    return x if x.max() > 0 else -x  # <-- here


def compare_in_and(x):
    """error: Converting a tensor to a Python boolean"""
    return x if (x.sum() > 0 and x.max() < 5) else -x  # <-- here


# ---- what cannot be recorded ----


def indexed_assignment(x):
    """error: an indexed"""
    x[0] = 1.0  # <-- here
    return x


def masked_assignment(x):
    """error: an indexed"""
    x[x > 0] = 0.0  # <-- here
    return x


def no_op_lgamma(x):
    """error: cannot trace .*lgamma"""
    return torch.lgamma(x)  # <-- here


def no_op_lgamma_method(x):
    """error: cannot trace .*lgamma"""
    return x.lgamma()  # <-- here


def no_op_bincount(x):
    """error: cannot trace .*bincount"""
    return torch.bincount(x.long().flatten())  # <-- here


def no_op_fft(x):
    """error: cannot trace .*fft"""
    return torch.fft.fft(x).real  # <-- here


def no_op_linalg_qr(x):
    """error: cannot trace .*qr"""
    return torch.linalg.qr(x)[0]  # <-- here


def no_op_digamma(x):
    """error: cannot trace .*digamma"""
    return torch.digamma(x)  # <-- here


def no_op_polygamma(x):
    """error: cannot trace .*polygamma"""
    return torch.polygamma(1, x)  # <-- here


def no_op_i0(x):
    """error: cannot trace .*i0"""
    return torch.i0(x)  # <-- here


def no_op_special_digamma(x):
    """error: cannot trace .*digamma"""
    return torch.special.digamma(x)  # <-- here


# ---- inputs and outputs ----


def float_argument(x, y):
    """error: input of type float \\(argument 'y'\\)"""
    return x * y


def string_argument(x, y):
    """error: input of type str \\(argument 'y'\\)"""
    return x


def list_argument(x, y):
    """error: input of type int \\(argument 'y.0'\\)"""
    return x


def none_argument(x, y):
    """error: input of type NoneType \\(argument 'y'\\)"""
    return x


def float_output(x):
    """error: the output of the traced function is a float"""
    return 1.0


def string_output(x):
    """error: the output of the traced function is a str"""
    return "x"


def none_output(x):
    """error: the output of the traced function is a NoneType"""
    return None


def dict_output(x):
    """error: the output of the traced function is a dict"""
    return {"x": x}
