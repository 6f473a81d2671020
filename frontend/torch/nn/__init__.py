"""`frontend.torch.nn`: for now its `functional` namespace."""

from frontend.torch.nn import functional

__all__ = ["functional"]
