"""OpenBLAS's sgemm / dgemm and its thread count, as numba intrinsics for the library kernels.

numpy 2.x wheels bundle OpenBLAS (scipy-openblas, in `numpy.libs`): an ILP64 build whose
symbols carry a prefix and a suffix (`scipy_cblas_sgemm64_`,
`scipy_openblas_set_num_threads64_`); other builds of numpy link an OpenBLAS with the plain
names (`cblas_sgemm`, LP64). `OPENBLAS` is the first library of `LIBRARY_GLOBS` that loads and
exports one of the `SYMBOL_SETS`, or None (no bundled OpenBLAS: the kernels run their own
tiles). Its functions are registered with LLVM under tsjit's own names (`SYMBOLS`), so the
code numba caches on disk names a symbol, not an address of this process (as
`interrupts.py` does); `OPENBLAS.stamp` names the library and its integer width for the text
of the modules that call it (numba's cache of a module checks only its text).

The library is the one numpy loaded (the same path: one copy, one thread pool). Its thread
count is process-wide: `blas_threads(n)` sets it to `n` for a call and returns the count in
force before, which `blas_restore` puts back unless another thread changed it meanwhile, so
numpy's own calls keep their setting. Calls of several threads at once (the chunks of a
batched matmul, each on one OpenBLAS thread) share that one setting: a call that starts just
as another ends may run on the count the other restored (its result is the same; only its
threads differ).
Whether a matmul calls OpenBLAS is the machine model's choice (`Machine.blas_gemm`,
`lowering/machine.py`), not this module's.
"""

from __future__ import annotations

import ctypes
from dataclasses import dataclass
from pathlib import Path

import llvmlite.binding as llvm
from llvmlite import ir
from numba.core import cgutils, types
from numba.extending import intrinsic
from numba.np.ufunc.parallel import _iget_num_threads

numba_threads = _iget_num_threads
"""numba's thread count in the calling thread, in numba code: `numba.get_num_threads()` there
calls it through a ctypes pointer, which keeps the function out of numba's cache; this
intrinsic calls numba's registered symbol instead."""

LIBRARY_GLOBS = ("numpy.libs/libscipy_openblas*.so*", "numpy.libs/libopenblas*.so*")
"""Where numpy wheels keep their OpenBLAS, relative to numpy's site-packages folder."""

SYMBOL_SETS = (
    ("scipy_cblas_{}64_", "scipy_openblas_{}_num_threads64_", 64),
    ("cblas_{}64_", "openblas_{}_num_threads64_", 64),
    ("scipy_cblas_{}", "scipy_openblas_{}_num_threads", 32),
    ("cblas_{}", "openblas_{}_num_threads", 32),
)
"""(gemm name pattern, thread count name pattern, bits of `blasint`) of the builds known."""

SYMBOLS = {
    "sgemm": "tsjit_blas_sgemm",
    "dgemm": "tsjit_blas_dgemm",
    "get": "tsjit_blas_get_threads",
    "set": "tsjit_blas_set_threads",
}
"""The names the compiled code calls."""

ROW_MAJOR, NO_TRANS, TRANS = 101, 111, 112


@dataclass(frozen=True)
class OpenBlas:
    """A loaded OpenBLAS: its file, its symbol names and the width of its integers."""

    path: Path
    names: tuple[str, str, str, str]
    int_bits: int

    @property
    def stamp(self) -> str:
        return f"{self.path.name} {' '.join(self.names)} int{self.int_bits}"


def numpy_folder() -> Path | None:
    try:
        import numpy
    except ImportError:
        return None
    return Path(numpy.__file__).resolve().parent.parent


def load_openblas() -> OpenBlas | None:
    """numpy's OpenBLAS with its functions registered under `SYMBOLS`, or None."""
    folder = numpy_folder()
    if folder is None:
        return None
    for pattern in LIBRARY_GLOBS:
        for path in sorted(folder.glob(pattern)):
            found = _register(path)
            if found is not None:
                return found
    return None


def _register(path: Path) -> OpenBlas | None:
    try:
        library = ctypes.CDLL(str(path))
    except OSError:
        return None
    for gemm, threads, bits in SYMBOL_SETS:
        names = (gemm.format("sgemm"), gemm.format("dgemm"))
        names += (threads.format("get"), threads.format("set"))
        try:
            addresses = [ctypes.cast(getattr(library, n), ctypes.c_void_p).value for n in names]
        except AttributeError:
            continue
        for ours, address in zip(SYMBOLS.values(), addresses):
            llvm.add_symbol(ours, address)
        return OpenBlas(path, names, bits)  # type: ignore[arg-type]
    return None


OPENBLAS = load_openblas()
"""numpy's OpenBLAS, registered (module docstring), or None."""

I32 = ir.IntType(32)
ELEMENT_TYPES = {
    types.float32: (ir.FloatType(), "sgemm"),
    types.float64: (ir.DoubleType(), "dgemm"),
}


def _blasint() -> ir.IntType:
    return ir.IntType(OPENBLAS.int_bits if OPENBLAS is not None else 64)


@intrinsic
def blas_gemm(typingctx, a, a_trans, lda, b, b_trans, ldb, c, ldc, m, n, k, beta):  # type: ignore[no-untyped-def]  # noqa: ARG001
    """c[:m, :n] = a @ b + beta * c (row-major, `ldc` elements between c's rows) by OpenBLAS;
    `a_trans` / `b_trans` (booleans) say whether a / b are stored transposed (`lda` / `ldb`:
    elements between their stored rows). The caller checks the layouts (`tsjit_blas_layout`)."""
    arrays = (a, b, c)
    if any(not isinstance(x, types.Array) for x in arrays) or len({x.dtype for x in arrays}) != 1:
        return None
    if a.dtype not in ELEMENT_TYPES:
        return None
    element, kind = ELEMENT_TYPES[a.dtype]
    signature = types.none(a, a_trans, lda, b, b_trans, ldb, c, ldc, m, n, k, beta)

    def codegen(context, builder, sig, args):  # type: ignore[no-untyped-def]
        blasint = _blasint()
        names = ("a", "a_trans", "lda", "b", "b_trans", "ldb", "c", "ldc", "m", "n", "k", "beta")
        values = dict(zip(names, args))
        kinds = dict(zip(values, sig.args))

        def integer(name: str) -> ir.Value:
            wide = context.cast(builder, values[name], kinds[name], types.int64)
            return builder.trunc(wide, blasint) if blasint.width < 64 else wide

        def data(name: str) -> ir.Value:
            array = context.make_array(kinds[name])(context, builder, values[name])
            return builder.bitcast(array.data, element.as_pointer())

        arguments = [ir.Constant(I32, ROW_MAJOR), _trans(builder, values["a_trans"])]
        arguments += [_trans(builder, values["b_trans"]), integer("m"), integer("n"), integer("k")]
        arguments += [ir.Constant(element, 1.0), data("a"), integer("lda")]
        arguments += [data("b"), integer("ldb")]
        beta = context.cast(builder, values["beta"], kinds["beta"], sig.args[0].dtype)
        arguments += [beta, data("c"), integer("ldc")]
        prototype = ir.FunctionType(ir.VoidType(), [value.type for value in arguments])
        function = cgutils.get_or_insert_function(builder.module, prototype, SYMBOLS[kind])
        builder.call(function, arguments)
        return context.get_dummy_value()

    return signature, codegen


def _trans(builder: ir.IRBuilder, flag: ir.Value) -> ir.Value:
    flag = builder.icmp_unsigned("!=", flag, ir.Constant(flag.type, 0))
    return builder.select(flag, ir.Constant(I32, TRANS), ir.Constant(I32, NO_TRANS))


@intrinsic
def blas_threads(typingctx, count):  # type: ignore[no-untyped-def]  # noqa: ARG001
    """Sets OpenBLAS's thread count to `count` when it differs; returns the count before."""
    if not isinstance(count, types.Integer):
        return None

    def codegen(context, builder, sig, args):  # type: ignore[no-untyped-def]
        module = builder.module
        get = cgutils.get_or_insert_function(module, ir.FunctionType(I32, []), SYMBOLS["get"])
        put = ir.FunctionType(ir.VoidType(), [I32])
        put = cgutils.get_or_insert_function(module, put, SYMBOLS["set"])
        wanted = builder.trunc(context.cast(builder, args[0], sig.args[0], types.int64), I32)
        before = builder.call(get, [])
        with builder.if_then(builder.icmp_signed("!=", before, wanted)):
            builder.call(put, [wanted])
        return builder.sext(before, ir.IntType(64))

    return types.int64(count), codegen


@intrinsic
def blas_thread_count(typingctx):  # type: ignore[no-untyped-def]  # noqa: ARG001
    """OpenBLAS's thread count now (process-wide)."""

    def codegen(context, builder, sig, args):  # type: ignore[no-untyped-def]  # noqa: ARG001
        get = ir.FunctionType(I32, [])
        get = cgutils.get_or_insert_function(builder.module, get, SYMBOLS["get"])
        return builder.sext(builder.call(get, []), ir.IntType(64))

    return types.int64(), codegen


@intrinsic
def blas_restore(typingctx, before, count):  # type: ignore[no-untyped-def]  # noqa: ARG001
    """Sets OpenBLAS's thread count back to `before` if it is still `count` (what
    `blas_threads(count)` set): when calls of other threads overlap, the last one to end
    leaves the count they found, not one of theirs."""
    if not isinstance(before, types.Integer) or not isinstance(count, types.Integer):
        return None

    def codegen(context, builder, sig, args):  # type: ignore[no-untyped-def]
        module = builder.module
        get = cgutils.get_or_insert_function(module, ir.FunctionType(I32, []), SYMBOLS["get"])
        put = ir.FunctionType(ir.VoidType(), [I32])
        put = cgutils.get_or_insert_function(module, put, SYMBOLS["set"])
        before_v, count_v = (
            builder.trunc(context.cast(builder, v, t, types.int64), I32)
            for v, t in zip(args, sig.args)
        )
        now = builder.call(get, [])
        still = builder.icmp_signed("==", now, count_v)
        differs = builder.icmp_signed("!=", before_v, count_v)
        with builder.if_then(builder.and_(still, differs)):
            builder.call(put, [before_v])
        return context.get_dummy_value()

    return types.none(before, count), codegen
