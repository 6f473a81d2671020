"""The random number generator behind `rand`, `randn`, `randint`, dropout and `nn.init`.

One numpy `Generator` per `Generator` object; `manual_seed(s)` reseeds the default one, so
runs are reproducible (the streams differ from PyTorch's: same distributions, other values).
"""

from __future__ import annotations

import numpy as np

_DEFAULT_SEED = 67280421310721  # torch's default_generator seed


class Generator:
    """`torch.Generator`: a seeded stream of random numbers."""

    def __init__(self, device: str = "cpu") -> None:
        self._seed = _DEFAULT_SEED
        self.rng = np.random.default_rng(self._seed)

    def manual_seed(self, seed: int) -> Generator:
        self._seed = int(seed)
        self.rng = np.random.default_rng(self._seed)
        return self

    def seed(self) -> int:
        """Reseed from fresh entropy; returns the new seed."""
        return self.manual_seed(int(np.random.SeedSequence().entropy) % (2**63)).initial_seed()

    def initial_seed(self) -> int:
        return self._seed


default_generator = Generator()


def manual_seed(seed: int) -> Generator:
    """Reseed the default generator (like `torch.manual_seed`)."""
    return default_generator.manual_seed(seed)


def seed() -> int:
    return default_generator.seed()


def initial_seed() -> int:
    return default_generator.initial_seed()


def rng(generator: Generator | None = None) -> np.random.Generator:
    """The numpy generator to draw from: `generator`'s, else the default one."""
    return (generator or default_generator).rng
