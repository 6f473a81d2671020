"""The torch dialect: torch-mlir-spelled value-semantics tensor types and ATen/prim ops."""

from xdsl.ir import Dialect

from dialects.torch.registry import ALL_OPS, CUSTOM_OPS
from dialects.torch.types import ALL_TYPES


def torch_dialect() -> Dialect:
    """The dialect with every op registered so far, custom ops included (a context takes a
    snapshot when it first loads the dialect)."""
    return Dialect("torch", [*ALL_OPS, *CUSTOM_OPS], list(ALL_TYPES))


Torch = torch_dialect()
"""The dialect as imported (the built-in ops); contexts use `torch_dialect()`."""
