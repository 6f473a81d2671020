"""Cross-process records of calls that ran on a program's general code, after numba compiled it.

A warm process (the program cache has the program's text, numba's cache its machine code)
still paid, before its first compiled call, for the shape check of the call's exact shapes:
a torch-opt lowering, whose pass imports alone took 0.17 to 0.19 s of a 0.41 s warm first
call of the seed `MyCell`. A record remembers its outcome: for the program of the program
cache's key, a call with these argument shapes and layouts (`call_text`) runs on the code
compiled for the general signature (no exact-shape code), and numba compiled what such a call
needs (its machine code is in numba's cache, next to the program's modules). The caller
writes a record only after such a call ran; with one, it skips the shape check and may run
compiled code from the process's first call.

The key is the SHA-256 of the program key (`program_cache.program_key`: the compiler's
sources, the machine model, the torch IR, the function and the signature), the caller's
`checker` (the digest of the code that decides the outcome, which lives above `lowering/`:
a change there must miss too) and `call_text`. A record is a file `calls/<key>` holding its
key under the program cache's seal; it is read only from a `calls` folder that passed the
ownership check of `lowering/run/cache_folder.py`, and only if it is the user's private file.
A record whose content is not its own key (damaged, copied from another key) is not one.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

from lowering.run.cache_folder import checked_subfolder, read_private_file
from lowering.run.jit import cache_dir, source_hash, write_entry

FOLDER = "calls"


# The program cache (and the machine model it imports) is imported on first use: a fresh
# cache's first call asks only `may_have_records`, and those imports were 8 of its 12 ms.


def record_key(parts: tuple[str, ...], checker: str, call_text: str) -> str:
    """The key of the record of a call `call_text` of the program of `parts`, whose outcome
    the code of digest `checker` decided."""
    from lowering.run.program_cache import program_key

    return source_hash("\0".join([program_key(*parts), checker, call_text]))[:40]


def record_path(key: str) -> Path:
    return cache_dir() / FOLDER / key


def may_have_records() -> bool:
    """Whether the cache has a records folder at all (a fresh cache has none: callers can
    skip computing keys)."""
    return (cache_dir() / FOLDER).is_dir()


def has_record(key: str) -> bool:
    """Whether the record `key` was written (by this or an earlier process) and is intact."""
    from lowering.run.program_cache import unsealed

    if checked_subfolder(cache_dir(), FOLDER, create=False) is None:
        return False
    try:
        data = read_private_file(record_path(key))
        return data is not None and unsealed(data.decode("utf-8")) == key
    except (OSError, UnicodeDecodeError):
        return False


def write_record(key: str) -> None:
    """Writes the record `key` (atomically); a cache that cannot be written, or that others
    can write, is skipped."""
    from lowering.run.program_cache import sealed

    with contextlib.suppress(OSError):
        if checked_subfolder(cache_dir(), FOLDER, create=True) is not None:
            write_entry(record_path(key), sealed(key))
