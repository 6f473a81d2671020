"""Emitting torch ops (`scripter.ops`): the one place a call of registered ops becomes IR.

`emit` prepares the arguments (shapes as size lists, lists grown in a loop, devices dropped,
keywords spelled the Python way, a `dtype=` known only at run time) and binds them to the
first candidate op that accepts them; binding, shape and type errors become a `ScriptError`
at the call.

Interface: `emit(node, candidates, args, kwargs)` (the op's results), `result(results)` (one
value or a tuple).
"""

from __future__ import annotations

import ast
from functools import partial
from typing import Any

from xdsl.ir import SSAValue

from dialects.torch.meta import ShapeError
from frontend.ir.binding import BindError
from frontend.ir.builder import Value
from frontend.ir.resolve import ops_for_method
from frontend.script.call_arguments import dtype_source, is_dtype_code_of, python_keywords
from frontend.script.collaborator import Collaborator
from frontend.script.grown_lists import GrownList
from frontend.script.tensor_methods import devices_dropped
from frontend.script.value_kinds import ShapeValue


class OpCalls(Collaborator):
    """Torch ops emitted for calls."""

    @staticmethod
    def result(results: list[SSAValue]) -> Value:
        return results[0] if len(results) == 1 else tuple(results)

    def emit(
        self, node: ast.AST, candidates: Any, args: list[Value], kwargs: dict[str, Value]
    ) -> list[SSAValue]:
        if any(isinstance(a, GrownList) for a in (*args, *kwargs.values())):
            return self.scripter.grown_lists.grown_list_call(node, candidates, args, kwargs)
        source = dtype_source(candidates, args, kwargs)
        if source is not None:
            return self.in_dtype_of(node, candidates, args, kwargs, source)
        args = [
            self.scripter.values.shape_value(node, a) if isinstance(a, ShapeValue) else a
            for a in args
        ]
        kwargs = {
            k: self.scripter.values.shape_value(node, v) if isinstance(v, ShapeValue) else v
            for k, v in kwargs.items()
        }
        kwargs = devices_dropped(lambda message: self.error(node, message), kwargs)
        kwargs = python_keywords(candidates, kwargs)
        try:
            return self.scripter.builder.call(candidates, args, kwargs)
        except BindError as err:
            self.scripter.values.refuse_captured_tensors(node, [*args, *kwargs.values()])
            names = sorted({c.name for c in candidates})
            raise self.error(node, f"wrong arguments for {' / '.join(names)}: {err}") from None
        except (ShapeError, TypeError) as err:
            raise self.error(node, str(err)) from None

    def in_dtype_of(
        self,
        node: ast.AST,
        candidates: Any,
        args: list[Value],
        kwargs: dict[str, Value],
        source: SSAValue,
    ) -> list[SSAValue]:
        """A call given `dtype=y.dtype` while `y`'s dtype is unknown: the call without it,
        then `type_as(y)` (`x.to(y.dtype)` is `x.type_as(y)`)."""
        is_code = partial(is_dtype_code_of, source)
        args = [a for a in args if not is_code(a)]
        kwargs = {k: v for k, v in kwargs.items() if not is_code(v)}
        if {c.name for c in candidates} & {"torch.aten.to.dtype"} and len(args) == 1:
            results = [args[0]]
        else:
            results = self.emit(node, candidates, args, kwargs)
        type_as = ops_for_method("type_as")
        return [self.emit(node, type_as, [r, source], {})[0] for r in results]
