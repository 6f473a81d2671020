"""`frontend.torch.linalg`: every op spelling `torch.linalg.<name>` as a function
(`vector_norm`, `norm`), like `frontend.torch` for `torch.<name>`; a trace of
`torch.linalg.<name>` records its op through these."""

from frontend.torch.ops import namespace_functions, no_such_function

globals().update(namespace_functions("torch.linalg."))
__getattr__ = no_such_function("frontend.torch.linalg", "torch.linalg.")
