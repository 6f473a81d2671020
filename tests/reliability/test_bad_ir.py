"""Malformed IR (corpus/bad_ir.mlir) gives a diagnostic, never an internal error or a hang.

Each chunk is parsed, verified, and lowered from its stage through every later pass and the
python target, in a worker thread with a time limit. The error must be a parse error (at
the marked line), a verifier diagnostic, or a failing pass (PipelineError) whose cause is
not an internal error; its message must match the chunk's `// error:` regex. A few chunks
also go through the real `xdsl-opt` command line (the xDSL plugin; its diagnostics flags
print parse and verifier errors, without them xDSL itself shows a traceback).
"""

from __future__ import annotations

import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from corpus_cases import CORPUS
from reliability_helpers import INTERNAL_ERRORS, internal_cause, within
from xdsl.parser import Parser
from xdsl.utils.exceptions import DiagnosticException, ParseError

from lowering.contracts import ContractError
from lowering.pipeline import CONTRACTS, PipelineError, Stage, make_context, stage_passes

SEPARATOR = "// -----"


@dataclass(frozen=True)
class Chunk:
    index: int
    text: str
    message: str
    stage: Stage
    line: int | None  # the line (within the chunk) a parse error must name

    @property
    def name(self) -> str:
        found = re.search(r"@(\w+)", self.text)
        return f"{self.index}-{found.group(1) if found else 'module'}"


def read_chunks(path: Path) -> list[Chunk]:
    chunks = []
    for index, text in enumerate(path.read_text().split(SEPARATOR)[1:]):
        message = re.search(r"^// error: (.*)$", text, re.M)
        assert message is not None, f"chunk {index} has no `// error:` line"
        stage = re.search(r"^// stage: (\S+)$", text, re.M)
        lines = text.splitlines()
        marked = [i + 1 for i, line in enumerate(lines) if line.rstrip().endswith("// <-- here")]
        chunks.append(
            Chunk(index, text, message.group(1), Stage.parse(stage.group(1) if stage else "torch"),
                  marked[0] if marked else None)
        )  # fmt: skip
    return chunks


CHUNKS = read_chunks(CORPUS / "bad_ir.mlir")


def compile_chunk(chunk: Chunk) -> None:
    """Parse, verify, run the passes after the chunk's stage, and emit Python."""
    from lowering.python_target import emit_python

    ctx = make_context()
    module = Parser(ctx, chunk.text, "chunk.mlir").parse_module()
    module.verify()
    for stage in list(Stage)[chunk.stage.index + 1 : Stage.LOOPS.index + 1]:
        for pass_ in stage_passes(stage, ""):
            pass_.apply(ctx, module)  # a failing pass raises its own error (checked below)
        CONTRACTS[stage](module)
        module.verify()
    emit_python(module)


def test_corpus_is_large_enough() -> None:
    assert len(CHUNKS) >= 50


@pytest.mark.parametrize("chunk", CHUNKS, ids=[c.name for c in CHUNKS])
def test_malformed_ir_gives_a_diagnostic(chunk: Chunk) -> None:
    with pytest.raises(Exception) as caught:  # noqa: PT011  (the kinds are checked below)
        within(30, lambda: compile_chunk(chunk))
    error = caught.value
    assert not isinstance(error, INTERNAL_ERRORS), f"internal error: {error!r}"
    assert internal_cause(error) is None, f"internal error inside: {internal_cause(error)!r}"
    # xDSL's own memref.load verifier raises a bare Exception with a clear message
    diagnostics = (ParseError, DiagnosticException, PipelineError, ContractError, ValueError,
                   TypeError)  # fmt: skip
    assert isinstance(error, diagnostics) or type(error) is Exception, f"{error!r}"
    assert re.search(chunk.message, str(error)), str(error)
    if chunk.line is not None and isinstance(error, ParseError):
        assert f"chunk.mlir:{chunk.line}:" in str(error), str(error)


XDSL_OPT_CASES = [c for c in CHUNKS if c.index in (0, 3, 27, 29, 44, 48)]


@pytest.mark.parametrize("chunk", XDSL_OPT_CASES, ids=[c.name for c in XDSL_OPT_CASES])
def test_xdsl_opt_reports_without_traceback(chunk: Chunk, tmp_path: Path) -> None:
    source = tmp_path / "chunk.mlir"
    source.write_text(chunk.text)
    xdsl_opt = Path(sys.executable).parent / "xdsl-opt"
    passes = "torch-refine-types,convert-torch-to-linalg"
    command = [str(xdsl_opt), str(source), "--parsing-diagnostics", "--verify-diagnostics"]
    run = subprocess.run(command + ["-p", passes], capture_output=True, text=True, timeout=120)
    assert "Traceback" not in run.stderr, run.stderr
    assert re.search(chunk.message, run.stderr + run.stdout)
