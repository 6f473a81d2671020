"""A cross-process cache of generated programs: a new process skips the lowering it did before.

`lowering.run.jit` caches each generated module under the hash of its text, and numba caches the
machine code next to it; but a new process must still run the whole lowering pipeline (a few
hundred milliseconds of xDSL passes for the seed `MyCell`) only to learn which text to look
up. So `compile_program` also remembers the text made for a program, under
`<cache_dir>/programs/<key>.py`, where the key is the SHA-256 of
- the compiler's fingerprint (`compiler_fingerprint`: the source of every file of `lowering/`
  and `dialects/`, and the xDSL and numba versions), so any compiler change makes new keys;
- the machine model (`lowering/machine.py`, `MACHINE.key`), so a program made for one ISA
  (`TSJIT_CPU=haswell`) is never loaded for another;
- the program: its torch-stage IR text (`ir_text`: large literal tensors by the digest of their
  bytes), the function's name and the argument signature text.

An entry is the program text (`lowering/run/program_text.py` format) under a first line that holds
its SHA-256 (`sealed`); it is written atomically, as a 0600 file in a 0700 folder. The seal
only detects damage (anyone can recompute it): what protects an entry is that it is read only
from a `programs` folder that passed the ownership check of `lowering/run/cache_folder.py`,
and only if it is the user's private file (judged on the descriptor it is read from);
otherwise nothing is remembered or read (the check warns once). An entry whose seal does not
match (damaged, edited), that is not a program text, or whose modules fail to import, is
ignored and made again by lowering. Programs with custom ops are not remembered: their text
also depends on the user's shape functions, which the key does not cover.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import io
from collections.abc import Callable
from pathlib import Path
from typing import Any

from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, ModuleOp
from xdsl.ir import Attribute
from xdsl.printer import Printer

from lowering.machine import MACHINE
from lowering.run.cache_folder import checked_subfolder, read_private_file
from lowering.run.jit import cache_dir, compile_function, source_hash, write_entry
from lowering.run.program_text import ProgramTextError, split_program

SEAL = "# tsjit-program sha256="
LARGE_LITERAL_BYTES = 1024  # literals above this many bytes enter the key by their digest
ROOT = Path(__file__).resolve().parents[2]  # the repository: lowering/run/ is two below
COMPILER_PACKAGES = ("lowering", "dialects")


@functools.cache
def compiler_fingerprint() -> str:
    """SHA-256 of what decides the generated text besides the program: the source of every
    `.py` file under `lowering/` and `dialects/` (paths and bytes), and the xDSL and numba
    versions. Computed once per process (about 1 MB of reads)."""
    import numba
    import xdsl

    digest = hashlib.sha256(f"xdsl {xdsl.__version__} numba {numba.__version__}\n".encode())
    for package in COMPILER_PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            digest.update(f"{path.relative_to(ROOT)}\n".encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()


class _DigestPrinter(Printer):
    """Prints IR as usual, except that a large dense literal is printed as the digest of its
    bytes and its type (printing 11M weights element by element takes seconds)."""

    def print_attribute(self, attribute: Attribute) -> None:
        if (
            isinstance(attribute, DenseIntOrFPElementsAttr)
            and len(attribute.data.data) > LARGE_LITERAL_BYTES
        ):
            self.print_string(f"dense<sha256:{hashlib.sha256(attribute.data.data).hexdigest()}> : ")
            super().print_attribute(attribute.type)
            return
        super().print_attribute(attribute)


def ir_text(module: ModuleOp) -> str:
    """The text of `module` for a cache key: its IR, large literals by digest."""
    stream = io.StringIO()
    _DigestPrinter(stream=stream).print_op(module)
    return stream.getvalue()


def program_key(*parts: str) -> str:
    """The key of the program described by `parts` under the current compiler."""
    return source_hash("\0".join([compiler_fingerprint(), MACHINE.key, *parts]))[:40]


def program_path(key: str) -> Path:
    return cache_dir() / "programs" / f"{key}.py"


def sealed(text: str) -> str:
    """`text` under a first line holding its SHA-256."""
    return f"{SEAL}{source_hash(text)}\n{text}"


def unsealed(data: str) -> str | None:
    """The text `sealed` wrapped, or None if the seal line does not match it."""
    first, _, text = data.partition("\n")
    return text if first == SEAL + source_hash(text) else None


def remembered(key: str) -> str | None:
    """The program text remembered under `key`, or None (missing, damaged, not a program, not
    the user's private file, or a cache folder others can write)."""
    if checked_subfolder(cache_dir(), "programs", create=False) is None:
        return None
    try:
        data = read_private_file(program_path(key))
        text = None if data is None else unsealed(data.decode("utf-8"))
        if text is not None:
            split_program(text)  # checks each shared module's name against its content
        return text
    except (OSError, UnicodeDecodeError, ProgramTextError):
        return None


def remember(key: str, text: str) -> None:
    """Remembers `text` under `key` (atomically); a cache that cannot be written, or that
    others can write, is skipped."""
    with contextlib.suppress(OSError):
        if checked_subfolder(cache_dir(), "programs", create=True) is not None:
            write_entry(program_path(key), sealed(text))


def compile_program(
    parts: tuple[str, ...] | None, make_text: Callable[[], str], name: str
) -> tuple[str, Callable[..., Any]]:
    """(program text, its function `name`) for the program described by `parts`: the text made
    for it before (in this or an earlier process), else `make_text()`, which is remembered
    (`parts` None: always made, never remembered).
    A remembered text whose modules no longer import (a custom kernel that changed) or lack
    `name` is made again. Errors of `make_text` propagate; nothing is remembered then."""
    if parts is None:
        text = make_text()
        return text, compile_function(text, name)
    key = program_key(*parts)
    text = remembered(key)
    if text is not None:
        with contextlib.suppress(Exception):
            return text, compile_function(text, name)
    text = make_text()
    function = compile_function(text, name)
    remember(key, text)
    return text, function


def program_parts(module: ModuleOp, name: str, signature: str) -> tuple[str, ...] | None:
    """What identifies the program of function `name` of `module` for `signature`, or None for
    a program that is not to be remembered (one that uses a custom op)."""
    from dialects.torch.custom import CustomOp

    if any(isinstance(op, CustomOp) for op in module.walk()):
        return None
    return ir_text(module), name, signature
