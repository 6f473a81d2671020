"""Makes a failing program smaller while it still fails the same way (greedy delta debugging).

Candidates, biggest cuts first: drop a statement, keep one return value, replace an `if` by
one of its branches or a `for` by one pass of its body, drop unused inputs, shrink input
dims (to 1, or by one), lower the `int` argument, drop planted NaN/inf. The first candidate
that fails like the original replaces it, and the search starts again from it.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Iterator

from fuzzing.executors import Outcome, check_program
from fuzzing.library import Eager
from fuzzing.program import Assign, For, If, Program, Statement, copy_body

Check = Callable[[Program], Outcome]


def shrink(
    program: Program, lib: Eager, failure: Outcome, budget: int = 150, check: Check | None = None
) -> Program:
    """The smallest variant of `program` found within `budget` runs that fails like `failure`."""
    run = check or (lambda p: check_program(p, lib))
    best = program
    attempts = 0
    progress = True
    while progress and attempts < budget:
        progress = False
        for candidate in candidates(best):
            attempts += 1
            if failure.same_failure(run(candidate)):
                best, progress = candidate, True
                break
            if attempts >= budget:
                break
    return best


def candidates(program: Program) -> Iterator[Program]:
    for body in body_variants(program.body):
        yield dataclasses.replace(program.copy(), body=body)
    if len(program.returns) > 1:
        for name in program.returns:
            yield dataclasses.replace(program.copy(), returns=[name])
    names = assigned_names(program.body)
    positions = [names.index(r) for r in program.returns if r in names]
    for name in names[: min(positions, default=0)]:  # an earlier value: cuts what follows
        yield dataclasses.replace(program.copy(), returns=[name])
    yield from _input_variants(program)


def body_variants(body: list[Statement]) -> Iterator[list[Statement]]:
    """Copies of `body` with one simplification each (also inside `if` and `for`)."""
    for index in reversed(range(len(body))):
        yield _copy(body[:index]) + _copy(body[index + 1 :])
    for index, stmt in enumerate(body):
        before, after = _copy(body[:index]), _copy(body[index + 1 :])
        if isinstance(stmt, If):
            yield before + _copy(stmt.then) + after
            yield before + _copy(stmt.orelse) + after
            for then in body_variants(stmt.then):
                yield [*before, If(stmt.cond, then, _copy(stmt.orelse)), *after]
            for orelse in body_variants(stmt.orelse):
                yield [*before, If(stmt.cond, _copy(stmt.then), orelse), *after]
        elif isinstance(stmt, For):
            first = "0" if stmt.iterable.startswith("range(") else f"{stmt.iterable}[0]"
            yield [*before, Assign(stmt.var, first), *_copy(stmt.body), *after]
            for inner in body_variants(stmt.body):
                yield [*before, For(stmt.var, stmt.iterable, inner), *after]


def assigned_names(body: list[Statement]) -> list[str]:
    """The names the top-level statements assign, in order."""
    return [t.strip() for s in body if isinstance(s, Assign) for t in s.target.split(",")]


def _input_variants(program: Program) -> Iterator[Program]:
    source = program.source().split(":", 1)[1]  # the body, not the parameter list
    for index, tensor in enumerate(program.tensors):
        if not re.search(rf"\b{tensor.name}\b", source):
            yield _with_tensors(program, program.tensors[:index] + program.tensors[index + 1 :])
    for index, tensor in enumerate(program.tensors):
        for axis, size in enumerate(tensor.shape):
            for smaller in sorted({1, size - 1} - {0}):
                if smaller < size:
                    shape = tensor.shape[:axis] + (smaller,) + tensor.shape[axis + 1 :]
                    yield _replace_tensor(program, index, shape=shape)
        if tensor.special:
            yield _replace_tensor(program, index, special=False)
    for index, value in enumerate(program.ints):
        if value.value > 0:
            ints = list(program.ints)
            ints[index] = dataclasses.replace(value, value=value.value - 1)
            yield dataclasses.replace(program.copy(), ints=ints)


def _replace_tensor(program: Program, index: int, **changes: object) -> Program:
    tensors = list(program.tensors)
    tensors[index] = dataclasses.replace(tensors[index], **changes)  # type: ignore[arg-type]
    return _with_tensors(program, tensors)


def _with_tensors(program: Program, tensors: list) -> Program:  # type: ignore[type-arg]
    return dataclasses.replace(program.copy(), tensors=tensors)


def _copy(body: list[Statement]) -> list[Statement]:
    return copy_body(body)
