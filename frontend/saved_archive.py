"""Reading a saved file's zip within a memory budget: only the members `save` writes, streamed.

`load` reads the archive through `SavedArchive`, which refuses before inflating anything:
- member names other than `manifest.json`, `methods/<identifier>.mlir`, `weights/<n>.npy`
  (so no traversal names), duplicate names, links and folders, encrypted members,
  compression methods other than stored and deflated, and declared sizes that the member's
  compressed bytes cannot inflate to;
- members the manifest does not use, and manifest entries that share a member;
- a weight member whose declared size is not its npy header plus shape x item size;
- a total of declared sizes above the budget: `max_bytes`, else `$TSJIT_LOAD_MAX_BYTES`, else
  `BUDGET_MULTIPLE` x the weights' bytes the manifest declares plus `TEXT_ALLOWANCE` for the
  manifest and the IR text.
Each member is then read as a stream that counts the bytes actually inflated, stops at the
declared size and hashes as it goes; a weight is read straight into an array of the declared
dtype and shape, after its npy header was checked against the manifest.
"""

from __future__ import annotations

import hashlib
import math
import os
import re
import stat
import zipfile
from typing import IO, Any

import numpy as np

from frontend.errors import LoadError

MANIFEST = "manifest.json"
MAX_MANIFEST_BYTES = 16 << 20
TEXT_ALLOWANCE = 64 << 20  # the manifest and every method's IR text
BUDGET_MULTIPLE = 2
BUDGET_VARIABLE = "TSJIT_LOAD_MAX_BYTES"
MAX_NPY_HEADER = 10_000  # numpy's own limit on the header it parses
CHUNK = 1 << 20
MEMBER_NAME = re.compile(r"manifest\.json|methods/[A-Za-z_][A-Za-z0-9_]*\.mlir|weights/[0-9]+\.npy")
WEIGHT_DTYPES = frozenset({
    "bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32",
    "float64",
})  # tsjit's dtypes (dialects/torch/dtypes.py)
STORED_AS = {"bfloat16": "uint16"}  # numpy has no bfloat16: its weights are their 16 bits


def stored_dtype(dtype: str) -> str:
    """The npy dtype of a weight of manifest dtype `dtype` (bfloat16's bits are uint16)."""
    return STORED_AS.get(dtype, dtype)


COMPRESSIONS = (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED)
DEFLATE_RATIO = 1032  # deflate's largest possible inflation per compressed byte


class Budget:
    """The bytes `load` may still inflate; LoadError when a read would go past it."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.spent = 0

    def take(self, count: int) -> None:
        self.spent += count
        if self.spent > self.limit:
            raise LoadError(f"the file inflates past the load budget of {self.limit} bytes")


def budget_limit(declared_weight_bytes: int, max_bytes: int | None) -> int:
    """The budget: `max_bytes`, else `$TSJIT_LOAD_MAX_BYTES`, else the default multiple."""
    if max_bytes is not None:
        if isinstance(max_bytes, bool) or not isinstance(max_bytes, int) or max_bytes < 0:
            raise ValueError(f"max_bytes must be a non-negative int, got {max_bytes!r}")
        return max_bytes
    if configured := os.environ.get(BUDGET_VARIABLE):
        if not configured.strip().isdigit():
            raise ValueError(f"${BUDGET_VARIABLE} must be a number of bytes: {configured!r}")
        return int(configured)
    return BUDGET_MULTIPLE * declared_weight_bytes + TEXT_ALLOWANCE


class _Stream:
    """A member's bytes as inflated: counted against its declared size and the budget,
    hashed as they come."""

    def __init__(self, raw: IO[bytes], name: str, size: int, budget: Budget) -> None:
        self.raw, self.name, self.left, self.budget = raw, name, size, budget
        self.digest = hashlib.sha256()
        self.count = 0

    def read(self, n: int = -1) -> bytes:
        n = self.left if n < 0 else min(n, self.left)
        data = self.raw.read(n) if n else b""
        self._account(data)
        return data

    def readinto(self, view: memoryview) -> None:
        """Fills `view` whole (LoadError if the member ends first)."""
        done = 0
        while done < len(view):
            data = self.read(min(CHUNK, len(view) - done))
            if not data:
                raise LoadError(f"{self.name} ends before its declared size")
            view[done : done + len(data)] = data
            done += len(data)

    def _account(self, data: bytes) -> None:
        self.left -= len(data)
        self.count += len(data)
        self.digest.update(data)
        self.budget.take(len(data))

    def finish(self, digest: str) -> None:
        """Checks the member ends here (which checks its CRC) and matches `digest`."""
        if self.left or self.raw.read(1):
            raise LoadError(f"{self.name} does not have its declared size")
        if self.digest.hexdigest() != digest:
            raise LoadError(f"{self.name} was modified: its SHA-256 does not match the manifest")


class SavedArchive:
    """An open saved file whose member names passed the checks of the module docstring."""

    def __init__(self, archive: zipfile.ZipFile) -> None:
        self.archive = archive
        self.members: dict[str, zipfile.ZipInfo] = {}
        for info in archive.infolist():
            name = info.filename
            if not MEMBER_NAME.fullmatch(name):
                raise LoadError(f"member {name!r} is not part of a tsjit file")
            if name in self.members:
                raise LoadError(f"member {name} appears twice in the file")
            if info.flag_bits & 0x1:
                raise LoadError(f"member {name} is encrypted")
            if info.compress_type not in COMPRESSIONS:
                raise LoadError(f"member {name} uses compression method {info.compress_type}")
            if stat.S_IFMT(info.external_attr >> 16) not in (0, stat.S_IFREG):
                raise LoadError(f"member {name} is not a plain file (a link or a folder)")
            if info.file_size > _most_inflated(info):
                raise LoadError(
                    f"member {name} declares {info.file_size} bytes, more than its "
                    f"{info.compress_size} compressed bytes can hold"
                )
            self.members[name] = info
        self.budget = Budget(MAX_MANIFEST_BYTES)

    def info(self, name: str) -> zipfile.ZipInfo:
        if name not in self.members:
            raise LoadError(f"{name} is listed in the manifest but missing from the file")
        return self.members[name]

    def manifest_bytes(self) -> bytes:
        if MANIFEST not in self.members:
            raise LoadError("not a tsjit file: manifest.json is missing")
        info = self.members[MANIFEST]
        if info.file_size > MAX_MANIFEST_BYTES:
            raise LoadError(f"manifest.json declares {info.file_size} bytes, above the limit")
        stream = _Stream(self.archive.open(info), MANIFEST, info.file_size, self.budget)
        data = stream.read()
        if stream.left or stream.raw.read(1):
            raise LoadError("manifest.json does not have its declared size")
        return data

    def plan(self, texts: list[str], weights: list[tuple[str, str, int]],
             digests: dict[str, Any], max_bytes: int | None) -> None:  # fmt: skip
        """Checks, before anything is read, that the members are exactly the manifest's IR
        `texts` and weight files (`weights`: (file, dtype, element count)), each used once
        and listed with a digest, and that their declared sizes fit the budget."""
        used = [*texts, *(file for file, _, _ in weights)]
        if len(set(used)) != len(used):
            raise LoadError("manifest: two entries name the same member")
        unused = sorted(set(self.members) - {MANIFEST, *used})
        if unused:
            raise LoadError(f"member {unused[0]} is not used by the manifest")
        if set(digests) != set(used):
            raise LoadError("manifest: `sha256` does not list exactly the files it uses")
        declared = 0
        for file, dtype, count in weights:
            data_bytes = count * np.dtype(dtype).itemsize
            size = self.info(file).file_size
            if not data_bytes + 10 <= size <= data_bytes + MAX_NPY_HEADER + 10:
                raise LoadError(
                    f"{file} declares {size} bytes, but its shape x item size is {data_bytes}"
                )
            declared += data_bytes
        limit = budget_limit(declared, max_bytes)
        total = sum(self.info(name).file_size for name in [MANIFEST, *used])
        if total > limit:
            raise LoadError(
                f"the file declares {total} bytes of members, above the load budget of {limit} "
                f"bytes (raise it with load(..., max_bytes=...) or ${BUDGET_VARIABLE})"
            )
        self.budget = Budget(limit)
        self.budget.take(self.info(MANIFEST).file_size)  # read already

    def text(self, name: str, digest: str) -> bytes:
        """The bytes of member `name`, streamed and checked against `digest`."""
        info = self.info(name)
        stream = _Stream(self.archive.open(info), name, info.file_size, self.budget)
        data = bytearray(info.file_size)
        stream.readinto(memoryview(data))
        stream.finish(digest)
        return bytes(data)

    def weight(self, name: str, dtype: str, shape: tuple[int, ...], digest: str) -> np.ndarray:
        """The array in member `name`: its npy header must give exactly `dtype` and `shape`
        (C order) and the member's size header plus data; read straight into the array."""
        info = self.info(name)
        stream = _Stream(self.archive.open(info), name, info.file_size, self.budget)
        header_shape, fortran, header_dtype = _npy_header(stream, name)
        if header_dtype != np.dtype(dtype) or str(header_dtype) != dtype:
            raise LoadError(f"{name} holds {header_dtype} data, but the manifest says {dtype}")
        if fortran:
            raise LoadError(f"{name} is in Fortran order, which save never writes")
        if header_shape != shape:
            raise LoadError(f"{name} has shape {list(header_shape)}, but the manifest says "
                            f"{list(shape)}")  # fmt: skip
        array = np.empty(shape, np.dtype(dtype))
        if stream.count + array.nbytes != info.file_size:
            raise LoadError(f"{name} declares {info.file_size} bytes, not header plus data")
        stream.readinto(memoryview(array.reshape(-1).view(np.uint8)))
        stream.finish(digest)
        if array.dtype == np.bool_ and array.view(np.uint8).max(initial=0) > 1:
            raise LoadError(f"{name}: a bool weight holds bytes other than 0 and 1")
        return array


def _most_inflated(info: zipfile.ZipInfo) -> int:
    """The most bytes a member's compressed data can inflate to (deflate: 1032 to 1)."""
    if info.compress_type == zipfile.ZIP_STORED:
        return info.compress_size
    return DEFLATE_RATIO * info.compress_size + 64


def _npy_header(stream: _Stream, name: str) -> tuple[tuple[int, ...], bool, np.dtype]:  # type: ignore[type-arg]
    try:
        version = np.lib.format.read_magic(stream)  # type: ignore[arg-type]
        read = {(1, 0): np.lib.format.read_array_header_1_0,
                (2, 0): np.lib.format.read_array_header_2_0}.get(version)  # fmt: skip
        if read is None:
            raise LoadError(f"{name}: npy format version {version} is not one save writes")
        shape, fortran, dtype = read(stream, max_header_size=MAX_NPY_HEADER)  # type: ignore[arg-type]
    except ValueError as err:
        raise LoadError(f"{name}: not a plain .npy array: {err}") from None
    if dtype.hasobject or dtype.fields is not None or not dtype.isnative:
        raise LoadError(f"{name}: dtype {dtype} is not one save writes")
    return tuple(shape), bool(fortran), dtype


def element_count(shape: Any, what: str) -> tuple[tuple[int, ...], int]:
    """(shape, element count) of a manifest shape: a list of non-negative ints."""
    sizes_ok = isinstance(shape, list) and all(type(d) is int and d >= 0 for d in shape)
    if not sizes_ok:  # `type(d) is int`: a bool is not a size
        raise LoadError(f"manifest: {what} has a malformed shape {shape!r}")
    return tuple(shape), math.prod(shape)
