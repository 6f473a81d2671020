"""Runs a program three ways (reference, compiled, torch-IR interpreter) and judges the results.

Outcome kinds:
- `ok`: the compiled results match the reference (and the interpreter's do too);
- `invalid`: the reference itself fails (the program is not a test: shrinking made it so);
- `rejected`: tsjit refuses the program with a clear error (ScriptError, TypeError,
  ValueError, NotImplementedError) that no internal error caused;
- `unlocated`: such a clear error that does not show the source line it is about;
- `crash`: any other exception from tsjit (AttributeError, KeyError, a numba typing error,
  a pass that fails on an internal error...);
- `mismatch`: compiled results differ from the reference beyond the dtype's tolerance, or
  the compiled call changed its arguments;
- `interpreter-mismatch`: the compiled code agrees but the interpreter (the ops' eager
  references run over the torch IR) does not;
- `unstable`: a mismatch that also appears between the reference and the reference on
  inputs perturbed by a few ulp (the program is ill-conditioned, not miscompiled);

A mismatch's detail says whether the interpreter agrees and whether the program compiled for
its exact input shapes, with its `int` arguments as constants, is right (then the general
code missed a `?` dim that is 1 at run time: `frontend/run/shape_guard.py`'s business).
"""

from __future__ import annotations

import dataclasses
import re
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np

from fuzzing.library import Eager, load_function
from fuzzing.program import Program

TOLERANCES = {"float32": (2e-4, 2e-5), "float64": (1e-9, 1e-12), "float16": (2e-2, 1e-3)}
CLEAR_ERRORS = ("ScriptError", "TypeError", "ValueError", "NotImplementedError", "ShapeError")
INTERNAL_ERRORS = (
    AttributeError, KeyError, IndexError, AssertionError, NameError, RecursionError,
    ZeroDivisionError, UnboundLocalError,
)  # fmt: skip


@dataclass(frozen=True)
class Outcome:
    kind: str
    detail: str = ""

    @property
    def failed(self) -> bool:
        return self.kind in ("crash", "mismatch", "interpreter-mismatch", "unlocated")

    def same_failure(self, other: Outcome) -> bool:
        """Whether `other` is the same bug (for shrinking): same kind and error type."""
        if self.kind != other.kind:
            return False
        if self.kind == "crash":
            return self.detail.split(":")[0] == other.detail.split(":")[0]
        return True


def run_reference(program: Program, lib: Eager) -> Any:
    fn = load_function(program, lib)
    args = [lib.tensor(a) if isinstance(a, np.ndarray) else a for a in program.arguments()]
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return lib.to_numpy(fn(*args))


def run_tsjit(program: Program, lib: Eager, backend: str = "compiled") -> tuple[Any, list[Any]]:
    """(results, the arguments after the call) of the scripted program."""
    import frontend

    fn = frontend.script(load_function(program, lib), backend=backend)
    args = program.arguments()
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return fn(*args), args


def check_program(program: Program, lib: Eager, interpreter: bool = True) -> Outcome:
    """Run `program` by the reference and by tsjit; see the module docstring for the kinds."""
    try:
        expected = run_reference(program, lib)
    except Exception as err:
        return Outcome("invalid", describe_error(err))
    try:
        actual, args_after = run_tsjit(program, lib)
    except Exception as err:
        kind = classify_error(err)
        return Outcome("unlocated" if kind == "rejected" and not is_located(err) else kind,
                       describe_error(err))  # fmt: skip
    relaxed = float32_involved(program)
    problem = difference(expected, actual, relaxed) or changed_arguments(program, args_after)
    if problem is not None:
        if is_unstable(program, lib, expected):
            return Outcome("unstable", problem)
        notes = interpreter_note(program, lib, expected) + exact_note(program, lib, expected)
        return Outcome("mismatch", problem + notes)
    if interpreter:
        try:
            interpreted, _ = run_tsjit(program, lib, backend="interpreter")
        except Exception as err:
            return Outcome("interpreter-mismatch", "interpreter failed: " + describe_error(err))
        problem = difference(expected, interpreted, relaxed)
        if problem is not None:
            return Outcome("interpreter-mismatch", problem)
    return Outcome("ok")


def interpreter_note(program: Program, lib: Eager, expected: Any) -> str:
    try:
        interpreted, _ = run_tsjit(program, lib, backend="interpreter")
    except Exception as err:
        return f"\ninterpreter: fails too ({describe_error(err)})"
    problem = difference(expected, interpreted, float32_involved(program))
    return (
        "\ninterpreter: agrees with the reference"
        if problem is None
        else f"\ninterpreter: {problem}"
    )


def is_unstable(program: Program, lib: Eager, expected: Any) -> bool:
    """Whether a few-ulp change of the float inputs changes the reference as much."""
    from fuzzing.program import TensorInput

    class Nudged(TensorInput):
        def value(self) -> np.ndarray:
            base = super().value()
            if base.dtype.kind != "f":
                return base
            rng = np.random.default_rng(self.seed + 1)
            return (
                base * (1 + 4 * np.finfo(base.dtype).eps * rng.uniform(-1, 1, base.shape))
            ).astype(base.dtype)

    nudged = program.copy()
    nudged.tensors = [Nudged(t.name, t.shape, t.dtype, t.seed, t.special) for t in program.tensors]
    try:
        again = run_reference(nudged, lib)
    except Exception:
        return True
    return difference(expected, again, float32_involved(program)) is not None


def exact_note(program: Program, lib: Eager, expected: Any) -> str:
    if exact_specialization_agrees(program, lib, expected):
        return "\ncompiled for the exact shapes and int values: agrees with the reference"
    return ""


def exact_specialization_agrees(program: Program, lib: Eager, expected: Any) -> bool:
    """Whether the program compiled for its exact input shapes and `int` values is right."""
    import frontend
    from dialects.torch.dtypes import dtype_of_numpy
    from dialects.torch.types import ValueTensorType
    from frontend.run.arguments import Argument
    from fuzzing.program import Assign

    constants = [Assign(i.name, repr(i.value)) for i in program.ints]
    variant = dataclasses.replace(program.copy(), ints=[])
    variant.body = constants + variant.body
    arrays = variant.arguments()
    try:
        fn = frontend.script(load_function(variant, lib))
        fn.arguments = [  # declared with exact sizes, a call specializes on them
            Argument(a.name, ValueTensorType(list(v.shape), dtype_of_numpy(v.dtype)))
            for a, v in zip(fn.arguments, arrays)
        ]
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            actual = fn(*arrays)
    except Exception:
        return False
    return difference(expected, actual, float32_involved(program)) is None


FLOAT32_SOURCES = re.compile(
    r"float32|\.float\(|_cast_Float|\b(arange|ones|zeros|full|empty|rand\w*|linspace)\("
)


FLOAT_LITERAL = re.compile(r"\d\.\d|\d[eE]-?\d")


def float32_involved(program: Program) -> bool:
    """Whether float32 values may feed the results: float32 inputs, casts, or factories
    (their float default is float32), or a float number with an integer tensor
    (`torch.pow(2.5, x)` of int32 `x` is float32). Then float64 results carry float32
    rounding."""
    source = program.source()
    integers = any(t.dtype.startswith(("int", "uint")) for t in program.tensors)
    return (
        any(t.dtype == "float32" for t in program.tensors)
        or bool(FLOAT32_SOURCES.search(source))
        or (integers and bool(FLOAT_LITERAL.search(source)))
    )


def classify_error(err: BaseException) -> str:
    chain: list[BaseException] = []
    current: BaseException | None = err
    while current is not None and len(chain) < 20:  # explicit causes: how tsjit wraps errors
        chain.append(current)
        current = current.__cause__
    if any(isinstance(e, INTERNAL_ERRORS) for e in chain):
        return "crash"
    if any(type(e).__module__.startswith("numba") for e in chain):
        return "crash"
    if len(chain) > 1 and type(chain[-1]) in (ValueError, RuntimeError, Exception):
        return "crash"  # xDSL's own complaint (a pass built broken IR), not a ShapeError
    return "rejected" if type(err).__name__ in CLEAR_ERRORS else "crash"


def is_located(err: BaseException) -> bool:
    """Whether the message shows a source line (`File "...", line N`, as ScriptError does)."""
    return re.search(r'File ".*", line \d+', str(err)) is not None


def describe_error(err: BaseException) -> str:
    root = err
    while root.__cause__ is not None:
        root = root.__cause__
    text = f"{type(err).__name__}: {str(err).splitlines()[0] if str(err) else ''}"
    if root is not err:
        text += f" (from {type(root).__name__}: {str(root).splitlines()[0] if str(root) else ''})"
    return text


def changed_arguments(program: Program, after: list[Any]) -> str | None:
    for index, (before, now) in enumerate(zip(program.arguments(), after)):
        if isinstance(before, np.ndarray) and not np.array_equal(before, now, equal_nan=True):
            return f"the call changed argument #{index} ({program.parameters()[index]})"
    return None


def difference(expected: Any, actual: Any, relaxed: bool = False) -> str | None:
    """None if `actual` matches `expected` (tuples elementwise), else what differs.

    `relaxed`: float64 results get float32's tolerance (they went through float32 values)."""
    exp = expected if isinstance(expected, tuple) else (expected,)
    act = tuple(actual) if isinstance(actual, tuple | list) else (actual,)
    if len(exp) != len(act):
        return f"{len(act)} results, expected {len(exp)}"
    for index, (e, a) in enumerate(zip(exp, act)):
        problem = value_difference(e, a, relaxed)
        if problem is not None:
            return f"result #{index}: {problem}"
    return None


def value_difference(expected: Any, actual: Any, relaxed: bool = False) -> str | None:
    if not isinstance(expected, np.ndarray):
        if isinstance(actual, np.ndarray | np.generic):
            actual = actual.item() if np.ndim(actual) == 0 else actual
        if type(expected) is not type(actual) or not np.isclose(expected, actual, equal_nan=True):
            return f"{actual!r}, expected {expected!r}"
        return None
    actual = np.asarray(actual)
    if actual.shape != expected.shape or actual.dtype != expected.dtype:
        return (
            f"{actual.dtype}{list(actual.shape)}, expected {expected.dtype}{list(expected.shape)}"
        )
    if expected.dtype.kind not in "fc":
        wrong = actual != expected
    else:
        name = "float32" if relaxed and expected.dtype == np.float64 else expected.dtype.name
        rtol, atol = TOLERANCES.get(name, (0.0, 0.0))
        finite = expected[np.isfinite(expected)]
        scale = 1.0 + (np.abs(finite).max() if finite.size else 0.0)
        wrong = ~np.isclose(actual, expected, rtol=rtol, atol=atol * scale, equal_nan=True)
    if not wrong.any():
        return None
    where = tuple(int(i) for i in np.argwhere(wrong)[0])
    return (
        f"{int(wrong.sum())} of {wrong.size} values differ, first at {list(where)}: "
        f"{actual[where]!r}, expected {expected[where]!r}"
    )
