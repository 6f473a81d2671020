"""A Tensor's `repr`, as PyTorch prints it: `tensor([1., 2.])`, `tensor(0.5000)`, `dtype=...`.

A port of torch/_tensor_str.py's default options (precision 4, threshold 1000 elements,
3 edge items, line width 80) onto numpy arrays.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

PRECISION = 4
THRESHOLD = 1000
EDGE_ITEMS = 3
LINE_WIDTH = 80


class Formatter:
    """Chooses one width and style (int, fixed or scientific) for every element of a tensor."""

    def __init__(self, values: np.ndarray) -> None:  # type: ignore[type-arg]
        self.floating = values.dtype.kind == "f"
        self.int_mode = True
        self.sci_mode = False
        self.max_width = 1
        flat = values.reshape(-1)
        if not self.floating:
            for value in flat.tolist():
                self.max_width = max(self.max_width, len(str(value)))
            return
        finite = flat[np.isfinite(flat) & (flat != 0)].astype(np.float64)
        if finite.size == 0:
            return
        magnitudes = np.abs(finite)
        low, high = magnitudes.min(), magnitudes.max()
        self.int_mode = bool(np.all(finite == np.ceil(finite)))
        self.sci_mode = bool(high / low > 1000.0 or high > 1.0e8 or low < 1.0e-4)
        for value in finite.tolist():
            self.max_width = max(self.max_width, len(self._text(value)) + self._dot(value))

    def _text(self, value: float) -> str:
        if self.sci_mode:
            return f"{value:.{PRECISION}e}"
        if self.int_mode:
            return f"{value:.0f}"
        return f"{value:.{PRECISION}f}"

    def _dot(self, value: float) -> int:
        return int(self.int_mode and not self.sci_mode)

    def format(self, value: Any) -> str:
        if not self.floating:
            text = "True" if value is True else "False" if value is False else str(value)
        elif self.sci_mode:
            text = f"{value:{self.max_width}.{PRECISION}e}"
        elif self.int_mode:
            text = f"{value:.0f}" + ("" if math.isinf(value) or math.isnan(value) else ".")
        else:
            text = f"{value:.{PRECISION}f}"
        return (self.max_width - len(text)) * " " + text


def _summarized(values: np.ndarray) -> np.ndarray:  # type: ignore[type-arg]
    """The elements that a summarized print shows (the edges of every dim)."""
    if values.ndim == 0 or values.shape[0] <= 2 * EDGE_ITEMS:
        parts = list(values) if values.ndim > 1 else [values]
    else:
        parts = [*values[:EDGE_ITEMS], *values[-EDGE_ITEMS:]]
        if values.ndim == 1:
            return np.asarray(parts)
    if values.ndim <= 1:
        return values
    return np.stack([_summarized(p) for p in parts])


def _vector(values: np.ndarray, indent: int, summarize: bool, fmt: Formatter) -> str:  # type: ignore[type-arg]
    per_line = max(1, math.floor((LINE_WIDTH - indent) / (fmt.max_width + 2)))
    if summarize and values.shape[0] > 2 * EDGE_ITEMS:
        items = [fmt.format(v) for v in values[:EDGE_ITEMS].tolist()] + [" ..."]
        items += [fmt.format(v) for v in values[-EDGE_ITEMS:].tolist()]
    else:
        items = [fmt.format(v) for v in values.tolist()]
    lines = [", ".join(items[i : i + per_line]) for i in range(0, len(items), per_line)]
    return "[" + ("," + "\n" + " " * (indent + 1)).join(lines) + "]"


def _nested(values: np.ndarray, indent: int, summarize: bool, fmt: Formatter) -> str:  # type: ignore[type-arg]
    if values.ndim == 0:
        return fmt.format(values.item())
    if values.ndim == 1:
        return _vector(values, indent, summarize, fmt)
    rows = range(values.shape[0])
    if summarize and values.shape[0] > 2 * EDGE_ITEMS:
        head = [_nested(values[i], indent + 1, summarize, fmt) for i in rows[:EDGE_ITEMS]]
        tail = [_nested(values[i], indent + 1, summarize, fmt) for i in rows[-EDGE_ITEMS:]]
        slices = [*head, "...", *tail]
    else:
        slices = [_nested(values[i], indent + 1, summarize, fmt) for i in rows]
    return "[" + ("," + "\n" * (values.ndim - 1) + " " * (indent + 1)).join(slices) + "]"


def _add_suffixes(text: str, suffixes: list[str], indent: int) -> str:
    parts = [text]
    last_line = len(text) - text.rfind("\n") + 1
    for suffix in suffixes:
        if last_line + len(suffix) + 2 > LINE_WIDTH:
            parts.append(",\n" + " " * indent + suffix)
            last_line = indent + len(suffix)
        else:
            parts.append(", " + suffix)
            last_line += len(suffix) + 2
    return "".join(parts) + ")"


def tensor_repr(values: np.ndarray, dtype_name: str, default_float: str) -> str:  # type: ignore[type-arg]
    """`tensor([...])` with torch's layout; `dtype=` is shown unless the dtype is inferable."""
    prefix = "tensor("
    indent = len(prefix)
    suffixes: list[str] = []
    shown_dtype = dtype_name not in (default_float, "int64", "bool")
    if values.size == 0:
        if values.ndim != 1:
            suffixes.append(f"size={tuple(values.shape)}")
        if dtype_name != default_float:
            suffixes.append(f"dtype=torch.{dtype_name}")
        return _add_suffixes(prefix + "[]", suffixes, indent)
    summarize = values.size > THRESHOLD
    fmt = Formatter(_summarized(values) if summarize else values)
    body = _nested(values, indent, summarize, fmt)
    if shown_dtype:
        suffixes.append(f"dtype=torch.{dtype_name}")
    return _add_suffixes(prefix + body, suffixes, indent)
