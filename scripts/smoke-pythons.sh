#!/usr/bin/env bash
# Runs the smoke set (tests/smoke: script, trace, a module, save/load, the CLI, xdsl-opt) on each
# other supported Python that is installed (3.12, 3.13; 3.11 runs the full suite), each in a venv
# of its own (.venv-3.X) without PyTorch. An absent interpreter is reported and skipped.
set -euo pipefail
cd "$(dirname "$0")/.."

find_python() {  # the interpreter for version $1, from PATH or pyenv, else nothing
    if command -v "python$1" >/dev/null 2>&1 && "python$1" --version >/dev/null 2>&1; then
        command -v "python$1"
    elif command -v pyenv >/dev/null 2>&1; then
        local root
        root=$(pyenv root)
        find "$root/versions" -maxdepth 3 -path "*/$1.*/bin/python$1" 2>/dev/null | sort -V | tail -1
    fi
}

for version in 3.12 3.13; do
    python=$(find_python "$version")
    if [ -z "$python" ]; then
        echo "== smoke on Python $version: not installed, skipped"
        continue
    fi
    venv=".venv-$version"
    stamp="$venv/.tsjit-installed"
    if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ]; then
        "$python" -m venv "$venv"
        "$venv/bin/python" -m pip install --quiet --upgrade pip
        "$venv/bin/python" -m pip install --quiet -e . pytest
        touch "$stamp"
    fi
    echo "== smoke on $("$venv/bin/python" --version) (no PyTorch)"
    if "$venv/bin/python" -c "import torch" 2>/dev/null; then
        echo "PyTorch is installed in $venv: the smoke set must run without it" >&2
        exit 1
    fi
    PATH="$PWD/$venv/bin:$PATH" "$venv/bin/python" -m pytest -q -p no:cacheprovider tests/smoke
done
