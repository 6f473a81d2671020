"""The op calls a random program can make, read from the op registry.

Every registered op with samples, a tensor result and a Python spelling that the eager
library has (`torch.*`, `F.*`, a `Tensor.*` method or an operator) becomes a `Template`: its
samples give the argument skeletons (which positions are tensors, tensor lists, scalars,
keywords) and, per schema argument name, the values seen in the samples. Nothing here lists
ops: an op added to the registry with samples is fuzzed from then on.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from dialects.torch.op_base import Sample, T, TorchOp
from dialects.torch.registry import ATEN_OPS
from dialects.torch.schema import Schema

# Python syntax for the `operator.*` spellings (how to write them, not which ops exist).
BINARY_SYNTAX = {
    "add": "+", "sub": "-", "mul": "*", "truediv": "/", "floordiv": "//", "mod": "%",
    "pow": "**", "matmul": "@", "and_": "&", "or_": "|", "xor": "^",
    "lt": "<", "le": "<=", "gt": ">", "ge": ">=", "eq": "==", "ne": "!=",
}  # fmt: skip
UNARY_SYNTAX = {"neg": "-", "invert": "~", "abs": "abs"}


@dataclass(frozen=True)
class Template:
    """One registered op: its schema, usable spellings and samples."""

    op: type[TorchOp]
    schema: Schema
    spellings: tuple[str, ...]
    samples: tuple[Sample, ...]

    @property
    def name(self) -> str:
        return self.op.name.removeprefix("torch.")

    def tensor_slots(self) -> int:
        """How many tensors the op's first sample passes (lists count each element)."""
        values = [*self.samples[0].args, *self.samples[0].kwargs.values()]
        return sum(len(v) if isinstance(v, list) else 1 for v in values if has_tensor(v)) or 1

    def values_for(self, arg_name: str) -> list[Any]:
        """Every non-tensor value the samples pass for the schema argument `arg_name`."""
        values: list[Any] = []
        for sample in self.samples:
            value = sample_arguments(self.schema, sample).get(arg_name, _MISSING)
            if value is not _MISSING and not has_tensor(value) and value not in values:
                values.append(value)
        return values


_MISSING = object()


def sample_arguments(schema: Schema, sample: Sample) -> dict[str, Any]:
    """The sample's arguments by schema name (positional ones in schema order)."""
    names = [a.name for a in schema.arguments]
    by_name = dict(zip(names, sample.args))
    by_name.update(sample.kwargs)
    return by_name


def has_tensor(value: Any) -> bool:
    return isinstance(value, T) or (
        isinstance(value, list) and any(isinstance(v, T) for v in value)
    )


def usable_spellings(op: type[TorchOp], torch: Any, functional: Any) -> tuple[str, ...]:
    """The op's spellings that exist in the eager library and in Python syntax."""
    exists = {
        "torch": lambda name: hasattr(torch, name),
        "F": lambda name: hasattr(functional, name),
        "Tensor": lambda name: not name.startswith("__") and hasattr(torch.Tensor, name),
        "operator": lambda name: name in BINARY_SYNTAX or name in UNARY_SYNTAX,
    }
    found = []
    for spelling in op.PY_NAMES:
        prefix, _, name = spelling.partition(".")
        if prefix in exists and exists[prefix](name):
            found.append(spelling)
    return tuple(found)


def is_fuzzable(op: type[TorchOp]) -> bool:
    schema = op.parsed_schema()
    return (
        bool(op.SAMPLES)
        and any(r.startswith("Tensor") for r in schema.returns)
        and not getattr(op, "ARBITRARY_VALUES", False)  # torch.empty: values undefined
        # searchsorted: torch does not check that the sequence is sorted (random ones are not)
        and not getattr(op, "UNCHECKED_PRECONDITION", "")
        and "run" not in op.XFAIL_STAGES
    )


def registry_templates(torch: Any, functional: Any) -> list[Template]:
    """A template for every fuzzable registered op with a usable spelling, by op name (so a
    seed's programs do not depend on which family file declares an op)."""
    templates = []
    for op in sorted(ATEN_OPS, key=lambda op: op.name):
        if not is_fuzzable(op):
            continue
        spellings = usable_spellings(op, torch, functional)
        if spellings:
            templates.append(Template(op, op.parsed_schema(), spellings, tuple(op.SAMPLES)))
    return templates
