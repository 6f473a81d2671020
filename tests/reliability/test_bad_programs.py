"""The bad-program corpora: every program is refused with a located, clear error.

- corpus/bad_scripts.py: `frontend.script` raises `ScriptError` at the marked line and
  column, with the expected message;
- corpus/bad_traces.py: `frontend.trace(..., strict=True)` raises `TraceError` naming the
  marked `file:line` (or, for bad inputs/outputs, the argument or the output);
- corpus/bad_calls.py: programs that script but are ill-typed for their arguments raise
  `TypeError`/`ValueError` naming the function at the call and showing the marked line.
None may raise an internal error (AttributeError, KeyError, ...) or take more than 60 s.
"""

from __future__ import annotations

import re
import warnings

import pytest
from corpus_cases import Case, load_corpus
from reliability_helpers import internal_cause, within

import frontend

_, SCRIPTS = load_corpus("bad_scripts.py")
TRACES_MODULE, TRACES = load_corpus("bad_traces.py")
CALLS_MODULE, CALLS = load_corpus("bad_calls.py")
TIME_LIMIT = 60


def test_corpora_are_large_enough() -> None:
    assert len(SCRIPTS) + len(TRACES) + len(CALLS) >= 100
    assert all(case.line is not None and case.col is not None for case in SCRIPTS)


@pytest.mark.parametrize("case", SCRIPTS, ids=str)
def test_script_error_is_located(case: Case) -> None:
    with pytest.raises(frontend.ScriptError) as caught:
        within(TIME_LIMIT, lambda: frontend.script(case.function))
    error = caught.value
    assert internal_cause(error) is None, repr(internal_cause(error))
    assert re.search(case.message, str(error), re.IGNORECASE), str(error)
    assert (error.line, error.col) == (case.line, case.col), str(error)
    assert f'File "{case.path}", line {case.line}' in str(error)


def test_a_type_conflict_shows_both_assignments() -> None:
    case = next(c for c in SCRIPTS if c.name == "int_and_tensor_in_branches")
    with pytest.raises(frontend.ScriptError) as caught:
        frontend.script(case.function)
    text = str(caught.value)
    for line, kind in ((case.line - 3, "an int"), (case.line - 1, "a Tensor")):
        assert f"`y` is {kind} here" in text, text
        assert f'File "{case.path}", line {line}, column 9' in text, text
    assert "        y = 1\n" in text and "        y = x + 1\n" in text, text


@pytest.mark.parametrize("case", TRACES, ids=str)
def test_trace_error_is_located(case: Case) -> None:
    inputs = TRACES_MODULE.INPUTS.get(case.name, TRACES_MODULE.default_inputs)()

    def trace() -> None:
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # strict mode raises; nothing may only warn
            frontend.trace(case.function, inputs, strict=True, check_trace=False)

    with pytest.raises(frontend.TraceError) as caught:
        within(TIME_LIMIT, trace)
    error = caught.value
    assert internal_cause(error) is None, repr(internal_cause(error))
    assert re.search(case.message, str(error), re.IGNORECASE), str(error)
    if case.line is not None:
        assert f"{case.path}:{case.line} (in {case.name})" in str(error), str(error)


@pytest.mark.parametrize("case", CALLS, ids=str)
def test_ill_typed_call_is_a_clear_error(case: Case) -> None:
    function = frontend.script(case.function)
    arguments = CALLS_MODULE.ARGS.get(case.name, (CALLS_MODULE.F32,))
    with pytest.raises((TypeError, ValueError)) as caught:
        within(TIME_LIMIT, lambda: function(*arguments))
    error = caught.value
    assert internal_cause(error) is None, repr(internal_cause(error))
    assert str(error).startswith(f"{case.name}()"), str(error)
    assert re.search(case.message, str(error), re.IGNORECASE), str(error)
    assert case.line is not None and case.col is not None
    where = f'File "{case.path}", line {case.line}, column {case.col + 1}'
    assert where in str(error), str(error)
