"""Tensor methods and attributes that are not one registered op, in scripted code.

- in-place methods (`y.add_(1)`): the variable gets the functional op's result in its own
  dtype (`keep_dtype`, as PyTorch writes it), for a tensor nothing else shares
  (`shared_storage`: not an argument, a view or a second name);
- `t.item()`: `Int/Bool/Float.Tensor` by the dtype known while scripting;
- `t.is_floating_point()`: a bool known now, or a test of the run-time dtype code;
- the cpu device: `x.device` is `"cpu"`, `x.to("cpu")`, `x.cpu()`, `x.detach()` (no autograd)
  give `x`; a `device=` of the cpu is accepted by every call (`devices_dropped`);
- `x.T` (`permute` of the reversed dims: it needs the rank, so for a tensor whose rank is
  not known while scripting it is `t()`, the 2-D case), and `.values` / `.indices` of the
  (values, indices) pair that `max(dim)`, `min(dim)` and friends return;
- `torch.tensor(data)`: numbers known while scripting become a `torch.vtensor.literal`, a
  number known at run time a 0-d `torch.aten.full` (`tensor_literal`); the same for
  `torch.ops.prim.NumToTensor(n)` and `torch.scalar_tensor(n)` (`number_tensor`).
"""

from __future__ import annotations

import ast
from functools import cache
from typing import Any

import numpy as np
from xdsl.ir import SSAValue

from dialects.torch.dtypes import ALL_DTYPES, BOOL, FLOAT32, FLOAT64, INT64, DType
from dialects.torch.ops.casts import PrimDtypeOp
from dialects.torch.ops.prim import ValueTensorLiteralOp
from dialects.torch.registry import BY_PY_NAME
from dialects.torch.types import ValueTensorType
from frontend.ir.builder import Value, kind_of
from frontend.ir.resolve import is_torch_function, ops_for_method
from frontend.script.collaborator import Collaborator
from frontend.script.loops import in_place_base

TORCH_DEFAULTS = {"f": np.float32, "i": np.int64, "u": np.int64}
"""numpy dtype kind -> what `torch.tensor` makes of Python numbers of that kind."""

NOT_SPECIAL = object()
"""`special_tensor_method`'s answer for a method that is a registered op."""

CPU = "cpu"

VIEW_OPS = frozenset({
    "select", "slice", "view", "reshape", "flatten", "transpose", "t", "permute", "expand",
    "expand_as", "squeeze", "unsqueeze", "contiguous", "narrow", "chunk", "split", "unbind",
    "detach", "view_as", "alias",
})  # fmt: skip
"""ATen ops whose result may share its input's storage in PyTorch."""


class TensorMethods(Collaborator):
    """Tensor methods and attributes beyond the registry. Interface: `special_tensor_method`
    (`NOT_SPECIAL` for the others), `special_tensor_attribute`, `shared_storage`."""

    def special_tensor_method(
        self, node: ast.Call, receiver: Value, name: str, args: list[Value],
        kwargs: dict[str, Value],
    ) -> Any:  # fmt: skip
        if name in ("cpu", "detach") and not args and not kwargs:
            return receiver
        if name == "to" and args and is_device(args[0]) and not kwargs:
            if str(args[0]).split(":")[0] != CPU:
                raise self.error(node, f"device {args[0]!r}: only the cpu device is supported")
            return (
                receiver
                if len(args) == 1
                else self.scripter.call_sites.method_call(node, receiver, "to", args[1:], {})
            )
        if name == "cuda":
            raise self.error(node, "only the cpu device is supported", "drop .cuda()")
        if name.endswith("_") and not name.startswith("_"):
            return self.in_place_call(node, receiver, name, args, kwargs)
        if name == "item" and not args and not kwargs:
            return self.tensor_item(node, receiver)
        if name == "is_floating_point" and not args and not kwargs:
            return self.is_floating_point(node, receiver)
        return NOT_SPECIAL

    def keep_dtype(self, node: ast.AST, name: str, destination: Value, result: Value) -> Value:
        """The result of an in-place update (`a += b`, `a.add_(b)`) in the destination's
        dtype, as PyTorch writes it into `a`; a float result for an integer destination is
        PyTorch's error (now when both dtypes are known, else when the call runs)."""
        if kind_of(destination) != "Tensor" or kind_of(result) != "Tensor":
            return result
        dest, got = known_tensor_type(destination), known_tensor_type(result)
        if dest is not None and got is not None and dest.element and got.element:
            if dest.element == got.element:
                return result
            if got.element.category > dest.element.category:
                raise self.error(
                    node, f"in-place `{name}`: result type {got.element.name} can't be cast "
                    f"to the desired output type {dest.element.name}",
                    "compute out of place: y = y + x",
                )  # fmt: skip
        else:
            self.refuse_float_into_integer(node, name, destination, result)
        return self.scripter.ops.emit(node, ops_for_method("type_as"), [result, destination], {})[0]

    def refuse_float_into_integer(
        self, node: ast.AST, name: str, destination: Value, result: Value
    ) -> None:
        """`if result.is_floating_point() and not destination.is_floating_point(): raise`,
        decided once the call's dtypes are known."""
        names = (f"__in_place_result_{id(node)}", f"__in_place_destination_{id(node)}")
        self.scripter.env.update(zip(names, (result, destination)))
        message = f"in-place `{name}`: a floating-point result can't be cast to an integer tensor"
        guard = ast.parse(
            f"if {names[0]}.is_floating_point() and not {names[1]}.is_floating_point():\n"
            f"    raise RuntimeError({message!r})"
        ).body[0]
        for part in ast.walk(guard):
            ast.copy_location(part, node)
        try:
            self.scripter.control.stmt_If(guard)
        finally:
            for hidden in names:
                self.scripter.env.pop(hidden, None)

    def is_floating_point(self, node: ast.Call, tensor: Value) -> Value:
        """`x.is_floating_point()`: decided now when the dtype is known, else a test of the
        run-time dtype code (`x.dtype == torch.float32 or x.dtype == torch.float64`)."""
        known = known_tensor_type(tensor)
        if known is not None and known.element is not None:
            return known.element.is_float
        hidden = f"__dtype_{id(node)}"
        self.scripter.env[hidden] = self.scripter.ops.emit(node, (PrimDtypeOp,), [tensor], {})[0]
        codes = [d.scalar_type for d in ALL_DTYPES if d.is_float]
        test = ast.parse(" or ".join(f"{hidden} == {c}" for c in codes), mode="eval").body
        for part in ast.walk(test):
            ast.copy_location(part, node)
        try:
            return self.scripter.expressions.expr(test)
        finally:
            self.scripter.env.pop(hidden, None)

    def tensor_item(self, node: ast.Call, tensor: Value) -> Value:
        """`t.item()`: an int for an integer tensor, a bool for a bool one, else a float (also
        while the dtype is not known when scripting: an argument's)."""
        known = known_tensor_type(tensor)
        dtype = known.element if known is not None else None
        name = "__float__"
        if dtype is not None and dtype.is_bool:
            name = "__bool__"
        elif dtype is not None and not dtype.is_float:
            name = "__int__"
        return self.scripter.ops.emit(node, ops_for_method(name), [tensor], {})[0]

    def in_place_call(
        self,
        node: ast.Call,
        receiver: Value,
        name: str,
        args: list[Value],
        kwargs: dict[str, Value],
    ) -> Value:
        """`y.add_(1)`: the variable `y` is given `y.add(1)` (values cannot be written into),
        which is what PyTorch computes when nothing else sees `y`'s storage: `y` must be a
        local name whose tensor no argument, view or other name shares."""
        functional = ops_for_method(name[:-1])
        target = in_place_base(node.func)  # type: ignore[arg-type]
        if not functional:
            raise self.error(node.func, f"unknown method `{name}` of a Tensor")
        if not isinstance(target, ast.Name) and is_fresh(receiver):
            # `torch.zeros(n).index_add_(...)`: a tensor nobody else holds; the result is it
            return self.scripter.ops.result(
                self.scripter.ops.emit(node, functional, [receiver, *args], kwargs)
            )
        problem = self.shared_storage(target, receiver)
        if problem:
            raise self.error(
                node,
                f"in-place `{name}` on {problem} is not supported",
                "copy it first: y = x.clone()",
            )
        result = self.scripter.ops.result(
            self.scripter.ops.emit(node, functional, [receiver, *args], kwargs)
        )
        result = self.keep_dtype(node, name, receiver, result)
        self.scripter.statements.assign(target, result)
        return result

    def shared_storage(self, target: ast.expr, value: Value) -> str:
        """Why an in-place update of `target` (holding `value`) would be seen elsewhere in
        PyTorch, or "" when only `target` holds that tensor."""
        if not isinstance(target, ast.Name):
            return f"`{ast.unparse(target)}` (only a plain variable can be updated)"
        if isinstance(value, SSAValue) and value.owner is self.scripter.entry_block:
            return f"the argument `{target.id}` (the caller's tensor would not change)"
        others = [
            n
            for n, v in self.scripter.env.items()
            if v is value and n != target.id and n[:2] != "__"
        ]
        if others:
            return f"`{target.id}`, which is also `{others[0]}`"
        name = getattr(value.owner, "name", "") if isinstance(value, SSAValue) else ""
        if name in ("torch.prim.ListUnpack", "torch.prim.TupleUnpack") or (
            name.startswith("torch.aten.") and name.split(".")[2] in VIEW_OPS
        ):
            return f"`{target.id}`, a view of another tensor ({name})"
        return ""

    def special_tensor_attribute(self, node: ast.Attribute, tensor: Value) -> Any:
        if node.attr == "device":
            return CPU
        if node.attr == "dtype":  # the DType when known now, else its code at run time
            known = known_tensor_type(tensor)
            if known is not None and known.element is not None:
                return known.element
            return self.scripter.ops.emit(node, (PrimDtypeOp,), [tensor], {})[0]
        if node.attr in ("mT", "mH"):  # real tensors only: mH is mT
            return self.scripter.ops.emit(node, ops_for_method("transpose"), [tensor, -2, -1], {})[
                0
            ]
        if node.attr == "T":
            known = known_tensor_type(tensor)
            rank = known.rank if known is not None else None
            if rank is None or rank == 2:
                return self.scripter.ops.emit(node, ops_for_method("t"), [tensor], {})[0]
            return self.scripter.ops.emit(
                node, ops_for_method("permute"), [tensor, list(range(rank))[::-1]], {}
            )[0]
        return NOT_SPECIAL


FRESH_TENSOR_FUNCTIONS = (
    "torch.zeros", "torch.ones", "torch.full", "torch.empty", "torch.zeros_like",
    "torch.ones_like", "torch.full_like", "torch.empty_like", "Tensor.new_zeros",
    "Tensor.new_ones", "Tensor.new_full", "Tensor.new_empty", "Tensor.clone", "torch.arange",
    "torch.eye", "torch.linspace",
)  # fmt: skip


def is_fresh(value: Value) -> bool:
    """Whether `value` is a tensor just made by a constructor or `clone()`, whose storage no
    name, argument or view shares (`torch.zeros(n)`, `x.clone()`, a tensor literal)."""
    if not isinstance(value, SSAValue):
        return False
    if isinstance(value.owner, ValueTensorLiteralOp):
        return True
    return getattr(value.owner, "name", None) in _fresh_op_names()


@cache
def _fresh_op_names() -> frozenset[str]:
    return frozenset(op.name for f in FRESH_TENSOR_FUNCTIONS for op in BY_PY_NAME.get(f, ()))


def is_device(value: Value) -> bool:
    """A device known while scripting: "cpu" (a string or `x.device`) or "cuda"."""
    return isinstance(value, str) and value.split(":")[0] in ("cpu", "cuda")


def devices_dropped(node_error: Any, kwargs: dict[str, Value]) -> dict[str, Value]:
    """`kwargs` without `device=` (the cpu) and `requires_grad=False` / `pin_memory=False`
    (nothing to do here); another device is an error (`node_error(message)`)."""
    out = {}
    for key, value in kwargs.items():
        if key == "device" and value is not None:
            if not is_device(value) or str(value).split(":")[0] != CPU:
                raise node_error(f"device={value!r}: only the cpu device is supported")
            continue
        if key in ("pin_memory", "requires_grad", "non_blocking") and value in (False, None):
            continue
        out[key] = value
    return out


def tensor_literal(
    scripter: Any, node: ast.Call, args: list[Value], kwargs: dict[str, Value]
) -> Value:
    """`torch.tensor(data, dtype=None)` in scripted code."""
    kwargs = devices_dropped(lambda message: scripter.error(node, message), kwargs)
    dtype = kwargs.pop("dtype", None)
    if len(args) != 1 or kwargs or not (dtype is None or isinstance(dtype, DType)):
        raise scripter.error(node, "torch.tensor() takes the data and `dtype=` here")
    data = args[0]
    if _is_number_data(data):
        array = np.array(data, dtype=dtype.numpy if dtype is not None else None)
        if dtype is None:  # torch's defaults: float32 for floats, int64 for ints
            array = array.astype(TORCH_DEFAULTS.get(array.dtype.kind, array.dtype))
        op = scripter.builder.insert(ValueTensorLiteralOp(array))
        return op.results[0]
    if kind_of(data) in ("int", "float", "bool"):  # a number known at run time: 0-d
        extra = {} if dtype is None else {"dtype": dtype}
        return scripter.ops.emit(node, BY_PY_NAME["torch.full"], [[], data], extra)[0]
    raise scripter.error(
        node,
        f"torch.tensor() of {kind_of(data)} is not supported",
        "numbers, or lists of numbers known while scripting; for a tensor: x.clone()",
    )


def number_tensor(
    scripter: Any, node: ast.Call, name: str, args: list[Value], kwargs: dict[str, Value]
) -> Value:
    """A 0-d tensor of one number: `torch.ops.prim.NumToTensor(n)` in the number's own dtype
    (int64, float64, bool), `torch.scalar_tensor(n, dtype=torch.float32)`."""
    kwargs = devices_dropped(lambda message: scripter.error(node, message), kwargs)
    kind = kind_of(args[0]) if len(args) == 1 else None
    dtype = kwargs.pop("dtype", None) if name == "scalar_tensor" else None
    if kind not in _NUMBER_DTYPES or kwargs or not (dtype is None or isinstance(dtype, DType)):
        raise scripter.error(node, f"{name}() takes one number here (and `dtype=`)")
    if dtype is None:
        dtype = _NUMBER_DTYPES[kind] if name == "NumToTensor" else FLOAT32
    if isinstance(args[0], bool | int | float):
        return tensor_literal(scripter, node, args, {"dtype": dtype})
    return scripter.ops.emit(node, BY_PY_NAME["torch.full"], [[], args[0]], {"dtype": dtype})[0]


_NUMBER_DTYPES = {"int": INT64, "float": FLOAT64, "bool": BOOL}
"""The dtype of `NumToTensor` of a number of each kind (TorchScript's prim::NumToTensor)."""


def is_number_tensor_function(obj: Any) -> str | None:
    """ "NumToTensor" / "scalar_tensor" for those functions, else None."""
    if is_torch_function(obj, "scalar_tensor"):
        return "scalar_tensor"
    name, module = getattr(obj, "__name__", ""), getattr(obj, "__module__", "") or ""
    return "NumToTensor" if name == "NumToTensor" and module.startswith("torch") else None


def _is_number_data(value: Any) -> bool:
    if isinstance(value, list | tuple):
        return all(_is_number_data(v) for v in value)
    return isinstance(value, bool | int | float)


def known_tensor_type(value: Value) -> ValueTensorType | None:
    """The torch type of a tensor value while scripting (its rank and dtype may be unknown)."""
    if isinstance(value, SSAValue) and isinstance(value.type, ValueTensorType):
        return value.type
    return None
