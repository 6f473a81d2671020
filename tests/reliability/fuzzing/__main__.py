"""`python -m fuzzing --count N --seed S`: check N random programs, print a summary.

Failures are shrunk and written as standalone reproducers to `--out` (with a JSON-lines log
of every result, so an interrupted campaign resumes where it stopped).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from fuzzing.campaign import FAILURES, run_chunk, run_in_workers


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m fuzzing", description=__doc__)
    parser.add_argument("--count", type=int, default=100, help="programs to check")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--start", type=int, default=0, help="first program index")
    parser.add_argument("--out", type=Path, default=Path("fuzz-results"))
    parser.add_argument(
        "--library",
        choices=["auto", "torch", "frontend"],
        default="auto",
        help="the eager reference: PyTorch, frontend.torch, or PyTorch if installed",
    )
    parser.add_argument("--chunk", type=int, default=200, help="programs per worker process")
    parser.add_argument("--hang-seconds", type=float, default=600.0)
    parser.add_argument("--in-process", action="store_true", help="no worker processes")
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args(argv)
    if args.in_process:
        args.out.mkdir(parents=True, exist_ok=True)
        log = args.out / f"seed{args.seed}.jsonl"
        summary = run_chunk(args.seed, args.start, args.count, log, args.out, args.library,
                            verbose=args.verbose)  # fmt: skip
    else:
        summary = run_in_workers(args.seed, args.start, args.count, args.out, args.chunk,
                                 args.library, args.hang_seconds, args.verbose)  # fmt: skip
    print(summary.text(args.seed))
    return 1 if any(summary.counts[k] for k in FAILURES) else 0


if __name__ == "__main__":
    sys.exit(main())
