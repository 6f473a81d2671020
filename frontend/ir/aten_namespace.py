"""`torch.ops.<namespace>.<op>[.<overload>]` as registry ops, found by the op's IR name.

PyTorch's operator objects (`torch.ops.aten.add.Tensor` an `OpOverload`, `torch.ops.aten.add`
an `OpOverloadPacket`) stand for ATen schemas; the registry op `torch.aten.add.Tensor` is the
same schema. An `AtenTarget` names what such an object stands for:

- an overload (`add.Tensor`, `relu.default`) is the registry op of that name;
- a packet (`torch.ops.aten.add`) is every overload of the op, in PyTorch's overload order, so
  that binding the arguments tries them as PyTorch's dispatcher does (the first whose schema
  accepts them; `resolve_packet` asks PyTorch itself when the real arguments are at hand);
- an in-place overload (`add_.Tensor`) computes the functional overload (`add.Tensor`), and an
  `out=` overload (`add.out`, `arange.start_out`) the functional overload with the same
  arguments but `out`: the caller writes the result into the destination, in its dtype;
- names the registry lacks may be aliases of ops or compositions (`frontend/ir/aten_aliases.py`).

PyTorch is only consulted when it is already imported (its objects cannot exist otherwise).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from dialects.torch.dtypes import DType
from dialects.torch.op_base import TorchOp
from dialects.torch.registry import BY_NAME

NAMESPACES = ("aten", "prims", "prim")
"""The operator namespaces whose objects resolve (others, like `quantized`, never do)."""


@dataclass(frozen=True)
class AtenTarget:
    """What a `torch.ops` object stands for: `aten::add_.Tensor` is ("aten", "add_",
    "Tensor"); a packet has overload None, `.default` the overload ""."""

    namespace: str
    name: str
    overload: str | None

    @property
    def label(self) -> str:
        """PyTorch's spelling: `aten::add.Tensor`, `aten::relu.default`, `aten::add`."""
        if self.overload is None:
            return f"{self.namespace}::{self.name}"
        return f"{self.namespace}::{self.name}.{self.overload or 'default'}"

    @property
    def in_place(self) -> bool:
        """`add_`, `relu_`: writes its first argument (not a dunder like `__and__`)."""
        return self.name.endswith("_") and not self.name.startswith("__")

    @property
    def functional_name(self) -> str:
        return self.name[:-1] if self.in_place else self.name

    @property
    def writes_out(self) -> bool:
        """An overload with `out=` destination arguments (`add.out`, `arange.start_out`)."""
        if self.overload is None:
            return False
        return any(a.is_out for a in torch_schema(self).arguments)

    def with_overload(self, overload: str) -> AtenTarget:
        return AtenTarget(self.namespace, self.name, "" if overload == "default" else overload)


def aten_target(obj: Any) -> AtenTarget | None:
    """The target of a `torch.ops.aten.*` / `prims.*` / `prim.*` object, else None."""
    kind = type(obj).__name__
    if kind not in ("OpOverload", "OpOverloadPacket") or "torch" not in sys.modules:
        return None
    if type(obj).__module__ != "torch._ops":
        return None
    if kind == "OpOverloadPacket":
        namespace, _, name = obj._qualified_op_name.partition("::")
        overload = None
    else:
        namespace, _, name = obj._schema.name.partition("::")
        overload = obj._schema.overload_name
    if namespace not in NAMESPACES:
        return None
    return AtenTarget(namespace, name, overload)


def nn_binding_target(obj: Any) -> AtenTarget | None:
    """The packet a binding of `torch._C._nn` stands for (`torch._C._nn.upsample_nearest2d`
    is `aten::upsample_nearest2d`), else None. Callers ask only when no spelling resolves
    `obj` (`F.linear` is such a binding too, and resolves by its spelling)."""
    nn = getattr(getattr(sys.modules.get("torch"), "_C", None), "_nn", None)
    name = getattr(obj, "__name__", None)
    if nn is None or not isinstance(name, str) or getattr(nn, name, None) is not obj:
        return None
    return AtenTarget("aten", name, None)


def ir_name(namespace: str, name: str, overload: str) -> str:
    """The registry name: `torch.aten.add.Tensor`, `torch.aten.relu` for `.default`."""
    suffix = f".{overload}" if overload and overload != "default" else ""
    return f"torch.{namespace}.{name}{suffix}"


# ---- PyTorch's side: packets, overloads, schemas ----


def _packet(namespace: str, name: str) -> Any:
    torch = sys.modules["torch"]
    return getattr(getattr(torch.ops, namespace), name)


def overload_names(namespace: str, name: str) -> tuple[str, ...]:
    """PyTorch's overloads of an op in the order its dispatcher tries them ("" is default)."""
    try:
        names = _packet(namespace, name).overloads()
    except (AttributeError, RuntimeError):
        return ()
    return tuple("" if n == "default" else n for n in names)


def torch_schema(target: AtenTarget) -> Any:
    """PyTorch's FunctionSchema of an overload target."""
    packet = _packet(target.namespace, target.name)
    return getattr(packet, target.overload or "default")._schema


def _signature(schema: Any) -> tuple[tuple[str, str], ...]:
    """An overload's arguments other than its `out=` destinations."""
    return tuple((a.name, str(a.type)) for a in schema.arguments if not a.is_out)


def functional_overloads(target: AtenTarget) -> tuple[str, ...]:
    """The overloads of the functional op that compute what `target` computes.

    A packet: all its overloads that are neither `out=` forms nor (for an in-place packet)
    missing from the functional op; an overload: itself, its functional twin of the same name
    (in-place), or the functional overload with its arguments but `out` (`out=` forms)."""
    functional = AtenTarget(target.namespace, target.functional_name, None)
    names = overload_names(functional.namespace, functional.name)
    if target.overload is None:
        own = overload_names(target.namespace, target.name) if target.in_place else names
        return tuple(
            n for n in own if n in names and not functional.with_overload(n or "").writes_out
        )
    if target.in_place:
        return (target.overload,) if target.overload in names else ()
    if not target.writes_out:
        return (target.overload,)
    wanted = _signature(torch_schema(target))
    return tuple(
        n for n in names
        if not functional.with_overload(n).writes_out
        and _signature(torch_schema(functional.with_overload(n))) == wanted
    )  # fmt: skip


@cache
def registry_ops(target: AtenTarget) -> tuple[type[TorchOp], ...]:
    """The registry ops computing `target` (functional overloads tsjit has), in PyTorch's
    order; aliases (`frontend/ir/aten_aliases.py`) where the names are not registry ops."""
    from frontend.ir.aten_aliases import alias_ops

    found = []
    for overload in functional_overloads(target):
        op = BY_NAME.get(ir_name(target.namespace, target.functional_name, overload))
        found.append(
            op if op is not None else alias_ops(target.namespace, target.functional_name, overload)
        )
    flat = [op for entry in found for op in (entry if isinstance(entry, tuple) else (entry,))]
    return tuple(dict.fromkeys(op for op in flat if op is not None))


def resolve_packet(target: AtenTarget, args: Any, kwargs: dict[str, Any]) -> AtenTarget:
    """The overload PyTorch's dispatcher picks for a packet called with these (PyTorch)
    arguments; the packet itself if none matches (binding then reports why)."""
    torch = sys.modules["torch"]
    try:
        with torch._C.DisableTorchFunctionSubclass():
            overload = torch._C._jit_resolve_packet(target.label, *args, **kwargs)
    except RuntimeError:
        return target
    return target.with_overload(overload)


@cache
def missing_message(target: AtenTarget) -> str:
    """Why a target does not resolve: the op and overload, and what tsjit has instead."""
    known = sorted(
        n.removeprefix(f"torch.{target.namespace}.")
        for n in BY_NAME
        if n.split(".")[1:3] == [target.namespace, target.functional_name]
    )
    have = f" (tsjit has {', '.join(known)})" if known else ""
    what = "in-place " if target.in_place else "out= " if target.writes_out else ""
    return f"tsjit has no op for the {what}ATen operator {target.label}{have}"


def aten_composition(target: AtenTarget) -> Any:
    """The composition standing for a functional `target` (a script calls it; None for
    in-place and `out=` overloads, which a script cannot write into)."""
    if target.in_place or target.writes_out:
        return None
    return functional_composition(target)


def builtin_composition(obj: Any) -> Any:
    """`torch.<name>` of PyTorch that no registry op spells, as the composition of
    `aten::<name>` if there is one (`torch.isclose`, `torch.scalar_tensor`), else None."""
    from frontend.ir.aten_aliases import composition

    torch = sys.modules.get("torch")
    name = getattr(obj, "__name__", None)
    if torch is None or not isinstance(name, str) or getattr(torch, name, None) is not obj:
        return None
    return composition("aten", name, "")


def named_arguments(target: AtenTarget, args: Sequence[Any], kwargs: dict[str, Any]) -> Any:
    """The arguments of a call of an overload by its PyTorch schema's names (a composition
    takes them so: `var_mean(x, 1)` is the default overload's `unbiased=1`)."""
    positional = [a.name for a in torch_schema(target).arguments if not a.kwarg_only]
    return {**dict(zip(positional, args)), **kwargs}


# ---- packets: the overload PyTorch's dispatcher picks ----


class PacketOps(tuple):  # type: ignore[type-arg]
    """A packet's registry ops in PyTorch's order; binding a call asks `resolve` first,
    which narrows them to the overload PyTorch picks for arguments of those kinds."""

    target: AtenTarget

    def __new__(cls, ops: tuple[type[TorchOp], ...], target: AtenTarget) -> PacketOps:
        packet = super().__new__(cls, ops)
        packet.target = target
        return packet

    def resolve(
        self, args: Sequence[Any], kwargs: dict[str, Any], kind_of: Callable[[Any], str]
    ) -> tuple[type[TorchOp], ...]:
        """The registry op of PyTorch's choice (then its `Scalar` twin: PyTorch passes a
        number as a tensor to `add.Tensor`, tsjit binds it to `add.Scalar`); all of them when
        PyTorch matches none (binding reports why). BindError if tsjit lacks the choice."""
        from frontend.ir.binding import BindError

        stand_ins = [stand_in(a, kind_of) for a in args]
        keywords = {k: stand_in(v, kind_of) for k, v in kwargs.items()}
        chosen = resolve_packet(self.target, stand_ins, keywords)
        if chosen.overload is None:
            return tuple(self)
        ops = overload_ops(chosen)
        if not ops and functional_composition(chosen) is None:
            raise BindError(f"PyTorch picks {chosen.label} for these arguments: "
                            f"{missing_message(chosen)}")  # fmt: skip
        if not ops:
            raise BindError(f"PyTorch picks {chosen.label} for these arguments, which tsjit "
                            "computes by a composition: call the overload itself")  # fmt: skip
        return ops


class ResolvedOps(tuple):  # type: ignore[type-arg]
    """The registry ops of the overload PyTorch picked: binding them converts arguments as
    PyTorch does (`frontend/ir/binding.py`: an int for a `bool`)."""

    def resolve(self, *_: Any) -> tuple[type[TorchOp], ...]:
        return tuple(self)


def overload_ops(target: AtenTarget) -> tuple[type[TorchOp], ...]:
    """The registry ops of an overload, then its `Scalar` twin (PyTorch passes a number as a
    tensor to `add.Tensor`; tsjit binds it to `add.Scalar`)."""
    ops = registry_ops(target)
    if not ops or "Tensor" not in (target.overload or ""):
        return ops
    twin = target.with_overload((target.overload or "").replace("Tensor", "Scalar"))
    if twin.overload not in overload_names(twin.namespace, twin.name):
        return ops
    return tuple(dict.fromkeys([*ops, *registry_ops(twin)]))


def functional_composition(target: AtenTarget) -> Any:
    """The composition (`frontend/ir/aten_aliases.py`) computing an overload, or a packet,
    that the registry lacks; None when registry ops compute it or nothing does. In-place and
    `out=` overloads: the composition of their functional overload."""
    from frontend.ir.aten_aliases import composition

    if registry_ops(target):
        return None
    overloads = functional_overloads(target) if target.overload is not None else ()
    overload = overloads[0] if overloads else target.overload or ""
    return composition(target.namespace, target.functional_name, overload)


def stand_in(value: Any, kind_of: Callable[[Any], str]) -> Any:
    """A PyTorch value of the kind of `value` (a tensor for any tensor, a Python constant as
    itself), for asking PyTorch's dispatcher which overload it matches."""
    torch = sys.modules["torch"]
    if isinstance(value, bool | int | float | str) or value is None:
        return value
    if isinstance(value, DType):
        return getattr(torch, value.name)
    if type(value).__name__ == "PyObject":  # a Python object a script holds
        return value.obj
    if isinstance(value, list | tuple):
        return [stand_in(v, kind_of) for v in value]
    kind = kind_of(value)
    if kind == "Tensor":
        return torch.empty(0)
    if kind.startswith("list[") and kind != "list[?]":
        return [_STAND_INS.get(kind[5:-1], torch.empty(0))]
    return _STAND_INS.get(kind, value)


_STAND_INS: dict[str, Any] = {"int": 0, "float": 0.0, "bool": False, "None": None}
