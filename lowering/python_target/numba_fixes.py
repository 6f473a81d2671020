"""Fixes for numba bugs that make generated code compute wrong results.

Every generated module calls `apply()` in its header, before any of its functions compiles.
Each fix replaces a numba function only while numba still has the bug (recognized in its
source), so a numba release that fixes it runs unchanged.

## Array analysis equates sizes that differ by twice an offset (numba 0.68.1)

With `parallel=True`, numba's array analysis records sizes defined as another size plus a
constant (`SymbolicEquivSet.def_by`: `m = n + c` as `(n, c)`, and `ref_by[n]`: `(m, -c)`).
When two sizes become equal, `SymbolicEquivSet._insert` also equates their relatives at the
same offsets; for the entries of `ref_by` it uses the offset with the wrong sign, so it takes
`n + 1` for `n - 1`. Once a size has relatives on both sides (a padded `n + 2`, and `n - 1`
on the way to a conv output `n + 2 - 2 - 1 + 1`), the classes collapse: `n + 2` is taken
for `n`, and a loop over the `n`-sized array indexes it with the padded array's strides. The
MNIST CNN (padding 1) left unwritten garbage in its results on its `prange` variant; in
plain numba:

```
v3 = n + 1; v4 = v3 + 1; a = np.empty((b, v4)); v9 = n - 1; v10 = v9 + 1
c = np.empty((b, v10)); for i in prange(b): (fill a[i]); for j in range(v10): c[i, j] = ...
```
wrote `c[i, j]` at `i * (n + 2) + j`. The fix is that one sign.
"""

from __future__ import annotations

import functools
import inspect
from typing import Any

BUGGY_LINE = "get_or_set(offset_dict, offset).append(name)"


@functools.cache
def apply() -> tuple[str, ...]:
    """Installs the fixes numba still needs (once per process); returns their names."""
    from numba.parfors import array_analysis

    applied = []
    equiv_set = array_analysis.SymbolicEquivSet
    if has_line(equiv_set._insert, BUGGY_LINE):
        equiv_set._insert = _symbolic_insert
        applied.append("SymbolicEquivSet._insert")
    return tuple(applied)


def has_line(function: Any, line: str) -> bool:
    """Whether `function`'s source holds `line`; True when the source cannot be read (an
    installation without .py files): the fix is then the safer guess."""
    try:
        return line in inspect.getsource(function)
    except (OSError, TypeError):
        return True


def _symbolic_insert(self: Any, objs: list[Any]) -> bool:
    """numba 0.68.1's `SymbolicEquivSet._insert` with the sign of `ref_by` offsets fixed.

    Makes `objs` equivalent, then the objects at equal offsets from them: `def_by[x] =
    (name, c)` puts `name` at `-c` from the class (and its relatives `ref_by[name]`), and
    `ref_by[x]` entries `(name, c)`, which mean `name = x - c`, put `name` at `-c`.
    Returns whether anything changed.
    """
    from numba.parfors.array_analysis import SymbolicEquivSet

    indices: set[int] = set()
    unique: set[Any] = set()
    for obj in objs:
        index = self._get_ind(obj)
        if index == -1:
            unique.add(obj)
        elif index not in indices:
            unique.add(obj)
            indices.add(index)
    if len(unique) <= 1:
        return False
    unique_list = list(unique)
    super(SymbolicEquivSet, self)._insert(unique_list)
    at_offset: dict[int, list[Any]] = {}
    for obj in self.ind_to_obj[self._get_ind(unique_list[0])]:
        value = self.def_by.get(obj)
        if isinstance(value, tuple):
            name, offset = value
            at_offset.setdefault(-offset, []).append(name)
            for relative, rel_offset in self.ref_by.get(name, ()):
                at_offset.setdefault(-(offset + rel_offset), []).append(relative)
        for name, offset in self.ref_by.get(obj, ()):
            at_offset.setdefault(-offset, []).append(name)  # numba: `offset`
    for names in at_offset.values():
        self._insert(names)
    return True
