"""Every op declares every hook, and its schema agrees with its IRDL operands and results."""

from __future__ import annotations

import pytest

from dialects.torch.families import ElementwiseOp
from dialects.torch.registry import ATEN_OPS, BY_NAME, BY_PY_NAME
from dialects.torch.schema import parse_schema


@pytest.mark.parametrize("op", ATEN_OPS, ids=lambda op: op.name)
def test_op_declares_every_hook(op) -> None:
    assert op.__doc__, f"{op.name} has no docstring"
    assert op.SAMPLES, f"{op.name} has no samples"
    assert "eager" in {k for c in op.__mro__ for k in vars(c)} - {"TorchOp"}
    if issubclass(op, ElementwiseOp):
        assert op.payload is not ElementwiseOp.payload, f"{op.name} has no payload"


@pytest.mark.parametrize("op", ATEN_OPS, ids=lambda op: op.name)
def test_schema_matches_operands(op) -> None:
    schema = parse_schema(op.SCHEMA)
    assert f"torch.{schema.qualified_name}" == op.name
    definition = op.get_irdl_definition()
    assert [name for name, _ in definition.operands] == [a.field_name for a in schema.arguments]
    assert len(definition.results) == len(schema.returns)


def test_lookup_tables() -> None:
    assert BY_NAME["torch.aten.tanh"].SCHEMA.startswith("aten::tanh")
    overloads = [op.name for op in BY_PY_NAME["torch.add"]]
    assert overloads == ["torch.aten.add.Tensor", "torch.aten.add.Scalar"]


def test_schema_parser_reads_defaults_and_kwarg_only() -> None:
    schema = parse_schema(
        "aten::sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, "
        "ScalarType? dtype=None) -> Tensor"
    )
    dim, keepdim, dtype = schema.arguments[1:]
    assert (dim.type, dim.optional, dim.has_default) == ("int[]", True, False)
    assert (keepdim.default, keepdim.kwarg_only) == (False, False)
    assert (dtype.type, dtype.kwarg_only, dtype.default) == ("ScalarType", True, None)
    with pytest.raises(ValueError, match="malformed schema"):
        parse_schema("not a schema")


def test_frontend_is_this_repository() -> None:
    """`frontend` is also a PyPI name: make sure ours is imported."""
    from pathlib import Path

    import frontend

    root = Path(__file__).resolve().parents[2]
    assert Path(frontend.__file__).resolve().is_relative_to(root)


def test_families_are_every_ops_module_in_name_order() -> None:
    """The registry discovers the families: every module of `dialects/torch/ops/` with an
    `OPS` tuple, in name order; no op is declared by two of them."""
    import ast
    from pathlib import Path

    from dialects.torch.registry import ALL_OPS, FAMILIES

    folder = Path(__file__).resolve().parents[2] / "dialects" / "torch" / "ops"
    declaring = sorted(
        p.stem
        for p in folder.glob("*.py")
        if any(
            isinstance(n, ast.Assign) and any(getattr(t, "id", None) == "OPS" for t in n.targets)
            for n in ast.parse(p.read_text()).body
        )
    )
    assert [m.__name__.rsplit(".", 1)[1] for m in FAMILIES] == declaring
    assert len(set(ALL_OPS)) == len(ALL_OPS)
