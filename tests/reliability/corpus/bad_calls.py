# ruff: noqa: RUF059
"""Programs that script but are ill-typed for the arguments they are called with.

Shape and dtype rules run when a call fixes the argument types, so these fail at the call
with a `TypeError` (a rule rejects the types: "f() cannot run with (x: f32[?]): <op>: ...")
or a `ValueError` (the concrete sizes do not fit: "f(): arguments of shapes ... do not fit"),
never with an internal traceback. The error names the function and, through the rule's
message, the op, and shows the source line marked `# <-- col N` (`frontend/script/
error_location.py`).
Each docstring is `error: <regex>`; arguments are `ARGS[name]` (default: one float32 array of
shape [2, 3]).
"""

import numpy as np
import torch

F32 = np.ones((2, 3), np.float32)
ARGS = {
    "mm_of_vectors": (np.ones(3, np.float32), np.ones(3, np.float32)),
    "broadcast_mismatch": (np.ones(3, np.float32), np.ones(4, np.float32)),
    "matmul_inner_mismatch": (np.ones((2, 3), np.float32), np.ones((4, 2), np.float32)),
    "bitwise_of_floats": (F32, F32),
    "mean_of_ints": (np.ones((2, 3), np.int64),),
    "where_float_condition": (F32, F32),
    "index_select_float_index": (F32, np.zeros(2, np.float32)),
    "subtract_bools": (np.ones(3, bool), np.ones(3, bool)),
    "stack_different_shapes": (F32, np.ones((3, 2), np.float32)),
    "conv2d_channel_mismatch": (
        np.ones((1, 3, 5, 5), np.float32),
        np.ones((2, 2, 3, 3), np.float32),
    ),
    "cat_different_ranks": (F32, np.ones(3, np.float32)),
    "bmm_batch_mismatch": (np.ones((2, 2, 3), np.float32), np.ones((3, 3, 2), np.float32)),
    "linear_weight_mismatch": (F32, np.ones((4, 5), np.float32)),
    "masked_fill_float_mask": (F32, F32),
    "gather_rank_mismatch": (F32, np.zeros(2, np.int64)),
    "embedding_float_indices": (F32, F32),
    "conv2d_of_no_channels": (np.ones((1, 1, 1, 1), np.float32),),  # seed-4 program 1317
    "isclose_of_other_dtypes_beside_a_half": (F32, np.zeros(3, np.int64), np.ones(2, np.int64)),
    "renorm_of_a_run_time_order": (np.ones((2, 1, 1, 1), np.float32), F32),
}


def mm_of_vectors(x, y):
    """error: mm: expected 2-D tensors"""
    return torch.mm(x, y)  # <-- col 11


def broadcast_mismatch(x, y):
    """error: do not fit.*cannot be broadcast"""
    return x + y  # <-- col 11


def matmul_inner_mismatch(x, y):
    """error: do not fit|cannot be multiplied|matmul"""
    return x @ y  # <-- col 11


def view_wrong_numel(x):
    """error: do not fit|view|invalid for input of size"""
    return x.view(5)  # <-- col 11


def sum_dim_out_of_range(x):
    """error: Dimension out of range"""
    return x.sum(3)  # <-- col 11


def bitwise_of_floats(x, y):
    """error: bitwise_and"""
    return x & y  # <-- col 11


def mean_of_ints(x):
    """error: mean.*floating point"""
    return x.mean()  # <-- col 11


def permute_wrong_length(x):
    """error: permute"""
    return x.permute(0, 1, 2)  # <-- col 11


def squeeze_dim_out_of_range(x):
    """error: Dimension out of range"""
    return x.squeeze(4)  # <-- col 11


def transpose_dim_out_of_range(x):
    """error: Dimension out of range"""
    return x.transpose(0, 5)  # <-- col 11


def expand_incompatible(x):
    """error: expand"""
    return x.expand(4, 4)  # <-- col 11


def where_float_condition(c, x):
    """error: where"""
    return torch.where(c, x, x)  # <-- col 11


def index_select_float_index(x, i):
    """error: index_select"""
    return torch.index_select(x, 0, i)  # <-- col 11


def subtract_bools(a, b):
    """error: sub.*bool|Subtraction"""
    return a - b  # <-- col 11


def stack_different_shapes(x, y):
    """error: stack|do not fit"""
    return torch.stack([x, y])  # <-- col 11


def conv2d_channel_mismatch(x, w):
    """error: conv2d|channels"""
    return torch.conv2d(x, w)  # <-- col 11


def select_out_of_range(x):
    """error: select|index|out of range"""
    return x[5]  # <-- col 13


def cat_different_ranks(x, y):
    """error: cat|do not fit|dim"""
    return torch.cat([x, y])  # <-- col 11


def bmm_batch_mismatch(x, y):
    """error: bmm|do not fit"""
    return torch.bmm(x, y)  # <-- col 11


def linear_weight_mismatch(x, w):
    """error: linear|do not fit|multiplied"""
    return torch.nn.functional.linear(x, w)  # <-- col 11


def masked_fill_float_mask(x, m):
    """error: masked_fill.*bool|mask"""
    return x.masked_fill(m, 0.0)  # <-- col 11


def gather_rank_mismatch(x, i):
    """error: gather"""
    return torch.gather(x, 0, i)  # <-- col 11


def embedding_float_indices(w, i):
    """error: embedding"""
    return torch.embedding(w, i)  # <-- col 11


def reshape_two_minus_ones(x):
    """error: reshape|-1|view"""
    return x.reshape(-1, -1)  # <-- col 11


def split_sizes_do_not_add_up(x):
    """error: split|do not fit"""
    a, b = x.split([1, 5])  # <-- col 11
    return a


def repeat_too_few(x):
    """error: repeat"""
    return x.repeat(2)  # <-- col 11


def max_pool_too_large(x):
    """error: max_pool2d|do not fit|size"""
    return torch.max_pool2d(x, 3)  # <-- col 11


def conv2d_of_no_channels(x0):
    """error: conv2d of an input with 0 channels is not supported"""
    v1 = x0[:, 1::2, :]
    return torch.nn.functional.conv2d(v1, v1, None, 1, "same")  # <-- col 11


def isclose_of_other_dtypes_beside_a_half(x, y, z):
    """error: isclose.*Float did not match Long"""
    close = torch.isclose(x, y, 0.5, 0.2, True)  # <-- col 12
    z.bfloat16()  # makes the program one that may give half results
    return close


def renorm_of_a_run_time_order(x, y):
    """error: renorm.*norm order"""
    p = len(x)
    return y.renorm(p, 0, 1.0)  # <-- col 11
