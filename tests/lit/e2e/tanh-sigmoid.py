# RUN: python -m frontend %s:f --emit=torch | filecheck %s --check-prefix=TORCH
# RUN: python -m frontend %s:f --emit=torch-opt --args 'f32[?,4096],f32[4096]' | filecheck %s --check-prefix=OPT
# RUN: python -m frontend %s:f --emit=linalg --args 'f32[?],f32[?]' | filecheck %s --check-prefix=LINALG
# RUN: python -m frontend %s:f --emit=memref | filecheck %s --check-prefix=MEMREF
# RUN: python -m frontend %s:f --emit=loops | filecheck %s --check-prefix=LOOPS
# RUN: python -m frontend %s:f --emit=python | filecheck %s --check-prefix=PYTHON
# The example at every stage, from one command per stage.
from frontend import torch


def f(x, b):
    return torch.tanh(x * 2 + b) * torch.sigmoid(x)


# TORCH: func.func @f(%x: !torch.vtensor<*,unk>, %b: !torch.vtensor<*,unk>)
# TORCH: torch.aten.mul.Scalar %x, %int2
# TORCH: torch.aten.tanh
# TORCH: torch.aten.sigmoid %x
# OPT: torch.aten.add.Tensor {{.*}} -> !torch.vtensor<[?,4096],f32>
# LINALG: linalg.generic
# LINALG-NOT: linalg.generic
# LINALG-NOT: torch.
# MEMREF: func.func @f(%x: memref<?xf32>, %b: memref<?xf32>) -> memref<?xf32>
# MEMREF: memref.alloc
# LOOPS: "scf.parallel"
# LOOPS-NOT: math.tanh
# LOOPS: arith.bitcast
# LOOPS-NOT: linalg.
# PYTHON: @numba.njit(parallel=True, error_model="numpy", fastmath=FASTMATH, cache=True, no_cfunc_wrapper=True)
# PYTHON: def f_parallel(x, b):
# PYTHON: in prange(
# PYTHON: np.float32(2.0)
# PYTHON: def f(x, b):
