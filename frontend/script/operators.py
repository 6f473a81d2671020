"""Scripting of operators: `+ - * / // % ** @ & | ^`, unary `-`/`~`/`not`, comparisons, `is None`.

Numbers known while scripting fold in Python; a tensor on either side picks the torch op
(`2 - x` is `aten.rsub`); scalars known only at run time use the scalar ops (`aten.add.int`).
"""

from __future__ import annotations

import ast
import operator
from collections.abc import Callable
from typing import Any

from dialects.torch.dtypes import DType
from dialects.torch.registry import BY_PY_NAME
from frontend.ir.builder import Value, kind_of
from frontend.ir.resolve import ops_for_method, ops_for_operator
from frontend.script.collaborator import Collaborator

_BINOPS: dict[type[ast.operator], tuple[str, Callable[[Any, Any], Any]]] = {
    ast.Add: ("add", operator.add),
    ast.Sub: ("sub", operator.sub),
    ast.Mult: ("mul", operator.mul),
    ast.Div: ("truediv", operator.truediv),
    ast.MatMult: ("matmul", operator.matmul),
    ast.FloorDiv: ("floordiv", operator.floordiv),
    ast.Mod: ("mod", operator.mod),
    ast.Pow: ("pow", operator.pow),
    ast.BitAnd: ("and_", operator.and_),
    ast.BitOr: ("or_", operator.or_),
    ast.BitXor: ("xor", operator.xor),
    ast.LShift: ("lshift", operator.lshift),
    ast.RShift: ("rshift", operator.rshift),
}
_COMPARES: dict[type[ast.cmpop], tuple[str, str, Callable[[Any, Any], Any]]] = {
    # op -> (name, name with operands swapped, python function)
    ast.Gt: ("gt", "lt", operator.gt),
    ast.Lt: ("lt", "gt", operator.lt),
    ast.GtE: ("ge", "le", operator.ge),
    ast.LtE: ("le", "ge", operator.le),
    ast.Eq: ("eq", "eq", operator.eq),
    ast.NotEq: ("ne", "ne", operator.ne),
}


class Operators(Collaborator):
    """Operators. Interface: `binop(node, op, lhs, rhs)` and the handlers `expr_UnaryOp`,
    `expr_BinOp`, `expr_Compare`."""

    def expr_UnaryOp(self, node: ast.UnaryOp) -> Value:  # noqa: N802
        if isinstance(node.op, ast.Not):
            return self.scripter.values.logical_not(node)
        operand = self.scripter.expressions.expr(node.operand)
        if isinstance(node.op, ast.UAdd):
            return operand
        if isinstance(node.op, ast.Invert) and kind_of(operand) == "Tensor":
            return self.scripter.ops.emit(node, ops_for_operator("invert"), [operand], {})[0]
        if not isinstance(node.op, ast.USub):
            raise self.error(node, f"operator `{ast.unparse(node)}` is not supported")
        if isinstance(operand, int | float) and not isinstance(operand, bool):
            return -operand
        return self.scripter.ops.emit(node, ops_for_operator("neg"), [operand], {})[0]

    def expr_BinOp(self, node: ast.BinOp) -> Value:  # noqa: N802
        """`a + b + c + ...`: the left spine of a chain is walked in a loop, not by recursion
        (a 900-term sum would exceed Python's recursion limit), in the order recursion takes:
        the innermost left operand, then each right operand and its operator outwards."""
        chain = [node]
        while isinstance(chain[-1].left, ast.BinOp):
            chain.append(chain[-1].left)
        expressions = self.scripter.expressions
        value = expressions.expr(chain[-1].left)
        for link in reversed(chain):
            value = self.binop(link, link.op, value, expressions.expr(link.right))
        return value

    def binop(self, node: ast.AST, op: ast.operator, lhs: Value, rhs: Value) -> Value:
        if type(op) not in _BINOPS:
            raise self.error(node, f"operator `{type(op).__name__}` is not supported")
        name, python_fn = _BINOPS[type(op)]
        if name == "add" and "list[int]" in (kind_of(lhs), kind_of(rhs)):  # sizes joined
            return self.scripter.shape_lists.join_sizes(node, [lhs, rhs])  # type: ignore[attr-defined,no-any-return]
        if _is_constant(lhs) and _is_constant(rhs):
            return self.fold(node, python_fn, lhs, rhs)
        if kind_of(lhs) != "Tensor" and kind_of(rhs) == "Tensor":
            return self.reflected_binop(node, name, lhs, rhs)
        if kind_of(lhs) != "Tensor":
            return self.scripter.values.scalar_binop(node, name, lhs, rhs)
        return self.scripter.ops.emit(node, ops_for_operator(name), [lhs, rhs], {})[0]

    def fold(
        self, node: ast.AST, python_fn: Callable[[Any, Any], Any], lhs: Value, rhs: Value
    ) -> Value:
        try:
            return python_fn(lhs, rhs)
        except (ArithmeticError, TypeError) as err:
            raise self.error(node, f"{type(err).__name__}: {err}") from None

    def reflected_binop(self, node: ast.AST, name: str, scalar: Value, tensor: Value) -> Value:
        """`2 * x`, `2 - x`, `2 / x` with the tensor on the right."""
        if name in ("add", "mul", "and_", "or_", "xor"):
            return self.scripter.ops.emit(node, ops_for_operator(name), [tensor, scalar], {})[0]
        if name == "pow":  # `2 ** x`: aten.pow.Scalar
            return self.scripter.ops.emit(
                node, BY_PY_NAME.get("torch.pow", ()), [scalar, tensor], {}
            )[0]
        if name == "sub":
            return self.scripter.ops.emit(node, ops_for_method("__rsub__"), [tensor, scalar], {})[0]
        if name in ("lshift", "rshift"):  # `1 << x`: aten.bitwise_left_shift.Scalar_Tensor
            spelling = f"torch.bitwise_{'left' if name == 'lshift' else 'right'}_shift"
            return self.scripter.ops.emit(node, BY_PY_NAME.get(spelling, ()), [scalar, tensor], {})[
                0
            ]
        if name == "mod":  # `2 % x`: aten.remainder.Scalar_Tensor
            return self.scripter.ops.emit(
                node, BY_PY_NAME.get("torch.remainder", ()), [scalar, tensor], {}
            )[0]
        if name == "truediv":
            inverse = self.scripter.ops.emit(node, ops_for_method("reciprocal"), [tensor], {})[0]
            return self.scripter.ops.emit(node, ops_for_operator("mul"), [inverse, scalar], {})[0]
        raise self.error(node, f"`{name}` of a {kind_of(scalar)} and a tensor is not supported")

    def expr_Compare(self, node: ast.Compare) -> Value:  # noqa: N802
        if len(node.ops) == 1 and isinstance(node.ops[0], ast.Is | ast.IsNot):
            return self.identity_test(node, isinstance(node.ops[0], ast.Is))
        if len(node.ops) > 1:
            return self.chained_comparison(node)
        if len(node.ops) == 1 and isinstance(node.ops[0], ast.In | ast.NotIn):
            return self.membership(node, isinstance(node.ops[0], ast.In))
        if len(node.ops) != 1 or type(node.ops[0]) not in _COMPARES:
            raise self.error(
                node,
                "only single comparisons (`a < b`) are supported",
                "split chained comparisons: `a < b and b < c`",
            )
        name, swapped, python_fn = _COMPARES[type(node.ops[0])]
        lhs, rhs = (
            self.scripter.expressions.expr(node.left),
            self.scripter.expressions.expr(node.comparators[0]),
        )
        if isinstance(lhs, DType) and isinstance(rhs, DType):  # x.dtype of a known x
            return python_fn(lhs, rhs)  # type: ignore[no-any-return]
        lhs, rhs = (v.scalar_type if isinstance(v, DType) else v for v in (lhs, rhs))  # codes
        if _is_constant(lhs) and _is_constant(rhs):
            return self.fold(node, python_fn, lhs, rhs)
        if name in ("eq", "ne") and _is_constant_list(lhs) and _is_constant_list(rhs):
            return python_fn(lhs, rhs)  # type: ignore[no-any-return]  # aten::eq.int_list
        if kind_of(lhs) != "Tensor" and kind_of(rhs) == "Tensor":
            name, lhs, rhs = swapped, rhs, lhs
        if kind_of(lhs) != "Tensor":
            return self.scripter.values.scalar_binop(node, name, lhs, rhs)
        return self.scripter.ops.emit(node, ops_for_operator(name), [lhs, rhs], {})[0]

    def chained_comparison(self, node: ast.Compare) -> Value:
        """`a < b < c` as `a < b and b < c`, each operand evaluated once (like Python)."""
        operands = [node.left, *node.comparators]
        names = [f"__compared_{id(node)}_{i}" for i in range(len(operands))]
        for name, operand in zip(names, operands):
            self.scripter.env[name] = self.scripter.expressions.expr(operand)  # type: ignore[attr-defined]
        loads = [ast.copy_location(ast.Name(id=n, ctx=ast.Load()), node) for n in names]
        pairs = [
            ast.copy_location(
                ast.Compare(left=loads[i], ops=[op], comparators=[loads[i + 1]]), node
            )
            for i, op in enumerate(node.ops)
        ]
        try:
            return self.scripter.expressions.expr(
                ast.copy_location(ast.BoolOp(op=ast.And(), values=pairs), node)
            )  # type: ignore[attr-defined,no-any-return]
        finally:
            for name in names:
                del self.scripter.env[name]  # type: ignore[attr-defined]

    def membership(self, node: ast.Compare, in_: bool) -> bool:
        """`key in d`, `x in (1, 2)`: a key or constant in a dict, tuple or list known while
        scripting."""
        item, container = (
            self.scripter.expressions.expr(node.left),
            self.scripter.expressions.expr(node.comparators[0]),
        )
        if not isinstance(container, dict | tuple | list) or not _is_constant(item):
            raise self.error(
                node,
                "`in` is only supported for a constant in a dict, tuple or list known while "
                "scripting",
            )
        return (item in container) == in_

    def identity_test(self, node: ast.Compare, is_: bool) -> bool:
        """`x is None` / `x is not None`, decided while scripting: a value in the graph is never
        None, and an Optional argument that is None is the constant None (refinement)."""
        lhs, rhs = (
            self.scripter.expressions.expr(node.left),
            self.scripter.expressions.expr(node.comparators[0]),
        )
        if lhs is not None and rhs is not None:
            raise self.error(
                node,
                "`is` / `is not` is only supported in comparisons with None",
                "use == for values",
            )
        return (lhs is rhs) == is_


def _is_constant(value: Value) -> bool:
    return isinstance(value, int | float | str) or value is None


def _is_constant_list(value: Value) -> bool:
    """A list or tuple of numbers known while scripting (`[1, 2] == xs` folds)."""
    return isinstance(value, list | tuple) and all(_is_constant(v) for v in value)
