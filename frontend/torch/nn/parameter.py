"""`nn.Parameter`: a Tensor that a Module registers as one of its parameters."""

from __future__ import annotations

from typing import Any

import numpy as np

from frontend.torch.tensor import Tensor


class Parameter(Tensor):
    """A module parameter sharing `data`'s values.

    `requires_grad` is recorded for compatibility (PyTorch code passes it everywhere), but
    frontend.torch has no autograd: no gradient is ever computed.
    """

    def __init__(self, data: Any = None, requires_grad: bool = True) -> None:
        values = np.zeros(0, np.float32) if data is None else data
        self._data = values.numpy() if isinstance(values, Tensor) else np.asarray(values)
        self._requires_grad = requires_grad

    @property  # type: ignore[override]
    def requires_grad(self) -> bool:
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, value: bool) -> None:
        self._requires_grad = value

    def __repr__(self) -> str:
        return "Parameter containing:\n" + super().__repr__()

    def __deepcopy__(self, memo: dict[int, Any]) -> Parameter:
        return Parameter(self._data.copy(), self._requires_grad)


class Buffer(Tensor):
    """`nn.Buffer(tensor)`: marks a tensor assigned to a module attribute as a buffer."""

    def __init__(self, data: Any, persistent: bool = True) -> None:
        self._data = data.numpy() if isinstance(data, Tensor) else np.asarray(data)
        self.persistent = persistent
