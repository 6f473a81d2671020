"""`ScriptFunction`: a scripted function's graph, its IR at every stage, and compiled calls."""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from typing import Any

from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Attribute

from frontend.run.arguments import (
    Argument,
    caller_kind,
    describe,
    prepare,
    spec_of,
    to_array,
    to_caller_kind,
)
from frontend.run.fast_call import MISS, FastCalls
from frontend.run.python_binding import binder_for, python_call_error
from frontend.run.shape_guard import ShapeGuard, exact_signature_text
from frontend.script.calls import CompiledFunction
from frontend.trace.calls import NOT_RECORDED, record_compiled_call, tracing_active
from lowering.pipeline import PipelineError, Stage, lower
from lowering.signature import format_signature, parse_signature

Signature = tuple[Attribute, ...]


class CompiledCall:
    """One specialization: the generated source and the numba dispatcher."""

    def __init__(self, source: str, kernel: Callable[..., Any]) -> None:
        self.source = source
        self.kernel = kernel


class ScriptFunction(CompiledFunction):
    """A function captured as torch IR; compiled once per argument signature on call."""

    def __init__(
        self, module: ModuleOp, name: str, python_fn: Callable[..., Any] | None = None
    ) -> None:
        self.module = module
        self.name = name
        self.python_fn = python_fn
        entry = self._entry()
        self.arguments = [
            Argument(a.name_hint or f"arg{i}", a.type) for i, a in enumerate(entry.body.block.args)
        ]
        self._compiled: dict[Signature, CompiledCall] = {}
        self._open_types: set[Signature] = set()  # signatures whose ranks depend on sizes
        # calls the general code would get wrong
        self._shape_guard = ShapeGuard(self, ScriptFunction)
        self._last_signature: Signature | None = None
        self._lock = threading.Lock()
        self.variants: Any = None  # frontend.run.variants.Variants for structured arguments
        self.backend = "compiled"  # or "interpreter": run the torch IR with the eager references
        self.result_structure: Any = None  # nested tuples of the results (None: as returned)
        self.steps: Any = None  # (steps, entry arguments) when calls stay in Python
        self._fast_calls = FastCalls()  # exact argument keys already checked -> kernel

    def _entry(self) -> func.FuncOp:
        for op in self.module.ops:
            if isinstance(op, func.FuncOp) and op.sym_name.data == self.name:
                return op
        raise ValueError(f"no function @{self.name} in the module")

    # ---- inspection ----

    @property
    def graph(self) -> str:
        """The captured torch-dialect IR (stage `torch`), like TorchScript's `.graph`."""
        return str(self.module)

    def default_signature(self) -> Signature:
        """The last called signature, else float32 rank-1 tensors of unknown size."""
        if self._last_signature is not None:
            return self._last_signature
        text = ",".join(_default_spec(a.type) for a in self.arguments)
        return tuple(parse_signature(text))

    def ir(self, stage: Stage | str = Stage.TORCH, signature: str | None = None) -> str:
        """The program at `stage` (torch, torch-opt, linalg, memref, loops, python)."""
        target = Stage.parse(stage)
        sig = self._signature_text(signature)
        if target == Stage.TORCH:
            return self.graph
        if target == Stage.PYTHON:
            return self._python_source(sig)
        return str(lower(self.module, target, sig))

    @property
    def code(self) -> str:
        """The generated Python (numba) source for the current signature."""
        return self.ir(Stage.PYTHON)

    def _signature_text(self, signature: str | None) -> str:
        return (
            signature if signature is not None else format_signature(list(self.default_signature()))
        )

    def _python_source(self, signature: str) -> str:
        from lowering.python_target import emit_python

        return emit_python(lower(self.module, Stage.LOOPS, signature))

    # ---- calls ----

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if tracing_active() and not kwargs:  # called inside a trace: record a func.call
            recorded = record_compiled_call(self, args)
            if recorded is not NOT_RECORDED:
                return recorded
        if not kwargs and self._is_plain_compiled():
            result = self._fast_calls.call(args)
            if result is not MISS:
                return result
        if self.variants is not None:
            return self.variants(args, kwargs)
        if kwargs:
            args = bind_keywords(self, args, kwargs)
        if len(args) != len(self.arguments):
            raise self.arity_error(args)
        converted = [to_array(a) for a in args]
        values = [v for v, _ in converted]
        kind = caller_kind([k for _, k in converted])
        signature = tuple(spec_of(self.name, a, v) for a, v in zip(self.arguments, values))
        if self.steps is not None:  # calls left in Python: compiled segments around them
            from frontend.run.python_calls import run_steps

            result = run_steps(self.steps[0], self.steps[1], values, kind, ScriptFunction)
        elif self.backend == "interpreter":
            from dialects.torch.interpreter import run_torch_ir

            result = run_torch_ir(self.module, self.name, [prepare(v) for v in values])
        else:
            result = self._run_compiled(args, signature, values)
        if self.result_structure is not None:
            from frontend.script.control import regroup_tuples

            results = list(result) if isinstance(result, tuple | list) else [result]
            result = regroup_tuples(results, self.result_structure)
        return to_caller_kind(result, kind)

    def arity_error(self, args: tuple[Any, ...]) -> TypeError:
        """Python's error for a call with the wrong number of arguments (the Python function's
        own message where it is known)."""
        error = None if self.python_fn is None else python_call_error(self.python_fn, args)
        if error is not None:
            return error
        count = len(self.arguments)
        return TypeError(
            f"{self.name}() takes {count} argument{'s' if count != 1 else ''} "
            f"but {len(args)} were given"
        )

    def _run_compiled(self, args: tuple[Any, ...], signature: Signature, values: list[Any]) -> Any:
        if signature in self._compiled:
            return self._run(args, signature, values)
        from lowering.run.jit import young_collections_only

        with young_collections_only():  # compile, and numba compiles or loads the kernels
            return self._run(args, signature, values)

    def _run(self, args: tuple[Any, ...], signature: Signature, values: list[Any]) -> Any:
        compiled = self._compiled.get(signature) or self._compile_general(signature, values)
        exact = self._shape_guard.check(signature, values)
        if exact is not None:  # the general code would be wrong for these shapes or ints
            compiled = exact.compiled()
        if self._shape_guard.fast_path_safe(signature):
            self._fast_calls.remember(args, compiled.kernel)
        return compiled.kernel(*[prepare(v) for v in values])

    def _is_plain_compiled(self) -> bool:
        """Calls go straight to one compiled kernel (the fast path applies)."""
        return (
            self.variants is None
            and self.steps is None
            and self.backend == "compiled"
            and self.result_structure is None
        )

    def _compile_general(self, signature: Signature, values: list[Any]) -> CompiledCall:
        """The code for `signature`; where its types leave a rank open (`OpenTypeError`: it
        depends on the sizes), the code for the call's exact shapes."""
        from lowering.contracts import OpenTypeError

        if signature not in self._open_types:
            try:
                return self._compile(signature)
            except OpenTypeError:
                self._open_types.add(signature)
        exact = tuple(parse_signature(exact_signature_text(signature, values)))
        return self._compiled.get(exact) or self._compile(exact)

    def _compile(self, signature: Signature) -> CompiledCall:
        from lowering.run.program_cache import compile_program, program_parts

        with self._lock:
            if signature in self._compiled:
                return self._compiled[signature]
            text = format_signature(list(signature))
            try:  # the text made for this program and signature before, else lowered now
                source, kernel = compile_program(
                    program_parts(self.module, self.name, text),
                    lambda: self._python_source(text),
                    self.name,
                )
            except PipelineError as err:
                from frontend.script.error_location import with_location

                message = (
                    f"{self.name}() cannot run with ({describe(self.arguments, list(signature))}): "
                    f"{_first_line(err)}"
                )
                raise TypeError(with_location(self, message, text)) from err
            compiled = CompiledCall(source, kernel)
            self._compiled[signature] = compiled
            self._last_signature = signature
            return compiled

    def save(self, path: Any) -> None:
        """Write the program to one file (`frontend.load` reads it back, without the source)."""
        from frontend.serialization import save

        save(self, path)

    def __repr__(self) -> str:
        return f"<tsjit.ScriptFunction {self.name}>"


def bind_keywords(
    fn: ScriptFunction, args: tuple[Any, ...], kwargs: dict[str, Any], method: bool = False
) -> tuple[Any, ...]:
    """Positional arguments for a call with keywords, bound like the Python function (and
    refused with Python's message for the same call)."""
    if fn.python_fn is None:
        raise TypeError(f"{fn.name}() takes no keyword arguments")
    return binder_for(fn.python_fn, method).positional(args, kwargs)


def python_name(symbol: str) -> str:
    """The generated function's name for an IR symbol (`@MyCell.forward` -> `MyCell_forward`)."""
    return re.sub(r"\W", "_", symbol)


def _default_spec(t: Attribute) -> str:
    """A tensor whose type is fully known (a module's weight) keeps it; other tensors are
    float32 of rank 1 and unknown size; scalars keep their type."""
    from dialects.torch.types import ValueTensorType

    if isinstance(t, ValueTensorType):
        return format_signature([t]) if t.is_fully_known else "f32[?]"
    return format_signature([t])


def _first_line(err: Exception) -> str:
    text = str(err).splitlines()[0]
    return text.removeprefix("pass 'torch-refine-types' failed: ").removeprefix(
        "torch-refine-types: "
    )
