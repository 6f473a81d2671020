"""Scripting: compiles a Python function's source (`ast`) into a torch-dialect `func.func`."""

from __future__ import annotations

import ast
import builtins
import inspect
import math
import textwrap
from collections.abc import Callable
from typing import Any

from xdsl.dialects import func
from xdsl.dialects.builtin import FunctionType
from xdsl.ir import Attribute, Block, Region, SSAValue

from dialects.torch.dtypes import DType
from dialects.torch.meta import ShapeError
from dialects.torch.ops.pieces import AtenUnbindIntOp
from dialects.torch.ops.prim import PrimListUnpackOp
from dialects.torch.ops.scalars import (
    AtenCeilFloatOp,
    AtenExpFloatOp,
    AtenFloorFloatOp,
    AtenLogFloatOp,
    AtenMaxFloatOp,
    AtenMaxIntOp,
    AtenMinFloatOp,
    AtenMinIntOp,
    AtenSqrtFloatOp,
)
from dialects.torch.types import ValueTensorType
from frontend.errors import ScriptError, SourceFile
from frontend.ir.binding import BindError
from frontend.ir.builder import IRBuilder, Value, kind_of, kind_of_type
from frontend.ir.resolve import (
    frontend_twin,
    is_torch_function,
    ops_for_method,
    ops_for_object,
    tensor_method_twin,
)
from frontend.script.annotations import ArgSpec, admits, parse_annotation
from frontend.script.assign_into import AssignIntoMixin
from frontend.script.call_arguments import CallArgumentsMixin, dtype_source, python_keywords
from frontend.script.calls import Callee, CallsMixin, Compilation, ScriptedFunction
from frontend.script.concatenation import NOT_CONCATENATED, ConcatenationMixin
from frontend.script.control import ControlFlowMixin, FunctionFrame
from frontend.script.dicts import DictKeys, DictsMixin, ScriptDict
from frontend.script.einsum import einsum_call
from frontend.script.grown_lists import Growing, GrownList, GrownListsMixin
from frontend.script.iteration import IterationMixin, RunTimeSequence
from frontend.script.lambdas import (
    LocalLambda,
    LocalLambdasMixin,
    is_lambda,
    lambda_source,
    source_required,
)
from frontend.script.loops import Frame, LoopsMixin
from frontend.script.modules import (
    GraphValue,
    MethodValue,
    ModulesMixin,
    ModuleValue,
    is_captured_graph,
    is_module,
)
from frontend.script.operators import OperatorsMixin
from frontend.script.printing import PrintMixin
from frontend.script.raising import RaiseMixin
from frontend.script.random_tensors import RandomMixin, random_function_name
from frontend.script.shape_lists import ShapeListsMixin, SpreadSizes
from frontend.script.starred import StarredMixin, has_star
from frontend.script.tensor_methods import (
    NOT_SPECIAL,
    TensorMethodsMixin,
    devices_dropped,
    tensor_literal,
)
from frontend.script.torch_jit_api import NOT_JIT_API, is_ignored, jit_api_value
from frontend.script.values import ShapeValue, Unusable, ValuesMixin

UNKNOWN_TENSOR = ValueTensorType(None, None)


class PyObject:
    """A Python object named in the function (a module, a function), not an IR value."""

    def __init__(self, obj: Any) -> None:
        self.obj = obj


def load_source(fn: Callable[..., Any]) -> tuple[ast.FunctionDef, SourceFile]:
    """The function's `ast` and its source file; ScriptError if the source is unavailable."""
    if is_lambda(fn):
        return lambda_source(fn)
    with source_required(fn):
        lines, first_line = inspect.getsourcelines(fn)
        filename = inspect.getsourcefile(fn) or "<unknown>"
    raw = "".join(lines)
    dedented = textwrap.dedent(raw)
    indent = len(lines[0]) - len(lines[0].lstrip())
    tree = ast.parse(dedented)
    node = tree.body[0]
    if not isinstance(node, ast.FunctionDef):
        raise ScriptError(f"cannot script {fn!r}: expected a function definition")
    return node, SourceFile(filename, dedented.splitlines(), first_line, indent)


class FunctionScripter(
    LocalLambdasMixin,
    TensorMethodsMixin,
    ControlFlowMixin,
    LoopsMixin,
    IterationMixin,
    ConcatenationMixin,
    StarredMixin,
    OperatorsMixin,
    ValuesMixin,
    CallsMixin,
    ModulesMixin,
    AssignIntoMixin,
    RaiseMixin,
    GrownListsMixin,
    DictsMixin,
    RandomMixin,
    CallArgumentsMixin,
    ShapeListsMixin,
    PrintMixin,
):
    """Walks one function's `ast`, keeping an environment of variable -> Value.

    `compilation` collects the callees scripted on demand; `self_value` binds the first
    parameter of a method to its module; `arg_types` and `constants` specialize a callee for
    its call site (types for unannotated arguments, Python values bound as constants).
    """

    def __init__(
        self,
        fn: Callable[..., Any],
        compilation: Compilation | None = None,
        *,
        self_value: ModuleValue | None = None,
        arg_types: dict[str, Attribute] | None = None,
        constants: dict[str, Any] | None = None,
        name: str | None = None,
        entry: bool = False,
    ) -> None:
        self.fn = fn
        self.entry = entry  # flags of an entry function are constants (script/annotations.py)
        self.node, self.source = load_source(fn)
        self.globals: dict[str, Any] = dict(getattr(fn, "__globals__", {}))
        closure = inspect.getclosurevars(fn) if inspect.isfunction(fn) else None
        if closure is not None:
            self.globals.update(closure.nonlocals)
        self.compilation = compilation or Compilation()
        self.self_value = self_value
        self.call_types = arg_types or {}
        self.constants = constants or {}
        self.name = name or self.node.name
        self.compilation.reserved.add(self.name)  # a callee of the same name gets another
        self.env: dict[str, Value] = {}
        self.unusable: dict[str, Unusable] = {}
        self.assignments: dict[str, ast.AST] = {}  # variable -> its latest assignment, for errors
        self.frames: list[Frame] = [FunctionFrame()]
        self.param_args: dict[str, SSAValue] = {}
        self.run_time_loops: dict[ast.For, RunTimeSequence] = {}  # `for row in x`: evaluated once
        self.list_blocks: dict[int, Block] = {}  # id(Python list) -> the block that made it
        self.growing: dict[int, Growing] = {}  # id(Python list) -> its rows in a run-time loop
        self.dict_blocks: dict[int, Block] = {}  # id(ScriptDict) -> the block that made it

    # ---- errors ----

    def error(self, node: ast.AST, message: str, hint: str = "") -> ScriptError:
        return ScriptError(message, self.source.location(node), hint)

    # ---- the function ----

    def build(self) -> func.FuncOp:
        """The function alone (its callees are in `self.compilation`)."""
        return self.build_function().op

    def build_function(self) -> ScriptedFunction:
        parameters = self.parameters()
        self.constants = {**self.default_constants(parameters), **self.constants}
        dicts = {n: c for n, c in self.constants.items() if isinstance(c, DictKeys)}
        runtime = [a for a in parameters if a.arg not in self.constants or a.arg in dicts]
        arg_types = [self.argument_types(a) for a in runtime]
        block = Block(arg_types=[t for types, _ in arg_types for t in types])
        self.entry_block = block
        args = iter(block.args)
        for node, (types, is_tuple) in zip(runtime, arg_types):
            values = [next(args) for _ in types]
            if node.arg in dicts:
                self.env[node.arg] = self.dict_parameter(node.arg, dicts[node.arg], values)
                continue
            spec = self.annotation(node)
            if spec is not None and spec.kind == "dict":  # the default graph: keys unknown
                self.env[node.arg] = self.open_dict_parameter(node.arg, spec)
                continue
            for i, value in enumerate(values):
                value.name_hint = f"{node.arg}.{i}" if is_tuple else node.arg
            self.env[node.arg] = tuple(values) if is_tuple else values[0]
        self.env.update((n, c) for n, c in self.constants.items() if n not in dicts)
        self.builder = IRBuilder(block)
        leaf = self.block_list(self.node.body)
        if leaf is None:
            raise self.error(
                self.node, f"{self.node.name}() must end with a `return` of its result"
            )
        block.add_op(func.ReturnOp(*leaf.values))
        inputs = [a.type for a in block.args]
        function_type = FunctionType.from_lists(inputs, [r.type for r in leaf.values])
        op = func.FuncOp(self.name, function_type, Region(block))
        structure = self.frames[0].structure  # type: ignore[union-attr]
        return ScriptedFunction(op, list(self.param_args), structure)

    def default_constants(self, parameters: list[ast.arg]) -> dict[str, Any]:
        """`str` arguments and an entry function's flags are constants: the default graph
        uses their default value."""
        defaults = self.parameter_defaults()
        out: dict[str, Any] = {}
        for arg in parameters:
            spec = self.annotation(arg)
            if arg.arg in self.constants or spec is None or spec.kind not in ("str", "flag"):
                continue
            default = defaults.get(arg.arg)
            if spec.kind == "str" and not (
                isinstance(default, ast.Constant) and isinstance(default.value, str)
            ):
                raise self.error(
                    arg,
                    f"the str argument `{arg.arg}` needs a default value",
                    "the graph is specialized on the string; its default gives `.graph`",
                )
            out[arg.arg] = default.value  # type: ignore[union-attr]
        return out

    def parameter_defaults(self) -> dict[str, ast.expr]:
        args = self.node.args
        if not args.defaults:
            return {}
        return dict(zip([a.arg for a in args.args][-len(args.defaults) :], args.defaults))

    def parameters(self) -> list[ast.arg]:
        """The function's arguments, without `self` for a method."""
        args = self.node.args
        for extra, what in ((args.vararg, "*args"), (args.kwarg, "**kwargs")):
            if extra is not None:
                raise self.error(
                    extra,
                    f"{what} is not supported in scripted functions",
                    "list every argument explicitly",
                )
        if args.kwonlyargs or args.posonlyargs:
            node = (args.kwonlyargs or args.posonlyargs)[0]
            raise self.error(
                node,
                "keyword-only and positional-only arguments are not supported",
                "use plain positional arguments",
            )
        if self.self_value is None:
            return list(args.args)
        if not args.args:
            raise self.error(self.node, f"method {self.node.name}() has no `self` argument")
        self.env[args.args[0].arg] = self.self_value
        return list(args.args[1:])

    def argument_types(self, arg: ast.arg) -> tuple[list[Attribute], bool]:
        """The function arguments for `arg` and whether they form a tuple.

        Unannotated: the call site's type, else a tensor. Annotated: the annotation's types,
        which a call site's types must match.
        """
        spec = self.annotation(arg)
        given = self.call_types.get(arg.arg)
        if given is None:
            if spec is None:
                return [UNKNOWN_TENSOR], False
            if spec.kind == "dict":
                keys = self.constants.get(arg.arg)
                count = len(keys.keys) if isinstance(keys, DictKeys) else 0
                return spec.items[0].default_types() * count, True
            inner = spec.items[0] if spec.kind == "optional" else spec
            return spec.default_types(), inner.kind == "tuple"
        types = given if isinstance(given, list) else [given]
        if spec is not None and not admits(spec, types):
            shown = ", ".join(kind_of_type(t) for t in types)
            raise self.error(
                arg, f"argument `{arg.arg}` is declared {spec} but the call passes {shown}"
            )
        return types, isinstance(given, list)

    def annotation(self, arg: ast.arg) -> ArgSpec | None:
        """The argument's annotation; an entry function's flag (a `bool` parameter, annotated
        or not, with a `True`/`False` default) is `ArgSpec("flag")`."""
        spec = None if arg.annotation is None else self.parsed_annotation(arg.annotation)
        if self.entry and (spec is None or spec.kind == "bool"):
            default = self.parameter_defaults().get(arg.arg)
            if isinstance(default, ast.Constant) and isinstance(default.value, bool):
                return ArgSpec("flag")
        return spec

    def parsed_annotation(self, annotation: ast.expr) -> ArgSpec:
        return parse_annotation(
            annotation,
            lambda node, message: self.error(
                node,
                message,
                "use Tensor, int, float, bool, str, List[int], Tuple[...], Optional[...] "
                "or X | None",
            ),
        )

    def parameter_specs(self) -> list[tuple[str, ArgSpec | None]]:
        """Each parameter (without `self`) and its annotation, for entry-call specialization."""
        return [(a.arg, self.annotation(a)) for a in self.parameters()]

    # ---- statements ----

    def statement(self, stmt: ast.stmt) -> None:
        """One statement without exits (`return`/`break`/`continue` go through `block_list`)."""
        method = getattr(self, f"stmt_{type(stmt).__name__}", None)
        if method is None:
            raise self.error(
                stmt,
                f"`{type(stmt).__name__}` statements are not supported in scripted functions",
                _STATEMENT_HINTS.get(type(stmt), ""),
            )
        method(stmt)

    def stmt_Expr(self, node: ast.Expr) -> None:  # noqa: N802
        if isinstance(node.value, ast.Constant):  # docstring
            return
        self.expr(node.value)

    def stmt_Pass(self, node: ast.Pass) -> None:  # noqa: N802
        return

    def stmt_Assign(self, node: ast.Assign) -> None:  # noqa: N802
        value = self.expr(node.value)
        for target in node.targets:
            self.assign(target, value)

    def stmt_AnnAssign(self, node: ast.AnnAssign) -> None:  # noqa: N802
        if node.value is None:
            raise self.error(node, "a declaration without a value is not supported")
        self.assign(node.target, self.expr(node.value))

    def stmt_AugAssign(self, node: ast.AugAssign) -> None:  # noqa: N802
        if isinstance(node.target, ast.Subscript):  # `y[1] += v`: `y[1] = y[1] + v`
            read = ast.copy_location(
                ast.Subscript(node.target.value, node.target.slice, ast.Load()), node
            )
            self.assign(
                node.target, self.binop(node, node.op, self.expr(read), self.expr(node.value))
            )
            return
        if not isinstance(node.target, ast.Name):
            raise self.error(
                node.target,
                "augmented assignment to this target is not supported",
                "assign to a plain variable: `x = x + y`",
            )
        current = self.lookup(node.target)
        self.assign(node.target, self.binop(node, node.op, current, self.expr(node.value)))

    def assign(self, target: ast.expr, value: Value) -> None:
        if isinstance(target, ast.Name):
            if isinstance(value, SSAValue) and value.name_hint is None:
                value.name_hint = target.id
            self.env[target.id] = value
            self.unusable.pop(target.id, None)
            self.assignments[target.id] = target
            return
        if isinstance(target, ast.Subscript):
            self.assign_into(target, value)
            return
        if has_star(target):  # `b, *rest = x.shape`
            self.assign_starred(target, value)  # type: ignore[arg-type]
            return
        if isinstance(target, ast.Tuple) and isinstance(value, ShapeValue):
            value = self.unpack_shape(target, value, len(target.elts))
        if isinstance(target, ast.Tuple) and kind_of(value) == "Tensor":  # `a, b = t`: rows
            value = self.emit(target, (AtenUnbindIntOp,), [value, 0], {})[0]
        if (
            isinstance(target, ast.Tuple)
            and isinstance(value, SSAValue)
            and kind_of(value).startswith("list[")
        ):
            unpack = self.builder.insert(PrimListUnpackOp(value, len(target.elts)))
            value = tuple(unpack.results)
        if isinstance(target, ast.Tuple) and isinstance(value, tuple):
            if len(target.elts) != len(value):
                raise self.error(
                    target, f"cannot unpack {len(value)} values into {len(target.elts)}"
                )
            for t, v in zip(target.elts, value):
                self.assign(t, v)
            return
        raise self.error(
            target,
            f"assignment to `{ast.unparse(target)}` is not supported",
            "assign to a variable name or a tuple of names",
        )

    # ---- expressions ----

    def expr(self, node: ast.expr) -> Value:
        method = getattr(self, f"expr_{type(node).__name__}", None)
        if method is None:
            raise self.error(
                node,
                f"`{type(node).__name__}` expressions are not supported in scripted functions",
                _EXPRESSION_HINTS.get(type(node), ""),
            )
        return method(node)

    def expr_Constant(self, node: ast.Constant) -> Value:  # noqa: N802
        if node.value is None or isinstance(node.value, bool | int | float | str):
            return node.value
        raise self.error(
            node,
            f"constant {node.value!r} of type {type(node.value).__name__} is not supported",
            "use int, float, bool, str or None",
        )

    def expr_Name(self, node: ast.Name) -> Value:  # noqa: N802
        return self.lookup(node)

    def lookup(self, node: ast.Name) -> Value:
        if node.id in self.env or node.id in self.unusable:
            return self.read_variable(node.id, node)
        if node.id in self.globals:
            return self.python_value(node, self.globals[node.id])
        if hasattr(builtins, node.id):
            return PyObject(getattr(builtins, node.id))
        raise self.error(node, f"undefined name `{node.id}`")

    def python_value(self, node: ast.AST, obj: Any) -> Value:
        """Numbers and strings named from outside the function are constants; anything else a
        PyObject."""
        if isinstance(obj, bool | int | float | str) or obj is None:
            return obj
        if isinstance(obj, DType):  # frontend.torch.float64
            return obj
        if type(obj).__name__ == "dtype" and type(obj).__module__ == "torch":  # torch.float64
            from frontend.torch.dtype import as_dtype

            return as_dtype(obj)
        return PyObject(obj)

    def expr_Tuple(self, node: ast.Tuple) -> Value:  # noqa: N802
        return tuple(self.expr(e) for e in node.elts)

    def expr_List(self, node: ast.List) -> Value:  # noqa: N802
        return self.new_list([self.expr(e) for e in node.elts])

    def new_list(self, items: list[Value]) -> list[Value]:
        """A Python list of values, which `append` may grow in the block that made it."""
        self.list_blocks[id(items)] = self.builder.block
        return items

    def expr_Attribute(self, node: ast.Attribute) -> Value:  # noqa: N802
        base = self.expr(node.value)
        if isinstance(base, ModuleValue):
            return self.module_attribute(node, base)
        if isinstance(base, PyObject):
            if not hasattr(base.obj, node.attr):
                raise self.error(
                    node, f"`{ast.unparse(node.value)}` has no attribute `{node.attr}`"
                )
            return self.python_value(node, getattr(base.obj, node.attr))
        if kind_of(base) == "Tensor":
            return self.tensor_attribute(node, base)
        if isinstance(base, tuple) and len(base) == 2 and node.attr in ("values", "indices"):
            return base[0 if node.attr == "values" else 1]  # `x.max(1).values`
        raise self.error(node, f"attribute `{node.attr}` of a {kind_of(base)} is not supported")

    def expr_Call(self, node: ast.Call) -> Value:  # noqa: N802
        if any(k.arg is None for k in node.keywords):
            raise self.error(node, "`**kwargs` in calls are not supported")
        concatenated = self.concatenated_comprehension(node)  # torch.cat([... for ...])
        if concatenated is not NOT_CONCATENATED:
            return concatenated
        args = self.call_args(node.args)
        kwargs = {k.arg: self.expr(k.value) for k in node.keywords if k.arg is not None}
        if isinstance(node.func, ast.Attribute):
            receiver = self.expr(node.func.value)
            if isinstance(receiver, ModuleValue):
                return self.call_value(
                    node, self.module_attribute(node.func, receiver), args, kwargs
                )
            if node.func.attr == "size" and kind_of(receiver) == "Tensor":
                shape = self.size_call(node, receiver)
                if shape is not None:
                    return shape
            if not isinstance(receiver, PyObject):
                return self.method_call(node, receiver, node.func.attr, args, kwargs)
        return self.call_value(node, self.expr(node.func), args, kwargs)

    def call_args(self, nodes: list[ast.expr]) -> list[Value]:
        """The positional arguments, `*t` of a tuple, list or shape spread into them."""
        args: list[Value] = []
        for arg in nodes:
            if not isinstance(arg, ast.Starred):
                args.append(self.expr(arg))
                continue
            value = self.expr(arg.value)
            if isinstance(value, ShapeValue):
                value = self.shape_value(arg, value)
            if kind_of(value) == "list[int]" and isinstance(value, SSAValue):
                args.append(SpreadSizes(value))  # its length is known once types are
                continue
            if not isinstance(value, tuple | list):
                raise self.error(arg, f"`*` of a {kind_of(value)} is not supported")
            args.extend(value)
        if any(isinstance(a, SpreadSizes) for a in args):
            return self.sizes_joined(nodes[0] if nodes else None, args)
        return args

    def call_value(
        self, node: ast.Call, callee: Value, args: list[Value], kwargs: dict[str, Value]
    ) -> Value:
        if isinstance(callee, MethodValue):
            return self.call_method(node, callee, args, kwargs)
        if isinstance(callee, LocalLambda):
            return self.call_lambda(node, callee, args, kwargs)
        if isinstance(callee, ModuleValue):
            return self.call_module(node, callee, args, kwargs)
        if isinstance(callee, GraphValue):
            return self.call_graph(node, callee.function, args, kwargs)
        if isinstance(callee, PyObject) and is_captured_graph(callee.obj):
            return self.call_graph(node, callee.obj, args, kwargs)
        if not isinstance(callee, PyObject):
            raise self.error(node.func, f"a {kind_of(callee)} is not callable")
        return self.function_call(node, callee.obj, args, kwargs)

    def method_call(
        self,
        node: ast.Call,
        receiver: Value,
        name: str,
        args: list[Value],
        kwargs: dict[str, Value],
    ) -> Value:
        if isinstance(receiver, ScriptDict):
            return self.dict_method(node, receiver, name, args)
        if isinstance(receiver, list) and name == "append":
            return self.list_append(node, receiver, args, kwargs)
        if kind_of(receiver) == "Tensor":
            special = self.special_tensor_method(node, receiver, name, args, kwargs)
            if special is not NOT_SPECIAL:
                return special
        candidates = ops_for_method(name)
        twin = tensor_method_twin(name) if kind_of(receiver) == "Tensor" else None
        if not candidates and twin is not None:  # x.unique(...): frontend.torch's Python
            return self.call_scripted(node, Callee(twin, name), [receiver, *args], kwargs)
        if not candidates:
            raise self.error(
                node.func,
                f"unknown method `{name}` of a {kind_of(receiver)}",
                "see the README's op table for the supported tensor methods",
            )
        return self.result(self.emit(node, candidates, [receiver, *args], kwargs))

    def function_call(
        self, node: ast.Call, obj: Any, args: list[Value], kwargs: dict[str, Value]
    ) -> Value:
        builtin = self.python_builtin_call(node, obj, args)
        if builtin is not NOT_JIT_API:
            return builtin
        random_name = random_function_name(obj)
        if random_name is not None:
            return self.random_call(node, obj, random_name, args, kwargs)
        if getattr(obj, "__module__", None) == "math" or obj in _MATH_FUNCTIONS:
            return self.math_call(node, obj, args, kwargs)
        if is_torch_function(obj, "einsum"):
            return einsum_call(self, node, args, kwargs)
        if is_torch_function(obj, "tensor"):
            return tensor_literal(self, node, args, kwargs)
        candidates = ops_for_object(obj)
        if candidates:
            return self.result(self.emit(node, candidates, args, kwargs))
        if is_ignored(obj):
            return self.call_python(node, obj, args, kwargs)
        twin = frontend_twin(obj)
        if twin is not None:  # F.embedding: frontend.torch's Python, its errors at this call
            try:
                return self.call_scripted(node, Callee(twin, twin.__name__), args, kwargs)
            except ScriptError as err:
                message = f"{ast.unparse(node.func)}: {err.message}"
                raise self.error(node, message, err.hint) from None
        python_fn = scriptable_function(obj)
        if python_fn is not None:
            callee = Callee(python_fn, getattr(python_fn, "__name__", "fn"))
            return self.call_scripted(node, callee, args, kwargs)
        name = getattr(obj, "__qualname__", type(obj).__name__)
        hint = (
            "a module must be an attribute of `self` (a submodule) to be called"
            if is_module(obj)
            else "call registered torch ops (see the README's op table) or Python functions "
            "defined in a .py file"
        )
        raise self.error(node.func, f"unknown function `{ast.unparse(node.func)}` ({name})", hint)

    def python_builtin_call(self, node: ast.Call, obj: Any, args: list[Value]) -> Value:
        """`print`, `torch.jit` helpers, `len`/`int`/... (`builtin_call`); NOT_JIT_API for
        other functions."""
        if obj is builtins.print:
            return self.builtin_print(node, args)
        if obj is builtins.abs and args and kind_of(args[0]) == "Tensor":  # torch.abs
            return self.emit(node, ops_for_method("abs"), args, {})[0]
        jit_value = jit_api_value(obj, args)
        if jit_value is not NOT_JIT_API:
            return jit_value
        builtin = self.builtin_call(node, obj, args)
        return NOT_JIT_API if builtin is None else builtin

    def math_call(
        self, node: ast.Call, fn: Any, args: list[Value], kwargs: dict[str, Value]
    ) -> Value:
        """`math.sqrt(self.head_dim)`: `math` functions of numbers known while scripting fold;
        `math.sqrt(x.size(-1))` of a number known at run time is a scalar op (`RUNTIME_MATH`)."""
        values = [*args, *kwargs.values()]
        if not all(isinstance(v, bool | int | float) for v in values):
            return self.runtime_math(node, fn, args, kwargs)
        try:
            return fn(*args, **kwargs)
        except (ArithmeticError, ValueError, TypeError) as err:
            raise self.error(node, f"{type(err).__name__}: {err}") from None

    def runtime_math(
        self, node: ast.Call, fn: Any, args: list[Value], kwargs: dict[str, Value]
    ) -> Value:
        if fn in (min, max) and len(args) == 2 and not kwargs:
            return self.runtime_extremum(node, fn, args)
        op = RUNTIME_MATH.get(fn)
        kind = kind_of(args[0]) if len(args) == 1 else None
        if op is None or kwargs or kind not in ("int", "float"):
            names = ", ".join(f"math.{f.__name__}" for f in RUNTIME_MATH)
            raise self.error(
                node,
                f"`{ast.unparse(node.func)}` needs numbers known while scripting",
                f"of a number known at run time: {names}; on tensors use the torch function "
                "(torch.sqrt(x))",
            )
        if kind == "int" and fn in (math.floor, math.ceil):
            return args[0]
        return self.emit(node, (op,), [self.to_float(args[0], node)], {})[0]

    def runtime_extremum(self, node: ast.Call, fn: Any, args: list[Value]) -> Value:
        """`min(a, b)` / `max(a, b)` of numbers, one known only at run time (`min(n, 3)`);
        ints stay ints, a float makes both floats."""
        kinds = {kind_of(a) for a in args}
        if not kinds <= {"int", "float"}:
            raise self.error(
                node, f"{fn.__name__}() of {' and '.join(sorted(kinds))} is not supported"
            )
        if "float" in kinds:
            args = [self.to_float(a, node) for a in args]
        ops = {(min, "int"): AtenMinIntOp, (max, "int"): AtenMaxIntOp,
               (min, "float"): AtenMinFloatOp, (max, "float"): AtenMaxFloatOp}  # fmt: skip
        return self.emit(node, (ops[fn, kind_of(args[0])],), args, {})[0]

    @staticmethod
    def result(results: list[SSAValue]) -> Value:
        return results[0] if len(results) == 1 else tuple(results)

    def emit(
        self, node: ast.AST, candidates: Any, args: list[Value], kwargs: dict[str, Value]
    ) -> list[SSAValue]:
        if any(isinstance(a, GrownList) for a in (*args, *kwargs.values())):
            return self.grown_list_call(node, candidates, args, kwargs)
        source = dtype_source(candidates, args, kwargs)
        if source is not None:
            return self.in_dtype_of(node, candidates, args, kwargs, source)
        args = [self.shape_value(node, a) if isinstance(a, ShapeValue) else a for a in args]
        kwargs = {
            k: self.shape_value(node, v) if isinstance(v, ShapeValue) else v
            for k, v in kwargs.items()
        }
        kwargs = devices_dropped(lambda message: self.error(node, message), kwargs)
        kwargs = python_keywords(candidates, kwargs)
        try:
            return self.builder.call(candidates, args, kwargs)
        except BindError as err:
            self.refuse_captured_tensors(node, [*args, *kwargs.values()])
            names = sorted({c.name for c in candidates})
            raise self.error(node, f"wrong arguments for {' / '.join(names)}: {err}") from None
        except (ShapeError, TypeError) as err:
            raise self.error(node, str(err)) from None


def scriptable_function(obj: Any) -> Callable[..., Any] | None:
    """The Python function behind `obj` if it can be scripted as a callee, else None."""
    from frontend.function import ScriptFunction

    if isinstance(obj, ScriptFunction):
        return obj.python_fn
    if inspect.isfunction(obj):
        if is_ignored(obj):
            return None
        return obj
    return None


_MATH_FUNCTIONS = {abs, min, max, round}  # builtins that fold like `math` functions
RUNTIME_MATH = {
    math.sqrt: AtenSqrtFloatOp, math.exp: AtenExpFloatOp, math.log: AtenLogFloatOp,
    math.floor: AtenFloorFloatOp, math.ceil: AtenCeilFloatOp,
}  # fmt: skip
"""The `math` functions of a number known at run time, and their scalar ops."""

_STATEMENT_HINTS: dict[type[ast.stmt], str] = {
    ast.Try: "try/except is not supported; move error handling outside the scripted function",
    ast.FunctionDef: "nested functions are not supported; define it at module level",
    ast.Global: "`global` is not supported; pass the value as an argument",
    ast.Nonlocal: "`nonlocal` is not supported; pass the value as an argument",
    ast.Import: "import at module level, outside the scripted function",
    ast.ImportFrom: "import at module level, outside the scripted function",
    ast.Delete: "`del` is not supported",
}
_EXPRESSION_HINTS: dict[type[ast.expr], str] = {
    ast.ListComp: "write the loop out explicitly",
    ast.DictComp: "write the loop out explicitly",
    ast.GeneratorExp: "write the loop out explicitly",
}
