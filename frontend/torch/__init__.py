"""`frontend.torch`: a numpy-backed, PyTorch-compatible namespace (functions on numpy arrays).

Every op spelling `torch.<name>` declared in the registry is a function here, so programs
written as `torch.tanh(x)` run eagerly without PyTorch and script to the same IR.
"""

from __future__ import annotations

from frontend.torch import nn as nn
from frontend.torch.ops import functions_for

globals().update(functions_for("torch"))

float32 = "float32"
float64 = "float64"
int64 = "int64"
int32 = "int32"
bool = "bool"
