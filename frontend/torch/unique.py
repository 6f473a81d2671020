"""`torch.unique` and `torch.unique_consecutive` with PyTorch's signatures and results, written
with the ops `torch._unique2` / `aten.unique_consecutive` (`dialects/torch/ops/unique.py`).

A script of `torch.unique(...)` runs the function of the same name here (`frontend/ir/resolve.py`
`frontend_twin`), with the flags as constants, so the result is one tensor or a tuple as in
PyTorch; a trace records the op. `x.unique(...)` / `x.unique_consecutive(...)` are these
functions as methods (a script runs them through `frontend/ir/resolve.py` `tensor_method_twin`).
"""

from __future__ import annotations

from frontend.torch import functions as _torch
from frontend.torch.tensor import Tensor


def unique(
    input: Tensor,
    sorted: bool = True,
    return_inverse: bool = False,
    return_counts: bool = False,
    dim=None,
):  # fmt: skip  (no annotations the scripter cannot read: the result is a tensor or a tuple)
    """`torch.unique`: the distinct values of `input` flattened, ascending (also with
    `sorted=False`, as torch on the CPU); with `return_inverse` each element's index into
    them (shaped like `input`), with `return_counts` how often each occurs."""
    if dim is not None:
        raise NotImplementedError("torch.unique(dim=...) is not supported (only dim=None)")
    values, inverse, counts = _torch._unique2(input, sorted, return_inverse, return_counts)
    return _requested(values, inverse, counts, return_inverse, return_counts)


def unique_consecutive(
    input: Tensor, return_inverse: bool = False, return_counts: bool = False, dim=None
):
    """`torch.unique_consecutive`: the first value of each run of equal values of `input`
    flattened; with `return_inverse` each element's run, with `return_counts` run lengths."""
    if dim is not None:
        raise NotImplementedError(
            "torch.unique_consecutive(dim=...) is not supported (only dim=None)"
        )
    values, inverse, counts = _torch._unique_consecutive(input, return_inverse, return_counts, None)
    return _requested(values, inverse, counts, return_inverse, return_counts)


def _requested(values, inverse, counts, return_inverse: bool, return_counts: bool):
    """The results torch returns for these flags: values, then inverse and counts if asked."""
    if return_inverse and return_counts:
        return values, inverse, counts
    if return_inverse:
        return values, inverse
    if return_counts:
        return values, counts
    return values


FUNCTIONS = (unique, unique_consecutive)

for _function in FUNCTIONS:  # also methods: x.unique(...) (eager, traced and scripted)
    _function.__tsjit_scriptable__ = True  # type: ignore[attr-defined]
    setattr(Tensor, _function.__name__, _function)
