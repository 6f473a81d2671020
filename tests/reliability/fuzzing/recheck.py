"""`python -m fuzzing.recheck FILE...`: run written reproducers again against the current code.

A campaign's reproducers (`seed3_program123.py`) record failures of the code as it was; after
fixes, each is run again in a fresh process (a crash or hang stays contained) and judged like
the campaign judges programs (compiled, then by the torch-IR interpreter): `ok`, `rejected`,
`unlocated`, `crash`, `mismatch`, `interpreter-mismatch` or `invalid` (the reference fails).
Prints one line per file and a count per kind; exits 1 if any failed.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

FAILED = ("crash", "mismatch", "interpreter-mismatch", "unlocated", "hang", "died")
CALL_LINES = ("actual = ", "print(")  # the reproducer's last lines: the tsjit call, the output


def judge(path: Path) -> dict[str, str]:
    """Run the reproducer at `path` in this process: {"kind": ..., "detail": ...}."""
    import warnings

    import numpy as np

    from fuzzing.executors import (
        FLOAT32_SOURCES,
        FLOAT_LITERAL,
        classify_error,
        describe_error,
        difference,
        is_located,
    )
    from fuzzing.library import eager_library

    source = path.read_text()
    lines = source.splitlines()
    keep = len(lines)
    while keep and lines[keep - 1].startswith(CALL_LINES):
        keep -= 1
    namespace: dict[str, object] = {"__name__": "reproducer", "__file__": str(path)}
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            exec(compile("\n".join(lines[:keep]) + "\n", str(path), "exec"), namespace)
        except Exception as err:
            return {"kind": "invalid", "detail": describe_error(err)}
        import frontend

        lib = eager_library("auto")
        expected = lib.to_numpy(namespace["expected"])
        body = source.partition("def program")[2].partition("\nargs = [")[0]
        integers = "dtype=np.int" in source or "dtype=np.uint" in source
        relaxed = bool(FLOAT32_SOURCES.search(source)) or (
            integers and bool(FLOAT_LITERAL.search(body))
        )
        for backend, wrong in (("compiled", "mismatch"), ("interpreter", "interpreter-mismatch")):
            try:
                function = frontend.script(namespace["program"], backend=backend)  # type: ignore[arg-type]
                actual = function(*namespace["args"])  # type: ignore[operator]
            except Exception as err:
                kind = classify_error(err)
                if backend == "interpreter":
                    kind = "interpreter-mismatch"
                elif kind == "rejected" and not is_located(err):
                    kind = "unlocated"
                return {"kind": kind, "detail": describe_error(err)}
            problem = difference(expected, actual, relaxed)
            if problem is not None:
                return {"kind": wrong, "detail": problem}
    return {"kind": "ok", "detail": ""}


def judge_in_subprocess(path: Path, timeout: float) -> dict[str, str]:
    command = [sys.executable, "-m", "fuzzing.recheck", "--one", str(path)]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"kind": "hang", "detail": f"no result after {timeout} s"}
    if done.returncode != 0 or not done.stdout.strip():
        return {"kind": "died", "detail": f"exit {done.returncode}: {done.stderr[-300:]}"}
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m fuzzing.recheck", description=__doc__)
    parser.add_argument("files", nargs="+", type=Path)
    parser.add_argument("--one", action="store_true", help="judge one file in this process")
    parser.add_argument("--timeout", type=float, default=300.0)
    args = parser.parse_args(argv)
    if args.one:
        print(json.dumps(judge(args.files[0])))
        return 0
    counts: Counter[str] = Counter()
    for path in args.files:
        result = judge_in_subprocess(path, args.timeout)
        counts[result["kind"]] += 1
        print(f"{path}: {result['kind']} {result['detail'][:300]}", flush=True)
    print(", ".join(f"{kind}: {n}" for kind, n in sorted(counts.items())))
    return 1 if any(counts[k] for k in FAILED) else 0


if __name__ == "__main__":
    sys.exit(main())
