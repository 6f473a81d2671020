"""Scripting: Python source (`ast`) -> a torch-dialect `func.func` (stage `torch`).

**Expects:** a Python function (or an `nn.Module`'s methods) whose source `inspect` can read,
written in the script language of `docs/script-language.md`.
**Produces:** a `builtin.module` with one `func.func` per scripted function: torch-dialect ops
as captured (types may be unknown, `!torch.vtensor<*,unk>`), calls between them as
`func.call`. Anything outside the language raises a `ScriptError` at its source line.

`scripter.py` walks one function: `FunctionScripter` holds the function's state (variables,
IR builder, frames, source) and one collaborator object per concern, each in its own file and
each reached by name from the others, `self.scripter.<concern>.<method>(...)`:
`parameters` (the signature), `statements` and `expressions` (dispatch by `ast` kind),
`call_sites` (what a call reaches), `ops` (`op_calls.py`: emitting torch ops), `calls`
(scripted callees, ignored Python calls, traced graphs), `modules` (`self`), `values`
(variables, scalars, builtins, shapes, indexing), `operators`, `control` (`if`, `and`/`or`,
statement lists and exits), `loops`, `iteration` (run-time sequences), `grown_lists`,
`concatenation`, `starred`, `stores` (`assign_into.py`), `dicts`, `shape_lists`,
`tensor_methods`, `lambdas`, `raising`, `random` (`random_tensors.py`) and `printing`.
`collaborator.py` is their base; `value_kinds.py` the compile-time values they share
(`ShapeValue`, `PyObject`, `ModuleValue`, ...). The package imports nothing of the public API:
`frontend/entry_points.py` builds `ScriptFunction`s and `ScriptModule`s from it.
"""
