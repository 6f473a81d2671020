"""Builds random well-typed programs by running each candidate statement eagerly.

A program grows one statement at a time. Each candidate (an op call from a registry template,
an index expression, a scalar, an `if`, a `for`) is executed by the eager library on the
values the program has at that point; it is kept only if it runs, keeps values small, and is
numerically stable: run again on inputs perturbed by 1e-4 (relative), its bool and integer
results must not change and its float results must move by little. So every kept program is
valid for its inputs and its expected results do not hinge on rounding.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np

from dialects.torch.op_base import T
from fuzzing.arguments import ArgumentChooser, render
from fuzzing.library import Eager
from fuzzing.program import Assign, For, If, IntInput, Program, Statement, TensorInput
from fuzzing.templates import BINARY_SYNTAX, UNARY_SYNTAX, Template, registry_templates

Scope = dict[str, Any]
MAX_ELEMENTS = 1024
MAX_MAGNITUDE = 1e4
MAX_INPUTS = 5
PERTURBATION = 1e-4
NOISE_FLOOR = 1e-6  # nonzero values below this (relative to the largest) are rounding noise


class ProgramGenerator:
    """`ProgramGenerator(library, seed).generate()`: one random program."""

    def __init__(
        self, library: Eager, seed: int, templates: list[Template] | None = None,
        statements: tuple[int, int] = (3, 9),
    ) -> None:  # fmt: skip
        self.lib = library
        self.rng = np.random.default_rng(seed)
        self.templates = templates or registry_templates(library.torch, library.functional)
        weights = np.array([1.0 + 1.5 * (t.tensor_slots() - 1) for t in self.templates])
        self.weights = weights / weights.sum()  # ops whose tensors must fit are tried more
        self.arguments = ArgumentChooser(self.rng)
        self.statements = statements
        self.program = Program([], [])
        self.special = False
        self.fresh_call = False
        self.counter = 0

    # ---- the program ----

    def generate(self) -> Program:
        rng = self.rng
        self.special = rng.random() < 0.05
        scope: Scope = {}
        self._new_input(scope, self._random_shape(), self._random_dtype())
        if rng.random() < 0.5:
            value = int(rng.choice([1, 1, 2, 3, 4]))
            self.program.ints.append(IntInput("n", value))
            scope["n"] = value
        assigned: list[str] = []
        for _ in range(int(rng.integers(*self.statements))):
            stmt = self.statement(scope, depth=0)
            if stmt is not None:
                self.program.body.append(stmt)
                assigned += [n for n in _targets(stmt) if self._is_tensor_name(scope, n)]
        self.program.returns = self._returns(scope, assigned)
        return self.program

    def _returns(self, scope: Scope, assigned: list[str]) -> list[str]:
        tensors = [n for n in scope if self.lib.is_tensor(scope[n])]
        last = assigned[-1:] or tensors[:1]
        others = [n for n in tensors if n not in last]
        extra = [str(n) for n in self.rng.permutation(others)[: int(self.rng.integers(0, 3))]]
        return last + extra

    def statement(self, scope: Scope, depth: int) -> Statement | None:
        """One new statement executed into `scope`, or None when no candidate worked."""
        kinds: list[tuple[float, Callable[[Scope, int], Statement | None]]] = [
            (0.62, lambda s, d: self.call_statement(s)),
            (0.10, lambda s, d: self.index_statement(s)),
            (0.06, lambda s, d: self.scalar_statement(s)),
            (0.12 if depth < 2 else 0.0, self.if_statement),
            (0.10 if depth < 2 else 0.0, self.for_statement),
        ]
        weights = np.array([w for w, _ in kinds])
        for _ in range(20):
            make = kinds[int(self.rng.choice(len(kinds), p=weights / weights.sum()))][1]
            mark = len(self.program.tensors)
            stmt = make(scope, depth)
            if stmt is not None:
                return stmt
            self._forget_inputs(mark, scope)
        return None

    # ---- op calls ----

    def call_statement(
        self, scope: Scope, target: str | None = None, like: Any = None
    ) -> Assign | None:
        """`v = <op call>`; with `like`: `target = ...` with `like`'s shape and dtype."""
        prefer = target if like is not None and target in scope else None
        for _ in range(12 if like is None else 40):
            template = self.templates[int(self.rng.choice(len(self.templates), p=self.weights))]
            mark = len(self.program.tensors)
            expr = self._call_expression(template, scope, prefer)
            stmt = None if expr is None else self._assign(scope, expr, target, like)
            if stmt is not None:
                return stmt
            self._forget_inputs(mark, scope)
        return None

    def _call_expression(self, template: Template, scope: Scope, prefer: str | None) -> str | None:
        sample = template.samples[int(self.rng.integers(len(template.samples)))]
        self.fresh_call = self.rng.random() < 0.25  # ops whose tensors must fit each other
        names = [a.name for a in template.schema.arguments]
        dims: dict[int, int] = {}
        pieces: dict[str, str] = {}
        first_shape: tuple[int, ...] | None = None
        bound = dict(zip(names, sample.args)) | dict(sample.kwargs)
        for name, value in bound.items():
            if isinstance(value, T):
                pieces[name], shape = self._tensor_slot(value, dims, scope, prefer)
                prefer = None
                first_shape = shape if first_shape is None else first_shape
            elif isinstance(value, list) and value and all(isinstance(v, T) for v in value):
                texts = [self._tensor_slot(v, dims, scope, None)[0] for v in value]
                pieces[name] = "[" + ", ".join(texts) + "]"
        scalars = {n: v for n, v in scope.items() if type(v) is int}
        for arg in template.schema.arguments:
            if arg.name in bound and arg.name not in pieces:
                value = bound[arg.name]
                seen = template.values_for(arg.name) or [value]
                pieces[arg.name] = (
                    "None" if value is None
                    else render(_renamed_sizes(value, dims)) if _is_sample_sizes(arg, value, dims)
                    else self.arguments.choose(arg, seen, first_shape, scalars).text
                )  # fmt: skip
        positional = [pieces[n] for n in names[: len(sample.args)]]
        keywords = [f"{k}={pieces[k]}" for k in sample.kwargs]
        spelling = template.spellings[int(self.rng.integers(len(template.spellings)))]
        return spell(spelling, positional, keywords, first_is_tensor=_is_tensor_arg(sample))

    def _tensor_slot(
        self, sample: T, dims: dict[int, int], scope: Scope, prefer: str | None
    ) -> tuple[str, tuple[int, ...]]:
        """A tensor for a sample tensor slot: `prefer`, a variable, or a new input.

        Sample dims are renamed consistently (a sample's 4 in `[3,4] @ [4,5]` becomes the
        chosen variable's size), so new inputs fit the variables already chosen.
        """
        if prefer is not None:
            return prefer, self._align(scope[prefer], sample, dims)
        pool = self._pool(scope, sample)
        chance = 0.9 if dims and self.fresh_call else 0.15  # `fresh_call`: later slots are new
        new_input = len(self.program.tensors) < MAX_INPUTS and self.rng.random() < chance
        if pool and not new_input:
            name = str(pool[int(self.rng.integers(len(pool)))])
            return name, self._align(scope[name], sample, dims)
        shape = tuple(self._renamed(d, dims) for d in sample.shape)
        name = self._new_input(scope, shape, sample.dtype, (sample.low, sample.high))
        return name, shape

    def _pool(self, scope: Scope, sample: T) -> list[str]:
        """Variables for a sample tensor: mostly of its dtype, often of its rank."""
        pool = [n for n, v in scope.items() if self.lib.is_tensor(v)]
        for keep, chance in (
            (lambda n: str(scope[n].dtype).endswith(sample.dtype), 0.8),
            (lambda n: scope[n].dim() == len(sample.shape), 0.6),
        ):
            narrowed = [n for n in pool if keep(n)]
            if narrowed and self.rng.random() < chance:
                pool = narrowed
        return pool

    def _align(self, value: Any, sample: T, dims: dict[int, int]) -> tuple[int, ...]:
        shape = tuple(value.shape)
        for mine, theirs in zip(reversed(shape), reversed(sample.shape)):
            if theirs != 1:
                dims.setdefault(theirs, mine)
        return shape

    def _renamed(self, dim: int, dims: dict[int, int]) -> int:
        if dim == 1:
            return 1
        if dim not in dims:
            dims[dim] = dim if self.rng.random() < 0.5 else int(self.rng.integers(1, 6))
        return dims[dim] if self.rng.random() > 0.1 else 1

    # ---- indexing and scalars ----

    def index_statement(self, scope: Scope) -> Assign | None:
        tensors = [n for n, v in scope.items() if self.lib.is_tensor(v) and v.dim() > 0]
        if not tensors:
            return None
        name = str(self.rng.choice(tensors))
        shape = tuple(scope[name].shape)
        count = int(self.rng.integers(1, len(shape) + 1))
        parts = [self._index_part(size, scope) for size in shape[:count]]
        if count < len(shape) and self.rng.random() < 0.3:
            parts = ["...", *parts[1:]] if len(parts) > 1 else ["...", parts[0]]
        return self._assign(scope, f"{name}[{', '.join(parts)}]", None, None)

    def _index_part(self, size: int, scope: Scope) -> str:
        rng = self.rng
        ints = [n for n, v in scope.items() if type(v) is int]
        choice = rng.random()
        if choice < 0.25 and size > 0:
            return str(int(rng.integers(-size, size)))
        if choice < 0.4 and ints:
            name = str(rng.choice(ints))
            return str(rng.choice([name, f":{name}", f"{name}:", f"{name}:{name} + 1"]))
        if choice < 0.55:
            return ":"
        start, stop = sorted(int(v) for v in rng.integers(-size, size + 1, 2))
        step = "" if rng.random() < 0.7 else f":{int(rng.integers(1, 3))}"
        return f"{start if rng.random() < 0.8 else ''}:{stop if rng.random() < 0.8 else ''}{step}"

    def scalar_statement(self, scope: Scope) -> Assign | None:
        rng = self.rng
        tensors = [n for n, v in scope.items() if self.lib.is_tensor(v) and v.dim() > 0]
        ints = [n for n, v in scope.items() if type(v) is int]
        options = []
        if tensors:
            t = str(rng.choice(tensors))
            d = int(rng.integers(scope[t].dim()))
            options += [f"{t}.shape[{d}]", f"{t}.size({d - scope[t].dim()})", f"len({t})"]
        if ints:
            i = str(rng.choice(ints))
            options += [f"{i} + {int(rng.integers(1, 3))}", f"{i} * 2", f"{i} - 1"]
        if not options:
            return None
        return self._assign(scope, str(rng.choice(options)), None, None)

    # ---- control flow ----

    def if_statement(self, scope: Scope, depth: int) -> If | None:
        cond = self._condition(scope)
        if cond is None:
            return None
        then_scope = dict(scope)
        then = self._block(then_scope, depth + 1, int(self.rng.integers(1, 3)))
        if not then or not isinstance(then[-1], Assign):
            return None
        target = _targets(then[-1])[-1]
        if not self._is_tensor_name(then_scope, target):
            return None
        if target in scope:  # reassigning a variable: the other branch may keep it as is
            orelse = []
        else:
            else_scope = dict(scope)
            orelse = self._block(else_scope, depth + 1, int(self.rng.integers(0, 2)))
            last = self.call_statement(else_scope, target, then_scope[target])
            orelse = [*orelse, last] if last is not None else then
        stmt = If(cond, then, orelse)
        return stmt if self._execute_compound(stmt, scope, [target]) else None

    def _condition(self, scope: Scope) -> str | None:
        """A condition whose value has a margin: rounding cannot flip it."""
        rng = self.rng
        tensors = [n for n, v in scope.items() if self.lib.is_tensor(v) and v.numel() > 0]
        ints = [n for n, v in scope.items() if type(v) is int]
        if ints and (not tensors or rng.random() < 0.3):
            name = str(rng.choice(ints))
            op = str(rng.choice([">", "<", ">=", "<=", "==", "!="]))
            return f"{name} {op} {scope[name] + int(rng.integers(-1, 2))}"
        if not tensors:
            return None
        name = str(rng.choice(tensors))
        value = scope[name]
        if value.dtype == self.lib.torch.bool:
            return f"{name}.{rng.choice(['any', 'all'])}()"
        reduce = str(
            rng.choice(["sum", "max", "min"] + (["mean"] if value.is_floating_point() else []))
        )
        actual = float(getattr(value, reduce)())
        if not np.isfinite(actual):
            return None
        margin = 0.1 + 0.3 * abs(actual) * rng.random()
        if not value.is_floating_point():
            margin = max(1, round(margin))
        offset = margin if rng.random() < 0.5 else -margin
        bound = round(actual + offset, 3) if value.is_floating_point() else int(actual + offset)
        return f"{name}.{reduce}() {rng.choice(['>', '<'])} {bound}"

    def for_statement(self, scope: Scope, depth: int) -> For | None:
        rng = self.rng
        tensors = [n for n, v in scope.items() if self.lib.is_tensor(v) and v.numel() > 0]
        if not tensors:
            return None
        carried = str(rng.choice(tensors))
        var, iterable, first = self._loop_header(scope)
        body_scope = dict(scope)
        body_scope[var] = first
        body = self._block(body_scope, depth + 1, int(rng.integers(0, 2)))
        update = self.call_statement(body_scope, carried, scope[carried])
        if update is None:
            return None
        stmt = For(var, iterable, [*body, update])
        return stmt if self._execute_compound(stmt, scope, [carried]) else None

    def _loop_header(self, scope: Scope) -> tuple[str, str, Any]:
        rng = self.rng
        var = self._fresh("i")
        rows = [
            n for n, v in scope.items() if self.lib.is_tensor(v) and v.dim() > 0 and 0 < len(v) <= 5
        ]
        ints = [n for n, v in scope.items() if type(v) is int and 0 <= v <= 5]
        choice = rng.random()
        if choice < 0.25 and rows:
            name = str(rng.choice(rows))
            return var, name, scope[name][0]
        if choice < 0.6 and ints:
            return var, f"range({rng.choice(ints)})", 0
        count = int(rng.integers(0, 4))
        return var, f"range({count})", 0

    def _block(self, scope: Scope, depth: int, count: int) -> list[Statement]:
        body = []
        for _ in range(count):
            stmt = self.statement(scope, depth)
            if stmt is not None:
                body.append(stmt)
        return body

    # ---- running candidates ----

    def _assign(self, scope: Scope, expr: str, target: str | None, like: Any) -> Assign | None:
        """`target = expr` (fresh names, unpacking tuples and lists of tensors) if it checks out."""
        probe = run_statement(self.lib, f"__value = {expr}", scope)
        if probe is None:
            return None
        value = probe["__value"]
        if like is not None and not self._same_type(value, like):
            return None
        if isinstance(value, tuple | list):
            if not 1 <= len(value) <= 4 or not all(self.lib.is_tensor(v) for v in value):
                return None
            names = ", ".join(self._fresh("v") for _ in value)
        else:
            names = target or self._fresh("s" if isinstance(value, int | float) else "v")
        stmt = Assign(names, expr)
        after = run_statement(self.lib, f"{names} = {expr}", scope)
        if after is None or not self._acceptable(after, _targets(stmt)):
            return None
        if not self._stable(stmt, scope, after):
            return None
        scope.update({n: after[n] for n in _targets(stmt)})
        return stmt

    def _execute_compound(self, stmt: If | For, scope: Scope, keep: list[str]) -> bool:
        after = run_statement(self.lib, "\n".join(stmt.lines("")), scope)
        if after is None or not self._acceptable(after, keep):
            return False
        scope.update({n: after[n] for n in [*scope, *keep]})  # also what nested loops carried
        for tensor in self.program.tensors:  # inputs that the nested statements added
            scope.setdefault(tensor.name, self.lib.tensor(tensor.value()))
        return True

    def _acceptable(self, values: Scope, names: list[str]) -> bool:
        for name in names:
            value = values[name]
            if isinstance(value, bool):
                return False  # Python bools only appear in conditions
            if isinstance(value, int | float):
                if not np.isfinite(value) or abs(value) > MAX_MAGNITUDE:
                    return False
                continue
            if not self.lib.is_tensor(value) or value.numel() > MAX_ELEMENTS or value.dim() > 5:
                return False
            if not self._small(self.lib.to_numpy(value)):
                return False
        return True

    def _small(self, array: np.ndarray) -> bool:
        if array.dtype.kind not in "fiu":
            return True
        values = array.astype(np.float64)
        finite = values[np.isfinite(values)]
        if finite.size and np.abs(finite).max() > MAX_MAGNITUDE:
            return False
        if array.dtype.kind == "f" and _has_rounding_noise(finite):
            return False
        return self.special or finite.size == values.size or self.rng.random() < 0.2

    def _stable(self, stmt: Assign, scope: Scope, after: Scope) -> bool:
        used = set(re.findall(r"[A-Za-z_]\w*", stmt.expr)) & scope.keys()
        floats = [n for n in used if _is_float(self.lib, scope[n])]
        if not floats:
            return True
        perturbed = dict(scope)
        for n in floats:
            perturbed[n] = self._perturb(scope[n])
        again = run_statement(self.lib, f"{stmt.target} = {stmt.expr}", perturbed)
        if again is None:
            return False
        return all(
            close_under_perturbation(self.lib.to_numpy(after[n]), self.lib.to_numpy(again[n]))
            for n in _targets(stmt)
        )

    def _perturb(self, value: Any) -> Any:
        if isinstance(value, float):
            return value * (1 + PERTURBATION * self.rng.uniform(-1, 1))
        array = self.lib.to_numpy(value)
        noise = 1 + PERTURBATION * self.rng.uniform(-1, 1, array.shape)
        return self.lib.tensor((array * noise).astype(array.dtype))

    # ---- helpers ----

    def _same_type(self, value: Any, like: Any) -> bool:
        return (
            self.lib.is_tensor(value)
            and tuple(value.shape) == tuple(like.shape)
            and value.dtype == like.dtype
        )

    def _is_tensor_name(self, scope: Scope, name: str) -> bool:
        return self.lib.is_tensor(scope.get(name))

    def _fresh(self, prefix: str) -> str:
        self.counter += 1
        return f"{prefix}{self.counter}"

    def _forget_inputs(self, mark: int, scope: Scope) -> None:
        """Drop the inputs that a failed candidate added."""
        for tensor in self.program.tensors[mark:]:
            scope.pop(tensor.name, None)
        del self.program.tensors[mark:]

    def _new_input(
        self, scope: Scope, shape: tuple[int, ...], dtype: str,
        bounds: tuple[float, float] = (-2.0, 2.0),
    ) -> str:  # fmt: skip
        name = f"x{len(self.program.tensors)}"
        special = self.special and dtype.startswith("float")
        seed = int(self.rng.integers(2**31))
        tensor = TensorInput(name, tuple(shape), dtype, seed, special, *bounds)
        self.program.tensors.append(tensor)
        scope[name] = self.lib.tensor(tensor.value())
        return name

    def _random_shape(self) -> tuple[int, ...]:
        rank = int(self.rng.choice([0, 1, 2, 2, 3, 3, 4]))
        return tuple(int(self.rng.choice([1, 2, 3, 4, 5])) for _ in range(rank))

    def _random_dtype(self) -> str:
        return str(self.rng.choice(["float32"] * 6 + ["float64", "int64", "int32", "bool"]))


def spell(
    spelling: str, positional: list[str], keywords: list[str], first_is_tensor: bool
) -> str | None:
    """The call written with `spelling`: `torch.f(...)`, `F.f(...)`, `a.f(...)`, `a + b`."""
    prefix, _, name = spelling.partition(".")
    arguments = ", ".join(positional + keywords)
    if prefix in ("torch", "F"):
        return f"{prefix}.{name}({arguments})"
    if prefix == "Tensor":
        if not positional or not first_is_tensor:
            return None
        return f"{positional[0]}.{name}({', '.join(positional[1:] + keywords)})"
    if keywords:
        return None
    operands = [f"({p})" if p.startswith("-") else p for p in positional]
    if len(operands) == 2 and name in BINARY_SYNTAX:
        return f"{operands[0]} {BINARY_SYNTAX[name]} {operands[1]}"
    if len(operands) == 1 and name in UNARY_SYNTAX:
        symbol = UNARY_SYNTAX[name]
        return f"{symbol}({operands[0]})" if symbol.isalpha() else f"{symbol}{operands[0]}"
    return None


def run_statement(lib: Eager, source: str, scope: Scope) -> Scope | None:
    """The variables after running `source` on a copy of `scope`, or None if it fails."""
    local = dict(scope)
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"), warn_always(lib):
            warnings.simplefilter("error")
            exec(source, lib.namespace(), local)
    except Exception:
        return None
    return local


@contextmanager
def warn_always(lib: Eager) -> Iterator[None]:
    """PyTorch's once-per-process warnings (torch.meshgrid's) warn on every call meanwhile, so
    a candidate that warns is rejected in every program, not only the first that tries it."""
    set_always = getattr(lib.torch, "set_warn_always", None)
    if set_always is None:
        yield
        return
    before = lib.torch.is_warn_always_enabled()
    set_always(True)
    try:
        yield
    finally:
        set_always(before)


def close_under_perturbation(a: Any, b: Any) -> bool:
    """Whether a result moved little when its inputs moved by `PERTURBATION`."""
    if isinstance(a, tuple):
        return all(close_under_perturbation(x, y) for x, y in zip(a, b))
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if a.dtype.kind not in "fc":
        return bool(np.array_equal(a, b))
    scale = 1.0 + np.abs(a[np.isfinite(a)]).max(initial=0.0)
    return bool(
        np.allclose(a, b, rtol=100 * PERTURBATION, atol=100 * PERTURBATION * scale, equal_nan=True)
    )


def _is_sample_sizes(arg: Any, value: Any, dims: dict[int, int]) -> bool:
    """An `int[]` of sizes taken from the sample's tensors (`layer_norm`'s normalized_shape):
    it follows the renamed dims. Dims, sizes and repeats have rules of their own."""
    return (
        arg.type == "int[]"
        and arg.name not in ("dim", "dims", "size", "shape", "repeats")
        and isinstance(value, list)
        and bool(value)
        and all(isinstance(v, int) and v in dims for v in value)
    )


def _renamed_sizes(value: list[int], dims: dict[int, int]) -> list[int]:
    return [dims[v] for v in value]


def _is_tensor_arg(sample: Any) -> bool:
    return bool(sample.args) and isinstance(sample.args[0], T)


def _has_rounding_noise(finite: np.ndarray) -> bool:
    """Whether some value is nonzero but tiny next to the others: the rounding left over
    where exact arithmetic gives 0 (`torch.arange(-1.5, 1, 0.1)[15]` is 2.2e-16, or 0 in
    torch's vectorized float32 loop). Its sign decides later comparisons (`v <= 0`), and a
    relative perturbation of the inputs does not move it across 0: not a stable test."""
    if not finite.size:
        return False
    magnitude = np.abs(finite)
    tiny = (magnitude > 0) & (magnitude < NOISE_FLOOR * (1.0 + magnitude.max()))
    return bool(tiny.any())


def _is_float(lib: Eager, value: Any) -> bool:
    if isinstance(value, float):
        return True
    return lib.is_tensor(value) and value.is_floating_point()


def _targets(stmt: Statement) -> list[str]:
    if isinstance(stmt, Assign):
        return [t.strip() for t in stmt.target.split(",")]
    return []
