"""Functions named like the generated modules' own globals (tests/e2e/test_script_api.py)."""

# ruff: noqa: A001  (the point is to shadow these names)


def math(x):
    return x.sum(-1)


def range(x):
    return x - 1


def FASTMATH(x):  # noqa: N802
    return x + 1


def reorderable_add(x):
    return x.sum()


def run_in_chunks(x):
    return x * 4


def ENTRY_POINTS(x):  # noqa: N802
    return x * 2


RESERVED = [math, range, FASTMATH, reorderable_add, run_in_chunks, ENTRY_POINTS]
