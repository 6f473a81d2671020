"""The import graph of the source tree (read with `ast`): no cycles, no upward imports.

Layers, top to bottom: `frontend` -> `lowering` -> `dialects`. A package imports only from
itself and the layers below it. Inside `lowering`, each stage package imports only from
itself, the modules shared by every stage (the top-level `lowering/*.py` other than the
pipeline, and the kernel libraries `lowering.run.kernels`), and nothing of another stage; the
pipeline and the plugin registry sit on top of all stages. Every import counts, at module
level or inside a function: a deferred import is still a dependency.
"""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("dialects", "lowering", "frontend")
LAYER = {"dialects": 0, "lowering": 1, "frontend": 2}
LOWERING_STAGES = (
    "torch_opt",
    "torch_to_linalg",
    "linalg_opt",
    "bufferize",
    "loops",
    "python_target",
    "run",
    "xdsl_interpreter",
)
LOWERING_SHARED = ("lowering.contracts", "lowering.signature", "lowering.kernel_calls")
LOWERING_TOP = ("lowering", "lowering.pipeline", "lowering.universe")
STAGE_MAY_IMPORT: dict[str, tuple[str, ...]] = {
    # the python target emits calls of the kernels the run-time library binds
    "python_target": ("run",),
    # the run-time loads the python target's text
    "run": ("python_target",),
    # an executor of linalg / memref / loops IR for tests: it reads every stage's conventions
    "xdsl_interpreter": LOWERING_STAGES,
}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def source_modules() -> dict[str, Path]:
    return {
        module_name(p): p
        for package in PACKAGES
        for p in sorted((ROOT / package).rglob("*.py"))
        if ".venv" not in p.parts
    }


def imported(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The project modules that `name` imports anywhere in its file."""
    found: set[str] = set()
    is_package = path.name == "__init__.py"
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = absolute(name, is_package, node.module, node.level)
            submodules = {f"{base}.{alias.name}" for alias in node.names} & modules.keys()
            found.update(submodules)
            if len(submodules) < len(node.names):  # names defined in `base` itself
                found.add(base)
    return {m for m in found if m in modules and m != name}


def absolute(name: str, is_package: bool, module: str | None, level: int) -> str:
    if level == 0:
        return module or ""
    parts = name.split(".")
    keep = len(parts) - level + (1 if is_package else 0)
    return ".".join(parts[:keep] + ([module] if module else []))


@cache
def import_graph() -> dict[str, set[str]]:
    modules = source_modules()
    return {name: imported(name, path, modules) for name, path in modules.items()}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    import sys

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 10_000))
    try:
        for v in sorted(graph):
            if v not in index:
                visit(v)
    finally:
        sys.setrecursionlimit(limit)
    return found


def lowering_stage(name: str) -> str | None:
    parts = name.split(".")
    if parts[0] == "lowering" and len(parts) > 1 and parts[1] in LOWERING_STAGES:
        return parts[1]
    return None


def forbidden(source: str, target: str) -> str | None:
    """Why `source` may not import `target`, or None."""
    if LAYER[target.split(".")[0]] > LAYER[source.split(".")[0]]:
        return "upward import"
    stage = lowering_stage(source)
    if stage is None or target in LOWERING_SHARED or target.startswith("lowering.run.kernels"):
        return None
    if target in LOWERING_TOP:
        return "a stage imports the pipeline"
    other = lowering_stage(target)
    if other is None or other == stage or other in STAGE_MAY_IMPORT.get(stage, ()):
        return None
    return f"stage {stage} reaches into stage {other}"


def test_the_graph_covers_the_tree():
    graph = import_graph()
    assert "lowering.pipeline" in graph
    assert "frontend.function" in graph["frontend"]


def test_no_import_cycles():
    found = cycles(import_graph())
    assert not found, "import cycles:\n" + "\n".join(" <-> ".join(c) for c in found)


def test_no_upward_or_cross_stage_imports():
    graph = import_graph()
    bad = [
        f"{source} imports {target}: {why}"
        for source, targets in sorted(graph.items())
        for target in sorted(targets)
        if (why := forbidden(source, target)) is not None
    ]
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize(
    ("source", "target", "why"),
    [
        ("dialects.torch.ops.x", "lowering.run.jit", "upward import"),
        ("lowering.loops.x", "frontend.errors", "upward import"),
        ("lowering.python_target.x", "lowering.torch_to_linalg.y", "reaches into"),
        ("lowering.loops.x", "lowering.pipeline", "imports the pipeline"),
        ("lowering.loops.x", "lowering.contracts", None),
        ("frontend.function", "lowering.pipeline", None),
    ],
)
def test_the_rules_name_what_they_forbid(source, target, why):
    reason = forbidden(source, target)
    assert (reason is None) if why is None else (why in (reason or ""))


def test_cycles_are_found():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
