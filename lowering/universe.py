"""The xDSL plugin entry: `xdsl-opt` learns the torch dialect, tsjit's passes and python target.

Inside `xdsl-opt`, an error of tsjit's passes that names its cause (a `DiagnosticException`
such as a wrong-stage input, a `PipelineError` with its repro command, a contract violation)
prints as `xdsl-opt: error: <message>` instead of a traceback; other exceptions keep theirs.
"""

from __future__ import annotations

import os
import sys
from types import TracebackType

from xdsl.universe import Universe
from xdsl.utils.exceptions import DiagnosticException

from dialects import get_all_dialects
from lowering import get_all_passes, get_all_targets
from lowering.contracts import ContractError
from lowering.pipeline import PipelineError

UNIVERSE = Universe(
    all_dialects=get_all_dialects(),
    all_passes=get_all_passes(),
    all_targets=get_all_targets(),
)

NAMED_ERRORS = (DiagnosticException, PipelineError, ContractError)


def print_named_errors(
    kind: type[BaseException], error: BaseException, traceback: TracebackType | None
) -> None:
    """`sys.excepthook` of `xdsl-opt`: a named error as one message, the rest as usual."""
    if isinstance(error, NAMED_ERRORS):
        print(f"xdsl-opt: error: {error}", file=sys.stderr)
        return
    sys.__excepthook__(kind, error, traceback)


if os.path.basename(sys.argv[0]) == "xdsl-opt":
    sys.excepthook = print_named_errors
