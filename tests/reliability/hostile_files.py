"""Hostile saved files: a small zip writer that can lie, and a corpus of crafted tsjit files.

`corpus(base)` turns one honest saved file (`base`: its members by name) into cases, each
the bytes of a file an attacker or a broken tool could hand to `frontend.load`: raw memref /
arith / scf ops and other dialects in the IR, attributes no saved file holds, weights whose
bytes do not match their declared dtype and shape, zip bombs, lying headers and sizes, CRC
mismatches, duplicate and unused members, traversal names, truncations and manifests of the
wrong types. The attacker controls the whole file, so each case rewrites the manifest's
digests to match the members it changed (`rebuild`): only the checks of `load` stand.
"""

from __future__ import annotations

import hashlib
import io
import json
import struct
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

GIB = 1 << 30
FIVE = range(5, 10)  # names of five extra weight members
W1 = "weights/1.npy"
BOMB_NPY = (3900 << 20) + 128  # 3900 MiB of data under an npy header
ZERO_MIB = bytes(1 << 20)


@dataclass
class Member:
    """A zip member as written: `payload` is the stored bytes (deflated when method 8)."""

    name: str
    payload: bytes
    size: int  # the uncompressed size the central directory declares
    crc: int
    method: int = 8
    flags: int = 0
    external: int = 0
    local_name: str | None = None  # the local header's name when it lies
    local_size: int | None = None  # the local header's size when it lies


@dataclass
class Case:
    """A hostile file and how to load it."""

    data: bytes
    max_bytes: int | None = None
    env: dict[str, str] = field(default_factory=dict[str, str])


def deflated(name: str, data: bytes, **changes: Any) -> Member:
    compressor = zlib.compressobj(6, zlib.DEFLATED, -15)
    payload = compressor.compress(data) + compressor.flush()
    member = Member(name, payload, len(data), zlib.crc32(data))
    for key, value in changes.items():
        setattr(member, key, value)
    return member


def bomb(name: str, mib: int, declared: int | None = None) -> Member:
    """A member whose deflate stream inflates to `mib` MiB of zeros (about 1 KB per MiB),
    declaring `declared` bytes (default: the truth). Its CRC is not computed (a CRC of GBs
    costs seconds): a reader that inflates it whole fails only at the end, too late."""
    compressor = zlib.compressobj(9, zlib.DEFLATED, -15)
    chunk = compressor.compress(ZERO_MIB) + compressor.flush(zlib.Z_FULL_FLUSH)
    payload = chunk * mib + compressor.flush()
    return Member(name, payload, (mib << 20) if declared is None else declared, 0)


def write_zip(members: list[Member]) -> bytes:
    """The archive of `members`, in order, exactly as described (no zip64)."""
    out = io.BytesIO()
    central = []
    for m in members:
        offset = out.tell()
        local_name = (m.local_name if m.local_name is not None else m.name).encode()
        local_size = m.size if m.local_size is None else m.local_size
        out.write(struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, m.flags, m.method, 0, 0x21,
                              m.crc, len(m.payload), local_size, len(local_name), 0))  # fmt: skip
        out.write(local_name + m.payload)
        name = m.name.encode()
        central.append(
            struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 0x0314, 20, m.flags, m.method, 0, 0x21,
                        m.crc, len(m.payload), m.size, len(name), 0, 0, 0, 0, m.external, offset)
            + name
        )  # fmt: skip
    start = out.tell()
    out.write(b"".join(central))
    size = out.tell() - start
    out.write(
        struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, len(members), len(members), size, start, 0)
    )
    return out.getvalue()


def rebuild(files: dict[str, bytes], edit: Callable[[dict[str, Any]], None] | None = None,
            extra: list[Member] | None = None, resign: bool = True) -> bytes:  # fmt: skip
    """An archive of `files` (manifest.json edited by `edit`, digests re-signed for the
    members as given), plus `extra` raw members."""
    files = dict(files)
    manifest = json.loads(files["manifest.json"])
    if resign:
        manifest["sha256"] = {
            n: hashlib.sha256(d).hexdigest() for n, d in files.items() if n != "manifest.json"
        }
    if edit is not None:
        edit(manifest)
    files["manifest.json"] = json.dumps(manifest).encode()
    members = [deflated(n, d) for n, d in files.items()]
    return write_zip(members + (extra or []))


def npy(array: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, array, allow_pickle=False)
    return buffer.getvalue()


def npy_with_header(header: dict[str, Any], data: bytes) -> bytes:
    """An npy file with any header dict (a header that lies about the data after it)."""
    text = repr(header).encode()
    text += b" " * (63 - (10 + len(text)) % 64) + b"\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(text)) + text + data


def set_path(manifest: dict[str, Any], keys: tuple[str, ...], value: Any) -> None:
    target = manifest
    for key in keys[:-1]:
        target = target[key]
    target[keys[-1]] = value


# ---- IR cases: (IR text for the method file) ----

SIG = "(%x: !torch.vtensor<[3,3],f32>) -> !torch.vtensor<[3,3],f32>"


def function(body: str, sig: str = SIG, name: str = "Picker.forward") -> str:
    return f'builtin.module {{\n  func.func @"{name}"{sig} {{\n{body}\n  }}\n}}\n'


RETURN = "    func.return %x : !torch.vtensor<[3,3],f32>"
IR_CASES: dict[str, str] = {
    "memref_store_far": function(
        "    %m = memref.alloc() : memref<4xf32>\n"
        "    %i = arith.constant 1099511627776 : index\n"
        "    %v = arith.constant 1.0 : f32\n"
        "    memref.store %v, %m[%i] : memref<4xf32>\n" + RETURN
    ),
    "memref_load_near": function(
        "    %m = memref.alloc() : memref<4xf32>\n    %i = arith.constant -1 : index\n"
        "    %v = memref.load %m[%i] : memref<4xf32>\n" + RETURN
    ),
    "generic_memref_op": function(
        '    %m = "memref.alloc"() {operandSegmentSizes = array<i32: 0, 0>} : () -> memref<4xf32>\n'
        + RETURN
    ),
    "arith_op": function("    %c = arith.constant 1 : i64\n" + RETURN),
    "scf_for": function(
        "    %a = arith.constant 0 : index\n    %b = arith.constant 4 : index\n"
        "    scf.for %i = %a to %b step %b {\n    }\n" + RETURN
    ),
    "llvm_op": function("    %p = llvm.mlir.zero : !llvm.ptr\n" + RETURN),
    "cf_branch": function("    cf.br ^bb1\n  ^bb1:\n" + RETURN),
    "unregistered_generic": function('    "test.op"() : () -> ()\n' + RETURN),
    "unrealized_cast": function(
        "    %c = builtin.unrealized_conversion_cast %x : !torch.vtensor<[3,3],f32> to "
        "memref<3x3xf32>\n" + RETURN
    ),
    "nested_module": function("    builtin.module {\n    }\n" + RETURN),
    "python_call": function(
        '    %r = torch.prim.PythonCall "os.system#1" (%x) : (!torch.vtensor<[3,3],f32>) -> '
        "!torch.vtensor<[3,3],f32>\n" + RETURN
    ),
    "function_without_body": 'builtin.module {\n  func.func private @"Picker.forward"'
    + SIG
    + "\n}\n",
    "recursion": function(
        '    %r = func.call @"Picker.forward"(%x) : (!torch.vtensor<[3,3],f32>) -> '
        "!torch.vtensor<[3,3],f32>\n    func.return %r : !torch.vtensor<[3,3],f32>"
    ),
    "call_to_missing_function": function(
        "    %r = func.call @elsewhere(%x) : (!torch.vtensor<[3,3],f32>) -> "
        "!torch.vtensor<[3,3],f32>\n" + RETURN
    ),
    "unlisted_custom_op": function(
        "    %r = torch.evil_ops.poke %x : !torch.vtensor<[3,3],f32> -> !torch.vtensor<[3,3],f32>\n"
        + RETURN
    ),
    "memref_in_list_type": function(
        RETURN,
        sig="(%x: !torch.vtensor<[3,3],f32>, "
        "%l: !torch.list<memref<4xf32>>) -> !torch.vtensor<[3,3],f32>",
    ),
    "index_type_in_list": function(
        RETURN,
        sig="(%x: !torch.vtensor<[3,3],f32>, %l: !torch.list<index>) -> !torch.vtensor<[3,3],f32>",
    ),
    "odd_integer_width": function(
        "    %w = torch.vtensor.literal(dense<1> : tensor<2xi7>) : !torch.vtensor<[2],i7>\n"
        + RETURN
    ),
    "unit_attribute": function(RETURN).replace(
        "-> !torch.vtensor<[3,3],f32> {", "-> !torch.vtensor<[3,3],f32> attributes {x = unit} {"
    ),
    "vector_literal_attribute": function(RETURN).replace(
        "-> !torch.vtensor<[3,3],f32> {",
        "-> !torch.vtensor<[3,3],f32> attributes {x = dense<1> : vector<2xi64>} {",
    ),
    "unregistered_attribute": function(RETURN).replace(
        "-> !torch.vtensor<[3,3],f32> {",
        '-> !torch.vtensor<[3,3],f32> attributes {x = #builtin.opaque<"foo", "x">} {',
    ),
    "affine_map_attribute": function(RETURN).replace(
        "-> !torch.vtensor<[3,3],f32> {",
        "-> !torch.vtensor<[3,3],f32> attributes {m = affine_map<(d0) -> (d0)>} {",
    ),
    "dense_resource_literal": function(
        "    %w = torch.vtensor.literal(dense_resource<blob> : tensor<2xf32>) : "
        "!torch.vtensor<[2],f32>\n" + RETURN
    )
    + "{-#\n  dialect_resources: {\n    builtin: {\n"
    + '      blob: "0x040000000000803F0000803F"\n    }\n  }\n#-}\n',
    "literal_bytes_short": function(
        '    %w = torch.vtensor.literal(dense<"0x0000803F0000803F"> : tensor<1000xf32>) : '
        "!torch.vtensor<[1000],f32>\n" + RETURN
    ),
    "top_level_torch_op": "builtin.module {\n  %c = torch.constant.int 1\n}\n",
    "function_in_region": function(
        "    %t = torch.constant.bool true\n"
        "    torch.prim.If %t -> () {\n      func.func @inner() {\n        func.return\n      }\n"
        "      torch.prim.If.yield\n    } else {\n      torch.prim.If.yield\n    }\n" + RETURN
    ),
    "entry_missing": function(RETURN, name="Other.forward"),
    "not_utf8": "builtin.module {\xff}\n",
    "lying_result_type": function(
        "    %r = torch.aten.relu %x : !torch.vtensor<[3,3],f32> -> !torch.vtensor<[300,300],f32>\n"
        + RETURN
    ),
    "deep_nesting": "builtin.module {" * 3000 + "}" * 3000 + "\n",
}


def ir_case(files: dict[str, bytes], text: str) -> bytes:
    data = text.encode("latin-1") if "\xff" in text else text.encode()
    return rebuild({**files, "methods/forward.mlir": data}, _single_input_method)


def _single_input_method(manifest: dict[str, Any]) -> None:
    manifest["methods"]["forward"]["params"] = []


# ---- the corpus ----


def corpus(files: dict[str, bytes]) -> dict[str, Case]:
    """Every hostile case made from the honest file whose members are `files` (a scripted
    module with weights `weights/0.npy` int64 [3] (an index), `1.npy` f32 [3,3], `2.npy` f32
    [3])."""
    honest = rebuild(files)
    cases = {f"ir_{name}": Case(ir_case(files, text)) for name, text in IR_CASES.items()}
    cases |= _archive_cases(files, honest)
    cases |= _bomb_cases(files)
    cases |= _manifest_cases(files)
    cases |= _weight_cases(files)
    return cases


def _archive_cases(files: dict[str, bytes], honest: bytes) -> dict[str, Case]:
    ir = files["methods/forward.mlir"]
    cases = {
        "duplicate_ir_member": rebuild(files, extra=[deflated("methods/forward.mlir", ir + b"\n")]),
        "duplicate_manifest": rebuild(files, extra=[deflated("manifest.json", b"{}")]),
        "unused_weight_member": rebuild(files, extra=[deflated("weights/7.npy", npy(np.ones(3)))]),
        "unused_method_member": rebuild(files, extra=[deflated("methods/extra.mlir", ir)]),
        "folder_member": rebuild(files, extra=[deflated("methods/", b"")]),
        "symlink_member": _replace(files, "weights/1.npy", external=(0o120777 << 16)),
        "encrypted_member": _replace(files, "weights/2.npy", flags=1),
        "bzip2_member": _replace(files, "weights/2.npy", method=12),
        "local_name_differs": _replace(files, "methods/forward.mlir", local_name="methods/x.mlir"),
        "crc_mismatch": _replace(files, "methods/forward.mlir", crc=12345),
        "size_claims_more": _replace(
            files, "weights/1.npy", size=len(npy(np.ones((3, 3), "f4"))) + 64
        ),
        "size_claims_less": _replace(files, "methods/forward.mlir", size=len(ir) // 2),
        "not_a_zip": b"PK\x03\x04 this is not a zip file at all",
        "empty_file": b"",
        "truncated_10": honest[: len(honest) // 10],
        "truncated_50": honest[: len(honest) // 2],
        "truncated_90": honest[: len(honest) * 9 // 10],
        "truncated_end_record": honest[:-5],
        "no_manifest": write_zip(
            [deflated(n, d) for n, d in files.items() if n != "manifest.json"]
        ),
    }
    for index, name in enumerate(["../evil.npy", "/etc/evil.npy", "methods/../../x.mlir",
                                  "weights\\..\\x.npy", "methods/forward.mlir\x00.txt",
                                  "C:/weights/0.npy", "weights/./0.npy"]):  # fmt: skip
        cases[f"traversal_name_{index}"] = rebuild(files, extra=[deflated(name, b"x")])
    return {name: Case(data) for name, data in cases.items()}


def _replace(files: dict[str, bytes], name: str, **changes: Any) -> bytes:
    manifest = json.loads(files["manifest.json"])
    manifest["sha256"] = {
        n: hashlib.sha256(d).hexdigest() for n, d in files.items() if n != "manifest.json"
    }
    members = [deflated("manifest.json", json.dumps(manifest).encode())]
    for member, data in files.items():
        if member != "manifest.json":
            members.append(deflated(member, data, **(changes if member == name else {})))
    return write_zip(members)


def _bomb_cases(files: dict[str, bytes]) -> dict[str, Case]:
    """Members that inflate to GBs from a few MB (run under RLIMIT_AS: a reader that inflated
    one would fail with MemoryError or die, not give LoadError)."""
    others = {n: d for n, d in files.items() if n != "methods/forward.mlir"}
    weight_files = {n: d for n, d in files.items() if n != "weights/1.npy"}
    digest_of_zeros = hashlib.sha256(b"").hexdigest()

    def with_member(base: dict[str, bytes], member: Member, digest: str = digest_of_zeros,
                    edit: Callable[[dict[str, Any]], None] | None = None) -> bytes:  # fmt: skip
        def sign(manifest: dict[str, Any]) -> None:
            manifest["sha256"][member.name] = digest
            if edit is not None:
                edit(manifest)

        return rebuild(base, sign, extra=[member])

    def huge_weight(manifest: dict[str, Any]) -> None:
        manifest["weights"]["linear.weight"]["shape"] = [GIB // 4, 3]  # 3 GiB of float32

    header = npy_with_header({"descr": "<f4", "fortran_order": False, "shape": (GIB // 4, 3)}, b"")
    big_weight = deflated("weights/1.npy", header, size=len(header) + 3 * GIB)
    five_bombs = [bomb(f"weights/{i}.npy", 1900) for i in FIVE]
    cases = {
        "bomb_ir_honest_header": Case(with_member(others, bomb("methods/forward.mlir", 3900))),
        "bomb_ir_lying_header": Case(with_member(others, bomb("methods/forward.mlir", 3900, 4096))),
        "bomb_weight_small_shape": Case(with_member(weight_files, bomb("weights/1.npy", 3900))),
        "bomb_unused_member": Case(rebuild(files, extra=[bomb("weights/9.npy", 3900)])),
        "bomb_five_unused": Case(rebuild(files, extra=five_bombs)),
        "bomb_manifest": Case(write_zip([bomb("manifest.json", 3900)])),
        "bomb_manifest_lying": Case(write_zip([bomb("manifest.json", 3900, 1000)])),
        "huge_declared_weight": Case(with_member(weight_files, big_weight, edit=huge_weight)),
        "bomb_declared_weight_max_bytes": Case(
            with_member(weight_files, bomb(W1, 3900, BOMB_NPY), edit=_shape_of(3900)),
            max_bytes=64 << 20,
        ),
        "bomb_declared_weight_env_budget": Case(
            with_member(weight_files, bomb(W1, 3900, BOMB_NPY), edit=_shape_of(3900)),
            env={"TSJIT_LOAD_MAX_BYTES": str(64 << 20)},
        ),
    }  # fmt: skip
    return cases


def _shape_of(mib: int) -> Callable[[dict[str, Any]], None]:
    """An edit making linear.weight a float32 weight of about `mib` MiB."""

    def edit(manifest: dict[str, Any]) -> None:
        manifest["weights"]["linear.weight"]["shape"] = [mib << 18]

    return edit


def _manifest_cases(files: dict[str, bytes]) -> dict[str, Case]:
    edits: dict[str, Callable[[dict[str, Any]], None]] = {
        "methods_list": lambda m: set_path(m, ("methods",), ["forward"]),
        "weights_list": lambda m: set_path(m, ("weights",), []),
        "sha256_ints": lambda m: set_path(m, ("sha256",), dict.fromkeys(m["sha256"], 1)),
        "shape_string": lambda m: set_path(m, ("weights", "rows", "shape"), "3"),
        "shape_negative": lambda m: set_path(m, ("weights", "rows", "shape"), [-3]),
        "shape_bool": lambda m: set_path(m, ("weights", "rows", "shape"), [True, True, True]),
        "dtype_object": lambda m: set_path(m, ("weights", "rows", "dtype"), "object"),
        "dtype_float16": lambda m: set_path(m, ("weights", "linear.bias", "dtype"), "float16"),
        "params_not_list": lambda m: set_path(m, ("methods", "forward", "params"), "rows"),
        "params_unknown_weight": lambda m: set_path(m, ("methods", "forward", "params"), ["nope"]),
        "params_int": lambda m: set_path(m, ("methods", "forward", "params"), [1, 2, 3]),
        "symbol_int": lambda m: set_path(m, ("methods", "forward", "symbol"), 7),
        "method_not_dict": lambda m: set_path(m, ("methods", "forward"), "methods/forward.mlir"),
        "results_malformed": lambda m: set_path(m, ("methods", "forward", "results"), {"x": 1}),
        "kind_int": lambda m: set_path(m, ("kind",), 3),
        "custom_ops_int": lambda m: set_path(m, ("custom_ops",), [1]),
        "shared_weight_file": lambda m: set_path(m, ("weights", "linear.bias", "file"), W1),
        "weight_file_missing": lambda m: set_path(m, ("weights", "rows", "file"), "weights/8.npy"),
        "version_string": lambda m: set_path(m, ("version",), "1"),
        "sha256_extra_entry": lambda m: set_path(m, ("sha256", "weights/5.npy"), "0" * 64),
        "sha256_missing_entry": lambda m: m["sha256"].pop("weights/2.npy"),
        "weight_path_internal": _rename_weight("rows", "_arrays"),
        "weight_path_dunder": _rename_weight("rows", "__class__"),
    }  # fmt: skip
    cases = {f"manifest_{name}": Case(rebuild(files, edit)) for name, edit in edits.items()}
    raw = {
        "manifest_array": b"[1, 2, 3]",
        "manifest_deep": b"[" * 100_000 + b"]" * 100_000,
        "manifest_not_json": b"\xff\xfe not json",
    }
    for name, data in raw.items():
        members = [deflated("manifest.json", data)]
        members += [deflated(n, d) for n, d in files.items() if n != "manifest.json"]
        cases[name] = Case(write_zip(members))
    return cases


def _rename_weight(old: str, new: str) -> Callable[[dict[str, Any]], None]:
    """An edit renaming weight `old` to the path `new` (in the weights and the params)."""

    def edit(manifest: dict[str, Any]) -> None:
        manifest["weights"][new] = manifest["weights"].pop(old)
        params = manifest["methods"]["forward"]["params"]
        params[params.index(old)] = new

    return edit


def _weight_cases(files: dict[str, bytes]) -> dict[str, Case]:
    f4 = np.arange(9, dtype="f4").reshape(3, 3)
    replacements = {
        "weight_dtype_lies": npy(np.arange(9, dtype="i4").reshape(3, 3)),
        "weight_shape_lies": npy(np.arange(9, dtype="f4")),
        "weight_fortran_order": npy(np.asfortranarray(f4.T)),
        "weight_big_endian": npy(f4.astype(">f4")),
        "weight_structured": npy(np.zeros(3, dtype=[("a", "<f4"), ("b", "<f4"), ("c", "<f4")])),
        "weight_header_shape_huge": npy_with_header(
            {"descr": "<f4", "fortran_order": False, "shape": (GIB, GIB)}, f4.tobytes()
        ),
        "weight_data_short": npy(f4)[:-8],
        "weight_data_long": npy(f4) + b"\0" * 16,
        "weight_bad_magic": b"\x93NUMPX" + npy(f4)[6:],
        "weight_version_3": npy(f4)[:6] + b"\x03\x00" + npy(f4)[8:],
        "weight_pickle_header": npy_with_header(
            {"descr": "|O", "fortran_order": False, "shape": (3, 3)}, b"\x80\x04N." * 18
        ),
        "weight_header_not_literal": npy_with_header(
            {"descr": "<f4", "fortran_order": False, "shape": (3, 3)}, f4.tobytes()
        ).replace(b"'descr'", b"__import__('os')", 1)[: len(npy(f4))],
    }
    cases = {
        name: Case(rebuild({**files, "weights/1.npy": data})) for name, data in replacements.items()
    }
    bools = npy(np.array([7, 1, 0], dtype=np.uint8)).replace(b"'|u1'", b"'|b1'")

    def bool_rows(manifest: dict[str, Any]) -> None:
        manifest["weights"]["rows"]["dtype"] = "bool"

    cases["weight_bool_bytes"] = Case(rebuild({**files, "weights/0.npy": bools}, bool_rows))
    return cases
