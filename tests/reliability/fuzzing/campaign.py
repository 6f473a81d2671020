"""A fuzzing campaign: programs `start..start+count` of a seed, checked, failures shrunk.

Program `i` of seed `S` is always the same program (`program_seed(S, i)`), so a report
"seed 7, program 1234" is a reproducer by itself. Each result is appended to a JSON-lines
log as soon as it is known; `run_in_workers` runs chunks in fresh processes (compiled code
piles up in one process) and records a program that hangs as `hang`.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from fuzzing.executors import Outcome, check_program
from fuzzing.generator import ProgramGenerator
from fuzzing.library import Eager, eager_library
from fuzzing.program import Program, reproducer
from fuzzing.shrink import shrink
from fuzzing.templates import Template, registry_templates


def program_seed(seed: int, index: int) -> int:
    return seed * 1_000_003 + index


def make_program(seed: int, index: int, lib: Eager, templates: list[Template]) -> Program:
    return ProgramGenerator(lib, program_seed(seed, index), templates).generate()


FAILURES = ("crash", "mismatch", "interpreter-mismatch", "unlocated", "hang", "died")


@dataclass
class Summary:
    counts: Counter[str] = field(default_factory=Counter)
    rejected: Counter[str] = field(default_factory=Counter)
    failures: list[tuple[int, str, str]] = field(default_factory=list)  # index, kind, file

    def add(self, record: dict[str, object]) -> None:
        kind = str(record["kind"])
        self.counts[kind] += 1
        if kind == "rejected":
            self.rejected[str(record["detail"]).split("\n")[0][:160]] += 1
        if record.get("reproducer"):
            self.failures.append((int(record["index"]), kind, str(record["reproducer"])))  # type: ignore[call-overload]

    def text(self, seed: int) -> str:
        total = sum(self.counts.values())
        failed = sum(self.counts[k] for k in FAILURES)
        lines = [f"ran {total} programs with seed {seed}: {failed} failures"]
        lines += [f"  {kind}: {n}" for kind, n in sorted(self.counts.items())]
        if self.rejected:
            lines.append("  most common rejections (tsjit gives a clear error, PyTorch runs it):")
            lines += [f"    {n:5d}  {m}" for m, n in self.rejected.most_common(12)]
        lines += [f"  program {i}: {kind}, reproducer {path}" for i, kind, path in self.failures]
        return "\n".join(lines)


def run_chunk(
    seed: int, start: int, count: int, log: Path, out: Path, library: str = "auto",
    shrink_budget: int = 150, max_shrinks: int = 3, verbose: bool = False,
) -> Summary:  # fmt: skip
    """Check programs `start..start+count-1` in this process; one JSON line per program.

    The first `max_shrinks` failures are shrunk (minutes each); later ones are written as
    generated (`python -m fuzzing --start I --count 1` shrinks program I alone)."""
    lib = eager_library(library)
    templates = registry_templates(lib.torch, lib.functional)
    summary = Summary()
    for index in range(start, start + count):
        began = time.monotonic()
        _note(log, {"index": index, "kind": "started"})
        try:
            program = make_program(seed, index, lib, templates)
        except Exception as err:  # a bug of the fuzzer itself: recorded, not a tsjit failure
            record = {"index": index, "kind": "generator-error", "detail": repr(err)}
            _note(log, record)
            summary.add(record)
            continue
        outcome = check_program(program, lib)
        record: dict[str, object] = {"index": index, "kind": outcome.kind, "detail": outcome.detail}
        if outcome.failed:
            shrunk = sum(1 for _, kind, _ in summary.failures if kind != "hang")
            budget = shrink_budget if shrunk < max_shrinks else 0
            small = shrink(program, lib, outcome, budget) if budget else program
            record["reproducer"] = str(write_reproducer(out, seed, index, small, outcome))
        record["seconds"] = round(time.monotonic() - began, 2)
        _note(log, record)
        summary.add(record)
        if verbose:
            print(f"program {index}: {outcome.kind} ({record['seconds']} s) {outcome.detail[:200]}")
    return summary


def write_reproducer(out: Path, seed: int, index: int, program: Program, outcome: Outcome) -> Path:
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"seed{seed}_program{index}.py"
    note = f"tsjit fuzz seed {seed} program {index}: {outcome.kind}\n{outcome.detail}"
    path.write_text(reproducer(program, note))
    return path


def _note(log: Path, record: dict[str, object]) -> None:
    with log.open("a") as file:
        file.write(json.dumps(record) + "\n")


def run_in_workers(
    seed: int, start: int, count: int, out: Path, chunk: int = 200, library: str = "auto",
    hang_seconds: float = 600.0, verbose: bool = False,
) -> Summary:  # fmt: skip
    """Like `run_chunk`, with each chunk in a fresh process. A program after which the worker
    falls silent for `hang_seconds` is a `hang`; one during which it dies is `died`. Results
    already in the log (an interrupted campaign) are not run again."""
    out.mkdir(parents=True, exist_ok=True)
    log = out / f"seed{seed}.jsonl"
    wanted = range(start, start + count)
    while todo := sorted(set(wanted) - _finished(log)):
        size = min(chunk, wanted.stop - todo[0])
        killed, returncode = _run_worker(
            seed, todo[0], size, log, out, library, hang_seconds, verbose
        )
        stuck = _last_started(log)
        if stuck is not None and stuck not in _finished(log) and (killed or returncode):
            kind, detail = (
                ("hang", f"no result after {hang_seconds} s")
                if killed
                else ("died", f"the worker process exited with {returncode}")
            )
            _note(log, {"index": stuck, "kind": kind, "detail": detail})
    summary = Summary()
    for record in _results(log).values():
        if int(record["index"]) in wanted:  # type: ignore[call-overload]
            summary.add(record)
    return summary


def _run_worker(
    seed: int, start: int, count: int, log: Path, out: Path, library: str,
    hang_seconds: float, verbose: bool,
) -> tuple[bool, int]:  # fmt: skip
    """Run one chunk: (whether it was killed as hung, its exit code)."""
    command = [
        sys.executable, "-m", "fuzzing", "--seed", str(seed), "--start", str(start),
        "--count", str(count), "--out", str(out), "--library", library, "--in-process",
    ] + (["--verbose"] if verbose else [])  # fmt: skip
    worker = subprocess.Popen(command, stdout=None if verbose else subprocess.DEVNULL)
    last_size = log.stat().st_size if log.exists() else 0
    quiet_since = time.monotonic()
    while worker.poll() is None:
        time.sleep(1)
        size = log.stat().st_size if log.exists() else 0
        if size != last_size:
            last_size, quiet_since = size, time.monotonic()
        elif time.monotonic() - quiet_since > hang_seconds:
            worker.kill()
            worker.wait()
            return True, worker.returncode
    return False, worker.returncode


def _last_started(log: Path) -> int | None:
    started = [r for r in _records(log) if r["kind"] == "started"]
    return int(started[-1]["index"]) if started else None  # type: ignore[call-overload]


def _records(log: Path) -> list[dict[str, object]]:
    if not log.exists():
        return []
    return [json.loads(line) for line in log.read_text().splitlines() if line.strip()]


def _results(log: Path) -> dict[int, dict[str, object]]:
    """The first result of each program in the log."""
    results: dict[int, dict[str, object]] = {}
    for record in _records(log):
        if record["kind"] != "started":
            results.setdefault(int(record["index"]), record)  # type: ignore[call-overload]
    return results


def _finished(log: Path) -> set[int]:
    return set(_results(log))
