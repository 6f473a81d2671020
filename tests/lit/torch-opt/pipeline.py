# RUN: python -m frontend %s:shape_loop --emit=torch-opt --args 'f32[?,3]' | filecheck %s --check-prefix=SHAPE
# RUN: python -m frontend %s:identities --emit=torch-opt --args 'f32[?],int' | filecheck %s --check-prefix=IDENT
# RUN: python -m frontend %s:constant_branch --emit=torch-opt --args 'f32[?]' | filecheck %s --check-prefix=BRANCH
"""The default torch-opt stage: after type refinement the program is canonicalized, small
constant loops are unrolled, and dead code goes."""

from frontend import torch


# x.dim() and x.size(1) are known from the signature: the loop over the columns has 3
# iterations and becomes straight-line code; `* 0` stays (it is not an identity).
# SHAPE-LABEL: func.func @shape_loop
# SHAPE-NOT:     torch.prim.Loop
# SHAPE-NOT:     torch.aten.dim
# SHAPE-COUNT-3: torch.aten.select.int %x, %int1
# SHAPE-NOT:     torch.aten.select.int
# SHAPE:         func.return %{{.*}}, %int2
def shape_loop(x):
    acc = x[:, 0] * 0.0
    for j in range(x.shape[1]):
        acc = acc + x[:, j]
    return acc, x.dim()


# IDENT-LABEL: func.func @identities
# IDENT-NOT:     torch.aten.mul.Scalar
# IDENT-NOT:     torch.aten.add.Scalar
# IDENT:         %[[T:.*]] = torch.aten.tanh %x
# IDENT:         %[[K:.*]] = torch.aten.mul.int %n, %int3
# IDENT-NEXT:    func.return %[[T]], %[[K]]
def identities(x, n: int):
    y = torch.tanh(x * 1 + 0)
    k = n * (2 + 1)
    return y / 1.0, k


# BRANCH-LABEL: func.func @constant_branch
# BRANCH-NOT:    torch.prim.If
# BRANCH:        torch.aten.exp %x
# BRANCH-NOT:    torch.aten.tanh
def constant_branch(x):
    n = 4
    if n % 2 == 0:
        y = torch.exp(x)
    else:
        y = torch.tanh(x)
    return y
