"""`frontend.torch.nn.functional` (`F`): every op spelling `F.<name>` as an eager function."""

from __future__ import annotations

from frontend.torch.ops import functions_for

globals().update(functions_for("F"))
