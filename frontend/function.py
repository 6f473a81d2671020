"""`ScriptFunction`: a scripted function's graph, its IR at every stage, and compiled calls."""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from typing import Any

from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Attribute

from frontend.run.archive_format import archive_format
from frontend.run.arguments import (
    TORCH,
    Argument,
    caller_kind,
    describe,
    prepare,
    spec_of,
    to_array,
    to_caller_kind,
)
from frontend.run.fast_call import MISS, FastCalls
from frontend.run.half_values import ResultHalves, restore
from frontend.run.python_binding import binder_for, python_call_error
from frontend.run.shape_guard import ShapeGuard, call_key, exact_signature_text
from frontend.run.tiers import MisfitCall, Tiers, default_mode
from frontend.run.warm_calls import WarmCalls, has_numba_cache
from frontend.script.calls import CompiledFunction
from frontend.trace.calls import NOT_RECORDED, record_compiled_call, tracing_active
from lowering import compile_log
from lowering.pipeline import PipelineError, Stage, lower
from lowering.run.threads import use_thread_setting
from lowering.signature import format_signature, parse_signature

Signature = tuple[Attribute, ...]


class CompiledCall:
    """One specialization: the generated source and the numba dispatcher."""

    def __init__(self, source: str, kernel: Callable[..., Any]) -> None:
        self.source = source
        self.kernel = kernel
        self.warm = False  # numba compiled what a call of the signature needs (tiers.py)

    def modules(self) -> list[Any]:
        """The loaded generated modules of the program (shared ones first, then the main)."""
        from lowering.run.jit import load_module
        from lowering.run.program_text import split_program

        shared, main = split_program(self.source)
        return [load_module(text) for text in [*shared, main]]


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
        self._warm_calls = WarmCalls(self)  # calls on record: warm processes skip shape checks
        self._shape_guard.records = self._warm_calls
        self._last_signature: Signature | None = None
        self._lock = threading.Lock()
        self.variants: Any = None  # frontend.run.variants.Variants for structured arguments
        self.backend = "compiled"  # or "interpreter": run the torch IR with the eager references
        self.result_structure: Any = None  # nested tuples of the results (None: as returned)
        self.steps: Any = None  # (steps, entry arguments) when calls stay in Python
        self._fast_calls = FastCalls()  # exact argument keys already checked -> kernel
        self.compile_mode = default_mode()  # "background": tiered calls; "now": compile first
        # the only argument shapes this program is right for (a trace that read a size)
        self.exact_shapes: tuple[tuple[int, ...], ...] | None = None
        self._tiers = Tiers(self)
        self._halves: ResultHalves | None = None  # which results are float16 / bfloat16

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

        loops = lower(self.module, Stage.LOOPS, signature)
        with compile_log.timed("python target"):
            return emit_python(loops)

    # ---- calls ----

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if tracing_active() and not kwargs:  # called inside a trace: record a func.call
            recorded = record_compiled_call(self, args)
            if recorded is not NOT_RECORDED:
                return recorded
        use_thread_setting()  # numba's thread count in this thread: frontend.set_num_threads
        if not kwargs and self._is_plain_compiled():
            result = self._fast_calls.call(args)
            if result is not MISS:
                return result
        if self.variants is not None:
            return self.variants(args, kwargs)
        if kwargs:
            args = bind_keywords(self, args, kwargs)
        self.check_arguments(args)
        converted = [to_array(a) for a in args]
        values = [v for v, _ in converted]
        kind = caller_kind([k for _, k in converted])
        signature = tuple(spec_of(self.name, a, v) for a, v in zip(self.arguments, values))
        halves = self.result_halves(signature)
        if self.steps is not None:  # calls left in Python: compiled segments around them
            from frontend.run.python_calls import run_steps

            result = run_steps(self.steps[0], self.steps[1], values, kind, ScriptFunction)
        elif self.backend == "interpreter":
            from dialects.torch.interpreter import run_torch_ir

            module = (self._torch_opt(signature) if halves else None) or self.module
            result = run_torch_ir(module, self.name, [prepare(v) for v in values])
        elif self.compile_mode == "now":
            result = self._run_compiled(args, signature, values)
        else:  # compiled code when ready for this call, else the eager tier
            result = self._tiers.call(args, signature, values, torch_args=kind == TORCH)
        result = restore(result, halves, kind == TORCH)
        if self.result_structure is not None:
            from frontend.script.control import regroup_tuples

            results = list(result) if isinstance(result, tuple | list) else [result]
            result = regroup_tuples(results, self.result_structure)
        return to_caller_kind(result, kind)

    def check_arguments(self, args: tuple[Any, ...]) -> None:
        """Python's error for a wrong number of arguments; for a program traced from a run
        that read a size (`x.size(0)`), which may hold constants made of it and would compute
        a wrong answer for other shapes, a refusal of other shapes."""
        if len(args) != len(self.arguments):
            raise self.arity_error(args)
        if self.exact_shapes is None:
            return
        shapes = tuple(tuple(getattr(a, "shape", ())) for a in args)
        if shapes != self.exact_shapes:
            raise TypeError(
                f"{self.name}(): this program was traced from a run that read a tensor's size, "
                f"so it serves inputs of shapes {self.exact_shapes} only (got {shapes}); trace "
                "it again for these shapes"
            )

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

        title = f"{self.name} ({self._signature_text_of(signature)})"
        with young_collections_only(), compile_log.compile_report(title) as report:
            if report is None:
                result = self._run(args, signature, values)  # numba compiles or loads kernels
                self._remember_call(signature, values)
                return result
            self._compiled.get(signature) or self._compile_general(signature, values)
            with compile_log.timed("shape check"):
                self._shape_guard.check(signature, values)  # what `_run` checks, remembered
            with compile_log.timed("numba: the first call (compiles or loads its functions)"):
                result = self._run(args, signature, values)
            compiled = self._compiled.get(signature)
            compile_log.numba_cache_hits(compiled.modules() if compiled else [])
            self._remember_call(signature, values)
            return result

    def _remember_call(self, signature: Signature, values: list[Any]) -> None:
        """Records a call that ran on the general code of `signature` (numba compiled what
        it needs) for warm processes (`frontend/run/warm_calls.py`)."""
        if signature in self._open_types or signature not in self._compiled:
            return
        key = call_key(values, ())
        checked = self._shape_guard.checked
        if key in checked and checked[key] is None:
            self._warm_calls.remember(signature, values)

    def _run_warm(self, args: tuple[Any, ...], signature: Signature, values: list[Any]) -> Any:
        """A tiered call on record in a warm process (its program's text and numba's code are
        cached): runs the compiled code now, as `compile="now"` would, with the parallel twins
        held back (`parallel_twins.py`); MISS when numba's cache lacks a module's code or the
        cached program does not load (the eager tier and a job take over then)."""
        from frontend.run import parallel_twins
        from lowering.run.jit import young_collections_only

        title = f"{self.name} ({self._signature_text_of(signature)}), on record"
        with young_collections_only(), compile_log.compile_report(title):
            try:
                compiled = self._compiled.get(signature) or self._compile(signature)
                modules = compiled.modules()
            except Exception:  # noqa: BLE001 - the job that takes over reports it
                return MISS
            if not has_numba_cache(modules):
                return MISS
            for module in modules:
                parallel_twins.hold(module)
            try:
                with compile_log.timed("numba: the first call (loads its functions)"):
                    result = self._run(args, signature, values)
            finally:
                for module in modules:
                    parallel_twins.settle(module)
            compile_log.numba_cache_hits(modules)
            compiled.warm = True
            self._tiers.modules |= {m.__name__ for m in modules}
            return result

    def wait_compiled(self, timeout: float | None = None) -> bool:
        """Waits until every signature called so far runs compiled code (True), or until
        `timeout` seconds pass (False); raises the error of a background compile that failed."""
        from frontend.run.tiers import wait_program

        return wait_program(self, timeout)

    # ---- the compile thread's side of tiered calls (frontend/run/tiers.py) ----

    def _ready_call(self, signature: Signature, values: list[Any]) -> bool:
        """Whether `_run` has compiled, warmed code for this call: it compiles nothing."""
        guard = self._shape_guard
        positions = guard.shape_ints.get(signature)
        key = None if positions is None else call_key(values, positions)
        if key is None or key not in guard.checked:
            return False
        general = self._compiled.get(signature)
        if general is None and signature in self._open_types:
            exact = tuple(parse_signature(exact_signature_text(signature, values)))
            general = self._compiled.get(exact)
        specialization = guard.checked[key]
        if specialization is not None:
            target = specialization.function
            general = general and target._compiled.get(specialization.signature)
        return general is not None and general.warm

    def _prepare_call(self, signature: Signature, values: list[Any]) -> set[str]:
        """What `_run` compiles for this call, then a run on `values` (copies) with the
        parallel twins held back, so that numba compiles the serial code the call needs;
        the names of the program's modules. `MisfitCall` for shapes that do not fit."""
        from frontend.run import parallel_twins

        compiled = self._compiled.get(signature) or self._compile_general(signature, values)
        try:
            with compile_log.timed("shape check"):
                exact = self._shape_guard.check(signature, values)
        except ValueError as err:
            raise MisfitCall(str(err)) from err
        if exact is not None:
            compiled = exact.compiled()
        modules = compiled.modules()
        if not compiled.warm:
            for module in modules:
                parallel_twins.hold(module)
            with compile_log.timed("numba (a run on copies of the arguments)"):
                _warm_up(compiled, values)
            compile_log.numba_cache_hits(modules)
            for module in modules:
                parallel_twins.settle(module)
            compiled.warm = True
        if exact is None:
            self._remember_call(signature, values)
        return {m.__name__ for m in modules}

    def _torch_opt(self, signature: Signature) -> ModuleOp | None:
        """The program at stage torch-opt for `signature` (what the eager tier runs); None
        where its types leave a rank open (it depends on the sizes)."""
        from lowering.contracts import OpenTypeError

        text = format_signature(list(signature))
        try:
            with compile_log.timed("torch-opt, for the eager tier"):
                return lower(self.module, Stage.TORCH_OPT, text)
        except OpenTypeError:
            return None
        except PipelineError as err:
            raise self._cannot_run(signature, text, err) from err

    def _signature_text_of(self, signature: Signature) -> str:
        return format_signature(list(signature))

    def _run(self, args: tuple[Any, ...], signature: Signature, values: list[Any]) -> Any:
        compiled = self._compiled.get(signature) or self._compile_general(signature, values)
        exact = self._shape_guard.check(signature, values)
        if exact is not None:  # the general code would be wrong for these shapes or ints
            compiled = exact.compiled()
        if self._shape_guard.fast_path_safe(signature) and not self.result_halves(signature):
            self._fast_calls.remember(args, compiled.kernel)
        return compiled.kernel(*[prepare(v) for v in values])

    def result_halves(self, signature: Signature) -> tuple[Any, ...]:
        """For a call that involves float16 / bfloat16, the half dtype of each result (None
        where it is not half); () for calls without half tensors."""
        halves = self._halves
        if halves is None or halves.module is not self.module:
            halves = self._halves = ResultHalves(self.module, self.name)
        return halves.of(signature, format_signature(list(signature)))

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
        from lowering.run.program_cache import compile_program

        with self._lock:
            if signature in self._compiled:
                return self._compiled[signature]
            text = format_signature(list(signature))
            lowered = []

            def make_text() -> str:
                lowered.append(True)
                with compile_log.timed("lowering and the python target"):
                    return self._python_source(text)

            try:  # the text made for this program and signature before, else lowered now
                with (
                    compile_log.compile_report(f"{self.name} ({text})"),
                    compile_log.timed("program: cache lookup, lowering, module imports"),
                ):
                    source, kernel = compile_program(
                        self._warm_calls.program_parts(signature), make_text, self.name
                    )
                    if not lowered:
                        compile_log.note("program cache: the text made before (no lowering)")
            except PipelineError as err:
                raise self._cannot_run(signature, text, err) from err
            compiled = CompiledCall(source, kernel)
            self._compiled[signature] = compiled
            self._last_signature = signature
            return compiled

    def _cannot_run(self, signature: Signature, text: str, err: PipelineError) -> TypeError:
        from frontend.script.error_location import with_location

        message = (
            f"{self.name}() cannot run with ({describe(self.arguments, list(signature))}): "
            f"{_first_line(err)}"
        )
        return TypeError(with_location(self, message, text))

    def save(self, path: Any) -> None:
        """Write the program to one file (`frontend.load` reads it back, without the source)."""
        archive_format().save(self, path)

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickles by value: the bytes `save` writes (torch IR, weights, manifest), never Python
        code; unpickling checks them as `frontend.load` does and gives what it gives."""
        return archive_format().pickled(self)

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


def _warm_up(compiled: CompiledCall, values: list[Any]) -> None:
    """Runs the kernel on `values` (copies) so that numba compiles what they need; an error
    of the program itself (a script's `raise`, an index out of range) is the call's, not
    the compile's: the code compiled until then stays, and later calls compile the rest."""
    from numba.core.errors import NumbaError

    from frontend.run.arguments import prepare

    try:
        compiled.kernel(*[prepare(v) for v in values])
    except NumbaError:
        raise
    except Exception:  # noqa: BLE001 - see the docstring
        pass


def _first_line(err: Exception) -> str:
    text = str(err).splitlines()[0]
    return text.removeprefix("pass 'torch-refine-types' failed: ").removeprefix(
        "torch-refine-types: "
    )
