"""The census of PyTorch's schemas (`python -m benchmarks.coverage`): a few overloads whose
status is known, and the markdown report's counts adding up."""

from __future__ import annotations

import pytest
import torch

from benchmarks.coverage import MEASURED_HEADING, Entry, classify, measured_section
from benchmarks.coverage_report import markdown


def schema(qualified: str):  # type: ignore[no-untyped-def]
    name, _, overload = qualified.partition(".")
    for s in torch._C._jit_get_schemas_for_operator(name):
        if s.overload_name == overload:
            return s
    raise LookupError(qualified)


@pytest.mark.parametrize(
    ("qualified", "form", "status", "why"),
    [
        ("aten::add.Tensor", "functional", "lowers", "torch.aten.add.Tensor"),
        ("aten::add_.Tensor", "in-place", "lowers", "torch.aten.add.Tensor"),
        ("aten::add.out", "out=", "lowers", "torch.aten.add.Tensor"),
        ("aten::convolution", "functional", "decomposes", "composition"),
        ("aten::_unsafe_view", "functional", "decomposes", "alias of torch.aten.view"),
        ("aten::special_zeta", "functional", "refused", "no op"),
        ("aten::log_normal", "functional", "refused", "random"),
        ("aten::native_dropout", "functional", "decomposes", "native_dropout"),
        ("aten::cudnn_convolution", "functional", "refused", "backend"),
        ("aten::max_pool2d_with_indices_backward", "functional", "refused", "autograd"),
    ],
)
def test_known_overloads(qualified: str, form: str, status: str, why: str) -> None:
    entry = classify(schema(qualified))
    assert (entry.form, entry.status) == (form, status), entry
    assert why in entry.reason


def test_the_report_counts_every_entry() -> None:
    entries = [classify(schema(q)) for q in ("aten::add.Tensor", "aten::special_zeta")]
    report = markdown(entries)
    assert "2 aten/prims overloads: 1 lowers, 0 decomposes, 0 partial, 1 refused" in report
    assert "`aten::special_zeta`" in report
    assert all(isinstance(e, Entry) for e in entries)


def test_the_report_keeps_its_measured_section(tmp_path) -> None:  # type: ignore[no-untyped-def]
    report = tmp_path / "coverage.md"
    report.write_text(f"# old census\n\n{MEASURED_HEADING}\n\nmeasured counts\n")
    assert measured_section(str(report)) == f"\n{MEASURED_HEADING}\n\nmeasured counts\n"
    assert measured_section(str(tmp_path / "missing.md")) == ""
