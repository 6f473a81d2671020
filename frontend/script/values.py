"""Scripting of values: scalar arithmetic and truth tests, indexing (`x[0]`, `x[:, 1:3]`,
`x[..., -1]`), shape queries (`x.shape[i]`, `x.size(i)`, `x.dim()`, `len(x)`) and the builtins
`len`, `int`, `float` and `bool`.
"""

from __future__ import annotations

import ast
import builtins
from collections.abc import Callable
from typing import Any

from xdsl.ir import SSAValue

from dialects.torch.ops.data_movement import (
    AtenDimOp,
    AtenSelectIntOp,
    AtenSizeIntOp,
    AtenSizeOp,
    AtenSliceTensorOp,
    AtenSliceTOp,
)
from dialects.torch.ops.indexing import AtenIndexTensorOp
from dialects.torch.ops.prim import PrimListGetItemOp
from dialects.torch.ops.scalars import (
    AtenBoolFloatOp,
    AtenBoolIntOp,
    AtenExpFloatOp,
    AtenFloatScalarOp,
    AtenIntFloatOp,
    AtenLogFloatOp,
    AtenNotOp,
    AtenSqrtFloatOp,
)
from frontend.errors import ScriptError
from frontend.ir.builder import Value, kind_of
from frontend.ir.resolve import ops_for_method, ops_for_operator
from frontend.script.collaborator import Collaborator
from frontend.script.grown_lists import GrownList
from frontend.script.tensor_methods import NOT_SPECIAL, known_tensor_type
from frontend.script.value_kinds import (
    SCALAR_KINDS,
    ModuleValue,
    PyObject,
    ShapeValue,
    Unusable,
    is_python_object,
)


def _is_constant(value: Value) -> bool:
    return isinstance(value, bool | int | float)


class Values(Collaborator):
    """Variables, scalars, builtins, shapes and indexing. Interface: `read_variable`,
    `mark_unusable`, `to_bool`, `to_float`, `logical_not`, `scalar_binop`, `builtin_call`,
    `refuse_captured_tensors`, `tensor_attribute`, `size_call`, `shape_value`,
    `shape_element`, `shape_tuple`, `unpack_shape`, and the handler `expr_Subscript`."""

    # ---- variables ----

    def read_variable(self, name: str, node: ast.AST) -> Value:
        if name in self.scripter.env:
            return self.scripter.env[name]
        why = self.scripter.unusable.get(name)
        if why is not None:
            error = self.error(
                node,
                f"`{name}` cannot be used here: {why.message}"
                + self.scripter.control.also_at(why.node),
                why.hint,
            )
            source = self.scripter.source
            places = tuple((what, source.location(place)) for what, place in why.places)
            raise ScriptError(error.message, error.location, error.hint, places)
        raise self.error(node, f"undefined name `{name}`")

    def mark_unusable(self, name: str, why: Unusable) -> None:
        self.scripter.env.pop(name, None)
        self.scripter.unusable[name] = why

    # ---- truth and scalar arithmetic ----

    def to_bool(self, value: Value, node: ast.AST) -> Value:
        """A Python bool (known now) or a `!torch.bool`: `aten.Bool.Tensor` for tensors."""
        if _is_constant(value) or value is None:
            return bool(value)
        kind = kind_of(value)
        if kind == "bool":
            return value
        if kind == "Tensor":
            return self.scripter.ops.emit(node, ops_for_method("__bool__"), [value], {})[0]
        if kind in ("int", "float"):
            op = AtenBoolIntOp if kind == "int" else AtenBoolFloatOp
            return self.scripter.ops.emit(node, (op,), [value], {})[0]
        raise self.error(node, f"a {kind} cannot be used as a condition")

    def logical_not(self, node: ast.UnaryOp) -> Value:
        value = self.to_bool(self.scripter.expressions.expr(node.operand), node.operand)
        if isinstance(value, bool):
            return not value
        return self.scripter.ops.emit(node, (AtenNotOp,), [value], {})[0]

    def to_float(self, value: Value, node: ast.AST) -> Value:
        if _is_constant(value):
            return float(value)
        if kind_of(value) == "float":
            return value
        return self.scripter.ops.emit(node, (AtenFloatScalarOp,), [value], {})[0]

    def scalar_binop(self, node: ast.AST, name: str, lhs: Value, rhs: Value) -> Value:
        """`a + b`, `a < b`, ... on Python scalars known only at run time.

        Mixed int/float operands compute in float, like Python; `/` always does.
        """
        kinds = {kind_of(lhs), kind_of(rhs)}
        if name == "pow" and not {"bool", "Tensor"} & kinds:
            return self.scalar_power(node, lhs, rhs)
        if "bool" in kinds and name not in ("and_", "or_"):
            raise self.error(
                node, f"`{name}` of a bool is not supported", "convert it with int(...)"
            )
        if "float" in kinds or name == "truediv":
            lhs, rhs = self.to_float(lhs, node), self.to_float(rhs, node)
        return self.scripter.ops.emit(node, ops_for_operator(name), [lhs, rhs], {})[0]

    def scalar_power(self, node: ast.AST, base: Value, exponent: Value) -> Value:
        """`a ** b` of numbers known at run time (`q.size(-1) ** -0.5`), like Python: an int
        to a constant int >= 0 stays an int (products), `** 0.5` is a square root, `** -k`
        its reciprocal, anything else `exp(b * log(a))` in float."""
        if isinstance(exponent, int) and not isinstance(exponent, bool) and 0 <= exponent <= 8:
            result: Value = 1
            for _ in range(exponent):
                result = self.scalar_binop(node, "mul", result, base)
            return result if exponent else (1.0 if kind_of(base) == "float" else 1)
        value = self.to_float(base, node)
        if isinstance(exponent, int | float) and abs(exponent) in (0.5, 1, 2, 3, 4):
            magnitude = abs(exponent)
            if magnitude == 0.5:
                root = self.scripter.ops.emit(node, (AtenSqrtFloatOp,), [value], {})[0]
            else:
                root = self.scalar_power(node, value, int(magnitude))
            return root if exponent > 0 else self.scalar_binop(node, "truediv", 1.0, root)
        logarithm = self.scripter.ops.emit(node, (AtenLogFloatOp,), [value], {})[0]
        scaled = self.scalar_binop(node, "mul", self.to_float(exponent, node), logarithm)
        return self.scripter.ops.emit(node, (AtenExpFloatOp,), [scaled], {})[0]

    # ---- builtins ----

    def builtin_call(self, node: ast.Call, fn: Any, args: list[Value]) -> Value | None:
        """`len`, `int`, `float`, `bool` of tensors and scalars, `getattr` of a module; None
        for other callables."""
        if fn is builtins.getattr:
            return self.builtin_getattr(node, args)
        if fn in (builtins.enumerate, builtins.zip):
            return self.scripter.iteration.iteration_call(node, fn, args)  # type: ignore[attr-defined,no-any-return]
        if fn in (builtins.list, builtins.tuple, builtins.reversed):
            return self.scripter.iteration.sequence_call(node, fn, args)  # type: ignore[attr-defined,no-any-return]
        if fn is builtins.isinstance:
            return self.builtin_isinstance(node, args)
        handler = _BUILTINS.get(fn)
        if handler is None:
            if fn is builtins.range:
                raise self.error(node, "range() is only supported as `for ... in range(...)`")
            return None
        if len(args) != 1 or node.keywords:
            raise self.error(node, f"{fn.__name__}() takes exactly one argument here")
        return handler(self, node, args[0])

    def refuse_captured_tensors(self, node: ast.AST, values: list[Value]) -> None:
        """A located error for a tensor the function reads from outside (a global or closure
        variable), which scripted code cannot take as a value (like TorchScript)."""
        captured = [v.obj for v in values if is_python_object(v) and _is_tensor(v.obj)]
        if not captured:
            return
        names = sorted(
            {
                n.id
                for n in ast.walk(node)
                if isinstance(n, ast.Name)
                and any(self.scripter.globals.get(n.id) is c for c in captured)
            }
        )
        shown = ", ".join(f"`{n}`" for n in names) or "a tensor"
        raise self.error(
            node,
            f"{shown}: a tensor defined outside the function (a global or closure variable) "
            "cannot be used in scripted code",
            "pass it as an argument, or make it a parameter or buffer of the module",
        )

    def builtin_getattr(self, node: ast.Call, args: list[Value]) -> Value:
        """`getattr(self, name)` with a name known while scripting: `self.<name>`."""

        if len(args) != 2 or node.keywords or not isinstance(args[1], str):
            raise self.error(node, "getattr() takes a module and a name known while scripting")
        if not isinstance(args[0], ModuleValue):
            raise self.error(node, f"getattr() of a {kind_of(args[0])} is not supported")
        attribute = ast.copy_location(ast.Attribute(node.args[0], args[1], ast.Load()), node)
        return self.scripter.modules.module_attribute(attribute, args[0])  # type: ignore[attr-defined,no-any-return]

    def builtin_isinstance(self, node: ast.Call, args: list[Value]) -> bool:
        """`isinstance(x, torch.Tensor)`: decided while scripting from the kind of `x`."""
        if len(args) != 2 or node.keywords:
            raise self.error(node, "isinstance() takes a value and a type")
        spec = args[1]
        classes = spec if isinstance(spec, tuple) else (spec,)
        kind = kind_of(args[0])
        for cls in classes:
            target = cls.obj if isinstance(cls, PyObject) else cls
            if not isinstance(target, type):
                raise self.error(node.args[1], "isinstance() needs a type known while scripting")
            if _kind_matches(kind, target):
                return True
        return False

    def builtin_len(self, node: ast.AST, value: Value) -> Value:

        if isinstance(value, ModuleValue):
            return len(self.scripter.modules.module_items(node, value))
        if isinstance(value, ShapeValue):
            return self.scripter.ops.emit(node, (AtenDimOp,), [value.tensor], {})[0]
        if isinstance(value, tuple | list | dict):
            return len(value)  # type: ignore[arg-type]
        if isinstance(value, GrownList):
            return self.scripter.grown_lists.grown_list_length(node, value)  # type: ignore[attr-defined,no-any-return]
        if kind_of(value) == "Tensor":
            return self.scripter.ops.emit(node, ops_for_method("__len__"), [value], {})[0]
        if kind_of(value) == "list[Tensor]" and isinstance(value, SSAValue):
            return self.scripter.iteration.tensor_list_length(node, value)  # type: ignore[attr-defined,no-any-return]
        raise self.error(node, f"len() of {kind_of(value)} is not supported")

    def builtin_float(self, node: ast.AST, value: Value) -> Value:
        if isinstance(value, str):  # float("inf"), float("nan"): constants, as in Python
            try:
                return float(value)
            except ValueError as err:
                raise self.error(node, f"ValueError: {err}") from None
        if kind_of(value) == "Tensor":
            return self.scripter.ops.emit(node, ops_for_method("__float__"), [value], {})[0]
        if kind_of(value) not in SCALAR_KINDS:
            raise self.error(node, f"float() of {kind_of(value)} is not supported")
        if kind_of(value) == "bool" and isinstance(value, SSAValue):
            return self.bool_as_number(node, value, 1.0, 0.0)
        return self.to_float(value, node)

    def bool_as_number(self, node: ast.AST, value: SSAValue, one: Value, zero: Value) -> Value:
        """`float(b)` / `int(b)` of a bool known at run time: `one if b else zero`."""
        hidden = f"__bool_{id(node)}"
        self.scripter.env[hidden] = value
        choice = ast.IfExp(
            test=ast.Name(id=hidden, ctx=ast.Load()),
            body=ast.Constant(value=one),
            orelse=ast.Constant(value=zero),
        )
        try:
            return self.scripter.expressions.expr(ast.copy_location(choice, node))  # type: ignore[arg-type]
        finally:
            del self.scripter.env[hidden]

    def builtin_int(self, node: ast.AST, value: Value) -> Value:
        kind = kind_of(value)
        if kind == "Tensor":
            return self.scripter.ops.emit(node, ops_for_method("__int__"), [value], {})[0]
        if _is_constant(value):
            return int(value)
        if kind == "float":
            return self.scripter.ops.emit(node, (AtenIntFloatOp,), [value], {})[0]
        if kind == "int":
            return value
        if kind == "bool" and isinstance(value, SSAValue):
            return self.bool_as_number(node, value, 1, 0)
        raise self.error(node, f"int() of {kind} is not supported")

    def builtin_sum(self, node: ast.AST, value: Value) -> Value:
        """`sum(parts)` of a tuple or list known while scripting: `0 + parts[0] + ...`."""
        if not isinstance(value, tuple | list):
            raise self.error(node, f"sum() of {kind_of(value)} is not supported")
        total: Value = 0
        for item in value:
            total = self.scripter.operators.binop(node, ast.Add(), total, item)  # type: ignore[attr-defined]
        return total

    def builtin_bool(self, node: ast.AST, value: Value) -> Value:
        return self.to_bool(value, node)

    # ---- shapes ----

    def tensor_attribute(self, node: ast.Attribute, tensor: SSAValue) -> Value:
        special = self.scripter.tensor_methods.special_tensor_attribute(node, tensor)  # type: ignore[attr-defined]
        if special is not NOT_SPECIAL:
            return special  # type: ignore[no-any-return]
        if node.attr == "shape":
            return ShapeValue(tensor)
        if node.attr == "ndim":
            return self.scripter.ops.emit(node, (AtenDimOp,), [tensor], {})[0]
        raise self.error(
            node,
            f"unknown attribute `{node.attr}` of a Tensor",
            "the supported attributes are `shape`, `ndim`, `device` and `T`",
        )

    def size_call(self, node: ast.Call, tensor: SSAValue) -> ShapeValue | None:
        """`x.size()` without arguments is `x.shape`."""
        if node.args or node.keywords:
            return None
        return ShapeValue(tensor)

    def shape_element(self, node: ast.AST, shape: ShapeValue, index: Value) -> Value:
        if not isinstance(index, int):
            raise self.error(
                node,
                "`shape` must be indexed with a constant int",
                "use x.size(dim) with a constant dim",
            )
        return self.scripter.ops.emit(node, (AtenSizeIntOp,), [shape.tensor, index], {})[0]

    def unpack_shape(self, node: ast.AST, shape: ShapeValue, count: int) -> tuple[Value, ...]:
        """`n, m = x.shape`: the sizes of the first `count` dims (the rank must be `count`)."""
        return tuple(self.shape_element(node, shape, d) for d in range(count))

    def shape_tuple(self, node: ast.AST, shape: ShapeValue) -> tuple[Value, ...]:
        """`x.shape` spread or sliced (`x.view(*x.shape[:-1], -1)`): the size of each dim,
        which needs the tensor's rank while scripting."""
        known = known_tensor_type(shape.tensor)
        rank = known.rank if known is not None else None
        if rank is None:
            raise self.error(
                node,
                "a shape cannot be spread or sliced here: the tensor's rank is not known when "
                "the function is scripted",
                "pass it whole (y.reshape(x.shape)), index it (x.shape[0]) or unpack it "
                "(n, c = x.shape)",
            )
        return tuple(self.shape_element(node, shape, d) for d in range(rank))

    def shape_value(self, node: ast.AST, shape: ShapeValue) -> Value:
        """`x.shape` passed whole (`y.reshape(x.shape)`, `torch.zeros(x.size())`): the size of
        each dim where the rank is known, else `torch.aten.size`, a list that
        `torch-refine-types` expands once the argument types fix the rank."""
        known = known_tensor_type(shape.tensor)
        rank = known.rank if known is not None else None
        if rank is None:
            return self.scripter.ops.emit(node, (AtenSizeOp,), [shape.tensor], {})[0]
        return self.shape_tuple(node, shape)

    def shape_slice(self, node: ast.Subscript, shape: ShapeValue) -> Value:
        """`x.shape[1:]`, `x.shape[:-1]`: constant bounds on the tuple of sizes, or, while the
        rank is unknown, `torch.aten.slice.t` of the whole shape (a list of ints)."""
        part = node.slice
        assert isinstance(part, ast.Slice)
        bounds = [
            None if b is None else self.scripter.expressions.expr(b)
            for b in (part.lower, part.upper, part.step)
        ]
        if any(b is not None and (not isinstance(b, int) or isinstance(b, bool)) for b in bounds):
            raise self.error(node, "a shape must be sliced with constant ints")
        known = known_tensor_type(shape.tensor)
        if known is None or known.rank is None:
            whole = self.shape_value(node, shape)
            step = 1 if bounds[2] is None else bounds[2]
            return self.scripter.ops.emit(
                node, (AtenSliceTOp,), [whole, bounds[0], bounds[1], step], {}
            )[0]
        return self.shape_tuple(node, shape)[slice(*bounds)]  # type: ignore[misc]

    # ---- indexing ----

    def expr_Subscript(self, node: ast.Subscript) -> Value:  # noqa: N802

        base = self.scripter.expressions.expr(node.value)
        if is_python_object(base):  # `List[Tensor]` in `torch.jit.annotate(List[Tensor], [])`
            return python_subscript(self.scripter, node, base)
        if isinstance(base, ModuleValue):
            return self.scripter.modules.module_index(
                node, base, self.scripter.expressions.expr(node.slice)
            )
        if isinstance(base, ShapeValue):
            if isinstance(node.slice, ast.Slice):
                return self.shape_slice(node, base)
            return self.shape_element(node, base, self.scripter.expressions.expr(node.slice))
        if isinstance(base, dict):
            return self.scripter.dicts.dict_item(node, base)  # type: ignore[attr-defined,no-any-return]
        if isinstance(base, GrownList) and not isinstance(node.slice, ast.Slice):
            return self.scripter.grown_lists.grown_list_item(
                node, base, self.scripter.expressions.expr(node.slice)
            )  # type: ignore[attr-defined,no-any-return]
        if isinstance(base, tuple | list):
            return self.sequence_item(node, base)
        if kind_of(base) == "list[Tensor]" and isinstance(base, SSAValue):
            return self.list_item(node, base)
        if kind_of(base) != "Tensor":
            raise self.error(node, f"a {kind_of(base)} cannot be indexed")
        return self.index_tensor(node, base)

    def sequence_item(self, node: ast.Subscript, base: tuple[Value, ...] | list[Value]) -> Value:
        """`t[i]`, `t[a:b]` of a tuple or list known while scripting: constant bounds."""
        if isinstance(node.slice, ast.Slice):
            return self.sequence_slice(node, base)
        index = self.scripter.expressions.expr(node.slice)
        if not isinstance(index, int) or isinstance(index, bool):
            raise self.error(node.slice, "tuples and lists must be indexed with a constant int")
        try:
            return base[index]
        except IndexError:
            raise self.error(node, f"index {index} is out of range") from None

    def list_item(self, node: ast.Subscript, items: SSAValue) -> Value:
        """`parts[i]` of a list of tensors made by an op (`torch.split(x, sizes)`): a
        constant index, checked once the list's length is known; an index known at run time
        (`for i in range(len(parts))`) makes the piece itself (`run_time_list_item`)."""
        index = self.scripter.expressions.expr(node.slice)
        if kind_of(index) == "int" and isinstance(index, SSAValue):
            return self.scripter.iteration.run_time_list_item(node, items, index)  # type: ignore[attr-defined,no-any-return]
        if not isinstance(index, int) or isinstance(index, bool):
            raise self.error(node.slice, "a list of tensors must be indexed with an int")
        op = self.scripter.builder.insert(
            PrimListGetItemOp(items, self.scripter.builder.materialize(index))
        )
        return op.results[0]

    def sequence_slice(self, node: ast.Subscript, base: tuple[Value, ...] | list[Value]) -> Value:
        """`parts[1:]`, `parts[::-1]` of a tuple or list: constant bounds."""
        part = node.slice
        assert isinstance(part, ast.Slice)
        bounds = [
            None if b is None else self.scripter.expressions.expr(b)
            for b in (part.lower, part.upper, part.step)
        ]
        if any(b is not None and (not isinstance(b, int) or isinstance(b, bool)) for b in bounds):
            raise self.error(node, "tuples and lists must be sliced with constant ints")
        if bounds[2] == 0:
            raise self.error(node, "slice step cannot be zero")
        picked = base[slice(*bounds)]  # type: ignore[misc]
        return self.scripter.expressions.new_list(picked) if isinstance(picked, list) else picked  # type: ignore[attr-defined]

    def index_tensor(self, node: ast.Subscript, value: Value) -> Value:
        """`x[0, 1:3, ..., idx]`, `x[rows, cols]`: ints select, slices slice, and the index
        tensors (integer or lists of ints, at any positions; or one bool mask) pick last, in
        one `aten.index.Tensor` (None for the dims between), so ints after them still select
        first, as in PyTorch."""
        items = list(node.slice.elts) if isinstance(node.slice, ast.Tuple) else [node.slice]
        ellipses = [i for i, item in enumerate(items) if _is_ellipsis(item)]
        if len(ellipses) > 1:
            raise self.error(node.slice, "an index can only have a single ellipsis (`...`)")
        values = {
            i: self.scripter.expressions.expr(item)
            for i, item in enumerate(items)
            if not (isinstance(item, ast.Slice) or _is_ellipsis(item))
        }
        for i, v in values.items():  # `x[[0, 2], [1, 3]]`: constant index tensors
            if isinstance(v, list) and v and all(type(e) in (int, bool) for e in v):
                values[i] = self.scripter.stores.index_literal(v)  # type: ignore[attr-defined]
        tensors = [i for i, v in values.items() if kind_of(v) == "Tensor"]
        split = ellipses[0] if ellipses else len(items)
        dim, picked = 0, {}
        for i in range(split):
            if i in tensors:
                picked[i] = dim
            value, kept = self.index_one(items[i], values.get(i), value, dim)
            dim += kept
        kept_after = 0  # after `...`, dims count from the end, rightmost first
        for i in reversed(range(split + 1, len(items))):
            if i in tensors:
                picked[i] = -(kept_after + 1)
            value, kept = self.index_one(items[i], values.get(i), value, -(kept_after + 1))
            kept_after += kept
        if not picked:
            return value
        return self.index_by_tensors(node, items, value, picked, values)

    def index_by_tensors(
        self,
        node: ast.Subscript,
        items: list[ast.expr],
        value: Value,
        picked: dict[int, int],
        values: dict[int, Value],
    ) -> Value:
        """`value[:, i, j]`: the index tensor of item i at dim `picked[i]` (negative: from the
        end) in one `aten.index.Tensor`, None for the other dims before the last one."""
        dims: dict[int, Value] = {}
        for i, dim in picked.items():
            if dim < 0:
                rank = value.type.rank if isinstance(value, SSAValue) else None  # type: ignore[attr-defined]
                if rank is None:
                    raise self.error(
                        items[i],
                        "an index tensor after `...` needs the tensor's rank, which is not "
                        "known while scripting",
                        "write the dims out: x[:, :, idx] instead of x[..., idx]",
                    )
                dim += rank
            dims[dim] = values[i]
        none = self.scripter.builder.materialize(None)
        listed = self.scripter.builder.list_of([dims.get(d, none) for d in range(max(dims) + 1)])  # type: ignore[misc]
        at = node.slice if len(picked) > 1 else items[next(iter(picked))]
        return self.scripter.ops.emit(at, (AtenIndexTensorOp,), [value, listed], {})[0]

    def index_one(self, item: ast.expr, index: Value, value: Value, dim: int) -> tuple[Value, int]:
        """Apply one index item (`index`: its value, unless a slice) at `dim`; also return how
        many dims it keeps (0 or 1). An index tensor keeps its dim here (`index_by_tensor`)."""
        if isinstance(item, ast.Slice):
            bounds = [
                None if e is None else self.scripter.expressions.expr(e)
                for e in (item.lower, item.upper, item.step)
            ]
            for expr, bound in zip((item.lower, item.upper, item.step), bounds):
                if bound is not None and kind_of(bound) != "int":
                    raise self.error(
                        expr or item, f"slice bounds must be ints, not {kind_of(bound)}"
                    )  # type: ignore[arg-type]
            if bounds == [None, None, None]:
                return value, 1
            start, end, step = bounds
            args = [value, dim, start, end, 1 if step is None else step]
            return self.scripter.ops.emit(item, (AtenSliceTensorOp,), args, {})[0], 1
        if index is None:  # a new axis of size 1, as x.unsqueeze(dim)
            return self.scripter.ops.emit(item, ops_for_method("unsqueeze"), [value, dim], {})[0], 1
        if kind_of(index) == "Tensor":
            return value, 1
        if kind_of(index) != "int":
            raise self.error(
                item,
                f"a tensor can only be indexed by ints, slices and index tensors, not by "
                f"{kind_of(index)}",
                "an argument that is a dict needs the annotation `Dict[str, Tensor]`"
                if isinstance(index, str)
                else "",
            )
        return self.scripter.ops.emit(item, (AtenSelectIntOp,), [value, dim, index], {})[0], 0


def _is_ellipsis(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value is Ellipsis


_BUILTINS: dict[Any, Callable[[Any, ast.AST, Value], Value]] = {
    builtins.len: Values.builtin_len,
    builtins.float: Values.builtin_float,
    builtins.int: Values.builtin_int,
    builtins.bool: Values.builtin_bool,
    builtins.sum: Values.builtin_sum,
}


def _kind_matches(kind: str, target: type) -> bool:
    """Whether a scripted value of `kind` is an instance of the Python type `target`."""
    if kind == "Tensor":
        return target.__name__ in ("Tensor", "ndarray") or target is object
    python = {"int": int, "float": float, "bool": bool, "str": str, "None": type(None)}
    if kind in python:
        return issubclass(python[kind], target)
    if kind == "tuple" or kind.startswith("list["):
        return target in (tuple, list, object) and (target is not list or kind.startswith("list"))
    return False


def _is_tensor(obj: Any) -> bool:
    return type(obj).__name__ in ("Tensor", "Parameter", "ndarray")


def python_subscript(s: Any, node: ast.Subscript, base: Any) -> Any:
    """`base[index]` of a Python object (a typing construct), evaluated in Python."""
    index = s.expressions.expr(node.slice)
    items = index if isinstance(index, tuple) else (index,)
    plain = tuple(i.obj if is_python_object(i) else i for i in items)
    try:
        return type(base)(base.obj[plain if isinstance(index, tuple) else plain[0]])
    except Exception as err:
        raise s.error(node, f"cannot index {base.obj!r}: {err}") from None
