"""Library kernels and outlined loop kernels as modules of their own (`run/program_text.py`).

A shared module holds one kernel, written so that its text depends only on the kernel:
- a library kernel (`func.call @tsjit.conv2d_f32`): its parallel and serial variants and a
  Python dispatcher that picks one by the size of the array arguments;
- a kernel of `scf-outline-kernels` (`tsjit.outlined`) that only hosts call and whose nest
  is one parallel loop: `kernel_rows(lo, hi, ...)`, a serial `nogil` function of the outer
  loop's range, and the dispatcher `kernel` that runs it whole or in chunks on a thread pool
  (`lowering/run/thread_chunks.py`: no parfor compile);
- another outlined kernel: named `kernel` (`kernel_parallel`, `kernel_serial` and the
  dispatcher `kernel` when it has parallel loops);
each importing the library kernels it calls and binding the custom-op kernels it calls.
The importing module binds each exported name to its own (`from tsjit_... import kernel as
f_k3`). Two kernels of one program that differ only in their memref shapes are one module.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import func, memref, scf
from xdsl.dialects.builtin import MemRefType

from lowering.ir_marks import OUTLINED, library_kernel
from lowering.python_target.custom_kernels import custom_kernel_bindings, is_custom_kernel
from lowering.python_target.function_emitter import FunctionEmitter, sanitize, variant_symbols
from lowering.python_target.library_kernels import LIBRARY_HELPERS, module_sources
from lowering.python_target.tables import HEADER, HELPERS, LIBRARY_HEADER
from lowering.run.program_text import module_name


@dataclass(frozen=True)
class SharedModule:
    """The source of a shared module and the names it gives its importer (own -> importer's)."""

    source: str
    exports: tuple[tuple[str, str], ...]

    @property
    def name(self) -> str:
        return module_name(self.source)

    def import_line(self) -> str:
        pairs = (own if own == theirs else f"{own} as {theirs}" for own, theirs in self.exports)
        names = ", ".join(pairs)
        return f"from {self.name} import {names}\n"


def library_module(op: func.FuncOp, names: tuple[str, str, str]) -> SharedModule:
    """The module of one library kernel (and of the other finishes of its operation, see
    `module_sources`); `names` are the importer's (dispatcher, parallel, serial) names for it.
    numba functions call the parallel or the serial variant; plain Python calls the
    dispatcher, which runs the row-range variant on threads."""
    base = sanitize(op.sym_name.data)
    kernels = module_sources(base, library_kernel(op))
    parts = [LIBRARY_HEADER, CHUNK_IMPORT, LIBRARY_HELPERS, *kernels]
    own = (base, f"{base}_parallel", f"{base}_serial")
    return SharedModule("\n\n".join(parts), tuple(zip(own, names)))


CHUNK_DISPATCHER = '''def kernel({args}):
    """Runs kernel_rows over [{lb}, {ub}), in one chunk per thread on at least CHUNK_GRAIN
    array elements (lowering/run/thread_chunks.py)."""
    if {size} >= CHUNK_GRAIN and {trips} > 1:
        run_in_chunks(kernel_rows, {lb}, {ub}, ({args},))
    else:
        kernel_rows({lb}, {ub}, {args})
'''
CHUNK_IMPORT = "from lowering.run.thread_chunks import CHUNK_GRAIN, run_in_chunks\n"


def chunked_kernel(
    op: func.FuncOp, symbols: dict[str, str], helpers: set[str], parallel: set[str]
) -> list[str] | None:
    """`kernel_rows` and its dispatcher `kernel` for an outlined kernel that is one parallel
    loop nest with a unit step and no results, else None; adds the helpers it needs. The
    chunks are the parallelism: the kernels it calls run their serial variants."""
    nests = [o for o in op.body.block.ops if isinstance(o, scf.ParallelOp | scf.ForOp)]
    if len(nests) != 1 or not isinstance(nests[0], scf.ParallelOp) or nests[0].res:
        return None
    if op.function_type.outputs.data:
        return None

    serial = variant_symbols(symbols, parallel, "serial")
    emitter = FunctionEmitter({**serial, op.sym_name.data: "kernel_rows"}, chunked=True)
    emitter.allow_prange = False
    rows = emitter.emit_function(op)
    bounds = emitter.chunk_range
    args = emitter.arg_names
    if bounds is None or not all(b in args or b.isdigit() for b in bounds):
        return None
    helpers |= emitter.helpers
    arrays = [a for a, v in zip(args, op.body.block.args) if isinstance(v.type, MemRefType)]
    size = " + ".join(f"{a}.size" for a in arrays) if arrays else "0"
    lb, ub = bounds
    trips = ub if lb == "0" else f"{ub} - {lb}"
    dispatcher = CHUNK_DISPATCHER.format(args=", ".join(args), lb=lb, ub=ub, size=size, trips=trips)
    return [CHUNK_IMPORT, rows, dispatcher]


def is_shareable(op: func.FuncOp, declarations: dict[str, func.FuncOp]) -> bool:
    """An outlined kernel that calls only library and custom kernels and reads no global."""
    if OUTLINED not in op.attributes:
        return False
    for inner in op.walk():
        if isinstance(inner, memref.GetGlobalOp):
            return False
        if isinstance(inner, func.CallOp) and inner.callee.root_reference.data not in declarations:
            return False
    return True


def kernel_module(
    variants: list[str],
    own: list[str],
    importer: list[str],
    callees: list[func.FuncOp],
    libraries: dict[str, SharedModule],
    helpers: set[str],
    symbols: dict[str, str],
) -> SharedModule:
    """The module of an outlined kernel emitted as `variants` (named `own`, which the importer
    calls `importer`), with the imports and bindings of the kernels it calls."""
    imports = [libraries[c.sym_name.data].import_line() for c in callees if not is_custom_kernel(c)]
    bindings = custom_kernel_bindings([c for c in callees if is_custom_kernel(c)], symbols)
    parts = [HEADER, *(HELPERS[h] for h in sorted(helpers)), *imports, *bindings, *variants]
    return SharedModule("\n\n".join(parts), tuple(zip(own, importer)))


def called_declarations(op: func.FuncOp, declarations: dict[str, func.FuncOp]) -> list[func.FuncOp]:
    """The declarations `op` calls, in first-call order."""
    called = [
        inner.callee.root_reference.data for inner in op.walk() if isinstance(inner, func.CallOp)
    ]
    return [declarations[name] for name in dict.fromkeys(called) if name in declarations]
