"""TODO"""

from __future__ import annotations

import ast
from typing import Any

from xdsl.ir import SSAValue

from dialects.torch.meta import ShapeError
from frontend.ir.binding import BindError
from frontend.ir.builder import Value
from frontend.script.call_arguments import dtype_source, python_keywords
from frontend.script.collaborator import Collaborator
from frontend.script.grown_lists import GrownList
from frontend.script.tensor_methods import devices_dropped
from frontend.script.value_kinds import ShapeValue


class OpCalls(Collaborator):
    """TODO"""

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
