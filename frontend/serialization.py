"""`save(obj, path)` and `load(path)`: a scripted or traced program in one self-contained zip.

The archive holds, and nothing in it is ever executed or unpickled:
- `manifest.json`: format name and version, the program's kind and name, for each method its
  IR symbol, parameter paths, argument names and annotations and result structure, each
  weight's file, dtype and shape, the custom ops it uses, and the SHA-256 of every other file;
- `methods/<name>.mlir`: the method's torch-dialect IR (entry function and callees) as text;
- `weights/<n>.npy`: each parameter and buffer, written and read with `allow_pickle=False`.
Loading needs no Python source: the archive is read within a memory budget, only the members
`save` writes (`frontend/saved_archive.py`); the IR is parsed with only the builtin, func and
torch dialects and must hold only what `save` writes (`frontend/load_verifier.py`); the weights
are read into arrays of the dtype and shape the manifest declares. Anything wrong (not a zip,
truncated, a changed byte, a missing or extra file, another format version, an unknown custom
op, IR that does not parse, verify or pass the allow-list, a size over the budget) raises
`LoadError` saying what.

`dumps(obj)` / `loads(data)` are the same in memory. Programs pickle by value through them
(`pickled`): `pickle.dumps(scripted)` holds a call of `unpickle` on the archive's bytes, so a
worker process of Dask or Ray unpickles it without the user's source and checks it exactly as
`load` checks a file; the unpickled program compiles in its process on first use.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import sys
import zipfile
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np
from xdsl.dialects.builtin import ModuleOp
from xdsl.parser import Parser
from xdsl.utils.exceptions import ParseError

from dialects.torch.dtypes import BFLOAT16
from frontend.errors import LoadError
from frontend.function import ScriptFunction
from frontend.load_verifier import load_context, verify_loaded
from frontend.module import ScriptMethod, ScriptModule
from frontend.run.archive_format import register_archive_format
from frontend.run.half_values import HalfCarrier, carry
from frontend.saved_archive import (
    WEIGHT_DTYPES,
    SavedArchive,
    budget_limit,
    element_count,
    stored_dtype,
)
from frontend.script.control import NONE_ITEM, DictShape, ListShape
from frontend.script.modules import resolve_path, tensor_array

FORMAT = "tsjit"
VERSION = 1
ZIP_DATE = (1980, 1, 1, 0, 0, 0)  # every member's date: the bytes depend on the program only


# ---- save ----


def save(obj: Any, path: str | Path) -> None:
    """Write a ScriptModule, ScriptFunction, traced function or loaded program to `path`."""
    _write(obj, path)


def dumps(obj: Any) -> bytes:
    """What `save(obj, path)` would write to the file, as bytes (`loads` reads them)."""
    buffer = io.BytesIO()
    _write(obj, buffer)
    return buffer.getvalue()


def _write(obj: Any, target: str | Path | BinaryIO) -> None:
    """The archive of `obj` into `target` (a path or a binary file). Its members carry a fixed
    date, so one program always gives the same bytes."""
    methods, weights_of, kind, name = _describe(obj)
    files: dict[str, bytes] = {}
    manifest: dict[str, Any] = {"format": FORMAT, "version": VERSION, "kind": kind, "name": name}
    manifest["methods"] = {}
    weights: dict[str, dict[str, Any]] = {}
    for method_name, (function, params) in methods.items():
        _check_saveable(function, method_name, _method_variants(obj, method_name))
        ir_file = f"methods/{method_name}.mlir"
        files[ir_file] = str(function.module).encode()
        manifest["methods"][method_name] = {
            "file": ir_file,
            "symbol": function.name,
            "params": params,
            "arguments": [a.name for a in function.arguments][len(params) :],
            "results": _structure_to_json(function.result_structure),
        }
        if function.exact_shapes is not None:  # a trace that read a size: those shapes only
            manifest["methods"][method_name]["exact_shapes"] = [
                list(shape) for shape in function.exact_shapes
            ]
        for path_ in params:
            if path_ not in weights:
                array, dtype = stored_weight(weights_of(path_))
                file = f"weights/{len(weights)}.npy"
                buffer = io.BytesIO()
                np.save(buffer, array, allow_pickle=False)
                files[file] = buffer.getvalue()
                weights[path_] = {"file": file, "dtype": dtype, "shape": list(array.shape)}
    manifest["weights"] = weights
    manifest["custom_ops"] = sorted(
        {op.name for f, _ in methods.values() for op in f.module.walk() if _is_custom(op.name)}
    )
    manifest["sha256"] = {n: hashlib.sha256(data).hexdigest() for n, data in files.items()}
    with zipfile.ZipFile(target, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        members = {"manifest.json": json.dumps(manifest, indent=1, sort_keys=True), **files}
        for member, data in members.items():
            archive.writestr(zipfile.ZipInfo(member, ZIP_DATE), data, zipfile.ZIP_DEFLATED)


def _describe(obj: Any) -> tuple[dict[str, tuple[ScriptFunction, list[str]]], Any, str, str]:
    if isinstance(obj, LoadedProgram):
        methods = {n: (m.function, m.param_paths) for n, m in obj.methods.items()}
        return methods, lambda p: obj.weights[p], obj.kind, obj.name
    if isinstance(obj, ScriptModule):
        methods = {n: (m.function, m.param_paths) for n, m in obj.methods.items()}
        weights = lambda p: tensor_array(resolve_path(obj.original, p))  # noqa: E731
        return methods, weights, "module", obj.original_name
    traced_methods = getattr(obj, "methods", None)
    if isinstance(obj, ScriptFunction) and isinstance(traced_methods, dict):  # TracedModule
        methods = {n: (f, []) for n, f in traced_methods.items()}
        return methods, None, "module", type(obj.original).__name__
    if isinstance(obj, ScriptFunction):
        return {"forward": (obj, [])}, None, "function", obj.name
    raise TypeError(f"cannot save a {type(obj).__name__}: script or trace it first")


def _method_variants(obj: Any, method: str) -> Any:
    """A scripted module method's specializations (kept on the method, not its function)."""
    if isinstance(obj, ScriptModule):
        return getattr(obj.methods[method], "variants", None)
    return None


def _check_saveable(function: ScriptFunction, method: str, method_variants: Any) -> None:
    """A saved program is each method's default graph: refused where that graph cannot serve
    the calls (a function's Optional / List / str arguments; any Dict argument, whose default
    graph takes the values it read as flat arguments). A module method's Optional argument
    is saved as present (the loaded method takes a tensor there), as it always was."""
    if function.steps is not None:
        raise TypeError(
            f"cannot save {method}: it calls @frontend.ignore functions, which are Python"
        )
    refused = [
        spec.kind
        for variants, kinds in (
            (function.variants, ("list", "str", "optional", "dict")),
            (method_variants, ("dict",)),
        )
        if variants is not None
        for _, spec in variants.specs
        if spec is not None and spec.kind in kinds
    ]
    if refused:
        raise TypeError(
            f"cannot save {method}: its graph depends on Optional/List/str argument values "
            "or on the keys of a Dict argument"
        )


def _is_custom(name: str) -> bool:
    parts = name.split(".")
    return (
        len(parts) > 2
        and parts[0] == "torch"
        and parts[1] not in ("aten", "prim", "constant", "vtensor")
    )


def _structure_to_json(structure: Any) -> Any:
    if structure is None:
        return None
    if structure == NONE_ITEM:
        return {"none": True}
    if isinstance(structure, DictShape):
        return {
            "dict": [[k, _structure_to_json(s)] for k, s in zip(structure.keys, structure.items)]
        }
    items = [_structure_to_json(s) for s in structure]
    return {"list": items} if isinstance(structure, ListShape) else items


def _structure_from_json(data: Any) -> Any:
    if data is None:
        return None
    if isinstance(data, dict) and set(data) == {"list"} and isinstance(data["list"], list):
        return ListShape(_structure_from_json(d) for d in data["list"])
    if data == {"none": True}:
        return NONE_ITEM
    if isinstance(data, dict) and set(data) == {"dict"} and isinstance(data["dict"], list):
        pairs = [pair for pair in data["dict"] if isinstance(pair, list) and len(pair) == 2]
        if len(pairs) != len(data["dict"]):
            raise LoadError(f"manifest: bad result structure {data!r}")
        keys = tuple(key for key, _ in pairs)
        return DictShape(keys, tuple(_structure_from_json(s) for _, s in pairs))
    if not isinstance(data, list):
        raise LoadError(f"manifest: bad result structure {data!r}")
    return tuple(_structure_from_json(d) for d in data)


# ---- load ----


class LoadedProgram:
    """A program read back from a file: its methods run compiled with the saved weights."""

    def __init__(self, kind: str, name: str, methods: dict[str, ScriptMethod],
                 weights: dict[str, np.ndarray]) -> None:  # fmt: skip
        self.kind = kind
        self.name = name
        self.methods = methods
        self.weights = weights

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._method("forward")(*args, **kwargs)

    def _method(self, name: str) -> ScriptMethod:
        if name not in self.methods:
            raise AttributeError(f"loaded {self.name} has no method {name!r}")
        return self.methods[name]

    def __getattr__(self, name: str) -> Any:
        methods = self.__dict__.get("methods", {})
        if name in methods:
            return methods[name]
        raise AttributeError(f"loaded {self.__dict__.get('name')} has no attribute {name!r}")

    @property
    def graph(self) -> str:
        return self._method("forward").graph

    @property
    def code(self) -> str:
        return self._method("forward").code

    def ir(self, stage: Any = "torch", signature: str | None = None) -> str:
        return self._method("forward").ir(stage, signature)

    def wait_compiled(self, timeout: float | None = None) -> bool:
        """Waits for the background compiles of every method (see `ScriptFunction`)."""
        from frontend.run.tiers import wait_program

        return wait_program(self, timeout)

    def state_dict(self) -> dict[str, np.ndarray]:
        return dict(self.weights)

    def save(self, path: str | Path) -> None:
        save(self, path)

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickles by value, as the bytes `save` writes (see `pickled`)."""
        return pickled(self)

    def __repr__(self) -> str:
        return f"<tsjit.LoadedProgram {self.name} ({', '.join(self.methods)})>"


class _Weights:
    """Attribute access over saved weight paths (`w.linear.weight`), for ScriptMethod."""

    def __init__(self, arrays: dict[str, np.ndarray], prefix: str = "") -> None:
        self._arrays = arrays
        self._prefix = prefix

    def __getattr__(self, name: str) -> Any:
        path = f"{self._prefix}{name}"
        if path in self._arrays:
            return self._arrays[path]
        return _Weights(self._arrays, path + ".")


def load(
    path: str | Path, *, max_bytes: int | None = None, compile: str | None = None
) -> LoadedProgram:
    """Read a program written by `save`; `LoadError` if the file is not exactly that.

    At most `max_bytes` bytes are inflated from the file (default: `$TSJIT_LOAD_MAX_BYTES`,
    else twice the weights' bytes the manifest declares plus 64 MiB for the IR text); see
    `frontend/saved_archive.py` for the checks made before anything is read, and
    `frontend/load_verifier.py` for what the IR may hold. ValueError for a `max_bytes` (or
    `$TSJIT_LOAD_MAX_BYTES`) that is not a number of bytes. `compile` is
    `frontend.script`'s (`background` by default, or `now`)."""
    from frontend.run.tiers import check_mode, set_compile_mode

    mode = check_mode(compile)
    budget_limit(0, max_bytes)  # the caller's mistake: raised as it is, before the file is read
    try:
        return set_compile_mode(_load(path, max_bytes), mode)
    except (LoadError, MemoryError):
        raise
    except (OSError, zipfile.BadZipFile, zipfile.LargeZipFile, EOFError) as err:
        raise LoadError(f"{path}: cannot read the archive: {err}") from None
    except Exception as err:  # a damaged archive can fail inside zipfile/zlib/numpy/xDSL
        raise LoadError(f"{path}: damaged file: {type(err).__name__}: {err}") from None


def loads(data: bytes) -> LoadedProgram:
    """Read a program from the bytes `dumps` (or a file `save` wrote) holds; `LoadError` as
    `load` if they are not exactly that."""
    if not isinstance(data, bytes | bytearray | memoryview):
        raise TypeError(f"loads() takes bytes, got {type(data).__name__}")
    return load(_InMemory(bytes(data)))  # type: ignore[arg-type]


class _InMemory(io.BytesIO):
    """An archive held in memory, named so in `load`'s errors."""

    def __str__(self) -> str:
        return "the in-memory program"


# ---- pickling ----

UNPICKLED_KEPT = 8
"""How many unpickled programs a process keeps, by the SHA-256 of their bytes: a task that
unpickles a program the process has seen gets the same object, compiled already, so a model
sent with each of many tasks compiles once per process (and once per machine, from the disk
cache)."""

_UNPICKLED: dict[str, LoadedProgram] = {}


def pickled(obj: Any) -> tuple[Any, tuple[bytes]]:
    """`obj.__reduce__()` for scripted, traced, frozen and loaded programs: they pickle by
    value, as the bytes `save` writes (torch IR, weights, manifest: never Python code or a
    reference to the user's source). Custom ops travel by name: the unpickling process must
    have registered them. Programs `save` refuses raise `pickle.PicklingError`."""
    import pickle

    try:
        data = dumps(obj)
    except TypeError as err:
        raise pickle.PicklingError(f"cannot pickle {obj!r}: {err}") from err
    return unpickle, (data,)


def unpickle(data: bytes) -> LoadedProgram:
    """What `pickle.loads` calls for a pickled program: `loads(data)` (checked as `load`
    checks a file, `LoadError` if anything differs), or the program this process unpickled
    from the same bytes before."""
    key = hashlib.sha256(data).hexdigest()
    program = _UNPICKLED.get(key)
    if program is None:
        program = loads(data)
        _UNPICKLED[key] = program
        while len(_UNPICKLED) > UNPICKLED_KEPT:  # the oldest goes first
            with contextlib.suppress(KeyError, StopIteration, RuntimeError):
                del _UNPICKLED[next(iter(_UNPICKLED))]
    return program


def _load(path: str | Path, max_bytes: int | None = None) -> LoadedProgram:
    with zipfile.ZipFile(path) as zip_file:
        archive = SavedArchive(zip_file)
        manifest = _manifest(archive)
        _check_custom_ops(manifest)
        weight_shapes = {p: _weight_entry(p, w) for p, w in manifest["weights"].items()}
        texts = [_ir_file(info, name) for name, info in manifest["methods"].items()]
        planned = [(f, stored_dtype(d), n) for f, d, _, n in weight_shapes.values()]
        archive.plan(texts, planned, manifest["sha256"], max_bytes)
        weights = {
            p: loaded_weight(archive.weight(f, stored_dtype(d), shape, manifest["sha256"][f]), d)
            for p, (f, d, shape, _) in weight_shapes.items()
        }
        files = {name: archive.text(name, manifest["sha256"][name]) for name in texts}
    holder = _Weights(weights)
    methods = {}
    for name, info in manifest["methods"].items():
        symbol = _text(info, "symbol")
        module = _parse_ir(files, info, name)
        verify_loaded(module, symbol, manifest["custom_ops"], info["file"])
        function = ScriptFunction(module, symbol)
        function.result_structure = _structure_from_json(info.get("results"))
        function.exact_shapes = _exact_shapes(info.get("exact_shapes"), name)
        params = info.get("params", [])
        if not isinstance(params, list) or any(
            not isinstance(p, str) or p not in weights for p in params
        ):
            raise LoadError(f"manifest: method {name!r} names weights that are not in the file")
        _check_weight_paths(holder, weights, params)
        methods[name] = ScriptMethod(holder, name, function, list(params))
    return LoadedProgram(_text(manifest, "kind"), _text(manifest, "name"), methods, weights)


def _exact_shapes(data: Any, method: str) -> tuple[tuple[int, ...], ...] | None:
    """The shapes a saved trace serves only (`None`: every shape)."""
    if data is None:
        return None
    if not isinstance(data, list) or not all(
        isinstance(s, list) and all(type(d) is int and d >= 0 for d in s) for s in data
    ):
        raise LoadError(f"manifest: method {method!r} has malformed exact_shapes")
    return tuple(tuple(s) for s in data)


def _check_weight_paths(holder: _Weights, weights: dict[str, np.ndarray], params: list[str]):
    """Each parameter path leads to its own array through the holder (not to an attribute of
    the holder itself, such as `_arrays` or `__class__`)."""
    for path in params:
        try:
            found = resolve_path(holder, path)
        except AttributeError:
            found = None
        if found is not weights[path]:
            raise LoadError(f"manifest: weight path {path!r} does not name a weight")


def _manifest(archive: SavedArchive) -> dict[str, Any]:
    raw = archive.manifest_bytes()
    try:
        manifest = json.loads(raw)
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as err:
        raise LoadError(f"manifest.json is not valid JSON: {err}") from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise LoadError("not a tsjit file: the manifest does not name the tsjit format")
    if manifest.get("version") != VERSION:
        raise LoadError(
            f"format version {manifest.get('version')!r} is not supported (this tsjit reads "
            f"version {VERSION})"
        )
    for key, typ in (("methods", dict), ("weights", dict), ("sha256", dict), ("custom_ops", list)):
        if not isinstance(manifest.get(key), typ):
            raise LoadError(f"manifest: `{key}` is missing or malformed")
    if not all(isinstance(op, str) for op in manifest["custom_ops"]):
        raise LoadError("manifest: `custom_ops` is not a list of names")
    if not all(isinstance(d, str) and len(d) == 64 for d in manifest["sha256"].values()):
        raise LoadError("manifest: `sha256` holds something other than SHA-256 digests")
    if manifest.get("kind") not in ("module", "function"):
        raise LoadError(f"manifest: unknown program kind {manifest.get('kind')!r}")
    return manifest


def stored_weight(weight: Any) -> tuple[np.ndarray, str]:  # type: ignore[type-arg]
    """(the array `save` writes, the manifest's dtype) of a weight: a bfloat16 weight (a
    float32 carrier of bfloat16 values) as its 16 bits, the others as they are."""
    if isinstance(weight, HalfCarrier) and weight.half is BFLOAT16:
        bits = np.ascontiguousarray(weight, dtype=np.float32).view(np.uint32) >> 16
        return bits.astype(np.uint16), BFLOAT16.name
    array = np.ascontiguousarray(weight)
    return array, str(array.dtype)


def loaded_weight(array: np.ndarray, dtype: str) -> np.ndarray:  # type: ignore[type-arg]
    """The weight as a call takes it: bfloat16 bits back as a float32 carrier."""
    if dtype != BFLOAT16.name:
        return array
    return carry((array.astype(np.uint32) << 16).view(np.float32), BFLOAT16)


def _weight_entry(path: str, info: Any) -> tuple[str, str, tuple[int, ...], int]:
    """(file, dtype, shape, element count) of the manifest's entry for weight `path`."""
    if not isinstance(info, dict) or not isinstance(info.get("file"), str):
        raise LoadError(f"manifest: weight {path!r} has no file")
    dtype = info.get("dtype")
    if dtype not in WEIGHT_DTYPES:
        raise LoadError(f"manifest: weight {path!r} has dtype {dtype!r}, not one save writes")
    shape, count = element_count(info.get("shape"), f"weight {path!r}")
    return info["file"], dtype, shape, count


def _ir_file(info: Any, name: str) -> str:
    if not isinstance(info, dict) or not isinstance(info.get("file"), str):
        raise LoadError(f"manifest: method {name!r} has no IR file")
    return info["file"]


def _check_custom_ops(manifest: dict[str, Any]) -> None:
    from dialects.torch.registry import BY_NAME

    missing = [op for op in manifest["custom_ops"] if op not in BY_NAME]
    if missing:
        raise LoadError(
            f"the program uses custom op {', '.join(map(str, missing))}, which is not "
            "registered: register its library (frontend.library(...)) before loading"
        )


def _parse_ir(files: dict[str, bytes], info: Any, name: str) -> ModuleOp:
    if not isinstance(info, dict) or info.get("file") not in files:
        raise LoadError(f"manifest: method {name!r} has no IR file")
    try:
        text = files[info["file"]].decode()
    except UnicodeDecodeError as err:
        raise LoadError(f"{info['file']}: the IR is not UTF-8 text: {err}") from None
    try:
        module = Parser(load_context(), text, name=info["file"]).parse_module()
        module.verify()
    except Exception as err:
        lines = str(err).strip().splitlines() or [type(err).__name__]
        reason = str(getattr(err, "msg", "") or lines[-1]).strip()
        where = f" (at {lines[0]})" if isinstance(err, ParseError) else ""
        message = f"{info['file']}: the IR does not parse or verify: {reason}{where}"
        raise LoadError(message) from None
    return module


def _text(data: dict[str, Any], key: str) -> str:
    value = data.get(key)
    if not isinstance(value, str):
        raise LoadError(f"manifest: `{key}` is missing or not a string")
    return value


register_archive_format(sys.modules[__name__])  # type: ignore[arg-type]  (run/archive_format.py)
