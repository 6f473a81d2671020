"""Custom op libraries, like `TORCH_LIBRARY(my_ops, m) { m.def(...); }`.

```python
lib = frontend.library("my_ops")
lib.define("warp_perspective(Tensor src, Tensor M) -> Tensor",
           eager=warp_numpy, shape=warp_shape, kernel=warp_kernel)
frontend.ops.my_ops.warp_perspective(x, m)       # eager, in scripted and in traced code
```

`define` makes the op class (`dialects/torch/custom.py`: name `torch.my_ops.warp_perspective`,
hooks from `eager` and `shape`), registers it in the op registry (so the script frontend, the
tracer, the passes, the parser and `frontend.load` know it), registers `kernel` for the
generated code (`lowering/run/custom_kernels.py`: `kernel(*args, *outs)` writes each result into
its output array) and adds the Python function `frontend.ops.my_ops.warp_perspective`.
An op is defined once per process.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from dialects.torch.custom import check_custom_schema, make_custom_op
from dialects.torch.registry import BY_NAME, register_op
from dialects.torch.schema import parse_schema
from frontend import ops
from lowering.run.custom_kernels import register_kernel

RESERVED_NAMESPACES = frozenset({"aten", "prim", "constant", "vtensor", "ops", "torch", "tsjit"})


class Library:
    """The custom ops of one namespace (`frontend.library("my_ops")`)."""

    def __init__(self, namespace: str) -> None:
        if not namespace.isidentifier() or namespace in _reserved():
            raise ValueError(
                f"{namespace!r} cannot name a library: use an identifier other than "
                f"{', '.join(sorted(_reserved()))}"
            )
        self.namespace = namespace

    def define(
        self,
        schema: str,
        *,
        eager: Callable[..., Any],
        shape: Callable[..., Any],
        kernel: Callable[..., Any],
    ) -> Callable[..., Any]:
        """Define the op `schema` (ATen schema syntax, namespace optional) and return its Python
        function (also `frontend.ops.<namespace>.<name>`).

        `eager(*args)` is the numpy reference; `shape(*args)` the shape rule (TensorMetas in,
        `TensorMeta` or `(shape, dtype)` per result out, see `dialects/torch/custom.py`);
        `kernel(*args, *outs)` a numba-compilable function writing each result into its
        output. ValueError for a malformed or unsupported schema, TypeError for a function
        that does not fit, RuntimeError if the op is already defined.
        """
        text = self._qualified(schema)
        parsed = parse_schema(text)
        check_custom_schema(parsed)
        op_name = f"torch.{parsed.qualified_name}"
        if op_name in BY_NAME:
            raise RuntimeError(f"{text}: the op {op_name} is already defined (once per process)")
        _check_callables(text, eager, shape)
        _check_kernel(text, kernel, len(parsed.arguments) + len(parsed.returns))
        op = make_custom_op(text, eager, shape)
        register_kernel(op.KERNEL_NAME, kernel)
        register_op(op)
        namespace = ops.namespace(self.namespace)
        if not hasattr(namespace, parsed.name):
            namespace.add(parsed.name, ops.make_op_function(self.namespace, parsed.name))
        return getattr(namespace, parsed.name)

    def _qualified(self, schema: str) -> str:
        if not isinstance(schema, str):
            raise TypeError(f"a schema is a string, not {type(schema).__name__}")
        head = schema.split("(", 1)[0]
        if "::" not in head:
            return f"{self.namespace}::{schema.strip()}"
        if head.split("::", 1)[0].strip() != self.namespace:
            raise ValueError(f"{schema!r}: library {self.namespace!r} defines ops in its namespace")
        return schema.strip()

    def __repr__(self) -> str:
        return f"frontend.library({self.namespace!r})"


_LIBRARIES: dict[str, Library] = {}


def library(namespace: str) -> Library:
    """The library of custom ops in `namespace` (the same object for the same name)."""
    if namespace not in _LIBRARIES:
        _LIBRARIES[namespace] = Library(namespace)
    return _LIBRARIES[namespace]


def _reserved() -> set[str]:
    """Namespaces of the built-in ops, and names the frontend uses."""
    return {name.split(".")[1] for name in BY_NAME} | RESERVED_NAMESPACES


def _check_callables(schema: str, eager: Any, shape: Any) -> None:
    for role, fn in (("eager", eager), ("shape", shape)):
        if not callable(fn):
            raise TypeError(f"{schema}: `{role}` must be a function, not {type(fn).__name__}")


def _check_kernel(schema: str, kernel: Any, count: int) -> None:
    """The kernel takes every argument and one output per result, positionally."""
    py_func = getattr(kernel, "py_func", kernel)  # a numba dispatcher wraps the function
    if not inspect.isfunction(py_func):
        raise TypeError(
            f"{schema}: `kernel` must be a numba-compilable Python function, not "
            f"{type(kernel).__name__}"
        )
    parameters = inspect.signature(py_func).parameters.values()
    positional = [p for p in parameters if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    if len(positional) != count or len(positional) != len(parameters):
        raise TypeError(
            f"{schema}: `kernel` must take the op's arguments and then one output array per "
            f"result ({count} positional parameters), but it is {py_func.__name__}"
            f"{inspect.signature(py_func)}"
        )
