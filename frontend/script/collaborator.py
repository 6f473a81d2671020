"""The base of the scripter's collaborators: one concern each, reaching the others by name.

`FunctionScripter` (`frontend/script/scripter.py`) walks one function and holds its state (the
environment `env`, the `builder`, the `frames`, the source); it builds one collaborator per
concern and keeps it as an attribute (`scripter.expressions`, `scripter.loops`, ...). A
collaborator keeps the scripter it serves as `self.scripter` and calls another concern through
it, `self.scripter.expressions.expr(node)`, so every call names the object that answers it.

Interface: `Collaborator(scripter)`; `error(node, message, hint)` is the scripter's located
`ScriptError`. The scripter is typed `Any` here: `scripter.py` imports every collaborator, so
naming its class would make an import cycle.
"""

from __future__ import annotations

import ast
from typing import Any

from frontend.errors import ScriptError


class Collaborator:
    """One concern of scripting a function, serving the `FunctionScripter` it was built for."""

    def __init__(self, scripter: Any) -> None:
        self.scripter = scripter

    def error(self, node: ast.AST, message: str, hint: str = "") -> ScriptError:
        """A `ScriptError` at `node`'s source line (`FunctionScripter.error`)."""
        return self.scripter.error(node, message, hint)
