"""`FunctionEmitter`: writes one loops-level `func.func` as the lines of a numba function."""

from __future__ import annotations

import keyword
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from xdsl.dialects import arith, builtin, cf, func, memref, scf
from xdsl.dialects.builtin import IndexType, IntegerType, MemRefType
from xdsl.ir import Block, Operation, SSAValue

from lowering.ir_marks import NONNEGATIVE_LOOP, raised_exception
from lowering.python_target.tables import (
    CASTS,
    DECORATOR,
    GLOBALS,
    INTERRUPT_CHECK_EVERY,
    PREDICATES,
    REGION_TERMINATORS,
    TEMPLATES,
    UNSIGNED_OPS,
    PythonEmitError,
    constant_literal,
    dtype_of,
    helper_of,
    signed,
    subscript,
    template_of,
    unsigned,
)

# ---- names ----


def sanitize(hint: str) -> str:
    name = re.sub(r"\W", "_", hint)
    return f"v_{name}" if name[0].isdigit() else name


def fresh_name(base: str, is_taken: Callable[[str], bool]) -> str:
    """`base`, else `base_v1`, `base_v2`, ...: the first one that is free (and no keyword).

    Not `base_1`: numba's parfor pass spells its SSA versions of a reassigned `y` as `y_1`,
    `y_2`, and a generated name of that form collides with them.
    """
    name, k = base, 1
    while name in RESERVED or is_taken(name):
        name, k = f"{base}_v{k}", k + 1
    return name


# Plain Python (a host) computes scalars with numpy's ufuncs, which give nan / inf like numba
# under np.errstate, where Python's math raises ValueError or OverflowError.
NUMPY_MATH = {
    "sqrt": "np.sqrt", "exp": "np.exp", "exp2": "np.exp2", "expm1": "np.expm1",
    "log": "np.log", "log2": "np.log2", "log10": "np.log10", "log1p": "np.log1p",
    "sin": "np.sin", "cos": "np.cos", "tan": "np.tan", "sinh": "np.sinh", "cosh": "np.cosh",
    "asin": "np.arcsin", "acos": "np.arccos", "acosh": "np.arccosh", "atanh": "np.arctanh",
}  # fmt: skip
PLAIN_MATH = re.compile(r"\bmath\.(" + "|".join(NUMPY_MATH) + r")\(")

# Keywords, the builtins that the templates call, and the generated module's globals.
RESERVED = frozenset(keyword.kwlist) | {"range", "abs", "max", "min", "int", "bool"} | GLOBALS

# ---- function emission ----


@dataclass
class FunctionEmitter:
    """Writes one `func.func` as Python lines, naming every SSA value it meets."""

    symbols: dict[str, str]
    lines: list[str] = field(default_factory=list[str])
    names: dict[SSAValue, str] = field(default_factory=dict[SSAValue, str])
    used: set[str] = field(default_factory=set[str])
    helpers: set[str] = field(default_factory=set[str])
    auto: int = 0
    depth: int = 1
    parallel_depth: int = 0
    uses_prange: bool = False
    allow_prange: bool = True
    plain: bool = False  # plain Python, no numba decorator (a host that only calls kernels)
    prange_bounds: list[str] = field(default_factory=list[str])  # upper bounds of the pranges
    # Chunked: the outermost parallel loop runs over `range(lo, hi)`, two leading arguments
    # (`lowering/run/thread_chunks.py`); `chunk_range` is then that loop's own (lb, ub).
    chunked: bool = False
    chunk_range: tuple[str, str] | None = None
    chunk_names: list[str] = field(default_factory=list[str])
    arg_names: list[str] = field(default_factory=list[str])
    # Induction variables of loops marked NONNEGATIVE_LOOP -> their unsigned twin, which
    # memref indexing uses: numba wraps a signed index that may be negative, and that select
    # keeps LLVM from vectorizing a loop whose lower bound it cannot see is >= 0.
    unsigned_indices: dict[SSAValue, str] = field(default_factory=dict[SSAValue, str])

    # -- names and lines --

    def define(self, value: SSAValue, *fallback_hints: str | None) -> str:
        """Gives `value` a fresh readable name: its name hint, a fallback hint, else `vN`."""
        hint = next((h for h in (value.name_hint, *fallback_hints) if h), None)
        if hint is None:
            while self.is_taken(f"v{self.auto}"):
                self.auto += 1
        self.names[value] = self.fresh(sanitize(hint) if hint else f"v{self.auto}")
        return self.names[value]

    def fresh(self, base: str) -> str:
        name = fresh_name(base, self.is_taken)
        self.used.add(name)
        return name

    def is_taken(self, name: str) -> bool:
        return name in RESERVED or name in self.used or name in self.symbols.values()

    def uses(self, values: Iterable[SSAValue]) -> list[str]:
        return [self.names[v] for v in values]

    def line(self, text: str) -> None:
        self.lines.append("    " * self.depth + text)

    def assign(self, targets: Sequence[str], values: Sequence[str]) -> None:
        """`a, b = x, y` (one tuple assignment, so swaps in loop-carried values are safe)."""
        pairs = [(t, v) for t, v in zip(targets, values) if t != v]
        if pairs:
            self.line(f"{', '.join(t for t, _ in pairs)} = {', '.join(v for _, v in pairs)}")

    # -- blocks and ops --

    def emit_function(self, op: func.FuncOp) -> str:
        if not op.body.blocks:
            raise PythonEmitError(f"python target: external function @{op.sym_name.data}")
        block = op.body.block
        chunk = self.chunk_names = [self.fresh("lo"), self.fresh("hi")] if self.chunked else []
        args = self.arg_names = [self.define(arg) for arg in block.args]
        if self.plain:  # numpy scalars then behave as in numba: inf or nan, no warning
            self.line('with np.errstate(all="ignore"):')
            self.depth += 1
        else:
            self.line("wide_vectors()")
        for arg, name in zip(block.args, args):
            if not isinstance(arg.type, MemRefType | IndexType) and arg.type != IntegerType(1):
                self.line(f"{name} = {dtype_of(arg.type)}({name})")
        self.allow_prange &= not self.plain
        self.emit_ops(block)
        parallel = "parallel=True, " if self.uses_prange else ""
        name = self.symbols[op.sym_name.data]
        nogil = "nogil=True, " if self.chunked else ""
        head = [] if self.plain else [f"@numba.njit({parallel}{nogil}{DECORATOR})"]
        head.append(f"def {name}({', '.join(chunk + args)}):")
        return "\n".join(head + self.lines) + "\n"

    def emit_ops(self, block: Block) -> Operation | None:
        """Emits every op of `block` but a region terminator, which it returns."""
        for op in block.ops:
            if isinstance(op, REGION_TERMINATORS):
                return op
            self.emit_op(op)
        return None

    def emit_op(self, op: Operation) -> None:
        # Like ast.NodeVisitor: `scf.for` -> `emit_scf_for`.
        handler = getattr(self, "emit_" + op.name.replace(".", "_"), None)
        if handler is not None:
            handler(op)
        elif type(op) in TEMPLATES or type(op) in PREDICATES:
            self.line(f"{self.define(op.results[0])} = {self.expression(op)}")
        else:
            raise PythonEmitError(f"python target: cannot emit op '{op.name}'")

    def expression(self, op: Operation) -> str:
        """The Python expression of a pure op, from its table template."""
        args, source, type_ = self.uses(op.operands), op.operands[0].type, op.results[0].type
        helper = helper_of(op, self.plain)
        if helper is not None:
            self.helpers.add(helper)
        expr = template_of(op, self.plain).format(
            *args,
            args=", ".join(args),
            T=dtype_of(type_),
            S0=signed(args[0], source),
            U0=unsigned(args[0], source),
            U1=unsigned(args[1], source) if len(args) > 1 else "",
        )
        if self.plain:  # Python's math raises (domain, overflow) where numba gives nan / inf
            expr = PLAIN_MATH.sub(lambda m: f"{NUMPY_MATH[m[1]]}(", expr)
        # numba widens i8/i16/i32 arithmetic to int64: cast such results back.
        narrow = isinstance(type_, IntegerType) and 1 < type_.width.data < 64
        exact = type(op) in CASTS or type(op) in UNSIGNED_OPS
        return f"{dtype_of(type_)}({expr})" if narrow and not exact else expr

    def emit_region_body(self, block: Block, targets: Sequence[str] = ()) -> None:
        """Emits a nested block and assigns what it yields (or reduces) to `targets`."""
        self.depth += 1
        start = len(self.lines)
        terminator = self.emit_ops(block)
        if isinstance(terminator, scf.ReduceOp):
            self.emit_reductions(terminator, targets)
        elif terminator is not None and targets:
            self.assign(targets, self.uses(terminator.operands))
        if len(self.lines) == start:
            self.line("pass")
        self.depth -= 1

    # -- statements: one method per op with regions, memory or calls --

    def emit_arith_constant(self, op: arith.ConstantOp) -> None:
        self.names[op.result] = constant_literal(op)

    def emit_func_return(self, op: func.ReturnOp) -> None:
        self.line(f"return {', '.join(self.uses(op.arguments))}".rstrip())

    def emit_func_call(self, op: func.CallOp) -> None:
        callee = self.symbols[op.callee.root_reference.data]
        call = f"{callee}({', '.join(self.uses(op.arguments))})"
        results = [self.define(r) for r in op.res]
        self.line(f"{', '.join(results)} = {call}" if results else call)

    def emit_scf_for(self, op: scf.ForOp) -> None:
        block = op.body.block
        carried = [self.define(r, a.name_hint) for a, r in zip(block.args[1:], op.res)]
        self.names.update(zip(block.args[1:], carried))
        self.assign(carried, self.uses(op.iter_args))
        bounds = loop_bounds(self.names[op.lb], self.names[op.ub], self.names[op.step])
        iv = self.define(block.args[0])
        self.line(f"for {iv} in range({bounds}):")
        if NONNEGATIVE_LOOP in op.attributes and not self.plain:
            twin = self.fresh(f"{iv}_index")
            self.line(f"    {twin} = np.uint64({iv})")
            self.unsigned_indices[block.args[0]] = twin
        self.emit_region_body(block, carried)

    def emit_scf_if(self, op: scf.IfOp) -> None:
        results = [self.define(r) for r in op.output]
        self.line(f"if {self.names[op.cond]}:")
        self.emit_region_body(op.true_region.block, results)
        if op.false_region.blocks:
            self.line("else:")
            self.emit_region_body(op.false_region.block, results)

    def emit_cf_assert(self, op: cf.AssertOp) -> None:
        """`raise Kind("message")` where the condition is false (a script's `raise`, whose
        condition is the constant false: then unconditionally)."""
        kind, message = raised_exception(op.msg.data)
        raise_line = f"raise {kind}({message!r})"
        condition = op.arg.owner
        if isinstance(condition, arith.ConstantOp) and not condition.value.value.data:  # type: ignore[union-attr]
            self.line(raise_line)
            return
        self.line(f"if not {self.names[op.arg]}:")
        self.line(f"    {raise_line}")

    def emit_scf_while(self, op: scf.WhileOp) -> None:
        before, after = op.before_region.block, op.after_region.block
        carried = [self.define(a) for a in before.args]
        self.assign(carried, self.uses(op.arguments))
        ticks = self.interruptible_loop()
        self.line("while True:")
        self.depth += 1
        if ticks:  # Ctrl-C stops a runaway loop (`interrupts.py`)
            self.line(f"{ticks} = ({ticks} + 1) & {INTERRUPT_CHECK_EVERY - 1}")
            self.line(f"if {ticks} == 0 and pending_interrupt():")
            self.line('    raise CompiledLoopInterrupted("a compiled while loop was interrupted")')
        condition = self.emit_ops(before)
        assert isinstance(condition, scf.ConditionOp)
        passed = [self.define(a, r.name_hint) for a, r in zip(after.args, op.res)]
        self.names.update(zip(op.res, passed))
        self.assign(passed, self.uses(condition.args))
        self.line(f"if not {self.names[condition.condition]}:")
        self.line("    break")
        self.depth -= 1
        self.emit_region_body(after, carried)

    def interruptible_loop(self) -> str | None:
        """The counter of a `while` loop that checks for Ctrl-C, set to 0 (None where the
        function runs without the GIL, or as plain Python, which sees Ctrl-C itself)."""
        if self.plain or self.chunked or self.parallel_depth:
            return None
        self.helpers.add("interrupts")
        ticks = self.fresh("ticks")
        self.line(f"{ticks} = 0")
        return ticks

    def emit_scf_parallel(self, op: scf.ParallelOp) -> None:
        block = op.body.block
        reduced = [self.define(r) for r in op.res]
        self.assign(reduced, self.uses(op.initVals))
        outer = self.depth
        for dim, iv in enumerate(block.args):
            lb, ub, step = self.uses((op.lowerBound[dim], op.upperBound[dim], op.step[dim]))
            # prange takes no step, and reductions stay serial: numba recognizes only simple
            # `r = r + x` updates, and one parallel region at a time.
            is_prange = dim == 0 and step == "1" and not reduced and self.parallel_depth == 0
            is_prange &= self.allow_prange
            self.uses_prange |= is_prange
            if is_prange:
                self.prange_bounds.append(ub)
            loop = "prange" if is_prange else "range"
            self.depth = outer + dim
            if self.chunked and dim == 0 and self.parallel_depth == 0 and self.chunk_range is None:
                self.chunk_range, (lb, ub) = (lb, ub), self.chunk_names
            self.line(f"for {self.define(iv)} in {loop}({loop_bounds(lb, ub, step)}):")
            if is_prange:  # numba compiles a prange body as a function of its own
                self.depth += 1
                self.line("wide_vectors()")
                self.depth -= 1
        self.parallel_depth += 1
        self.emit_region_body(block, reduced)
        self.parallel_depth -= 1
        self.depth = outer

    def emit_reductions(self, op: scf.ReduceOp, reduced: Sequence[str]) -> None:
        for target, value, region in zip(reduced, op.args, op.reductions):
            lhs, rhs = region.block.args
            self.names[lhs], self.names[rhs] = target, self.names[value]
            result = self.emit_ops(region.block)
            assert isinstance(result, scf.ReduceReturnOp)
            self.assign([target], [self.names[result.result]])

    def emit_memref_alloc(self, op: memref.AllocOp | memref.AllocaOp) -> None:
        sizes = iter(self.uses(op.dynamic_sizes))
        type_ = op.memref.type
        assert isinstance(type_, MemRefType)
        dims = [next(sizes) if d == builtin.DYNAMIC_INDEX else str(d) for d in type_.get_shape()]
        shape = f"({dims[0]},)" if len(dims) == 1 else f"({', '.join(dims)})"
        dtype = dtype_of(type_.element_type)
        self.line(f"{self.define(op.memref)} = np.empty({shape}, dtype={dtype})")

    def emit_memref_get_global(self, op: memref.GetGlobalOp) -> None:
        self.line(f"{self.define(op.memref)} = {self.symbols[op.name_.string_value()]}")

    def emit_memref_dim(self, op: memref.DimOp) -> None:
        array, dim = self.names[op.source], self.names[op.index]
        self.line(f"{self.define(op.result)} = {array}.shape[{dim}]")

    def emit_memref_load(self, op: memref.LoadOp) -> None:
        source = subscript(self.names[op.memref], self.index_uses(op.indices))
        self.line(f"{self.define(op.res)} = {source}")

    def emit_memref_store(self, op: memref.StoreOp) -> None:
        target = subscript(self.names[op.memref], self.index_uses(op.indices))
        self.line(f"{target} = {self.names[op.value]}")

    def index_uses(self, indices: Iterable[SSAValue]) -> list[str]:
        return [self.unsigned_indices.get(v) or self.names[v] for v in indices]

    def emit_memref_copy(self, op: memref.CopyOp) -> None:
        """Loops: numba compiles `dst[...] = src` in 2 s, and these loops in 0.1 s (plain
        Python: the numpy assignment)."""
        source, target = self.names[op.source], self.names[op.destination]
        if self.plain:
            self.line(f"{target}[...] = {source}")
            return
        assert isinstance(op.source.type, MemRefType)
        ivs = [self.fresh(f"i{dim}") for dim in range(op.source.type.get_num_dims())]
        for dim, iv in enumerate(ivs):
            self.line(f"for {iv} in range({source}.shape[{dim}]):")
            self.depth += 1
        self.line(f"{subscript(target, ivs)} = {subscript(source, ivs)}")
        self.depth -= len(ivs)

    emit_memref_alloca = emit_memref_alloc

    def emit_memref_cast(self, op: memref.CastOp) -> None:
        self.names[op.dest] = self.names[op.source]

    def emit_memref_collapse_shape(self, op: memref.CollapseShapeOp) -> None:
        """A numpy view of a C-contiguous array: `x.reshape((x.shape[0] * x.shape[1], ...))`."""
        source = self.names[op.src]
        sizes = [
            " * ".join(f"{source}.shape[{d.value.data}]" for d in group.data)
            for group in op.reassociation.data
        ]
        shape = f"({sizes[0]},)" if len(sizes) == 1 else f"({', '.join(sizes)})"
        self.line(f"{self.define(op.result)} = {source}.reshape({shape})")

    def emit_memref_subview(self, op: memref.SubviewOp) -> None:
        """A numpy view: `x[i]` for leading dropped unit dims and whole other dims (a C array
        for numba, like its source), else `x[a:a + n, i, b:b + m * s:s, ...]`: the dims a
        rank-reducing subview drops are its first ones of static size 1 (which of several
        size-1 dims is dropped does not change the view's elements or their order)."""
        source = op.source
        assert isinstance(source.type, MemRefType) and isinstance(op.result.type, MemRefType)
        offsets = self.index_list(op.static_offsets.get_values(), op.offsets)
        sizes = self.index_list(op.static_sizes.get_values(), op.sizes)
        strides = self.index_list(op.static_strides.get_values(), op.strides)
        dropped = dropped_dims(op)
        unit = all(s == 1 for s in op.static_strides.get_values())
        leading = dropped == list(range(len(dropped)))
        kept = [d for d in range(len(sizes)) if d not in dropped]
        if unit and leading and all(offsets[d] == "0" and self.is_whole_dim(op, d) for d in kept):
            view = subscript(self.names[source], offsets[: len(dropped)])
        else:
            view = subscript(
                self.names[source],
                [
                    offsets[d] if d in dropped else slice_text(offsets[d], sizes[d], strides[d])
                    for d in range(len(sizes))
                ],
            )
        self.line(f"{self.define(op.result)} = {view}")

    def index_list(self, static: Sequence[int], dynamic: Sequence[SSAValue]) -> list[str]:
        values = iter(self.uses(dynamic))
        return [next(values) if v == builtin.DYNAMIC_INDEX else str(v) for v in static]

    @staticmethod
    def is_whole_dim(op: memref.SubviewOp, dim: int) -> bool:
        """Size `dim` of the subview is its source's: static and equal, or its `memref.dim`."""
        size = op.static_sizes.get_values()[dim]
        source_size = op.source.type.get_shape()[dim]  # type: ignore[union-attr]
        if size != builtin.DYNAMIC_INDEX:
            return size == source_size
        position = sum(1 for s in op.static_sizes.get_values()[:dim] if s == builtin.DYNAMIC_INDEX)
        dim_op = op.sizes[position].owner
        if not isinstance(dim_op, memref.DimOp) or dim_op.source is not op.source:
            return False
        index = dim_op.index.owner
        return isinstance(index, arith.ConstantOp) and index.value.value.data == dim  # type: ignore[union-attr]

    def emit_memref_dealloc(self, op: memref.DeallocOp) -> None:
        """numpy buffers are garbage collected: nothing to emit."""


def loop_bounds(lb: str, ub: str, step: str) -> str:
    """`ub`, `lb, ub` or `lb, ub, step`: the shortest form, which is also the fastest
    (measured, numba 0.68: an elementwise `prange(n)` loop runs 2x faster than `prange(0, n)`)."""
    if step != "1":
        return f"{lb}, {ub}, {step}"
    return ub if lb == "0" else f"{lb}, {ub}"


def dropped_dims(op: memref.SubviewOp) -> list[int]:
    """The dims a rank-reducing subview drops: its first ones of static size 1."""
    count = op.source.type.get_num_dims() - op.result.type.get_num_dims()  # type: ignore[union-attr]
    units = [d for d, size in enumerate(op.static_sizes.get_values()) if size == 1]
    if len(units) < count:
        raise PythonEmitError("python target: memref.subview drops a dim of size other than 1")
    return units[:count]


def slice_text(offset: str, size: str, stride: str) -> str:
    """`a:a + n` (stride 1) or `a:a + n * s:s`: n elements from a, every s-th."""
    if stride == "1":
        return f"{offset}:{offset} + {size}"
    return f"{offset}:{offset} + {size} * {stride}:{stride}"


def variant_symbols(symbols: dict[str, str], parallel: set[str], suffix: str) -> dict[str, str]:
    """The symbol table of one variant: `f_parallel` / `f_serial` for the functions in
    `parallel`, the plain name for the others (they have only one version)."""
    taken = set(symbols.values())
    variant = dict(symbols)
    for symbol in sorted(parallel):  # sorted: the same names in every process
        variant[symbol] = fresh_name(f"{symbols[symbol]}_{suffix}", lambda n: n in taken)
        taken.add(variant[symbol])
    return variant
