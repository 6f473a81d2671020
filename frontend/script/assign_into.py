"""Assignment into a tensor in scripted code: `x[i] = v`, `x[:, a:b] = v`, `x[idx] = v`,
`x[i0, :, i1] = v`, `x[mask] = v`, `x[..., 0] = v`.

Tensors are values here, so the variable `x` is given a new tensor equal to `x` except in the
indexed part — what PyTorch computes when nothing else sees `x`'s storage, which is checked as
for in-place methods (`shared_storage`: not an argument, a view or a tensor with a second
name). Ints and slices pick the part first, as in PyTorch (`torch.aten.select_scatter` /
`slice_scatter` write it back, nested for several items); index tensors (int64 / int32
positions, or one boolean mask) then write into that part with `torch.aten.index_put`, an
entry per dim of the part (None for `:`), so several index tensors broadcast together and
take PyTorch's placement. Items after `...` apply from the last one at negative dims (the
rank is often unknown while scripting, so an index tensor there is refused). `v` is a number
or a tensor that broadcasts to the indexed shape; it is converted to `x`'s dtype.
"""

from __future__ import annotations

import ast

import numpy as np

from dialects.torch.ops.data_movement import AtenSelectIntOp, AtenSliceTensorOp
from dialects.torch.ops.index_put import AtenIndexPutOp
from dialects.torch.ops.prim import ValueTensorLiteralOp
from dialects.torch.ops.scatter import AtenSelectScatterOp, AtenSliceScatterOp
from dialects.torch.registry import BY_PY_NAME
from frontend.ir.builder import Value, kind_of
from frontend.ir.resolve import ops_for_method
from frontend.script.collaborator import Collaborator

SCALARS = ("int", "float", "bool")


class SubscriptStores(Collaborator):
    """Assignments into tensors (`x[i] = v`). Interface: `assign_into(target, value)`,
    `index_literal(index)`."""

    def assign_into(self, target: ast.Subscript, value: Value) -> None:
        base = target.value
        if not isinstance(base, ast.Name):
            raise self.error(
                target,
                f"assignment into `{ast.unparse(base)}` is not supported",
                "assign into a plain variable: y = ...; y[0] = v",
            )
        current = self.scripter.expressions.lookup(base)
        if isinstance(current, dict):
            self.scripter.dicts.dict_store(target, current, value)
            return
        if kind_of(current) != "Tensor":
            raise self.error(target, f"assignment into a {kind_of(current)} is not supported")
        problem = self.scripter.tensor_methods.shared_storage(base, current)
        if problem:
            raise self.error(
                target,
                f"assignment into {problem} is not supported",
                "copy it first: y = x.clone()",
            )
        if kind_of(value) not in (*SCALARS, "Tensor"):
            raise self.error(target, f"cannot assign a {kind_of(value)} into a tensor")
        items = list(target.slice.elts) if isinstance(target.slice, ast.Tuple) else [target.slice]
        updated = self.scatter_items(target, current, items, value, 0, {})
        if getattr(updated.owner, "name", "") == "torch.aten.expand_as":  # the whole: `y[:] = v`
            converted = self.scripter.ops.emit(
                target, ops_for_method("type_as"), [updated, current], {}
            )[0]
            updated = self.scripter.ops.emit(target, ops_for_method("clone"), [converted], {})[
                0
            ]  # not a view
        self.scripter.statements.assign(base, updated)

    def scatter_items(
        self,
        node: ast.Subscript,
        tensor: Value,
        items: list[ast.expr],
        value: Value,
        dim: int,
        tensors: dict[int, Value],
        from_end: bool = False,
    ) -> Value:
        """`tensor` with its part at `items` replaced by `value`: items apply from the first
        one at `dim` on, or after `...` (`from_end`) from the last one at negative dims;
        `tensors` holds the index tensors met so far, by the dim of `tensor` they index."""
        if not items:
            if tensors:
                return self.index_put(node, tensor, tensors, value)
            return self.broadcast_into(node, value, tensor)
        item, rest = (items[-1], items[:-1]) if from_end else (items[0], items[1:])
        following = dim - 1 if from_end else dim + 1  # the next item's dim when this one keeps it
        if isinstance(item, ast.Constant) and item.value is Ellipsis:
            if from_end:
                raise self.error(item, "an index can only have a single ellipsis (`...`)")
            return self.scatter_items(node, tensor, rest, value, -1, tensors, from_end=True)
        if isinstance(item, ast.Slice):
            bounds = [
                None if e is None else self.scripter.expressions.expr(e)
                for e in (item.lower, item.upper, item.step)
            ]
            if all(b is None for b in bounds):  # `:` keeps the dim
                return self.scatter_items(node, tensor, rest, value, following, tensors, from_end)
            start, end, step = bounds[0], bounds[1], 1 if bounds[2] is None else bounds[2]
            args = [tensor, dim, start, end, step]
            part = self.scripter.ops.emit(item, (AtenSliceTensorOp,), args, {})[0]
            updated = self.scatter_items(node, part, rest, value, following, tensors, from_end)
            scatter_args = [tensor, updated, dim, start, end, step]
            return self.scripter.ops.emit(item, (AtenSliceScatterOp,), scatter_args, {})[0]
        index = self.scripter.expressions.expr(item)
        if isinstance(index, list) and index and all(type(i) in (int, bool) for i in index):
            index = self.index_literal(index)  # `y[[0, 2]] = v`: a constant index tensor
        if kind_of(index) == "Tensor":  # written by `index_put` once the part is picked
            if from_end:
                raise self.error(
                    item,
                    "assignment through an index tensor after `...` is not supported (its dim "
                    "depends on the tensor's rank)",
                    "write the dims out: y[:, :, idx] = v",
                )
            written = {**tensors, dim: index}
            return self.scatter_items(node, tensor, rest, value, following, written)
        if kind_of(index) != "int":
            raise self.error(
                item,
                f"assignment into a tensor indexed by {kind_of(index)} is not supported",
                "index with ints, slices, `...` and index tensors (or one boolean mask)",
            )
        part = self.scripter.ops.emit(item, (AtenSelectIntOp,), [tensor, dim, index], {})[0]
        updated = self.scatter_items(node, part, rest, value, dim, tensors, from_end)
        return self.scripter.ops.emit(
            item, (AtenSelectScatterOp,), [tensor, updated, dim, index], {}
        )[0]

    def index_literal(self, index: list[int]) -> Value:
        """A list of ints (or bools: a mask) known while scripting as a tensor literal."""
        masks = all(type(i) is bool for i in index)
        array = np.asarray(index, dtype=np.bool_ if masks else np.int64)
        return self.scripter.builder.insert(ValueTensorLiteralOp(array)).results[0]

    def index_put(
        self, node: ast.Subscript, tensor: Value, tensors: dict[int, Value], value: Value
    ) -> Value:
        """`tensor` with `value` written at the index tensors (`aten.index_put`, None for the
        dims between them): a number becomes a 0-d tensor of `tensor`'s dtype, a tensor is
        converted to it."""
        if kind_of(value) in SCALARS:
            value = self.scripter.ops.emit(
                node, ops_for_method("new_full"), [tensor, [], value], {}
            )[0]
        else:
            value = self.scripter.ops.emit(node, ops_for_method("type_as"), [value, tensor], {})[0]
        none = self.scripter.builder.materialize(None)
        entries = [tensors.get(d, none) for d in range(max(tensors) + 1)]
        listed = self.scripter.builder.list_of(
            [self.scripter.builder.materialize(e) for e in entries]
        )
        return self.scripter.ops.emit(node, (AtenIndexPutOp,), [tensor, listed, value, False], {})[
            0
        ]

    def broadcast_into(self, node: ast.Subscript, value: Value, part: Value) -> Value:
        """`value` as a tensor of `part`'s shape (a number fills it; the scatter converts
        the dtype)."""
        if kind_of(value) in SCALARS:
            return self.scripter.ops.emit(node, BY_PY_NAME["torch.full_like"], [part, value], {})[0]
        return self.scripter.ops.emit(node, ops_for_method("expand_as"), [value, part], {})[0]
