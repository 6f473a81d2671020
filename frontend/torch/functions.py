"""The `torch.<name>` functions generated from the op registry (one per registered spelling),
then the constructors of `creation.py`, which win over generated spellings of the same name.

`frontend.torch` re-exports them (the same objects); the modules inside `frontend.torch` that
are written with ops (losses, reductions, recurrent layers, attention, ...) call them through
this module rather than through the package, which imports those modules.
"""

from __future__ import annotations

from frontend.torch.ops import functions_for

GENERATED = functions_for("torch")
globals().update(GENERATED)

from frontend.torch.creation import (  # noqa: E402  (constructors win over generated spellings)
    arange,
    as_tensor,
    empty,
    empty_like,
    eye,
    from_numpy,
    full,
    full_like,
    linspace,
    ones,
    ones_like,
    rand,
    rand_like,
    randint,
    randn,
    randn_like,
    randperm,
    tensor,
    zeros,
    zeros_like,
)

__all__ = [*GENERATED, *(f.__name__ for f in (
    arange, as_tensor, empty, empty_like, eye, from_numpy, full, full_like, linspace, ones,
    ones_like, rand, rand_like, randint, randn, randn_like, randperm, tensor, zeros, zeros_like,
))]  # fmt: skip
