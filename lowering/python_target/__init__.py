"""Emits numba-ready Python source from loops-level IR (the `python` target, `xdsl-opt -t python`).

One `@numba.njit(error_model="numpy", fastmath=FASTMATH, cache=True, no_cfunc_wrapper=True)`
function per `func.func` (`parallel=True` too when it holds a `prange`); one assignment per
op; constants inlined in their exact dtype (`np.float32(2.0)`), so float32 never widens. Pure
ops come from the tables (`BINOPS`, `CALLS`, `EXPRS`, `CASTS`, `CMPF`, `CMPI`), the others from
`emit_<dialect>_<op>`.

**Expects:** the `loops` stage: `func.func`s with bodies on ranked memrefs and scalars of
f16/f32/f64/i1/i8/i16/i32/i64/index, holding `func.call/return`, `scf.parallel` (reductions
allowed), `scf.for/if/while`, `memref.alloc/alloca/dim/load/store/copy/cast/dealloc`, and the
scalar `arith` and `math` ops of the tables (xDSL 0.75 has no `arith.remf`).

**Produces:** Python source: imports, `FASTMATH`, needed helpers, the functions. The outermost
dim of an `scf.parallel` not nested in another becomes `prange` when its step is 1 and it has
no reductions; every other loop is `range`. Other ops raise `PythonEmitError` naming the op.
"""

from typing import Any


def __getattr__(name: str) -> Any:
    """The emitter, imported on first use: generated code imports `numba_fixes` from this
    package, and a process that loads cached programs never emits (0.7 s of imports saved)."""
    if name in ("emit_python",):
        from lowering.python_target import module_emitter

        return getattr(module_emitter, name)
    if name == "PythonEmitError":
        from lowering.python_target.tables import PythonEmitError

        return PythonEmitError
    raise AttributeError(f"module 'lowering.python_target' has no attribute {name!r}")


__all__ = ["PythonEmitError", "emit_python"]
