# RUN: python -m frontend %s:Gated --emit=loops --args 'f32[4,4],f32[4],f32[?,4]' | filecheck %s
"""A module whose submodule branches: after inlining, the gate's prim.If is an scf.if around
the parallel loop nest of one branch."""

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


# The function is big enough to be a host calling outlined kernels (scf-outline-kernels): the
# gate's condition is computed in it, the scf.if is a kernel of its own.
# CHECK-LABEL: func.func @Gated.forward(%self.linear.weight: memref<4x4xf32>, %self.linear.bias: memref<4xf32>, %x: memref<?x4xf32>) -> memref<?x4xf32> attributes {tsjit.host}
# CHECK:         arith.cmpf ogt
# CHECK:         func.call @Gated.forward.k3(
# CHECK:         func.return
# CHECK:       func.func @Gated.forward.k0(
# CHECK:         "scf.parallel"
# CHECK:       func.func @Gated.forward.k3(%{{.*}}: i1, {{.*}}) -> memref<?x4xf32> attributes {tsjit.outlined}
# CHECK:         scf.if %{{.*}} -> (memref<?x4xf32>) {
# CHECK:           scf.yield
# CHECK:         } else {
# CHECK:           "scf.parallel"
# CHECK:           scf.yield
# CHECK:         }
