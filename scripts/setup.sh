#!/usr/bin/env bash
# Creates .venv (if missing) and installs tsjit with its test dependencies, pinned in pyproject.toml.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x .venv/bin/python ]; then
    python3.11 -m venv .venv 2>/dev/null || python3 -m venv .venv
fi
stamp=.venv/.tsjit-installed
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ]; then
    .venv/bin/python -m pip install --quiet --upgrade pip
    .venv/bin/python -m pip install --quiet -e '.[test]'
    touch "$stamp"
fi
