"""tsjit benchmarks: the workloads of issue 6 vs numpy and PyTorch (`python -m benchmarks`)."""

import os

# The benchmarks time compiled code: every call runs it, compiled first when needed
# (`benchmarks/first_call.py` measures tiered execution with `compile="background"`).
os.environ.setdefault("TSJIT_COMPILE", "now")
