"""A trace that reads a size as a Python int serves its example's shapes only, and traces the
function again for other shapes, rather than reusing the constants it computed from them
(`x.view(x.size(0), -1)` traced at batch 6 must not view a batch of 3 as 6 rows)."""

from __future__ import annotations

import numpy as np
import torch

import frontend
from frontend import torch as ft


def flatten_rows(x):
    return x.view(x.size(0), -1) * 2.0


def flatten_by_shape(x):
    return x.reshape(x.shape[0], x.numel() // x.shape[0]) + 1.0


def last_dim_of_a_sum(x):
    y = x.sum(-1, keepdim=True)
    return y * y.size(-1)  # a static size (1): nothing to specialize


class Flatten(torch.nn.Module):
    def forward(self, x):
        return torch.relu(x.flatten(1) if x.dim() > 2 else x).reshape(x.shape[0], -1)


def batch(n: int) -> np.ndarray:
    return np.random.default_rng(n).standard_normal((n, 2, 3)).astype(np.float32)


def test_a_frontend_torch_trace_that_reads_a_size_traces_again_for_other_shapes():
    traced = frontend.trace(flatten_rows, (ft.from_numpy(batch(6)),))
    assert traced.exact_shapes == ((6, 2, 3),)
    for n in (3, 6, 3):
        np.testing.assert_allclose(traced(batch(n)), batch(n).reshape(n, -1) * 2, rtol=1e-6)
    assert list(traced._retraced) == [((3, 2, 3),)]  # one trace per new shapes


def test_a_torch_trace_that_reads_shape_and_numel_traces_again():
    traced = frontend.trace(flatten_by_shape, (torch.from_numpy(batch(4)),))
    assert traced.exact_shapes == ((4, 2, 3),)
    out = traced(torch.from_numpy(batch(5)))
    torch.testing.assert_close(out, flatten_by_shape(torch.from_numpy(batch(5))))


def test_a_traced_module_reading_sizes_serves_every_batch():
    module = Flatten().eval()
    traced = frontend.trace(module, (torch.from_numpy(batch(2)),))
    for n in (2, 7):
        x = torch.from_numpy(batch(n))
        torch.testing.assert_close(traced(x), module(x))


def test_reading_a_static_size_keeps_one_trace_for_every_shape():
    traced = frontend.trace(last_dim_of_a_sum, (ft.from_numpy(batch(6)),))
    assert traced.exact_shapes is None
    x = batch(3)
    np.testing.assert_allclose(traced(x), x.sum(-1, keepdims=True), rtol=1e-5)


def test_a_saved_or_pickled_trace_that_read_a_size_refuses_other_shapes(tmp_path):
    import pickle

    import pytest

    traced = frontend.trace(flatten_rows, (torch.from_numpy(batch(6)),))
    traced.save(tmp_path / "t.tsj")
    for copy in (frontend.load(tmp_path / "t.tsj"), pickle.loads(pickle.dumps(traced))):
        x = torch.from_numpy(batch(6))
        torch.testing.assert_close(copy(x), flatten_rows(x))
        with pytest.raises(TypeError, match=r"serves inputs of shapes \(\(6, 2, 3\),\) only"):
            copy(torch.from_numpy(batch(3)))
