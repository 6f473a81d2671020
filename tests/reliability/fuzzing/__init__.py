"""Differential fuzzing of tsjit: random well-typed programs, run compiled and by PyTorch.

- `program.py`: a random program (inputs, statements, `if`/`for`, returns) and its Python
  source, which is what a failure prints.
- `templates.py`: the op calls a program can make, read from the op registry (its Python
  spellings and the argument skeletons of its samples).
- `generator.py`: builds a program statement by statement, running each candidate eagerly
  (PyTorch, else `frontend.torch`) so that every kept statement is valid and numerically
  stable for the chosen inputs.
- `executors.py`: runs a program by the reference, compiled, and with the torch-IR
  interpreter, and compares the results with tolerances by dtype.
- `shrink.py`: makes a failing program smaller while it still fails the same way.
- `__main__.py`: `python -m fuzzing --count N --seed S` (what `scripts/fuzz.sh` runs).
"""
