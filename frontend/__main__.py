"""`python -m frontend prog.py:fn --emit=<stage> [--args 'f32[?,4],f32[4]']`.

`fn` may be a function, an `nn.Module` instance, or an `nn.Module` class (constructed with no
arguments; its `forward` is shown, parameters first in `--args`)."""

from __future__ import annotations

import argparse
import importlib.util
import sys
from pathlib import Path
from typing import Any

import frontend
from frontend.errors import ScriptError
from frontend.script.modules import is_module_class
from lowering.pipeline import PipelineError, Stage


def load_callable(target: str) -> Any:
    path_text, _, name = target.partition(":")
    path = Path(path_text)
    if not path.is_file() or not name:
        raise SystemExit(f"error: expected FILE.py:FUNCTION, got {target!r}")
    spec = importlib.util.spec_from_file_location(f"_tsjit_cli_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    if not hasattr(module, name):
        raise SystemExit(f"error: {path} has no function {name!r}")
    return getattr(module, name)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m frontend", description=__doc__)
    parser.add_argument("target", help="FILE.py:FUNCTION or FILE.py:MODULE")
    parser.add_argument("--emit", default="torch", choices=[s.value for s in Stage])
    parser.add_argument("--args", default=None,
                        help="argument signature, e.g. 'f32[?,4],f32[4],int' (default: f32[?] "
                        "for each tensor)")  # fmt: skip
    options = parser.parse_args(argv)
    fn = load_callable(options.target)
    try:
        if isinstance(fn, type) and is_module_class(fn):
            fn = fn()  # FILE.py:MyModule scripts a default-constructed instance
        scripted = frontend.script(fn)
        print(scripted.ir(options.emit, options.args), end="")
    except (ScriptError, PipelineError, ValueError, TypeError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
