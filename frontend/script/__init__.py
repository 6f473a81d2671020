"""Scripting: Python source (`ast`) -> a torch-dialect `func.func` (stage `torch`).

**Expects:** a Python function (or an `nn.Module`'s methods) whose source `inspect` can read,
written in the script language of `docs/script-language.md`.
**Produces:** a `builtin.module` with one `func.func` per scripted function: torch-dialect ops
as captured (types may be unknown, `!torch.vtensor<*,unk>`), calls between them as
`func.call`. Anything outside the language raises a `ScriptError` at its source line.

`entry_points.py` builds functions and module methods; `scripter.py` walks one function.
"""
