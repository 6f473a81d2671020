"""Binds the kernel declarations of a loops-level module to the registered custom-op kernels.

A `func.func` declaration with a `tsjit.kernel` attribute (`lowering/kernel_calls.py`) becomes
a module-level name bound when the generated module is imported, which its functions call like
any other numba function:
```python
from lowering.run.custom_kernels import kernel as tsjit_kernel
my_ops_warp_perspective = tsjit_kernel("my_ops.warp_perspective", "<sha256 of its source>")
```
The digest makes the text, and so the cache entry, change with the kernel's source.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import func

from lowering.kernel_calls import kernel_name
from lowering.python_target.tables import PythonEmitError
from lowering.run.custom_kernels import KernelError, kernel_digest

KERNEL_IMPORT = "from lowering.run.custom_kernels import kernel as tsjit_kernel\n"


def is_custom_kernel(op: func.FuncOp) -> bool:
    """A declaration that stands for a custom op's kernel."""
    return kernel_name(op) is not None


def custom_kernel_bindings(
    declarations: Sequence[func.FuncOp], symbols: dict[str, str]
) -> list[str]:
    """The import and one binding line per declaration (nothing without declarations)."""
    if not declarations:
        return []
    lines = [KERNEL_IMPORT]
    for op in declarations:
        name = kernel_name(op)
        assert name is not None
        try:
            digest = kernel_digest(name)
        except KernelError as err:
            raise PythonEmitError(f"python target: @{op.sym_name.data}: {err}") from None
        lines.append(f'{symbols[op.sym_name.data]} = tsjit_kernel("{name}", "{digest}")\n')
    return ["".join(lines)]
