# RUN: python %s | filecheck %s
# Calls resolve by object identity: frontend.torch, numpy and operators give the same ops.
import numpy as np

import frontend
from frontend import torch
from frontend.torch.nn import functional as F


def mixed(x, y):
    a = np.tanh(x) + torch.relu(y)
    b = F.relu(a) - 1.5
    c = 2 - b
    return x @ y, c.sum(), torch.max(c, 0)


print(frontend.script(mixed).graph)
# CHECK-LABEL: func.func @mixed(%x: !torch.vtensor<*,unk>, %y: !torch.vtensor<*,unk>)
# CHECK: %[[T:.*]] = torch.aten.tanh %x
# CHECK: %[[R:.*]] = torch.aten.relu %y
# CHECK: %a = torch.aten.add.Tensor %[[T]], %[[R]], %int1
# CHECK: %[[F:.*]] = torch.aten.relu %a
# CHECK: %b = torch.aten.sub.Scalar %[[F]], %float, %int1
# CHECK: %c = torch.aten.rsub.Scalar %b, %int2, %int1
# CHECK: torch.aten.matmul %x, %y
# CHECK: torch.aten.sum %c, %none
# CHECK: torch.aten.max.dim %c, %int0, %false
# CHECK: func.return
