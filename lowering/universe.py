"""The xDSL plugin entry: `xdsl-opt` learns the torch dialect, tsjit's passes and python target."""

from __future__ import annotations

from xdsl.universe import Universe

from dialects import get_all_dialects
from lowering import get_all_passes, get_all_targets

UNIVERSE = Universe(
    all_dialects=get_all_dialects(),
    all_passes=get_all_passes(),
    all_targets=get_all_targets(),
)
