"""Tracing: run a function or module once on example inputs and record its ops (stage `torch`).

**Expects:** a Python callable written with `frontend.torch` or real PyTorch, and example
inputs. **Produces:** the same kind of module as scripting, with every dim and type of the
example inputs known except those marked dynamic; Python control flow is baked in
(`TracerWarning` where a value read in Python makes the graph input-specific; `check_trace`
compares with other inputs).

`tracer.py` is the entry; `recorder.py` records ops; `torch_tensors.py` traces real PyTorch
tensors through `__torch_function__`.
"""
