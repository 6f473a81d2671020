"""Containers: `Sequential`, `ModuleList`, `ModuleDict` (submodules named "0", "1", ...)."""

from __future__ import annotations

import operator
from collections import OrderedDict
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from frontend.torch.nn.module import Module, _addindent


def _position(index: Any, length: int) -> int:
    position = operator.index(index)
    if not -length <= position < length:
        raise IndexError(f"index {position} is out of range")
    return position % length


class Sequential(Module):
    """Calls its modules in order: `Sequential(a, b)` or `Sequential(OrderedDict(name=a, ...))`."""

    def __init__(self, *modules: Any) -> None:
        super().__init__()
        if len(modules) == 1 and isinstance(modules[0], OrderedDict):
            for name, module in modules[0].items():
                self.add_module(name, module)
        else:
            for index, module in enumerate(modules):
                self.add_module(str(index), module)

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return Sequential(OrderedDict(list(self._modules.items())[index]))
        return list(self._modules.values())[_position(index, len(self))]

    def __setitem__(self, index: int, module: Module) -> None:
        key = list(self._modules)[_position(index, len(self))]
        self.add_module(key, module)

    def __delitem__(self, index: int) -> None:
        key = list(self._modules)[_position(index, len(self))]
        del self._modules[key]

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Module]:
        return iter(m for m in self._modules.values() if m is not None)

    def append(self, module: Module) -> Sequential:
        self.add_module(str(len(self)), module)
        return self

    def forward(self, input: Any) -> Any:
        for module in self:
            input = module(input)
        return input


class ModuleList(Module):
    """A list of submodules, registered so that parameters and `state_dict` see them."""

    def __init__(self, modules: Iterable[Module] | None = None) -> None:
        super().__init__()
        if modules is not None:
            self.extend(modules)

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return ModuleList(list(self._modules.values())[index])
        return self._modules[str(_position(index, len(self)))]

    def __setitem__(self, index: int, module: Module) -> None:
        self.add_module(str(_position(index, len(self))), module)

    def __delitem__(self, index: int) -> None:
        modules = list(self._modules.values())
        del modules[_position(index, len(self))]
        self._modules.clear()
        self.extend(modules)  # type: ignore[arg-type]

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Module]:
        return iter(m for m in self._modules.values() if m is not None)

    def append(self, module: Module) -> ModuleList:
        self.add_module(str(len(self)), module)
        return self

    def extend(self, modules: Iterable[Module]) -> ModuleList:
        for module in modules:
            self.append(module)
        return self

    def insert(self, index: int, module: Module) -> None:
        modules = list(self._modules.values())
        modules.insert(index, module)
        self._modules.clear()
        self.extend(modules)  # type: ignore[arg-type]

    def __repr__(self) -> str:
        """Like torch: runs of equal submodules print once, as `(0-2): 3 x Linear(...)`."""
        reprs = [repr(m) for m in self]
        if not reprs:
            return self._get_name() + "()"
        runs: list[list[Any]] = [[0, 0, reprs[0]]]
        for i, text in enumerate(reprs[1:], 1):
            if text == runs[-1][2]:
                runs[-1][1] = i
            else:
                runs.append([i, i, text])
        lines = [
            _addindent(f"({a}): {t}" if a == b else f"({a}-{b}): {b - a + 1} x {t}", 2)
            for a, b, t in runs
        ]
        return self._get_name() + "(\n  " + "\n  ".join(lines) + "\n)"


class ModuleDict(Module):
    """Submodules by name, in insertion order."""

    def __init__(self, modules: Mapping[str, Module] | None = None) -> None:
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key: str) -> Module:
        return self._modules[key]  # type: ignore[return-value]

    def __setitem__(self, key: str, module: Module) -> None:
        self.add_module(key, module)

    def __delitem__(self, key: str) -> None:
        del self._modules[key]

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[str]:
        return iter(self._modules)

    def __contains__(self, key: str) -> bool:
        return key in self._modules

    def keys(self) -> Iterable[str]:
        return self._modules.keys()

    def items(self) -> Iterable[tuple[str, Module | None]]:
        return self._modules.items()

    def values(self) -> Iterable[Module | None]:
        return self._modules.values()

    def update(self, modules: Mapping[str, Module]) -> None:
        for key, module in modules.items():
            self.add_module(key, module)
