"""In-place updates in traced PyTorch programs: of traced tensors, and of tensors the program
made (`torch.zeros(...)`, which the trace follows from then on), they are recorded; of a
tensor the trace cannot follow (a module buffer) from traced values they are a located
TraceError, never a silently wrong trace."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import frontend
from frontend.trace.errors import TraceError


def updates_a_traced_tensor(v):  # type: ignore[no-untyped-def]
    y = torch.zeros(4, 6) + v
    y.mul_(2)
    y.add_(v)
    return y.relu_()


def updates_a_fresh_tensor(v):  # type: ignore[no-untyped-def]
    y = torch.zeros(4, 6)
    y.add_(v)
    return y * 2


def test_in_place_on_traced_tensors_is_recorded():
    example, other = torch.randn(4, 6), torch.randn(4, 6)
    traced = frontend.trace(updates_a_traced_tensor, (example,))
    np.testing.assert_allclose(np.asarray(traced(other)), updates_a_traced_tensor(other).numpy())


class UpdatesABuffer(torch.nn.Module):
    def __init__(self):  # type: ignore[no-untyped-def]
        super().__init__()
        self.register_buffer("total", torch.zeros(4, 6))

    def forward(self, v):  # type: ignore[no-untyped-def]
        self.total.add_(v)
        return self.total * 2


def test_in_place_on_a_fresh_tensor_is_recorded():
    example, other = torch.randn(4, 6), torch.randn(4, 6)
    traced = frontend.trace(updates_a_fresh_tensor, (example,))
    np.testing.assert_allclose(np.asarray(traced(other)), updates_a_fresh_tensor(other).numpy())


def test_in_place_on_a_module_buffer_is_a_located_error():
    with pytest.raises(TraceError, match=r"add_ updates in place a tensor the trace does not"):
        frontend.trace(UpdatesABuffer(), (torch.randn(4, 6),))
