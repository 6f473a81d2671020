# RUN: python -m frontend %s:Gated --emit=loops --args 'f32[4,4],f32[4],f32[?,4]' | filecheck %s
"""A module whose submodule branches: after inlining, the gate's prim.If is an scf.if around
the two parallel loop nests, inside the module's one function."""

from frontend import torch
from frontend.torch import nn


class Gate(nn.Module):
    def forward(self, x):
        if x.sum() > 0:
            return x
        return -x


class Gated(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(4, 4)
        self.gate = Gate()

    def forward(self, x):
        return torch.tanh(self.gate(self.linear(x)))


# CHECK-LABEL: func.func @Gated.forward(%self.linear.weight: memref<4x4xf32>, %self.linear.bias: memref<4xf32>, %x: memref<?x4xf32>)
# CHECK:         scf.for
# CHECK:         arith.cmpf ogt
# CHECK:         scf.if %{{.*}} -> (memref<?x4xf32>) {
# CHECK:           scf.yield
# CHECK:         } else {
# CHECK:           "scf.parallel"
# CHECK:           scf.yield
# CHECK:         }
# CHECK:         "scf.parallel"
# CHECK:         func.return
# CHECK-NOT:   func.func
