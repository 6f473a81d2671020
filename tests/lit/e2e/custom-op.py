# RUN: python -m frontend %s:f --emit=torch | filecheck %s --check-prefix=TORCH
# RUN: python -m frontend %s:f --emit=linalg | filecheck %s --check-prefix=LINALG
# RUN: python -m frontend %s:f --emit=memref | filecheck %s --check-prefix=MEMREF
# RUN: python -m frontend %s:f --emit=python | filecheck %s --check-prefix=PYTHON
# A custom op at each stage: a destination-passing call of its kernel from `linalg` down.
import frontend
from frontend import ops


def axpb_kernel(x, a, b, out):
    for i in range(x.shape[0]):
        out[i] = a * x[i] + b


frontend.library("lit_ops").define(
    "axpb(Tensor x, float a, int b) -> Tensor",
    eager=lambda x, a, b: a * x + b,
    shape=lambda x, a, b: x,
    kernel=axpb_kernel,
)


def f(x):
    return ops.lit_ops.axpb(x, 2, 3) - ops.lit_ops.axpb(x, 0.5, 1)


# An int constant where the schema takes a float is that float, as in PyTorch.
# TORCH: %{{.*}} = torch.lit_ops.axpb %x, %float, %int3 : !torch.vtensor<*,unk>, !torch.float, !torch.int -> !torch.vtensor<*,unk>

# The scalars take their schema types; CSE gives both calls one `tensor.empty`.
# LINALG: func.func private @lit_ops.axpb(tensor<?xf32>, f64, i64, tensor<?xf32>) -> tensor<?xf32> attributes {tsjit.kernel = "lit_ops.axpb"}
# LINALG: func.func @f(%x: tensor<?xf32>)
# LINALG-DAG: %[[TWO:.*]] = arith.constant 2.000000e+00 : f64
# LINALG-DAG: %[[THREE:.*]] = arith.constant 3 : i64
# LINALG: %[[OUT:.*]] = tensor.empty(%{{.*}}) : tensor<?xf32>
# LINALG: func.call @lit_ops.axpb(%x, %[[TWO]], %[[THREE]], %[[OUT]]) : (tensor<?xf32>, f64, i64, tensor<?xf32>) -> tensor<?xf32>
# LINALG: func.call @lit_ops.axpb(%x, %{{.*}}, %{{.*}}, %[[OUT]])

# Bufferization gives each call its own buffer and drops the call results.
# MEMREF: func.func private @lit_ops.axpb(memref<?xf32>, f64, i64, memref<?xf32>) -> () attributes {tsjit.kernel = "lit_ops.axpb"}
# MEMREF: %[[FIRST:.*]] = memref.alloc(%{{.*}}) : memref<?xf32>
# MEMREF-NEXT: %[[SECOND:.*]] = memref.alloc(%{{.*}}) : memref<?xf32>
# MEMREF-NEXT: func.call @lit_ops.axpb(%x, %{{.*}}, %{{.*}}, %[[SECOND]]) : (memref<?xf32>, f64, i64, memref<?xf32>) -> ()
# MEMREF: func.call @lit_ops.axpb(%x, %{{.*}}, %{{.*}}, %[[FIRST]]) : (memref<?xf32>, f64, i64, memref<?xf32>) -> ()

# PYTHON: from lowering.run.custom_kernels import kernel as tsjit_kernel
# PYTHON: lit_ops_axpb = tsjit_kernel("lit_ops.axpb", "{{[0-9a-f]+}}")
# PYTHON: def f_serial(x):
# PYTHON: lit_ops_axpb(x, np.float64(2.0), np.int64(3), [[A:v[0-9]+]])
# PYTHON: lit_ops_axpb(x, np.float64(0.5), np.int64(1), [[B:v[0-9]+]])
# PYTHON: = [[A]][i0]
