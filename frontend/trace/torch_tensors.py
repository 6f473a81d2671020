"""Tracing programs written with real PyTorch, through `__torch_function__`.

Each traced torch tensor is a `TracingTensor` (a `torch.Tensor` subclass) paired with a
*mirror*: the `frontend.torch.Tensor` the recorder follows. A torch call on traced tensors
runs twice: once in PyTorch (its result keeps flowing through the user's program) and once
as the `frontend.torch` function, method or operator of the same name on the mirrors (which
records the registry op). So `torch.*`, `Tensor.*`, operators, indexing and `F.*` (and with
them the `forward`s of real `torch.nn` layers) all trace. A call that makes tensors from
traced tensors but has no `frontend.torch` counterpart is a TraceError.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import frontend.torch as ft
from frontend.ir.aten_namespace import aten_target, builtin_composition, nn_binding_target
from frontend.torch.dispatch import current
from frontend.torch.nn import functional as ft_functional
from frontend.torch.tensor import Tensor
from frontend.trace.aten_calls import record_aten_call, write_out
from frontend.trace.errors import TraceError, user_line
from frontend.trace.recorder import Recorder

# torch keyword arguments the registry's schemas do not have, and the values at which they
# change nothing (ANY: never): `return_indices` has chosen the function already (max_pool2d
# or max_pool2d_with_indices) when it reaches `__torch_function__`
ANY = object()
_TORCH_ONLY_KWARGS: dict[str, Any] = {"_stacklevel": ANY, "return_indices": ANY}


@cache
def counterparts() -> dict[int, tuple[Any, str, Any]]:
    """id(torch function) -> (the function, its spelling, the frontend.torch counterpart)."""
    import torch
    import torch.nn.functional as F

    table: dict[int, tuple[Any, str, Any]] = {}
    pairs = [(torch.Tensor, Tensor, "Tensor"), (torch, ft, "torch"), (F, ft_functional, "F"),
             (torch.linalg, ft.linalg, "torch.linalg"),
             (torch.special, ft.special, "torch.special")]  # fmt: skip
    for real, ours, prefix in pairs:
        for name in dir(ours):
            theirs = getattr(real, name, None)
            mine = getattr(ours, name, None)
            if real is torch.Tensor and name in ("T", "mT", "mH"):
                mine = vars(Tensor)[name].fget  # properties: found by their descriptor
            if theirs is None or not callable(mine) or isinstance(theirs, type):
                continue
            table.setdefault(id(theirs), (theirs, f"{prefix}.{name}", mine))
    return table


# TracingTensor methods that turn a tensor into a Python value: what each one turns it into
LEAVING = {
    "__bool__": "a Python boolean",
    "__float__": "a Python float",
    "__int__": "a Python integer",
    "__index__": "a Python index",
    "__len__": "a Python int (len)",
    "item": "a Python number",
    "tolist": "a Python list",
    "numpy": "a NumPy array",
}


def _leaving(tensor: Any, target: str) -> None:
    recorder = current()
    if isinstance(recorder, Recorder):
        recorder.converting(mirror_of(tensor, recorder), target)


def _leaving_method(name: str, target: str) -> Any:
    def method(self: Any, *args: Any, **kwargs: Any) -> Any:
        _leaving(self, target)
        return getattr(super(tracing_tensor_class(), self), name)(*args, **kwargs)

    method.__name__ = name
    return method


def _iterate(self: Any) -> Any:
    _leaving(self, "an iterator (one row per step)")
    return (self[i] for i in range(self.shape[0]))


def _set_item(self: Any, key: Any, value: Any) -> None:
    recorder = current()
    if isinstance(recorder, Recorder):
        record_assignment(self, _to_frontend(key, recorder), _to_frontend(value, recorder))
    super(tracing_tensor_class(), self).__setitem__(key, value)


def record_assignment(tensor: Any, key: Any, value: Any) -> None:
    """`tensor[key] = value` (key and value as mirrors): `tensor`'s mirror becomes the new
    value when it or what is written is traced (`frontend/trace/assign.py`). Into a traced
    input or a view of another tensor it is a TraceError (the caller's tensor, or the tensor
    viewed, would not change)."""
    from frontend.trace.assign import assigned

    recorder = current()
    assert isinstance(recorder, Recorder)
    mirror = mirror_of(tensor, recorder)
    if not recorder.is_traced([mirror, key, value]):
        recorder.mutating(mirror, "an indexed assignment (x[i] = v)")
        return
    if recorder.is_traced(mirror) and any(mirror is i for i in recorder.inputs):
        raise TraceError(
            f"{user_line()}: an indexed assignment into the input {_input_name(recorder, mirror)}"
            " cannot be recorded (the caller's tensor would not change): copy it first, "
            "y = x.clone(); y[i] = v"
        )
    if _is_view(tensor):
        raise TraceError(
            f"{user_line()}: an indexed assignment into a view of another tensor (row = y[0]; "
            "row[1] = v) cannot be recorded: assign through the tensor itself (y[0, 1] = v)"
        )
    result = assigned(mirror, key, value)
    recorder.updated(mirror, result)
    mirror.numpy()[...] = result.numpy()


def _input_name(recorder: Recorder, mirror: Any) -> str:
    name = recorder.value_of(mirror).name_hint
    return f"`{name}`" if name else "tensor"


def _is_view(tensor: Any) -> bool:
    """Whether PyTorch's `tensor` shows part of (or rearranges) another tensor's storage (a
    TracingTensor itself is an alias of its whole base: not a view)."""
    import torch

    with torch._C.DisableTorchFunctionSubclass():
        base = tensor._base
        if base is None:
            return False
        layout = (tensor.shape, tensor.stride(), tensor.storage_offset())
        return layout != (base.shape, base.stride(), base.storage_offset())


def _torch_function(cls: type, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
    return torch_call(func, args, kwargs or {})


@cache
def tracing_tensor_class() -> type:
    """`TracingTensor`, a torch.Tensor subclass made on first use (PyTorch is optional)."""
    import torch

    methods = {name: _leaving_method(name, target) for name, target in LEAVING.items()}
    methods |= {
        "__torch_function__": classmethod(_torch_function),
        "__iter__": _iterate,
        "__setitem__": _set_item,
        "__doc__": "A torch tensor whose ops are recorded by the active trace.",
    }
    return type("TracingTensor", (torch.Tensor,), methods)


# ---- torch tensors <-> mirrors (kept by the recorder, per trace) ----


def mirror_of(tensor: Any, recorder: Recorder) -> Tensor:
    """The frontend.torch tensor standing for a torch tensor (a new constant if unknown).

    A constant's mirror takes the torch tensor's name (a module parameter's path), if any.
    """
    known = recorder.mirrors.get(id(tensor))
    if known is not None and known[0] is tensor:
        return known[1]
    import torch

    with torch._C.DisableTorchFunctionSubclass():
        values = numpy_of(tensor)
    mirror = Tensor.wrap(values)
    remember(tensor, mirror, recorder)
    if id(tensor) in recorder.names:
        recorder.names[id(mirror)] = recorder.names[id(tensor)]
    return mirror


def remember(tensor: Any, mirror: Tensor, recorder: Recorder) -> None:
    recorder.mirrors[id(tensor)] = (tensor, mirror)


BFLOAT16_TRACE = (
    "a trace cannot hold bfloat16 tensors (traces run on numpy, which has no bfloat16); "
    "script the program instead (frontend.script supports bfloat16), or trace it in float16"
)


def numpy_of(tensor: Any) -> Any:
    """The numpy view of a torch tensor seen by a trace; TypeError for a bfloat16 one."""
    if str(tensor.dtype) == "torch.bfloat16":
        raise TypeError(BFLOAT16_TRACE)
    return tensor.detach().numpy()


def wrap_input(tensor: Any, recorder: Recorder, name: str) -> Any:
    """A traced torch input: the TracingTensor the program gets, its mirror an IR argument."""
    import torch

    with torch._C.DisableTorchFunctionSubclass():
        traced = tensor.detach().as_subclass(tracing_tensor_class())
        mirror = Tensor.wrap(numpy_of(tensor))
    remember(traced, mirror, recorder)
    recorder.add_input(mirror, name)
    return traced


def _to_frontend(value: Any, recorder: Recorder) -> Any:
    import torch

    if isinstance(value, torch.Tensor):
        return mirror_of(value, recorder)
    if isinstance(value, torch.dtype):
        return ft.as_dtype(value)
    if isinstance(value, torch.Size):
        return tuple(value)
    if isinstance(value, list | tuple):
        return type(value)(_to_frontend(v, recorder) for v in value)
    return value


def _has_tensor(value: Any) -> bool:
    import torch

    if isinstance(value, torch.Tensor):
        return True
    if isinstance(value, list | tuple):
        return any(_has_tensor(v) for v in value)
    return False


# ---- the call ----


@cache
def size_readers() -> tuple[frozenset[int], Any]:
    """The ids of the torch methods that read a tensor's sizes as ints (`size`, `numel`), and
    the `shape` descriptor (whose `__get__` is a new object at every access)."""
    import torch

    methods = (torch.Tensor.size, torch.Tensor.numel, torch.Tensor.nelement)
    return frozenset(id(m) for m in methods), torch.Tensor.shape


def _note_size_read(recorder: Recorder, func: Any, args: tuple[Any, ...], kwargs: Any) -> None:
    """Tell the recorder that the program reads sizes of a traced tensor (`x.size(0)`,
    `x.shape`, `x.numel()`): the mirror's own `size` / `shape` are not called for them."""
    methods, shape = size_readers()
    if id(func) not in methods and getattr(func, "__self__", None) is not shape:
        return
    known = recorder.mirrors.get(id(args[0]))
    if known is None or known[0] is not args[0]:
        return
    dim = args[1] if len(args) > 1 else kwargs.get("dim")
    mirror = known[1]
    recorder.reading_size(mirror, None if dim is None else dim % max(mirror.ndim, 1))


def torch_call(func: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """Run `func` in PyTorch; if it reads traced tensors, record its frontend counterpart."""
    import torch

    recorder = current()
    target = aten_target(func)
    if isinstance(recorder, Recorder):
        _check_destination(func, target, args, kwargs, recorder)
    if isinstance(recorder, Recorder) and args:
        _note_size_read(recorder, func, args, kwargs)
    with torch._C.DisableTorchFunctionSubclass():
        out = func(*args, **kwargs)
    if not isinstance(recorder, Recorder) or not _has_tensor(out):
        return out
    mirrors = _to_frontend(args, recorder)
    options = {k: _to_frontend(v, recorder) for k, v in kwargs.items()}
    if not recorder.is_traced([*mirrors, *options.values()]):
        return out
    if target is not None:  # torch.ops.aten.add.Tensor, torch.ops.prims.sum, ...
        return _link(out, record_aten_call(target, args, kwargs, mirrors, options), recorder)
    entry = counterparts().get(id(func))
    if entry is None and getattr(func, "__name__", "") == "__get__":  # a property: `x.mT`
        entry = counterparts().get(id(getattr(func, "__self__", None)))
        func = entry[0] if entry is not None else func
    composition = builtin_composition(func) if entry is None else None
    if composition is not None:  # torch.isclose: a composition of ops
        return _link(out, composition(*mirrors, **options), recorder)
    binding = nn_binding_target(func) if entry is None else None
    if binding is not None:  # torch._C._nn.upsample_nearest2d: an ATen op's binding
        return _link(out, record_aten_call(binding, args, kwargs, mirrors, options), recorder)
    if entry is None or entry[0] is not func:
        name = getattr(func, "__qualname__", None) or getattr(func, "__name__", repr(func))
        raise TraceError(
            f"{user_line()}: cannot trace {name}: tsjit has no op for it (no frontend.torch "
            "counterpart is registered)"
        )
    result = _run_counterpart(entry[2], mirrors, options, recorder)
    return _link(out, result, recorder)


def _check_destination(
    func: Any, target: Any, args: tuple[Any, ...], kwargs: dict[str, Any], recorder: Recorder
) -> None:
    """Before `func` runs: a tensor it writes (in place, `out=`) that the trace does not follow
    becomes traced if the program made it (`adoptable`), its values taken now; otherwise,
    written from traced values, it is a TraceError (later uses would not be recorded)."""
    destination = _destination(func, target, args, kwargs)
    if destination is None or isinstance(destination, tracing_tensor_class()):
        return
    if not (_has_traced(args) or _has_traced(tuple(kwargs.values()))):
        return
    name = getattr(func, "__name__", repr(func))
    if name != "__setitem__" and _adoptable(destination, recorder):
        import torch

        with torch._C.DisableTorchFunctionSubclass():  # its values before the op writes them
            remember(destination, Tensor.wrap(destination.detach().clone().numpy()), recorder)
        destination.__class__ = tracing_tensor_class()
        return
    if name == "__setitem__":
        raise TraceError(
            f"{user_line()}: an indexed assignment (y[i] = v) of traced values into a tensor "
            "the trace does not follow (one made inside the traced function, such as "
            "torch.zeros(...)) cannot be recorded: write y = y.index_put((idx,), v) or "
            "y = torch.stack(rows)"
        )
    raise TraceError(
        f"{user_line()}: {name} updates in place a tensor the trace does not follow (a module "
        "parameter or buffer, or a view of another tensor) from traced values: later uses of "
        "it would not be recorded; write `y = y + v` (the op without `_`) instead"
    )


def _destination(func: Any, target: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """The tensor `func` writes: `out=`, or the first argument of an in-place op
    (`y.add_(v)`, `torch.ops.aten.add_.Tensor`, `inplace=True`, `y[i] = v`)."""
    if "out" in kwargs:
        return kwargs["out"]
    name = getattr(func, "__name__", "")
    in_place = (name.endswith("_") and not name.startswith("_")) or kwargs.get("inplace") is True
    in_place = in_place or name == "__setitem__" or (target is not None and target.in_place)
    return args[0] if args and in_place else None


def _adoptable(tensor: Any, recorder: Recorder) -> bool:
    """A plain torch tensor the traced program made (not a module parameter or buffer, not a
    view of another tensor): the trace can follow it from now on."""
    import torch

    if type(tensor) is not torch.Tensor or id(tensor) in recorder.names:
        return False
    with torch._C.DisableTorchFunctionSubclass():
        return tensor._base is None and not tensor.requires_grad


def _has_traced(values: tuple[Any, ...]) -> bool:
    traced = tracing_tensor_class()
    return any(
        isinstance(v, traced) or (isinstance(v, list | tuple) and _has_traced(tuple(v)))
        for v in values
    )


def _run_counterpart(
    counterpart: Any, mirrors: tuple[Any, ...], options: dict[str, Any], recorder: Recorder
) -> Any:
    options = {k: v for k, v in options.items() if not _ignorable(k, v)}
    destination = options.pop("out", None)
    if isinstance(destination, Tensor):  # torch.add(a, b, out=c): c holds the result
        result = _run_counterpart(counterpart, mirrors, options, recorder)
        return write_out(destination, result, getattr(counterpart, "__name__", "out="))
    inplace = options.pop("inplace", False)
    if "inplace" in _parameters_of(counterpart):
        options["inplace"] = inplace
        inplace = False
    result = counterpart(*mirrors, **options)
    if inplace:  # F.relu(x, inplace=True): x now holds the result
        recorder.updated(mirrors[0], result)
        return mirrors[0]
    return result


def _ignorable(keyword: str, value: Any) -> bool:
    if keyword not in _TORCH_ONLY_KWARGS:
        return False
    harmless = _TORCH_ONLY_KWARGS[keyword]
    return harmless is ANY or harmless is value


def _parameters_of(fn: Any) -> tuple[str, ...]:
    code = getattr(fn, "__code__", None)
    return code.co_varnames[: code.co_argcount + code.co_kwonlyargcount] if code else ()


def _link(out: Any, result: Any, recorder: Recorder) -> Any:
    """`out` (PyTorch's values) as TracingTensors, each paired with its counterpart's mirror."""
    import torch

    if isinstance(out, torch.Tensor):
        if not isinstance(result, Tensor):
            raise TraceError(f"the frontend counterpart gave {type(result).__name__} for a tensor")
        traced = out
        with torch._C.DisableTorchFunctionSubclass():
            if not isinstance(out, tracing_tensor_class()):
                traced = out.as_subclass(tracing_tensor_class())
            if recorder.is_traced(result):  # what PyTorch computed, for check_trace
                recorder.observed[recorder.value_of(result)] = out.detach().numpy().copy()
        remember(traced, result, recorder)
        return traced
    if isinstance(out, list | tuple):
        results = list(result) if isinstance(result, list | tuple) else [result]
        if len(results) != len(out):
            raise TraceError(f"the frontend counterpart gave {len(results)} values for {len(out)}")
        items = [_link(o, r, recorder) for o, r in zip(out, results)]
        try:
            return type(out)(items)
        except TypeError:
            return type(out)(*items)
    return out
