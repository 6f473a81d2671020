#!/usr/bin/env bash
# Sets up (if needed) and runs every check: ruff, lit (IR at every stage), pytest (numerics).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
export PATH="$PWD/.venv/bin:$PATH"
export TSJIT_CACHE_DIR="${TSJIT_CACHE_DIR:-$(mktemp -d -t tsjit-check-XXXXXX)}"
export TSJIT_COMPILE=now  # every call runs compiled code: the checks test the compiler
echo "== ruff"
ruff check .
echo "== lit"
lit -q tests/lit
echo "== pytest (one worker per core: the suite is numba compiles, single-threaded each)"
python -m pytest -n auto
echo "== smoke set on the other supported Pythons (3.12, 3.13), without PyTorch"
scripts/smoke-pythons.sh
