#!/usr/bin/env bash
# Sets up (if needed) and runs the demo: a seed example compiled, its IR at every stage, checked.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
exec .venv/bin/python examples/demo.py
