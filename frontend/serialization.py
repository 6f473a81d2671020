"""`save(obj, path)` and `load(path)`: a scripted or traced program in one self-contained zip.

The archive holds, and nothing in it is ever executed or unpickled:
- `manifest.json`: format name and version, the program's kind and name, for each method its
  IR symbol, parameter paths, argument names and annotations and result structure, each
  weight's file, dtype and shape, the custom ops it uses, and the SHA-256 of every other file;
- `methods/<name>.mlir`: the method's torch-dialect IR (entry function and callees) as text;
- `weights/<n>.npy`: each parameter and buffer, written and read with `allow_pickle=False`.
Loading needs no Python source: the IR is parsed and verified, the weights checked against the
manifest. Anything wrong (not a zip, truncated, a changed byte, a missing file, another format
version, an unknown custom op, IR that does not parse or verify) raises `LoadError` saying what.
"""

from __future__ import annotations

import hashlib
import io
import json
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
from xdsl.dialects.builtin import ModuleOp
from xdsl.parser import Parser

from frontend.errors import LoadError
from frontend.function import ScriptFunction
from frontend.module import ScriptMethod, ScriptModule
from frontend.script.control import NONE_ITEM, DictShape, ListShape
from frontend.script.modules import resolve_path, tensor_array

FORMAT = "tsjit"
VERSION = 1
MAX_MEMBER_BYTES = 1 << 31  # refuse absurd sizes claimed by a damaged archive


# ---- save ----


def save(obj: Any, path: str | Path) -> None:
    """Write a ScriptModule, ScriptFunction, traced function or loaded program to `path`."""
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
        for path_ in params:
            if path_ not in weights:
                array = np.ascontiguousarray(weights_of(path_))
                file = f"weights/{len(weights)}.npy"
                buffer = io.BytesIO()
                np.save(buffer, array, allow_pickle=False)
                files[file] = buffer.getvalue()
                weights[path_] = {
                    "file": file,
                    "dtype": str(array.dtype),
                    "shape": list(array.shape),
                }
    manifest["weights"] = weights
    manifest["custom_ops"] = sorted(
        {op.name for f, _ in methods.values() for op in f.module.walk() if _is_custom(op.name)}
    )
    manifest["sha256"] = {n: hashlib.sha256(data).hexdigest() for n, data in files.items()}
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("manifest.json", json.dumps(manifest, indent=1, sort_keys=True))
        for member, data in files.items():
            archive.writestr(member, data)


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


def load(path: str | Path, compile: str | None = None) -> LoadedProgram:
    """Read a program written by `save`; `LoadError` if the file is not exactly that.
    `compile` is `frontend.script`'s (`background` by default, or `now`)."""
    from frontend.run.tiers import check_mode, set_compile_mode

    mode = check_mode(compile)
    try:
        return set_compile_mode(_load(path), mode)
    except LoadError:
        raise
    except (OSError, zipfile.BadZipFile, zipfile.LargeZipFile, EOFError) as err:
        raise LoadError(f"{path}: cannot read the archive: {err}") from None
    except Exception as err:  # a damaged archive can fail inside zipfile/zlib/numpy/xDSL
        raise LoadError(f"{path}: damaged file: {type(err).__name__}: {err}") from None


def _load(path: str | Path) -> LoadedProgram:
    with zipfile.ZipFile(path) as archive:
        manifest = _manifest(archive)
        files = {
            name: _member(archive, name, digest) for name, digest in manifest["sha256"].items()
        }
    _check_custom_ops(manifest)
    weights = {p: _weight(files, p, w) for p, w in manifest["weights"].items()}
    holder = _Weights(weights)
    methods = {}
    for name, info in manifest["methods"].items():
        module = _parse_ir(files, info, name)
        function = ScriptFunction(module, _text(info, "symbol"))
        function.result_structure = _structure_from_json(info.get("results"))
        params = info.get("params", [])
        if not isinstance(params, list) or any(p not in weights for p in params):
            raise LoadError(f"manifest: method {name!r} names weights that are not in the file")
        methods[name] = ScriptMethod(holder, name, function, list(params))
    return LoadedProgram(_text(manifest, "kind"), _text(manifest, "name"), methods, weights)


def _manifest(archive: zipfile.ZipFile) -> dict[str, Any]:
    try:
        raw = archive.read("manifest.json")
    except KeyError:
        raise LoadError("not a tsjit file: manifest.json is missing") from None
    try:
        manifest = json.loads(raw)
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
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
    return manifest


def _member(archive: zipfile.ZipFile, name: str, digest: Any) -> bytes:
    try:
        info = archive.getinfo(name)
    except KeyError:
        raise LoadError(f"{name} is listed in the manifest but missing from the file") from None
    if info.file_size > MAX_MEMBER_BYTES:
        raise LoadError(f"{name}: implausible size {info.file_size}")
    data = archive.read(name)
    if hashlib.sha256(data).hexdigest() != digest:
        raise LoadError(f"{name} was modified: its SHA-256 does not match the manifest")
    return data


def _check_custom_ops(manifest: dict[str, Any]) -> None:
    from dialects.torch.registry import BY_NAME

    missing = [op for op in manifest["custom_ops"] if op not in BY_NAME]
    if missing:
        raise LoadError(
            f"the program uses custom op {', '.join(map(str, missing))}, which is not "
            "registered: register its library (frontend.library(...)) before loading"
        )


def _weight(files: dict[str, bytes], path: str, info: Any) -> np.ndarray:
    if not isinstance(info, dict) or info.get("file") not in files:
        raise LoadError(f"manifest: weight {path!r} has no file")
    try:
        array = np.load(io.BytesIO(files[info["file"]]), allow_pickle=False)
    except ValueError as err:
        raise LoadError(f"weight {path!r}: not a plain .npy array: {err}") from None
    if str(array.dtype) != info.get("dtype") or list(array.shape) != info.get("shape"):
        raise LoadError(
            f"weight {path!r} is {array.dtype}{list(array.shape)} but the manifest says "
            f"{info.get('dtype')}{info.get('shape')}"
        )
    return array


def _parse_ir(files: dict[str, bytes], info: Any, name: str) -> ModuleOp:
    from lowering.pipeline import make_context

    if not isinstance(info, dict) or info.get("file") not in files:
        raise LoadError(f"manifest: method {name!r} has no IR file")
    text = files[info["file"]].decode()
    try:
        module = Parser(make_context(), text, name=info["file"]).parse_module()
        module.verify()
    except Exception as err:
        first = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
        raise LoadError(f"{info['file']}: the IR does not parse or verify: {first}") from None
    return module


def _text(data: dict[str, Any], key: str) -> str:
    value = data.get(key)
    if not isinstance(value, str):
        raise LoadError(f"manifest: `{key}` is missing or not a string")
    return value
