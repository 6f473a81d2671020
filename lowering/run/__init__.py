"""Running generated programs: the module loader and disk cache, the program cache, threads,
and the numba kernel libraries that generated code calls.

Not a stage of the IR: it consumes the python target's text (`lowering/python_target/`).

- `jit.py`: writes each module of a program under its content hash in the cache folder and
  imports it (never `exec`); numba caches next to it.
- `program_cache.py`: a new process finds the program text it generated before for the same
  torch IR, signature and compiler sources, without lowering.
- `program_text.py`: the text of a program as shared modules plus the main module.
- `thread_chunks.py`, `spin_wait.py`: run an outlined loop kernel in one chunk per thread.
- `custom_kernels.py`: the kernel registry: the built-in kernels and those of custom ops, by
  name (what generated code looks up); `kernel.py`: `Kernel`, a built-in kernel's reference
  and numba function.
- `kernels/`: numba kernels of the ops computed outside loops (sorts and scans along a dim,
  `index_put`, batched linear algebra, value-sized results), each file a `KERNELS` tuple.
"""
