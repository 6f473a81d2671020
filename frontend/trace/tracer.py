"""`frontend.trace`: run a function or module once on example inputs and record its ops.

Whatever the example tensors are, the ops that run on them become one `func.func` in the
torch dialect:
- `frontend.torch` tensors and numpy arrays are traced as `frontend.torch.Tensor`s (numpy
  functions on them run the registry's `np.*` spellings through `__array_ufunc__` /
  `__array_function__`);
- real PyTorch tensors are traced as a `torch.Tensor` subclass (`__torch_function__`), so
  `torch.*`, `Tensor.*`, `F.*` and real `torch.nn` layers record (see `trace_torch`).
Tensors that are not computed from the inputs (module parameters, constants) become
`torch.vtensor.literal`s named after their parameter path (`%self.linear.weight`). Python
control flow is not recorded: a tensor turned into a Python value warns (`TracerWarning`,
naming the user's line) or, with `strict=True`, raises `TraceError`; `check_trace` re-runs
the trace on `check_inputs` and reports the first op where it diverges.

`trace(fn)` returns a `ScriptFunction`; `trace(module)` and `trace_module(module, {...})`
return a `TracedModule`: the `ScriptFunction` of its first method (`forward` if traced),
with every traced method reachable as an attribute (`traced.forward`, `traced.encode`).
"""

from __future__ import annotations

import inspect
import re
import sys
from collections.abc import Callable, Sequence
from contextlib import ExitStack
from typing import Any

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import FunctionType, ModuleOp
from xdsl.ir import Block, Region, SSAValue

from frontend.function import ScriptFunction, Signature
from frontend.run.arguments import Argument, spec_of
from frontend.run.python_binding import python_call_error
from frontend.run.tiers import set_compile_mode
from frontend.torch.interception import intercepting
from frontend.torch.tensor import Tensor
from frontend.trace.check import check
from frontend.trace.errors import TraceError, user_line_of
from frontend.trace.recorder import Recorder

Inputs = tuple[Any, ...]


def trace(
    fn_or_module: Any,
    example_inputs: Any,
    *,
    check_trace: bool = True,
    check_inputs: Sequence[Any] | None = None,
    strict: bool = False,
    compile: str | None = None,
) -> Any:
    """Record the ops `fn_or_module(*example_inputs)` runs (like `torch.jit.trace`).

    `example_inputs` is a tensor or a tuple of tensors (`frontend.torch`, numpy or PyTorch).
    With `check_trace`, the trace is re-run on each of `check_inputs` (default: the example
    inputs) and compared with the Python function (see `trace_check`). `compile` is
    `frontend.script`'s (`background` by default, or `now`).
    """
    if _is_module(fn_or_module):
        checks = None if check_inputs is None else [{"forward": c} for c in check_inputs]
        return trace_module(
            fn_or_module, {"forward": example_inputs}, check_trace=check_trace,
            check_inputs=checks, strict=strict, compile=compile,
        )  # fmt: skip
    if not callable(fn_or_module):
        kind = type(fn_or_module).__name__
        raise TypeError(f"trace() expects a function or a module, got {kind}")
    fn = fn_or_module
    traced = trace_function(fn, _symbol(getattr(fn, "__name__", "fn")), _as_inputs(example_inputs),
                            strict=strict)  # fmt: skip
    if compile is not None:
        set_compile_mode(traced, compile)
    if check_trace:
        checks = [_as_inputs(c) for c in (check_inputs or [example_inputs])]
        check(traced, fn, checks, strict, trace_function)
    return traced


def trace_module(
    module: Any,
    inputs: dict[str, Any],
    *,
    check_trace: bool = True,
    check_inputs: Sequence[dict[str, Any]] | None = None,
    strict: bool = False,
    compile: str | None = None,
) -> TracedModule:
    """Trace several methods of `module`: `{"forward": inputs, "encode": inputs}`."""
    if not inputs:
        raise TypeError("trace_module() needs at least one method and its example inputs")
    names = parameter_names(module)
    functions: dict[str, TracedFunction] = {}
    for method_name, example in inputs.items():
        method = getattr(module, method_name, None)
        if not callable(method):
            raise AttributeError(f"{type(module).__name__} has no method {method_name!r}")
        symbol = _symbol(f"{type(module).__name__}.{method_name}")
        functions[method_name] = trace_function(
            method, symbol, _as_inputs(example), strict=strict, names=names
        )
        if compile is not None:
            set_compile_mode(functions[method_name], compile)
        if check_trace:
            checks = [c[method_name] for c in check_inputs or [] if method_name in c] or [example]
            inputs = [_as_inputs(c) for c in checks]
            check(functions[method_name], method, inputs, strict, trace_function, names)
    return TracedModule(module, functions)


class TracedFunction(ScriptFunction):
    """A traced function: a ScriptFunction whose default signature is its example inputs'.
    Tuples among the example inputs (`(h, c)`) are one argument per tensor; calls pass them
    as tuples again (`input_structure`).

    A program that read an open size as a Python int while it was traced (`x.size(0)`,
    `x.shape`, `x.numel()`) may have computed constants from it (`x.view(6, -1)`): such a
    trace serves the example's shapes only (`exact_shapes`), and a call with other shapes
    traces the Python function again for them (one trace per shapes, as `torch.compile`
    guards on sizes), instead of silently reusing the constants.
    """

    def __init__(self, module: ModuleOp, name: str, fn: Callable[..., Any], recorder: Recorder,
                 example: Signature) -> None:  # fmt: skip
        super().__init__(module, name, fn)
        self.trace_recorder = recorder  # source lines of the recorded ops, for check_trace
        self.example_signature = example
        self.input_structure: tuple[Any, ...] | None = None  # per input: None or nested tuples
        self.retrace: Callable[[tuple[Any, ...]], TracedFunction] | None = None
        self._retraced: dict[tuple[tuple[int, ...], ...], TracedFunction] = {}

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        structured = args
        if self.input_structure is not None and not kwargs:
            if len(args) != len(self.input_structure) and self.python_fn is not None:
                error = python_call_error(self.python_fn, args)  # Python's words, if it has some
                if error is not None:
                    raise error
            args = tuple(flatten_inputs(self.name, args, self.input_structure))
        if self.exact_shapes is not None and not kwargs:
            shapes = tuple(tuple(getattr(a, "shape", ())) for a in args)
            if shapes != self.exact_shapes:
                return self.traced_for(shapes, structured)(*structured)
        return super().__call__(*args, **kwargs)

    def traced_for(self, shapes: tuple[tuple[int, ...], ...], inputs: tuple[Any, ...]) -> Any:
        """The trace for inputs of other `shapes` than the example's (traced on first use)."""
        if shapes not in self._retraced:
            if self.retrace is None:
                raise TypeError(
                    f"{self.name}(): this trace read a tensor's size, so it serves inputs of "
                    f"shapes {self.exact_shapes} only (got {shapes}), and the Python function "
                    "is not available to trace again: trace it for these shapes"
                )
            self._retraced[shapes] = self.retrace(inputs)
        return self._retraced[shapes]

    def default_signature(self) -> Signature:
        """The last called signature, else the one of the example inputs."""
        if self._last_signature is not None:
            return self._last_signature
        return self.example_signature


class TracedModule(TracedFunction):
    """A traced module: the ScriptFunction of its main method, plus every traced method.

    `traced(x)` runs the main method (`forward` when it was traced) compiled; `.graph`,
    `.code`, `.ir()` show it; `traced.<method>` is the ScriptFunction of another traced
    method; `original` is the module that was traced (its weights are baked into the IR).
    """

    def __init__(self, original: Any, methods: dict[str, TracedFunction]) -> None:
        main = methods.get("forward") or next(iter(methods.values()))
        super().__init__(main.module, main.name, main.python_fn, main.trace_recorder,
                         main.example_signature)  # fmt: skip
        self.original = original
        self.methods = methods
        self.result_structure = main.result_structure
        self.input_structure = main.input_structure
        self.exact_shapes = main.exact_shapes
        self.retrace = main.retrace

    def __getattr__(self, name: str) -> Any:
        methods = self.__dict__.get("methods", {})
        if name in methods:
            return methods[name]
        raise AttributeError(f"traced {type(self.__dict__.get('original')).__name__} has no "
                             f"traced method {name!r}")  # fmt: skip

    def __repr__(self) -> str:
        return f"<tsjit.TracedModule {type(self.original).__name__} ({', '.join(self.methods)})>"


# ---- one traced function ----


def trace_function(
    fn: Callable[..., Any],
    symbol: str,
    inputs: Inputs,
    *,
    strict: bool = False,
    names: dict[int, str] | None = None,
) -> TracedFunction:
    """Run `fn` once on `inputs` under a Recorder; the recorded ops as a TracedFunction."""
    recorder = Recorder(strict, names)
    outputs = run_recorded(fn, inputs, recorder)
    results = output_values(outputs, recorder)
    recorder.block.add_op(func.ReturnOp(*results))
    remove_dead_ops(recorder.block)
    arg_types = [a.type for a in recorder.block.args]
    ftype = FunctionType.from_lists(arg_types, [r.type for r in results])
    function = func.FuncOp(symbol, ftype, Region(recorder.block))
    module = ModuleOp([function, *getattr(recorder, "callees", [])])  # + scripted callees
    module.verify()
    example = tuple(spec_of(symbol, arg, value.numpy())
                    for arg, value in zip(_arguments(function), recorder.inputs))  # fmt: skip
    traced = TracedFunction(module, symbol, fn, recorder, example)
    traced.result_structure = output_structure(outputs)[1]
    if any(isinstance(x, tuple | list) for x in inputs):
        traced.input_structure = tuple(nesting(x) for x in inputs)
    if recorder.reads_sizes:
        traced.exact_shapes = tuple(tuple(x.numpy().shape) for x in recorder.inputs)
        traced.retrace = lambda again: trace_function(fn, symbol, again, strict=strict, names=names)
    return traced


def nesting(value: Any) -> Any:
    """None for a tensor, a tuple of the items' nestings for a tuple or list."""
    return tuple(nesting(v) for v in value) if isinstance(value, tuple | list) else None


def flatten_inputs(name: str, args: tuple[Any, ...], structure: tuple[Any, ...]) -> list[Any]:
    """The tensors of `args` in order, checked against the nesting the trace saw."""
    if len(args) != len(structure):
        raise TypeError(f"{name}() takes {len(structure)} arguments but {len(args)} were given")
    flat: list[Any] = []

    def walk(value: Any, shape: Any) -> None:
        if shape is None:
            if isinstance(value, tuple | list):
                raise TypeError(f"{name}(): a tensor was traced where a tuple is given")
            flat.append(value)
            return
        if not isinstance(value, tuple | list) or len(value) != len(shape):
            raise TypeError(f"{name}(): a tuple of {len(shape)} was traced here")
        for v, s in zip(value, shape):
            walk(v, s)

    for value, shape in zip(args, structure):
        walk(value, shape)
    return flat


def run_recorded(fn: Callable[..., Any], inputs: Inputs, recorder: Recorder) -> Any:
    """`fn(*inputs)` with the inputs traced and every op call going to `recorder`."""
    arg_names = _argument_names(fn, len(inputs))
    traced = [_traced_input(x, recorder, name) for x, name in zip(inputs, arg_names)]
    with ExitStack() as stack:
        stack.enter_context(intercepting(recorder))
        torch = sys.modules.get("torch")
        if torch is not None:
            stack.enter_context(torch.no_grad())
        try:
            return fn(*traced)
        except NotImplementedError as err:  # an eager op refused: say where, as for no op
            line = user_line_of(err)  # None when no frame is the user's (a torch layer traced)
            where = f"{line}: " if line is not None else ""
            raise TraceError(f"{where}cannot trace this: {err}") from err


def _traced_input(value: Any, recorder: Recorder, name: str) -> Any:
    if isinstance(value, tuple | list):  # `(h, c)`: each tensor an argument of its own
        return tuple(_traced_input(v, recorder, f"{name}.{i}") for i, v in enumerate(value))
    if isinstance(value, Tensor | np.ndarray):
        tensor = Tensor.wrap(value.numpy() if isinstance(value, Tensor) else value)
        recorder.add_input(tensor, name)
        return tensor
    if _is_torch_tensor(value):
        from frontend.trace.torch_tensors import wrap_input

        return wrap_input(value, recorder, name)
    raise TraceError(
        f"cannot trace an input of type {type(value).__name__} (argument {name!r}): example "
        "inputs must be tensors (frontend.torch, numpy or PyTorch) or tuples of them"
    )


def output_structure(outputs: Any) -> tuple[list[Any], Any]:
    """The leaves of nested tuples / lists of outputs (`(out, (h, c))` of an LSTM), and their
    nesting as `regroup_tuples` reads it (None: one value, or a flat tuple of them)."""
    if not isinstance(outputs, tuple | list):
        return [outputs], None
    if not any(isinstance(item, tuple | list) for item in outputs):
        return list(outputs), None

    def shape(value: Any) -> Any:
        return tuple(shape(v) for v in value) if isinstance(value, tuple | list) else None

    def leaves(value: Any) -> list[Any]:
        if isinstance(value, tuple | list):
            return [leaf for v in value for leaf in leaves(v)]
        return [value]

    return leaves(outputs), shape(outputs)


def output_values(outputs: Any, recorder: Recorder) -> list[SSAValue]:
    """The IR values of what the traced function returned: a tensor or (nested) tuples of
    them."""
    items, _ = output_structure(outputs)
    values: list[SSAValue] = []
    for index, item in enumerate(items):
        if _is_torch_tensor(item):
            from frontend.trace.torch_tensors import mirror_of

            item = mirror_of(item, recorder)
        if not isinstance(item, Tensor | np.ndarray):
            what = f"output {index}" if isinstance(outputs, tuple | list) else "the output"
            raise TraceError(
                f"{what} of the traced function is a {type(item).__name__}: a traced function "
                "must return a tensor or (nested) tuples of tensors"
            )
        values.append(recorder.value_of(item))
    return values


def remove_dead_ops(block: Block) -> None:
    """Drop ops whose results nothing reads (comparisons that only fed Python `if`s, ...)."""
    for op in reversed(list(block.ops)):
        if op is block.last_op or any(result.uses for result in op.results):
            continue
        block.erase_op(op)


# ---- helpers ----


def _arguments(function: func.FuncOp) -> list[Argument]:
    return [Argument(a.name_hint or f"arg{i}", a.type) for i, a in enumerate(function.args)]


def parameter_names(module: Any) -> dict[int, str]:
    """id(tensor) -> `self.<path>` for every parameter and buffer of `module`."""
    names: dict[int, str] = {}
    for members in (module.named_parameters, module.named_buffers):
        for path, tensor in members():
            names.setdefault(id(tensor), f"self.{path}")
    return names


def _is_module(obj: Any) -> bool:
    return all(isinstance(getattr(obj, a, None), dict) for a in ("_parameters", "_modules"))


def _is_torch_tensor(value: Any) -> bool:
    torch = sys.modules.get("torch")
    return torch is not None and isinstance(value, torch.Tensor)


def _as_inputs(example: Any) -> Inputs:
    return tuple(example) if isinstance(example, tuple | list) else (example,)


def _symbol(name: str) -> str:
    return re.sub(r"[^\w.]", "_", name) or "fn"


def _argument_names(fn: Callable[..., Any], count: int) -> list[str]:
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        params = []
    named = [p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    names = named[:count] + [f"input{i}" for i in range(len(named), count)]
    valid = re.compile(r"[A-Za-z_][\w.$-]*")
    return [n if valid.fullmatch(n) else f"input{i}" for i, n in enumerate(names)]
