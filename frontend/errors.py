"""Errors that point at the user's source: file, line, column, the line, `~~~ <--- HERE`, a hint."""

from __future__ import annotations

import ast
from dataclasses import dataclass


@dataclass(frozen=True)
class SourceLocation:
    """Where a construct is in the user's file (1-based line, 0-based column like `ast`)."""

    filename: str
    line: int
    col: int
    end_col: int
    source_line: str

    def render(self) -> str:
        width = max(1, self.end_col - self.col)
        underline = " " * self.col + "~" * width + " <--- HERE"
        where = f'  File "{self.filename}", line {self.line}, column {self.col + 1}'
        return f"{where}\n    {self.source_line}\n    {underline}"


class ScriptError(Exception):
    """A program tsjit cannot script, with the location and a hint to fix it."""

    def __init__(
        self,
        message: str,
        location: SourceLocation | None = None,
        hint: str = "",
        related: tuple[tuple[str, SourceLocation], ...] = (),
    ) -> None:
        self.message = message
        self.location = location
        self.hint = hint
        self.related = related  # (what is there, where): other places the error involves
        super().__init__(self._render())

    @property
    def line(self) -> int | None:
        return None if self.location is None else self.location.line

    @property
    def col(self) -> int | None:
        return None if self.location is None else self.location.col

    def _render(self) -> str:
        text = self.message
        if self.location is not None:
            text += "\n" + self.location.render()
        for what, where in self.related:
            text += f"\n  {what}:\n" + where.render()
        if self.hint:
            text += f"\n  hint: {self.hint}"
        return text


class SourceFile:
    """The lines of a scripted function's file, for building locations from `ast` nodes."""

    def __init__(self, filename: str, lines: list[str], first_line: int, indent: int) -> None:
        self.filename = filename
        self.lines = lines
        self.first_line = first_line  # file line of the dedented source's line 1
        self.indent = indent  # columns removed by dedent

    def location(self, node: ast.AST) -> SourceLocation:
        rel_line = getattr(node, "lineno", 1)
        col = getattr(node, "col_offset", 0) + self.indent
        end_line = getattr(node, "end_lineno", rel_line)
        line_text = self.lines[rel_line - 1].rstrip("\n") if rel_line - 1 < len(self.lines) else ""
        if line_text.strip():  # as in the file, so the underline (at `col`) sits under it
            line_text = " " * self.indent + line_text
        end_col = getattr(node, "end_col_offset", col) + self.indent
        if end_line != rel_line:
            end_col = len(line_text)
        return SourceLocation(
            self.filename, self.first_line + rel_line - 1, col, end_col, line_text.strip("\n")
        )


class LoadError(Exception):
    """A saved program that cannot be loaded: what is wrong with the file, in words."""
