"""Emits a whole loops-level module: constant globals, helpers, functions; the `python` target."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import builtin, func, memref
from xdsl.dialects.builtin import MemRefType, ModuleOp

from lowering.ir_marks import HOST, is_library_declaration
from lowering.python_target.custom_kernels import custom_kernel_bindings, is_custom_kernel
from lowering.python_target.function_emitter import (
    FunctionEmitter,
    fresh_name,
    sanitize,
    variant_symbols,
)
from lowering.python_target.shared_modules import (
    SharedModule,
    called_declarations,
    chunked_kernel,
    is_shareable,
    kernel_module,
    library_module,
)
from lowering.python_target.tables import HEADER, HELPERS, PythonEmitError, dtype_of
from lowering.run.program_text import join_program

# ---- module emission and the target ----


def global_definition(op: memref.GlobalOp, name: str) -> str:
    """A constant `memref.global` as a module-level (read-only) numpy array."""
    value = op.initial_value
    if not isinstance(value, builtin.DenseIntOrFPElementsAttr) or op.constant is None:
        raise PythonEmitError(f"python target: memref.global @{op.sym_name.data} is not constant")
    type_ = op.type
    assert isinstance(type_, MemRefType)
    shape = tuple(type_.get_shape())
    data = value.data.data.hex()
    dtype = dtype_of(type_.element_type)
    return f'{name} = np.frombuffer(bytes.fromhex("{data}"), dtype={dtype}).reshape({shape})\n'


def function_symbols(funcs: Sequence[func.FuncOp | memref.GlobalOp]) -> dict[str, str]:
    """IR symbol -> unique Python function name (`@torch.aten.relu` -> `torch_aten_relu`)."""
    symbols: dict[str, str] = {}
    for op in funcs:
        name = fresh_name(sanitize(op.sym_name.data), lambda n: n in symbols.values())
        symbols[op.sym_name.data] = name
    return symbols


def parallel_functions(
    funcs: Sequence[func.FuncOp], symbols: dict[str, str], libraries: set[str]
) -> set[str]:
    """The functions that hold a `prange` loop or call a library kernel or such a function
    (by IR symbol); the library kernels themselves are in the set too."""
    parallel = set(libraries)
    for op in funcs:
        emitter = FunctionEmitter(symbols)
        emitter.emit_function(op)
        if emitter.uses_prange:
            parallel.add(op.sym_name.data)
    calls = {
        op.sym_name.data: {
            c.callee.root_reference.data for c in op.walk() if isinstance(c, func.CallOp)
        }
        for op in funcs
    }
    while grown := {f for f, callees in calls.items() if callees & parallel} - parallel:
        parallel |= grown
    return parallel


def dispatcher(
    name: str, emitter: FunctionEmitter, op: func.FuncOp, variants: tuple[str, str]
) -> str:
    """A plain Python entry that picks the parallel or the serial variant by array sizes."""
    args = emitter.arg_names
    arrays = [a for a, arg in zip(args, op.body.block.args) if isinstance(arg.type, MemRefType)]
    size = " + ".join(f"{a}.size" for a in arrays) if arrays else "0"
    condition = f"{size} >= PARALLEL_GRAIN"
    bounds = list(dict.fromkeys(emitter.prange_bounds))
    if bounds and all(b in args or b.isdigit() for b in bounds):
        # numba parallelizes only the outermost loop: one of one iteration gains nothing
        condition += (
            f" and max({', '.join(bounds)}, 0) > 1" if len(bounds) > 1 else f" and {bounds[0]} > 1"
        )
    parallel, serial = variants
    trips = " and more than one\n    iteration of its parallel loop" if " > 1" in condition else ""
    return (
        f"def {name}({', '.join(args)}):\n"
        f'    """Runs {parallel} on at least PARALLEL_GRAIN array elements{trips}, else\n'
        f'    {serial}."""\n'
        f"    if {condition}:\n"
        f"        return {parallel}({', '.join(args)})\n"
        f"    return {serial}({', '.join(args)})\n"
    )


def emit_function_variants(
    op: func.FuncOp, symbols: dict[str, str], parallel: set[str], helpers: set[str]
) -> list[str]:
    """One serial njit function, or a parallel and a serial one and their dispatcher."""
    symbol = op.sym_name.data
    serial_symbols = variant_symbols(symbols, parallel, "serial")
    serial = FunctionEmitter(serial_symbols, allow_prange=False)
    sources = [serial.emit_function(op)]
    helpers |= serial.helpers
    if symbol not in parallel:
        return sources
    parallel_symbols = variant_symbols(symbols, parallel, "parallel")
    fast = FunctionEmitter(parallel_symbols)
    sources.insert(0, fast.emit_function(op))
    names = (parallel_symbols[symbol], serial_symbols[symbol])
    return [*sources, dispatcher(symbols[symbol], fast, op, names)]


def library_modules(
    libraries: Sequence[func.FuncOp], symbols: dict[str, str], parallel: set[str]
) -> dict[str, SharedModule]:
    """The shared module of each library kernel the module calls, by IR symbol."""
    parallel_names = variant_symbols(symbols, parallel, "parallel")
    serial_names = variant_symbols(symbols, parallel, "serial")
    return {
        op.sym_name.data: library_module(op, (symbols[s], parallel_names[s], serial_names[s]))
        for op in libraries
        for s in [op.sym_name.data]
    }


def outlined_module(
    op: func.FuncOp,
    symbols: dict[str, str],
    parallel: set[str],
    declarations: dict[str, func.FuncOp],
    libraries: dict[str, SharedModule],
    host_only: bool,
) -> SharedModule:
    """The shared module of a kernel of `scf-outline-kernels`, its functions named `kernel*`;
    `host_only`: only plain Python hosts call it (it may run on Python threads)."""
    symbol = op.sym_name.data
    own_symbols = {**symbols, symbol: "kernel"}
    helpers: set[str] = set()
    chunked = chunked_kernel(op, symbols, helpers, parallel) if host_only else None
    variants = chunked or emit_function_variants(op, own_symbols, parallel, helpers)
    own, importer = [own_symbols[symbol]], [symbols[symbol]]
    if symbol in parallel and chunked is None:
        for suffix in ("parallel", "serial"):
            own.append(variant_symbols(own_symbols, parallel, suffix)[symbol])
            importer.append(variant_symbols(symbols, parallel, suffix)[symbol])
    callees = called_declarations(op, declarations)
    return kernel_module(variants, own, importer, callees, libraries, helpers, symbols)


def called_from_hosts(funcs: Sequence[func.FuncOp]) -> set[str]:
    """The symbols that `tsjit.host` functions call and no other function does."""
    by_hosts: set[str] = set()
    by_others: set[str] = set()
    for f in funcs:
        callees = {c.callee.root_reference.data for c in f.walk() if isinstance(c, func.CallOp)}
        (by_hosts if HOST in f.attributes else by_others).update(callees)
    return by_hosts - by_others


def emit_python(module: ModuleOp) -> str:
    """The Python source of every `func.func` in `module`, ready for `lowering.run.jit`.

    A function with parallel loops is emitted twice, `f_parallel` (`prange`) and `f_serial`
    (`range`), behind a plain Python `f` that picks one by the size of its array arguments:
    small calls then pay no thread launch, and numba compiles only the variant that runs.
    Library kernels and outlined kernels go to shared modules in front of the main module
    (`lowering/run/program_text.py`); a `tsjit.host` function is plain Python calling them.
    """
    all_funcs = [op for op in module.ops if isinstance(op, func.FuncOp)]
    kernels = [op for op in all_funcs if is_custom_kernel(op)]
    libraries = [op for op in all_funcs if is_library_declaration(op)]
    funcs = [op for op in all_funcs if not is_custom_kernel(op) and op not in libraries]
    constants = [op for op in module.ops if isinstance(op, memref.GlobalOp)]
    for op in module.ops:
        if not isinstance(op, func.FuncOp | memref.GlobalOp):
            raise PythonEmitError(f"python target: cannot emit top-level op '{op.name}'")
    symbols = function_symbols([*funcs, *constants, *kernels, *libraries])
    parallel = parallel_functions(funcs, symbols, {op.sym_name.data for op in libraries})
    declarations = {op.sym_name.data: op for op in [*kernels, *libraries]}
    shared_libraries = library_modules(libraries, symbols, parallel)
    shared = list(shared_libraries.values())
    helpers: set[str] = set()
    bodies: list[str] = []
    host_calls = called_from_hosts(funcs)
    for f in funcs:
        if is_shareable(f, declarations):
            only_hosts = f.sym_name.data in host_calls
            libs = shared_libraries
            shared.append(outlined_module(f, symbols, parallel, declarations, libs, only_hosts))
        elif HOST in f.attributes:
            bodies.append(FunctionEmitter(symbols, plain=True).emit_function(f))
        else:
            bodies.extend(emit_function_variants(f, symbols, parallel, helpers))
    arrays = [global_definition(op, symbols[op.sym_name.data]) for op in constants]
    bindings = custom_kernel_bindings(kernels, symbols)
    imports = "".join(m.import_line() for m in shared)
    entries = entry_points(funcs, symbols)
    main = "\n\n".join(
        [HEADER, *(HELPERS[h] for h in sorted(helpers)), *arrays, *bindings, imports, *bodies]
        if imports
        else [HEADER, *(HELPERS[h] for h in sorted(helpers)), *arrays, *bindings, *bodies]
    )
    return join_program([m.source for m in shared], main + "\n\n" + entries)


def entry_points(funcs: Sequence[func.FuncOp], symbols: dict[str, str]) -> str:
    """`ENTRY_POINTS`: each function's Python object by its IR symbol, which `lowering.run.jit`
    looks up (a function named like a generated global, `math` or `range`, is renamed)."""
    pairs = (f"    {op.sym_name.data!r}: {symbols[op.sym_name.data]},\n" for op in funcs)
    return "ENTRY_POINTS = {\n" + "".join(pairs) + "}\n"

