"""The `F.<name>` functions generated from the op registry (one per registered spelling).

`frontend.torch.nn.functional` re-exports them (the same objects) beside the functions written
with ops; the modules that `functional` itself imports (losses, attention) call these through
this module.
"""

from __future__ import annotations

from frontend.torch.ops import functions_for

GENERATED = functions_for("F")
globals().update(GENERATED)
