#!/usr/bin/env bash
# Differential fuzzing: N random programs (default 1000) of a seed (default 0), each scripted,
# compiled and run against PyTorch eager (frontend.torch without PyTorch) and the torch-IR
# interpreter. Failures are shrunk to standalone reproducers in fuzz-results/ (override with
# FUZZ_OUT); the JSON-lines log there lets an interrupted run resume.
#   scripts/fuzz.sh 10000 7        # extra arguments go to `python -m fuzzing` (--help)
set -euo pipefail
cd "$(dirname "$0")/.."
count="${1:-1000}"
seed="${2:-0}"
shift $(( $# > 2 ? 2 : $# ))
export PATH="$PWD/.venv/bin:$PATH"
export PYTHONPATH="$PWD/tests/reliability${PYTHONPATH:+:$PYTHONPATH}"
cache="$(mktemp -d -t tsjit-fuzz-cache-XXXXXX)"
trap 'rm -rf "$cache"' EXIT
export TSJIT_CACHE_DIR="$cache"
out="${FUZZ_OUT:-fuzz-results}"
python -m fuzzing --count "$count" --seed "$seed" --out "$out" "$@"
