"""Reads the bad-program corpora: each case's function, expected message and location.

A corpus file is a Python module of functions. A function's docstring is
`error: <regex>`; the line the error must point at carries `# <-- col N` (scripted programs,
0-based column as in `ast`) or `# <-- here` (traced programs: tracing reports lines only);
a traced program without a marker fails on its inputs or outputs, which the message names.
"""

from __future__ import annotations

import ast
import importlib.util
import re
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

CORPUS = Path(__file__).parent / "corpus"
_MARKER = re.compile(r"#\s*<--\s*(?:col\s+(\d+)|here)")


@dataclass(frozen=True)
class Case:
    name: str
    function: Any
    message: str  # regex
    line: int | None  # 1-based line in the corpus file (None: the message names the place)
    col: int | None  # 0-based; None for traced programs
    path: Path

    def __str__(self) -> str:
        return self.name


def load_corpus(filename: str) -> tuple[ModuleType, list[Case]]:
    """The corpus module and its cases, in file order (helpers without a docstring skipped)."""
    path = CORPUS / filename
    spec = importlib.util.spec_from_file_location(f"corpus_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    lines = path.read_text().splitlines()
    cases = []
    for node in ast.parse(path.read_text()).body:
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        doc = ast.get_docstring(node) or ""
        if not doc.startswith("error:"):
            continue
        line, col = _marker(lines, node)
        message = doc.removeprefix("error:").strip()
        cases.append(Case(node.name, getattr(module, node.name), message, line, col, path))
    return module, cases


def _marker(
    lines: list[str], node: ast.FunctionDef | ast.AsyncFunctionDef
) -> tuple[int | None, int | None]:
    end = node.end_lineno or node.lineno
    for number in range(node.lineno, end + 1):
        match = _MARKER.search(lines[number - 1])
        if match:
            return number, int(match.group(1)) if match.group(1) else None
    return None, None
