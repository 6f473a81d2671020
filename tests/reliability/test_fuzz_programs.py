"""CI's share of the differential fuzzer: fixed seeds, a few dozen programs (about a minute).

`scripts/fuzz.sh N SEED` runs the same checks on many more programs. A program that fails
here prints its shrunk reproducer. Programs that hit a known open bug are listed in
`KNOWN` with the reason (strict xfail: fixing the bug makes them pass, then remove them).
"""

from __future__ import annotations

import runpy
from pathlib import Path

import pytest
from fuzzing.campaign import make_program
from fuzzing.executors import Outcome, check_program, run_reference
from fuzzing.library import eager_library
from fuzzing.program import Assign, Program, TensorInput, reproducer
from fuzzing.shrink import shrink
from fuzzing.templates import registry_templates

SEED = 11  # programs 0..29 with PyTorch as the reference
FRONTEND_SEED = 12  # programs 0..7 with frontend.torch as the reference (no PyTorch needed)
KNOWN: dict[tuple[int, int], str] = {}  # (seed, index) -> the open bug it hits


def _cases(seed: int, count: int) -> list[object]:
    return [
        pytest.param(seed, i, marks=pytest.mark.xfail(strict=True, reason=KNOWN[seed, i]))
        if (seed, i) in KNOWN else pytest.param(seed, i)
        for i in range(count)
    ]  # fmt: skip


def _check(seed: int, index: int, library: str) -> None:
    lib = eager_library(library)
    program = make_program(seed, index, lib, registry_templates(lib.torch, lib.functional))
    outcome = check_program(program, lib)
    if outcome.failed:
        small = shrink(program, lib, outcome, budget=40)
        pytest.fail(f"{outcome.kind}: {outcome.detail}\n\n{reproducer(small)}")
    assert outcome.kind in ("ok", "rejected", "unstable"), outcome


@pytest.mark.parametrize(("seed", "index"), _cases(SEED, 30))
def test_program_matches_pytorch(seed: int, index: int) -> None:
    _check(seed, index, "torch")


@pytest.mark.parametrize(("seed", "index"), _cases(FRONTEND_SEED, 10))
def test_program_matches_frontend_torch(seed: int, index: int) -> None:
    _check(seed, index, "frontend")


def test_programs_are_reproducible() -> None:
    lib = eager_library("torch")
    templates = registry_templates(lib.torch, lib.functional)
    first = [make_program(5, i, lib, templates).source() for i in range(5)]
    assert first == [make_program(5, i, lib, templates).source() for i in range(5)]
    assert len(set(first)) == 5


def test_shrinking_keeps_the_failure_and_drops_the_rest() -> None:
    lib = eager_library("torch")
    program = Program(
        [TensorInput("x0", (4, 5), "float32", 1), TensorInput("x1", (5,), "float32", 2)],
        [],
        [
            Assign("v1", "x0 + x1"),
            Assign("v2", "torch.tanh(v1)"),
            Assign("v3", "v2 * 2.0"),
            Assign("v4", "torch.relu(x0)"),
        ],
        ["v3", "v4"],
    )

    def check(candidate: Program) -> Outcome:  # "fails" while the program calls tanh
        try:
            run_reference(candidate, lib)
        except Exception:
            return Outcome("invalid")
        return Outcome("mismatch" if "torch.tanh" in candidate.source() else "ok")

    small = shrink(program, lib, Outcome("mismatch"), check=check)
    assert [s.expr for s in small.body if isinstance(s, Assign)] == ["x0 + x1", "torch.tanh(v1)"]
    assert small.returns == ["v1"]
    assert [t.shape for t in small.tensors] == [(1, 1), (1,)]


def test_reproducer_runs_as_a_script(tmp_path: Path) -> None:
    program = Program(
        [TensorInput("x0", (2, 3), "float32", 3, special=True)],
        [],
        [Assign("v1", "torch.sigmoid(x0) * x0.sum(1, True)")],
        ["v1"],
    )
    path = tmp_path / "repro.py"
    path.write_text(reproducer(program, "a note\non two lines"))
    namespace = runpy.run_path(str(path))
    expected, actual = namespace["expected"].numpy(), namespace["actual"]
    assert expected.shape == actual.shape == (2, 3)
    assert (expected != expected).any()  # the planted NaN came through
