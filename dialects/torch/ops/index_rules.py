"""PyTorch's rule for the values of an index tensor, op by op: which exception an index out of
range raises, whether negative indices count from the end, and the message.

One table read by the eager references (`IndexRule.checked`, which names the first bad index
as torch does) and by the lowering's run-time checks (`kind`, `wraps`, `fixed_message`: the
compiled code cannot format the run-time value). Checked against torch 2.13 by
`tests/reliability/test_index_bounds.py`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

OUT_OF_BOUNDS = "index {index} is out of bounds for dimension {dim} with size {size}"


@dataclass(frozen=True)
class IndexRule:
    """How one op treats an index tensor's values."""

    kind: type[Exception]  # IndexError or RuntimeError
    wraps: bool  # negative indices count from the end (`[-size, size)`), else `[0, size)`
    message: str  # may name {index}, {dim} and {size}

    def checked(self, index: Any, size: int, dim: int = 0) -> Any:
        """The indices as int64, wrapped when the rule wraps; `kind` for the first one out of
        range (in row-major order)."""
        index = np.asarray(index, dtype=np.int64)
        low = -size if self.wraps else 0
        bad = (index < low) | (index >= size)
        if bad.any():
            first = int(index[bad].flat[0])
            raise self.kind(self.message.format(index=first, dim=dim, size=size))
        return np.where(index < 0, index + size, index) if self.wraps else index

    def fixed_message(self, dim: int, size: int | None) -> str:
        """The message without the run-time index (and without the size when it is `?`)."""
        text = self.message.replace("index {index}", "index")
        if size is None:
            text = text.replace(" with size {size}", "")
        return text.format(dim=dim, size=size)


RAISES = IndexRule(RuntimeError, False, OUT_OF_BOUNDS)  # gather, scatter*, index_add
RULES: dict[str, IndexRule] = {
    "index_select": IndexRule(IndexError, False, "index out of range in self"),
    "embedding": IndexRule(IndexError, False, "index out of range in self"),
    "gather": RAISES,
    "take_along_dim": RAISES,  # torch checks only the flattened form (it reads past the end
    # along a dim); tsjit raises as gather does
    "scatter": RAISES,
    "scatter_add": RAISES,
    "scatter_reduce": RAISES,
    "index_add": RAISES,
    "index_copy": IndexRule(IndexError, False, "index_copy_(): " + OUT_OF_BOUNDS),
    "index_fill": IndexRule(IndexError, True, OUT_OF_BOUNDS),
    "index": IndexRule(IndexError, True, OUT_OF_BOUNDS),  # x[idx]
    "index_put": IndexRule(IndexError, True, OUT_OF_BOUNDS),  # x[idx] = v
}


def rule_of(op_name: str) -> IndexRule:
    """The rule of `op_name` (`torch.aten.scatter.src` or `scatter`)."""
    return RULES[op_name.removeprefix("torch.aten.").partition(".")[0]]


def checked_classes(x: Any, num_classes: int) -> Any:
    """one_hot's check of its classes: RuntimeError for a negative one or one not below
    `num_classes` (torch's two messages)."""
    x = np.asarray(x, dtype=np.int64)
    if x.size and x.min() < 0:
        raise RuntimeError("Class values must be non-negative.")
    if x.size and x.max() >= num_classes:
        raise RuntimeError("Class values must be smaller than num_classes.")
    return x
