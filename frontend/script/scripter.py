"""`FunctionScripter`: walks one function's `ast` into a torch-dialect `func.func`.

The scripter holds the state of the function being scripted (the environment `env` of
variable -> Value, the IR `builder`, the `frames` that give exits their meaning, the source
for error locations) and one collaborator per concern, each in its own file:

    parameters      the signature: runtime parameters, annotations, argument types
    statements      statement dispatch, assignment
    expressions     expression dispatch, names, attributes, call expressions
    call_sites      what a call reaches: a method, a module, a torch op, a Python function
    ops             emitting a torch op for a call (`emit`), dtype-following arguments
    calls           scripted callees (`func.call`), ignored Python calls, traced graphs
    modules         `self`: module attributes, parameters, submodule and method calls
    values          variables, truth and scalar arithmetic, builtins, shapes, indexing
    operators       unary, binary and comparison operators
    control         `if`, conditional expressions, `and`/`or`, statement lists and exits
    loops           `for`/`while`, unrolling, comprehensions
    iteration       sequences known at run time, `zip`/`enumerate`/`list`/`reversed`
    grown_lists     lists appended to in a loop decided at run time
    concatenation   `torch.cat([... for ...])` over a run-time sequence
    starred         `a, *rest = ...`
    stores          `x[i] = v` into tensors, lists and dicts
    dicts           dict literals, items and parameters
    shape_lists     `[*x.shape, 4]`-style size lists
    tensor_methods  tensor methods and attributes scripted specially (`item`, in-place, ...)
    lambdas         lambdas inside the function
    raising         `raise`, `assert`
    random          `torch.rand*` calls
    printing        `print` and f-strings

Interface: `FunctionScripter(fn, compilation, self_value=, arg_types=, constants=, name=,
entry=)`, then `build_function()` (a `ScriptedFunction`) or `build()` (the `func.func`);
`parameter_specs()` for entry-call specialization; `error(node, message, hint)`;
`script_callee(...)` scripts a callee into the same compilation.
"""

from __future__ import annotations

import ast
import inspect
import textwrap
from collections.abc import Callable
from typing import Any

from xdsl.dialects import func
from xdsl.dialects.builtin import FunctionType
from xdsl.ir import Attribute, Block, Region, SSAValue

from frontend.errors import ScriptError, SourceFile
from frontend.ir.builder import IRBuilder, Value
from frontend.script.annotations import ArgSpec, ListLength, VarArgs
from frontend.script.assign_into import SubscriptStores
from frontend.script.call_sites import CallSites
from frontend.script.calls import Calls, Compilation, ScriptedFunction
from frontend.script.concatenation import Concatenation
from frontend.script.control import ControlFlow, FunctionFrame
from frontend.script.dicts import DictKeys, Dicts
from frontend.script.expressions import Expressions
from frontend.script.grown_lists import Growing, GrownLists
from frontend.script.iteration import Iteration, RunTimeSequence
from frontend.script.lambdas import Lambdas, is_lambda, lambda_source, source_required
from frontend.script.loops import Frame, Loops
from frontend.script.modules import Modules
from frontend.script.op_calls import OpCalls
from frontend.script.operators import Operators
from frontend.script.parameters import Parameters
from frontend.script.printing import Printing
from frontend.script.raising import Raising
from frontend.script.random_tensors import RandomTensors
from frontend.script.shape_lists import ShapeLists
from frontend.script.starred import Starred
from frontend.script.statements import Statements
from frontend.script.tensor_methods import TensorMethods
from frontend.script.value_kinds import ModuleValue, Unusable
from frontend.script.values import Values


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
    source = SourceFile(filename, dedented.splitlines(), first_line, indent)
    if isinstance(node, ast.AsyncFunctionDef):
        raise ScriptError(
            f"cannot script `async def {node.name}`: coroutines are not supported",
            source.location(_def_keyword(node)), "script a plain `def`",
        )  # fmt: skip
    if not isinstance(node, ast.FunctionDef):
        raise ScriptError(f"cannot script {fn!r}: expected a function definition")
    return node, source


def _def_keyword(node: ast.AsyncFunctionDef) -> ast.AST:
    """Where `async def` is written (the `def` line, after any decorators)."""
    return ast.Pass(lineno=node.lineno, col_offset=node.col_offset, end_lineno=node.lineno,
                    end_col_offset=node.col_offset + len("async def"))  # fmt: skip


class FunctionScripter:
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
        self.parameters = Parameters(self)
        self.statements = Statements(self)
        self.expressions = Expressions(self)
        self.call_sites = CallSites(self)
        self.ops = OpCalls(self)
        self.calls = Calls(self)
        self.modules = Modules(self)
        self.values = Values(self)
        self.operators = Operators(self)
        self.control = ControlFlow(self)
        self.loops = Loops(self)
        self.iteration = Iteration(self)
        self.grown_lists = GrownLists(self)
        self.concatenation = Concatenation(self)
        self.starred = Starred(self)
        self.stores = SubscriptStores(self)
        self.dicts = Dicts(self)
        self.shape_lists = ShapeLists(self)
        self.tensor_methods = TensorMethods(self)
        self.lambdas = Lambdas(self)
        self.raising = Raising(self)
        self.random = RandomTensors(self)
        self.printing = Printing(self)

    def error(self, node: ast.AST, message: str, hint: str = "") -> ScriptError:
        return ScriptError(message, self.source.location(node), hint)

    def build(self) -> func.FuncOp:
        """The function alone (its callees are in `self.compilation`)."""
        return self.build_function().op

    def build_function(self) -> ScriptedFunction:
        parameters = self.parameters.parameters()
        self.constants = {**self.parameters.default_constants(parameters), **self.constants}
        self.constants = self.parameters.broadcast_constants(parameters, self.constants)
        dicts = {n: c for n, c in self.constants.items() if isinstance(c, DictKeys)}
        collected = {n for n, c in self.constants.items() if isinstance(c, VarArgs | ListLength)}
        runtime = [
            a for a in parameters
            if a.arg not in self.constants or a.arg in dicts or a.arg in collected
        ]  # fmt: skip
        arg_types = [self.parameters.argument_types(a) for a in runtime]
        block = Block(arg_types=[t for types, _ in arg_types for t in types])
        self.entry_block = block
        args = iter(block.args)
        for node, (types, is_tuple) in zip(runtime, arg_types):
            values = [next(args) for _ in types]
            if node.arg in dicts:
                self.env[node.arg] = self.dicts.dict_parameter(node.arg, dicts[node.arg], values)
                continue
            spec = self.parameters.annotation(node)
            if spec is not None and spec.kind == "dict":  # the default graph: keys unknown
                self.env[node.arg] = self.dicts.open_dict_parameter(node.arg, spec)
                continue
            for i, value in enumerate(values):
                value.name_hint = f"{node.arg}.{i}" if is_tuple else node.arg
            self.env[node.arg] = tuple(values) if is_tuple else values[0]
            if isinstance(self.constants.get(node.arg), ListLength):
                self.env[node.arg] = list(values)
        self.env.update((n, c) for n, c in self.constants.items() if n not in {*dicts, *collected})
        self.builder = IRBuilder(block)
        leaf = self.control.block_list(self.node.body)
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

    def parameter_specs(self) -> list[tuple[str, ArgSpec | None]]:
        """Each parameter (without `self`) and its annotation, for entry-call specialization."""
        return self.parameters.parameter_specs()

    def script_callee(
        self,
        fn: Callable[..., Any],
        *,
        self_value: ModuleValue | None,
        arg_types: dict[str, Attribute | list[Attribute]],
        constants: dict[str, Any],
        name: str,
    ) -> ScriptedFunction:
        """A callee of this function, scripted into the same compilation."""
        scripter = FunctionScripter(
            fn, self.compilation, self_value=self_value, arg_types=arg_types,  # type: ignore[arg-type]
            constants=constants, name=name,
        )  # fmt: skip
        return scripter.build_function()
