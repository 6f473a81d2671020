"""`print(...)` in a scripted function prints at run time, between compiled parts."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import frontend


def doubled_and_reported(x):  # type: ignore[no-untyped-def]
    y = x * 2
    print("y:", y, "total", y.sum(), sep=" | ")
    return y + 1


def test_print_runs_at_run_time_with_the_values(capsys):  # type: ignore[no-untyped-def]
    scripted = frontend.script(doubled_and_reported)
    out = scripted(torch.ones(3))
    np.testing.assert_allclose(np.asarray(out), [3.0, 3.0, 3.0])
    assert capsys.readouterr().out == "y: | tensor([2., 2., 2.]) | total | tensor(6.)\n"
    assert "torch.prim.PythonCall" in str(scripted.graph)


def test_print_in_a_loop_is_a_located_error():
    def in_loop(x):  # type: ignore[no-untyped-def]
        for i in range(x.shape[0]):
            print(i)
        return x

    with pytest.raises(frontend.ScriptError, match=r"print\(\) inside `if` or a loop"):
        frontend.script(in_loop)


def reported_with_an_f_string(x):  # type: ignore[no-untyped-def]
    total = x.sum()
    print(f"shape {x.shape} total {total:.2f} first {x[0]}")
    return total


def test_an_f_string_is_printed_by_python(capsys):  # type: ignore[no-untyped-def]
    x = torch.arange(6.0).reshape(2, 3)
    np.testing.assert_allclose(np.asarray(frontend.script(reported_with_an_f_string)(x)), 15.0)
    scripted_output = capsys.readouterr().out
    reported_with_an_f_string(x)
    assert scripted_output == capsys.readouterr().out
    assert scripted_output.startswith("shape torch.Size([2, 3]) total 15.00 first tensor([")
