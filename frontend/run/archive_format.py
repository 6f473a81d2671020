"""Where compiled objects find the archive format behind `obj.save(path)` and pickling.

`frontend.serialization` reads and writes `ScriptFunction`s and `ScriptModule`s, so it sits
above them; it registers itself here when it is imported (importing any `frontend` module
imports it through the package), and the objects' `save` and `__reduce__` call it through
`archive_format()`, never by importing it.
"""

from __future__ import annotations

from typing import Any, Protocol


class ArchiveFormat(Protocol):
    def save(self, obj: Any, path: Any) -> None: ...

    def pickled(self, obj: Any) -> tuple[Any, ...]: ...


_REGISTERED: list[ArchiveFormat] = []


def register_archive_format(archive: ArchiveFormat) -> None:
    _REGISTERED[:] = [archive]


def archive_format() -> ArchiveFormat:
    if not _REGISTERED:
        raise RuntimeError("no archive format is registered: import frontend first")
    return _REGISTERED[0]
