"""The torch dialect: torch-mlir-spelled value-semantics tensor types and ATen/prim ops."""

from xdsl.ir import Dialect

from dialects.torch.registry import ALL_OPS
from dialects.torch.types import ALL_TYPES

Torch = Dialect("torch", list(ALL_OPS), list(ALL_TYPES))
