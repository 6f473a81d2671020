"""tsjit's project dialects: only `torch`; below it the compiler uses upstream xDSL dialects."""

from __future__ import annotations

from collections.abc import Callable

from xdsl.ir import Dialect


def get_all_dialects() -> dict[str, Callable[[], Dialect]]:
    """Dialect name -> lazy factory, for xDSL contexts and the `xdsl.universe` entry point."""

    def get_torch() -> Dialect:
        from dialects.torch import torch_dialect

        return torch_dialect()

    return {"torch": get_torch}
