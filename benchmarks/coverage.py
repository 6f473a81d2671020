"""A census of PyTorch's own operator schemas: which ones tsjit lowers, decomposes or refuses.

`python -m benchmarks.coverage [--list] [--markdown docs/coverage.md]`

Every schema of the `aten` and `prims` namespaces in `torch._C._jit_get_all_schemas()` is one
overload (`aten::add.Tensor`). Its status, through the same resolution as a call of
`torch.ops.aten.add.Tensor` (`frontend/ir/aten_namespace.py`):

- `lowers`: a registry op of that name (or, for an in-place / `out=` form, of its functional
  overload), lowered as itself;
- `decomposes`: a registry op whose `decompose` rewrites it into other ops, an alias of one, or
  a composition of ops (`frontend/ir/aten_aliases.py`);
- `partial`: a registry op, but its schema lacks arguments PyTorch's has (a call passing them
  is refused), or some lowering stage is marked as failing for it;
- `refused`, with the reason (no op of that name, only other overloads, a dtype or a feature
  tsjit does not have: complex, quantized, random, autograd, a backend's own op...).

In-place and `out=` forms compute their functional overload and write the destination in its
dtype in traces and `torch.export` programs; scripts refuse them. `--markdown` writes the
counts and the most common refused ops (Core ATen first: what `torch.export` decomposes
every program into).
"""

from __future__ import annotations

import argparse
import re
from collections import Counter
from dataclasses import dataclass
from typing import Any

import torch

from dialects.torch.op_base import TorchOp
from frontend.ir.aten_namespace import (
    AtenTarget,
    functional_composition,
    functional_overloads,
    registry_ops,
)
from frontend.ir.binding import HARMLESS

NAMESPACES = ("aten", "prims")
FORMS = ("functional", "in-place", "out=")


@dataclass(frozen=True)
class Entry:
    """One overload's census line."""

    label: str  # aten::add.Tensor
    namespace: str
    name: str  # the functional op name: add (also for add_.Tensor)
    form: str  # functional, in-place, out=
    status: str  # lowers, decomposes, partial, refused
    reason: str  # why (refused, partial) or how (decomposes)
    core: bool  # tagged Core ATen


def schemas() -> list[Any]:
    """PyTorch's schemas of the census namespaces, in PyTorch's order."""
    return [s for s in torch._C._jit_get_all_schemas() if s.name.split("::")[0] in NAMESPACES]


def census() -> list[Entry]:
    return [classify(s) for s in schemas()]


def classify(schema: Any) -> Entry:
    namespace, _, name = schema.name.partition("::")
    target = AtenTarget(namespace, name, schema.overload_name)
    form = "in-place" if target.in_place else "out=" if _writes_out(schema) else "functional"
    core = _is_core(target)
    status, reason = _status(target, schema)
    return Entry(target.label, namespace, target.functional_name, form, status, reason, core)


def _status(target: AtenTarget, schema: Any) -> tuple[str, str]:
    ops = _registry_ops(target)
    if ops:
        op = ops[0]
        missing = _missing_arguments(op, schema)
        if missing:
            return "partial", f"the registry's schema lacks {', '.join(missing)}"
        if op.XFAIL_STAGES:
            return "partial", "fails in " + ", ".join(sorted(op.XFAIL_STAGES))
        if op.name.split(".", 2)[2].split(".")[0] != target.functional_name:
            return "decomposes", f"alias of {op.name}"
        if op.decompose is not TorchOp.decompose:
            return "decomposes", f"{op.name} decomposes"
        return "lowers", op.name
    if _composition(target) is not None:
        return "decomposes", "a composition of ops (frontend/ir/aten_aliases.py)"
    return "refused", refusal(target, schema)


def _registry_ops(target: AtenTarget) -> tuple[type[TorchOp], ...]:
    try:
        return registry_ops(target)
    except (AttributeError, RuntimeError):  # a schema PyTorch does not expose as torch.ops
        return ()


def _composition(target: AtenTarget) -> Any:
    try:
        return functional_composition(target)
    except (AttributeError, RuntimeError):
        return None


def _writes_out(schema: Any) -> bool:
    return any(a.is_out for a in schema.arguments)


def _is_core(target: AtenTarget) -> bool:
    try:
        packet = getattr(getattr(torch.ops, target.namespace), target.name)
        return torch.Tag.core in getattr(packet, target.overload or "default").tags
    except (AttributeError, RuntimeError):
        return False


def _missing_arguments(op: type[TorchOp], schema: Any) -> list[str]:
    """PyTorch arguments (not `out=`) the registry op's schema does not have, but the ones
    binding drops as harmless (`layout`, `device`, ...)."""
    names = {a.name for a in op.parsed_schema().arguments}
    return [
        f"`{a.name}`" for a in schema.arguments
        if not a.is_out and a.name not in names and a.name not in HARMLESS
    ]  # fmt: skip


_REFUSED_KINDS = (
    ("autograd (a backward or gradient op)", r"backward|_grad|grad_|^_?autograd|_jvp"),
    ("quantized tensors", r"quantize|^q_|_quantized|^_?fake_quant|fbgemm|^_?qr?_|qscheme"),
    (
        "random numbers",
        r"rand|bernoulli|dropout|normal|uniform|multinomial|poisson|"
        r"exponential|cauchy|geometric|log_normal|random",
    ),
    (
        "a backend's own op (cuda, cudnn, mkldnn, mps, miopen, nested, sparse, foreach)",
        r"cud|mkldnn|mps|miopen|nested|sparse|_foreach|vulkan|xnnpack|mkl_|_nnpack|onednn",
    ),
    (
        "storage, streams, devices or other run-time state",
        r"storage|stream|device|record_|set_|_local_scalar|_version|is_pinned|pin_memory|"
        r"share_memory|data_ptr|resize|_cpu$|_to_cpu|lift|_dimI|_dimV|_nnz|_indices|_values",
    ),
)
_COMPLEX_TYPES = re.compile(r"\bcomplex\b|ComplexType|Dimname|Generator|Storage|Stream|Layout\b"
                            r"(?!\?)|Device\b(?!\?)|__torch__|Any\b|Future|Await|RRef")  # fmt: skip


def refusal(target: AtenTarget, schema: Any) -> str:
    """Why a target has no registry op or composition."""
    text = str(schema)
    for why, pattern in _REFUSED_KINDS:
        if re.search(pattern, target.functional_name):
            return why
    if _COMPLEX_TYPES.search(text):
        found = _COMPLEX_TYPES.search(text)
        word = found.group(0) if found else ""
        return f"argument types tsjit does not have ({word})"
    if target.in_place or _writes_out(schema):
        functional = _functional_of(target)
        if functional:
            return f"its functional overload {functional} is refused"
        return "no functional overload of the same arguments"
    others = [o for o in _known_overloads(target)]
    if others:
        return "other overloads only: " + ", ".join(others)
    return "no op"


def _functional_of(target: AtenTarget) -> str:
    try:
        overloads = functional_overloads(target)
    except (AttributeError, RuntimeError):
        return ""
    name = f"{target.namespace}::{target.functional_name}"
    return ", ".join(f"{name}.{o or 'default'}" for o in overloads)


def _known_overloads(target: AtenTarget) -> list[str]:
    from dialects.torch.registry import BY_NAME

    prefix = f"torch.{target.namespace}.{target.functional_name}"
    return sorted(n.removeprefix("torch.") for n in BY_NAME if n == prefix or
                  n.startswith(prefix + "."))  # fmt: skip


# ---- reports ----


def counts(entries: list[Entry]) -> dict[tuple[str, str], Counter[str]]:
    """(namespace, form) -> status counts."""
    table: dict[tuple[str, str], Counter[str]] = {}
    for e in entries:
        table.setdefault((e.namespace, e.form), Counter())[e.status] += 1
    return table


def main(argv: list[str] | None = None) -> None:
    from benchmarks.coverage_report import markdown, summary

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--list", action="store_true", help="print every overload's status")
    parser.add_argument("--markdown", metavar="PATH", help="write the report (docs/coverage.md)")
    options = parser.parse_args(argv)
    entries = census()
    if options.list:
        for e in entries:
            print(f"{e.status:10} {e.form:10} {e.label}  {e.reason}")
    print(summary(entries))
    if options.markdown:
        kept = measured_section(options.markdown)
        with open(options.markdown, "w") as out:
            out.write(markdown(entries) + kept)


MEASURED_HEADING = "## An external suite of small programs"
"""The hand-written section of docs/coverage.md (measured runs, not the census): kept."""


def measured_section(path: str) -> str:
    """The part of the report at `path` from `MEASURED_HEADING` on, else ""."""
    try:
        with open(path) as existing:
            text = existing.read()
    except FileNotFoundError:
        return ""
    start = text.find(MEASURED_HEADING)
    return "" if start < 0 else "\n" + text[start:]


if __name__ == "__main__":
    main()
