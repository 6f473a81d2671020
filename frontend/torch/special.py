"""`frontend.torch.special`: every op spelling `torch.special.<name>` as a function
(`erfinv`, `expit`, `logsumexp`, ...), like `frontend.torch` for `torch.<name>`; a trace of
`torch.special.<name>` records its op through these."""

from frontend.torch.ops import namespace_functions, no_such_function

globals().update(namespace_functions("torch.special."))
__getattr__ = no_such_function("frontend.torch.special", "torch.special.")
