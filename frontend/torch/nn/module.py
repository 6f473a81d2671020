"""`nn.Module` with PyTorch's internal layout: `_parameters`, `_buffers` and `_modules` dicts.

Attribute assignment registers Parameters, Modules and (existing) buffers like torch does,
so code (and tools, like the script frontend) that walks a PyTorch module walks this one too.
`load_state_dict` takes our Tensors, numpy arrays or real torch tensors (read via `.numpy()`).
"""

from __future__ import annotations

from collections import OrderedDict, namedtuple
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import numpy as np

from frontend.torch.dtype import as_dtype
from frontend.torch.nn.parameter import Buffer, Parameter
from frontend.torch.tensor import Tensor

IncompatibleKeys = namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])  # noqa: PYI024


def _addindent(text: str, spaces: int) -> str:
    lines = text.split("\n")
    if len(lines) == 1:
        return text
    return lines[0] + "\n" + "\n".join(" " * spaces + line for line in lines[1:])


def as_array(value: Any) -> np.ndarray:  # type: ignore[type-arg]
    """numpy values of a Tensor, a numpy array or a real torch tensor (no torch import)."""
    if isinstance(value, Tensor):
        return value.numpy()
    if isinstance(value, np.ndarray | np.generic | int | float | bool):
        return np.asarray(value)
    detach = getattr(value, "detach", None)
    if detach is not None and hasattr(value, "numpy"):
        return detach().cpu().numpy()
    raise TypeError(f"expected a tensor or numpy array, got {type(value).__name__}")


class Module:
    """Base class of all layers and models."""

    training: bool
    _parameters: dict[str, Parameter | None]
    _buffers: dict[str, Tensor | None]
    _non_persistent_buffers_set: set[str]
    _modules: dict[str, Module | None]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if args or kwargs:
            raise TypeError(f"{type(self).__name__}.__init__() takes no arguments")
        object.__setattr__(self, "training", True)
        object.__setattr__(self, "_parameters", {})
        object.__setattr__(self, "_buffers", {})
        object.__setattr__(self, "_non_persistent_buffers_set", set())
        object.__setattr__(self, "_modules", {})

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(
            f'Module [{type(self).__name__}] is missing the required "forward" function'
        )

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.forward(*args, **kwargs)

    # ---- registration ----

    def _check_ready(self) -> None:
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign before Module.__init__() call")

    def register_parameter(self, name: str, param: Parameter | None) -> None:
        self._check_ready()
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(
                f"cannot assign '{type(param).__name__}' object to parameter '{name}' "
                "(torch.nn.Parameter or None required)"
            )
        self._parameters[name] = param

    def register_buffer(self, name: str, tensor: Tensor | None, persistent: bool = True) -> None:
        self._check_ready()
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(
                f"cannot assign '{type(tensor).__name__}' object to buffer '{name}' "
                "(torch Tensor or None required)"
            )
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def add_module(self, name: str, module: Module | None) -> None:
        if module is not None and not isinstance(module, Module):
            raise TypeError(f"{type(module).__name__} is not a Module subclass")
        if "." in name or not name:
            raise KeyError(f'module name can\'t contain ".", got: {name}')
        self._modules[name] = module

    register_module = add_module

    def __setattr__(self, name: str, value: Any) -> None:
        params = self.__dict__.get("_parameters")
        if isinstance(value, Parameter):
            self._check_ready()
            self._forget(name)
            self.register_parameter(name, value)
        elif params is not None and name in params:
            self.register_parameter(name, value)  # None, or TypeError for a plain Tensor
        elif isinstance(value, Module):
            self._check_ready()
            self._forget(name)
            self._modules[name] = value
        elif isinstance(value, Buffer):
            self._check_ready()
            self._forget(name)
            self.register_buffer(name, Tensor.wrap(value.numpy()), value.persistent)
        elif params is not None and name in self._modules:
            if value is not None:
                raise TypeError(f"cannot assign '{type(value).__name__}' as child module '{name}'")
            self._modules[name] = None
        elif params is not None and name in self._buffers:
            self.register_buffer(name, value, name not in self._non_persistent_buffers_set)
        else:
            object.__setattr__(self, name, value)

    def _forget(self, name: str) -> None:
        self.__dict__.pop(name, None)
        for table in (self._parameters, self._buffers, self._modules):
            table.pop(name, None)
        self._non_persistent_buffers_set.discard(name)

    def __getattr__(self, name: str) -> Any:
        for table in ("_parameters", "_buffers", "_modules"):
            values = self.__dict__.get(table)
            if values is not None and name in values:
                return values[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name: str) -> None:
        for table in (self._parameters, self._buffers, self._modules):
            if name in table:
                del table[name]
                self._non_persistent_buffers_set.discard(name)
                return
        object.__delattr__(self, name)

    def __dir__(self) -> list[str]:
        names = set(super().__dir__()) | set(self._parameters) | set(self._buffers)
        return sorted(names | set(self._modules))

    # ---- traversal ----

    def named_modules(
        self, memo: set[int] | None = None, prefix: str = "", remove_duplicate: bool = True
    ) -> Iterator[tuple[str, Module]]:
        memo = set() if memo is None else memo
        if remove_duplicate and id(self) in memo:
            return
        memo.add(id(self))
        yield prefix, self
        for name, module in self._modules.items():
            if module is not None:
                path = prefix + ("." if prefix else "") + name
                yield from module.named_modules(memo, path, remove_duplicate)

    def modules(self) -> Iterator[Module]:
        for _, module in self.named_modules():
            yield module

    def named_children(self) -> Iterator[tuple[str, Module]]:
        seen: set[int] = set()
        for name, module in self._modules.items():
            if module is not None and id(module) not in seen:
                seen.add(id(module))
                yield name, module

    def children(self) -> Iterator[Module]:
        for _, module in self.named_children():
            yield module

    def _named_members(
        self, table: str, prefix: str, recurse: bool, remove_duplicate: bool = True
    ) -> Iterator[tuple[str, Any]]:
        seen: set[int] = set()
        modules = self.named_modules(prefix=prefix) if recurse else [(prefix, self)]
        for module_prefix, module in modules:
            for name, value in getattr(module, table).items():
                if value is None or (remove_duplicate and id(value) in seen):
                    continue
                seen.add(id(value))
                yield module_prefix + ("." if module_prefix else "") + name, value

    def named_parameters(
        self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True
    ) -> Iterator[tuple[str, Parameter]]:
        return self._named_members("_parameters", prefix, recurse, remove_duplicate)

    def parameters(self, recurse: bool = True) -> Iterator[Parameter]:
        for _, param in self.named_parameters(recurse=recurse):
            yield param

    def named_buffers(
        self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True
    ) -> Iterator[tuple[str, Tensor]]:
        return self._named_members("_buffers", prefix, recurse, remove_duplicate)

    def buffers(self, recurse: bool = True) -> Iterator[Tensor]:
        for _, buffer in self.named_buffers(recurse=recurse):
            yield buffer

    def get_submodule(self, target: str) -> Module:
        module = self
        for part in target.split(".") if target else []:
            child = module._modules.get(part)
            if child is None:
                raise AttributeError(f"{type(module).__name__} has no attribute `{part}`")
            module = child
        return module

    def apply(self, fn: Callable[[Module], None]) -> Module:
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    # ---- modes and dtypes ----

    def train(self, mode: bool = True) -> Module:
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        self.training = mode
        for module in self.children():
            module.train(mode)
        return self

    def eval(self) -> Module:
        return self.train(False)

    def requires_grad_(self, requires_grad: bool = True) -> Module:
        for param in self.parameters():
            param.requires_grad = requires_grad
        return self

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Nothing to do: there are no gradients."""

    def to(self, *args: Any, **kwargs: Any) -> Module:
        """`.to(dtype)` casts floating parameters and buffers in place (cpu is the only device)."""
        target = kwargs.get("dtype")
        for arg in args:
            if str(arg) != "cpu":
                target = arg
        if target is not None:
            self._cast_floats(as_dtype(target))
        return self

    def _cast_floats(self, target: Any) -> None:
        if not target.is_float:
            raise TypeError(
                f"nn.Module.to only accepts floating point dtypes, but got desired dtype={target}"
            )
        for tensor in [*self.parameters(), *self.buffers()]:
            if tensor.is_floating_point():
                tensor.data = tensor.numpy().astype(target.numpy)

    def float(self) -> Module:
        return self.to(np.float32)

    def double(self) -> Module:
        return self.to(np.float64)

    def cpu(self) -> Module:
        return self

    # ---- state ----

    def state_dict(
        self, destination: Any = None, prefix: str = "", keep_vars: bool = False
    ) -> OrderedDict[str, Tensor]:
        """Parameters and persistent buffers by dotted name (the tensors themselves)."""
        out: OrderedDict[str, Tensor] = OrderedDict() if destination is None else destination
        for name, param in self._parameters.items():
            if param is not None:
                out[prefix + name] = param
        for name, buffer in self._buffers.items():
            if buffer is not None and name not in self._non_persistent_buffers_set:
                out[prefix + name] = buffer
        for name, module in self._modules.items():
            if module is not None:
                module.state_dict(out, prefix + name + ".")
        return out

    def load_state_dict(
        self, state_dict: Mapping[str, Any], strict: bool = True, assign: bool = False
    ) -> IncompatibleKeys:
        """Copy values into the parameters and buffers in place (dtypes are kept)."""
        own = self.state_dict()
        errors: list[str] = []
        for key, target in own.items():
            if key not in state_dict:
                continue
            values = as_array(state_dict[key])
            if values.shape != target.shape:
                errors.append(
                    f"size mismatch for {key}: copying a param with shape "
                    f"{_size(values.shape)} from checkpoint, the shape in current model is "
                    f"{_size(target.shape)}."
                )
                continue
            target.numpy()[...] = values
        missing = [k for k in own if k not in state_dict]
        unexpected = [k for k in state_dict if k not in own]
        if strict and unexpected:
            errors.insert(
                0,
                "Unexpected key(s) in state_dict: "
                + ", ".join(f'"{k}"' for k in unexpected)
                + ". ",
            )
        if strict and missing:
            errors.insert(
                0, "Missing key(s) in state_dict: " + ", ".join(f'"{k}"' for k in missing) + ". "
            )
        if errors:
            raise RuntimeError(
                f"Error(s) in loading state_dict for {type(self).__name__}:\n\t"
                + "\n\t".join(errors)
            )
        return IncompatibleKeys(missing, unexpected)

    # ---- printing ----

    def extra_repr(self) -> str:
        return ""

    def _get_name(self) -> str:
        return type(self).__name__

    def __repr__(self) -> str:
        extra = self.extra_repr()
        extra_lines = extra.split("\n") if extra else []
        child_lines = [
            f"({key}): " + _addindent(repr(module), 2) for key, module in self._modules.items()
        ]
        lines = extra_lines + child_lines
        text = self._get_name() + "("
        if lines:
            if len(extra_lines) == 1 and not child_lines:
                text += extra_lines[0]
            else:
                text += "\n  " + "\n  ".join(lines) + "\n"
        return text + ")"


def _size(shape: tuple[int, ...]) -> str:
    return f"torch.Size([{', '.join(str(d) for d in shape)}])"
