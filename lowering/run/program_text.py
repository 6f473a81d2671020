"""The text of a generated program: shared modules, then the main module.

The python target writes kernels that other programs may share (library kernels, outlined
loop nests) into modules of their own, named by their content. A program's source text is
then a sequence of modules, each after a marker line:
```python
# ==== module tsjit_3f9c... ====
<a shared module>
# ==== main module ====
<the module the caller's function lives in; it imports the shared ones by name>
```
A program without shared modules is just its main module, with no marker. `lowering.run.jit`
splits the text, writes each module to the cache under its own name and imports the shared
ones first, so a kernel equal to one of another program is the same file, compiled once.
"""

from __future__ import annotations

import hashlib

MAIN_MARKER = "# ==== main module ===="
SHARED_PREFIX = "# ==== module "
SHARED_SUFFIX = " ===="


class ProgramTextError(ValueError):
    """The text is not a sequence of modules, or a shared module's name is not its content's."""


def module_name(source: str) -> str:
    """The name of the module whose source is `source`: `tsjit_<sha256[:24]>`."""
    return f"tsjit_{hashlib.sha256(source.encode()).hexdigest()[:24]}"


def join_program(shared: list[str], main: str) -> str:
    """The text of a program: each shared module (in import order) after its marker, then
    the main module; equal shared modules appear once."""
    if not shared:
        return main
    unique = list(dict.fromkeys(shared))
    parts = [f"{SHARED_PREFIX}{module_name(s)}{SHARED_SUFFIX}\n{s}" for s in unique]
    return "".join(parts) + f"{MAIN_MARKER}\n{main}"


def split_program(text: str) -> tuple[list[str], str]:
    """The shared modules' sources (in import order) and the main module of `text`."""
    if not text.startswith(SHARED_PREFIX):
        return [], text
    head, marker, main = text.partition(f"{MAIN_MARKER}\n")
    if not marker:
        raise ProgramTextError("program text: shared modules but no main module marker")
    shared: list[str] = []
    for chunk in head.split(SHARED_PREFIX)[1:]:
        name, _, source = chunk.partition(f"{SHARED_SUFFIX}\n")
        if module_name(source) != name:
            raise ProgramTextError(f"program text: module {name} does not hold its source")
        shared.append(source)
    return shared, main
