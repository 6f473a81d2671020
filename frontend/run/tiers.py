"""Tiered execution: a call with no compiled code runs eagerly while the code compiles.

With `compile="background"` (the default; `TSJIT_COMPILE=now` changes the default of a
process) a call whose signature, shapes and shape-feeding `int`s have no compiled, warmed code
(`ScriptFunction._ready_call`) runs through the eager tier and queues a job for the compile
thread; calls switch to the compiled code once the job has made `_ready_call` true for them.

- The eager tier runs the program's torch-dialect IR with the torch interpreter
  (`dialects/torch/interpreter.py`: each op's numpy eager reference; torch tensors are
  converted to numpy and back by the caller, zero-copy on CPU). It runs the IR after the
  `torch-opt` stage for the call's signature (the compiled code's semantics) once the compile
  thread has lowered it, the torch-stage IR for the calls before that (lowering to torch-opt
  takes 0.3 s in a fresh process: most of the first-call budget).
- A call on record (`warm_calls.py`: a call of the same program, signature, shapes and
  layouts ran on its general code in this or an earlier process, and the program cache has
  the program's text) runs compiled code at once (`ScriptFunction._run_warm`), loading the
  cached program and numba's cached machine code in the call (about 0.2 s of CPU for the
  seed `MyCell`, docs/first-call.md) instead of queuing a job that would load the same.
- One compile thread per process runs the jobs in order (`WORKER`), each queued when the
  call that found no code has its eager result (that call shares the GIL with no compile):
  lower to torch-opt for the eager tier, then `ScriptFunction._prepare_call` (the compile of
  `_run`, the shape check, a run of the kernel on copies of the arguments so that numba
  compiles the code these arguments need, with every size-dispatched function on its serial
  variant: the parallel twins compile when a call first crosses the grain size,
  `parallel_twins.py`).
  A thread, not a helper process: a fresh process needs 3 s to import torch, numba and tsjit
  before it compiles anything (the whole 1 s budget); the cost of the thread to the eager
  calls it shares the GIL with is measured in docs/first-call.md.
- A job that fails warns once per function (`CompileWarning`: the stage, the first line of
  the error, the repro command of the pipeline), its signature stays on the eager tier, and
  `wait_compiled()` raises the error. A call whose shapes do not fit its program (the shape
  check's `ValueError`) is not a compile failure: it runs the compiled path, which raises.
"""

from __future__ import annotations

import os
import re
import threading
import time
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from frontend.run.compile_thread import WORKER, CompileWarning
from frontend.run.fast_call import MISS

ScriptFunction = Any  # frontend.function.ScriptFunction (which imports this module)

MODES = ("background", "now")


class MisfitCall(Exception):
    """The shape check rejected a call's shapes: an error of the call, not of the compile."""


def default_mode() -> str:
    """`$TSJIT_COMPILE` if set (`now` or `background`), else `background`."""
    return check_mode(os.environ.get("TSJIT_COMPILE") or "background")


def check_mode(mode: str | None) -> str:
    if mode is None:
        return default_mode()
    if mode not in MODES:
        raise ValueError(f"compile={mode!r}: expected 'background' or 'now'")
    return mode


class Tiers:
    """Per scripted function: its eager IR per signature, queued jobs, the first failure."""

    def __init__(self, function: ScriptFunction) -> None:
        self.function = function
        self.eager_ir: dict[Any, Any] = {}  # signature -> torch-opt module
        self.jobs: dict[tuple[Any, ...], threading.Event] = {}  # call key -> done
        self.failed: set[Any] = set()  # signatures whose compile failed
        self.error: BaseException | None = None
        self.modules: set[str] = set()  # generated modules of the compiled calls
        self.lock = threading.Lock()

    def call(
        self, args: tuple[Any, ...], signature: Any, values: list[Any], torch_args: bool = False
    ) -> Any:
        """The call on the compiled code when it is ready for it, else on the eager tier (with
        PyTorch's aten ops when the caller passed torch tensors)."""
        fn = self.function
        if signature not in self.failed:
            ready = fn._ready_call(signature, values)
            if ready:
                return fn._run(args, signature, values)
            key = job_key(signature, values)
            fn._last_signature = signature  # what `.code` and `.ir()` show by default
            if key not in self.jobs and fn._warm_calls.loadable(signature, values):
                result = fn._run_warm(args, signature, values)  # a warm process: no eager run
                if result is not MISS:
                    return result
            with self.lock:
                event = self.jobs.get(key)
                queue = event is None
                if queue:
                    event = self.jobs[key] = threading.Event()
            if event.is_set():  # done, yet not ready (shapes that do not fit): `_run` says so
                return fn._run(args, signature, values)
            if queue:  # the job starts once this call is answered: no GIL shared until then
                try:
                    return self.eager(args, signature, values, torch_args)
                finally:
                    job_values = copies(values)
                    WORKER.submit(lambda: self._job(signature, job_values, event))
        return self.eager(args, signature, values, torch_args)

    def eager(
        self, args: tuple[Any, ...], signature: Any, values: list[Any], torch_args: bool = False
    ) -> Any:
        """The call on the eager tier: PyTorch's aten ops for torch tensors, else the eager
        references. One the interpreter cannot run (an op without an eager reference, shapes
        that do not fit) runs the compiled path instead, which compiles first: its result, or
        the error a compiled call gives."""
        from dialects.torch import interpreter
        from frontend.run.arguments import prepare

        fn = self.function
        if signature not in self.eager_ir and fn.result_halves(signature):
            self.eager_ir[signature] = fn._torch_opt(signature) or fn.module  # half emulated
        module = self.eager_ir.get(signature, fn.module)
        run = interpreter.run_torch_ir
        if torch_args:
            from dialects.torch.aten_interpreter import run_with_aten as run
        try:
            return run(module, fn.name, [prepare(v) for v in values])
        except (interpreter.TorchInterpreterError, NotImplementedError):
            return fn._run_compiled(args, signature, values)

    def _job(self, signature: Any, values: list[Any], done: threading.Event) -> None:
        from lowering import compile_log
        from lowering.run.jit import young_collections_only

        fn = self.function
        title = f"{fn.name} ({fn._signature_text_of(signature)}), in the background"
        try:
            with young_collections_only(), compile_log.compile_report(title):
                if signature not in self.eager_ir:  # (None: the rank depends on sizes)
                    self.eager_ir[signature] = fn._torch_opt(signature) or fn.module
                self.modules |= fn._prepare_call(signature, values)
        except MisfitCall:  # the call's error: its next call runs `_run`, which raises it
            pass
        except BaseException as err:  # noqa: BLE001 - reported, and raised by wait_compiled
            self.fail(signature, err)
        finally:
            done.set()

    def fail(self, signature: Any, err: BaseException) -> None:
        with self.lock:
            self.failed.add(signature)
            first = self.error is None
            if first:
                self.error = err
        if first:
            warnings.warn(failure_message(self.function, err), CompileWarning, stacklevel=2)

    def wait(self, timeout: float | None) -> bool:
        """Waits for the jobs queued so far (and the parallel twins their calls asked for);
        False when `timeout` passes first; raises the first compile error."""
        from frontend.run.parallel_twins import pending_twins

        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            with self.lock:
                events = [e for e in self.jobs.values() if not e.is_set()]
            events += pending_twins(self.modules)
            if not events:
                break
            for event in events:
                left = None if deadline is None else max(0.0, deadline - time.monotonic())
                if not event.wait(left):
                    return False
        if self.error is not None:
            raise self.error
        return True


def job_key(signature: Any, values: list[Any]) -> tuple[Any, ...]:
    """One job per signature, shapes and `int` values (a job for a key that is ready
    already does nothing: `int`s that feed no shape are then ready for every value)."""
    return (
        signature,
        tuple(getattr(v, "shape", None) for v in values),
        tuple(v for v in values if isinstance(v, int | np.integer)),
    )


def copies(values: list[Any]) -> list[Any]:
    """The values with arrays copied: the compile thread's run may write into its arguments."""
    return [np.array(v, copy=True) if isinstance(v, np.ndarray) else v for v in values]


# ---- programs: their functions ----


def set_compile_mode(program: Any, mode: str) -> Any:
    """Sets `compile=` (`background` or `now`) on a scripted, traced or loaded program: its
    functions, and those made later per argument structure; returns `program`."""
    check_mode(mode)
    return each_function(program, lambda f: setattr(f, "compile_mode", mode))


def each_function(program: Any, apply: Callable[[Any], None], later: bool = True) -> Any:
    """Applies `apply` to every `ScriptFunction` of `program` (a function, a method, a module
    or anything with `methods`; compiled segments around Python calls), to the ones its
    `Variants` built, and (`later`) to the ones they build later; returns `program`."""
    if isinstance(getattr(program, "_tiers", None), Tiers):  # a ScriptFunction
        apply(program)
        for step in (program.steps or ([], None))[0]:
            if getattr(step, "compiled", None) is not None:
                apply(step.compiled)
    function = getattr(program, "function", None)  # a ScriptMethod
    if isinstance(getattr(function, "_tiers", None), Tiers):
        each_function(function, apply, later)
    methods = getattr(program, "methods", None)
    if isinstance(methods, dict):
        for method in methods.values():
            each_function(method, apply, later)
    variants = getattr(program, "variants", None)
    if variants is not None and hasattr(variants, "build"):  # built on call, per structure
        if later:
            build = variants.build
            variants.build = lambda constants: each_function(build(constants), apply)
        for built in list(variants._cache.values()):
            each_function(built, apply, later)
    return program


def wait_program(program: Any, timeout: float | None) -> bool:
    """`wait_compiled` of a method or module: of each of its functions (see `Tiers.wait`)."""
    functions: list[Any] = []
    each_function(program, functions.append, later=False)
    deadline = None if timeout is None else time.monotonic() + timeout
    for function in functions:
        left = None if deadline is None else max(0.0, deadline - time.monotonic())
        if not function._tiers.wait(left):
            return False
    return True


# ---- the failure warning ----

PASS_NAME = re.compile(r"pass '([\w-]+)' failed")


def failure_message(fn: ScriptFunction, err: BaseException) -> str:
    """`<name>(): compiling in the background failed in stage <stage>: <line>`, the repro
    command when the pipeline gave one, and where calls go."""
    text = "\n".join(str(e) for e in _chain(err))
    first = str(err).splitlines()[0] if str(err) else type(err).__name__
    repro = next((ln.strip() for ln in text.splitlines() if "reproduce with" in ln), None)
    lines = [
        f"{fn.name}(): compiling in the background failed in stage {failed_stage(err)}: {first}",
        *([repro] if repro else []),
        "calls of this signature stay on the eager tier; wait_compiled() raises the error",
    ]
    return "\n  ".join(lines)


def failed_stage(err: BaseException) -> str:
    """The pipeline stage (and pass) where `err` arose, `python`, `numba`, or its type."""
    from lowering.pipeline import PipelineError, Stage, stage_passes

    for e in _chain(err):
        if isinstance(e, PipelineError):
            found = PASS_NAME.search(str(e))
            name = found.group(1) if found else "?"
            for stage in Stage:
                if any(p.name == name for p in stage_passes(stage, "")):
                    return f"{stage.value} (pass {name})"
            return f"? (pass {name})"
        module = type(e).__module__
        if module.startswith("numba"):
            return "numba"
        if module.startswith("lowering.python_target"):
            return "python"
    return type(err).__name__


def _chain(err: BaseException) -> list[BaseException]:
    chain: list[BaseException] = []
    current: BaseException | None = err
    while current is not None and current not in chain:
        chain.append(current)
        current = current.__cause__ or current.__context__
    return chain
