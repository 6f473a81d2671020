"""`torch.jit` helpers inside scripted code behave as under TorchScript."""

from __future__ import annotations

from typing import List  # noqa: UP035 (TorchScript's spelling)

import numpy as np
import torch

import frontend


def annotated_list(x):  # type: ignore[no-untyped-def]
    outs = torch.jit.annotate(List[torch.Tensor], [])  # noqa: UP006
    for i in range(x.size(0)):
        outs.append(x[i] * 2)
    return torch.stack(outs)


def scripting_branch(x):  # type: ignore[no-untyped-def]
    if torch.jit.is_scripting():
        return x + 1
    return x - 1


def tracing_branch(x):  # type: ignore[no-untyped-def]
    if torch.jit.is_tracing():
        return x - 1
    return x + 1


@torch.jit.ignore
def python_side(x: torch.Tensor) -> torch.Tensor:
    return x * 10


def calls_ignored(x):  # type: ignore[no-untyped-def]
    return python_side(x + 1) - 1


def test_annotate_is_its_value():
    x = torch.randn(4, 3)
    np.testing.assert_allclose(np.asarray(frontend.script(annotated_list)(x)), x * 2, rtol=1e-6)


def test_is_scripting_and_is_tracing_are_constants_while_scripting():
    x = torch.randn(3)
    for fn in (scripting_branch, tracing_branch):
        scripted = frontend.script(fn)
        np.testing.assert_allclose(np.asarray(scripted(x)), x + 1, rtol=1e-6)
        assert "torch.prim.If" not in str(scripted.graph)


def test_torch_jit_ignore_stays_python():
    x = torch.randn(3)
    scripted = frontend.script(calls_ignored)
    np.testing.assert_allclose(np.asarray(scripted(x)), (x + 1) * 10 - 1, rtol=1e-6)
    assert "torch.prim.PythonCall" in str(scripted.graph)
