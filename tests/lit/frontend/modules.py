# RUN: python %s | filecheck %s
"""Scripted modules: parameters are leading arguments named by path, submodules and methods are
callees (`func.call`), containers are unrolled, and `torch-inline` leaves one function."""

import torch
from torch import nn

import frontend


class MyDecisionGate(nn.Module):
    def forward(self, x):
        if x.sum() > 0:
            return x
        else:
            return -x


class MyCell(nn.Module):
    def __init__(self):
        super().__init__()
        self.dg = MyDecisionGate()
        self.linear = nn.Linear(4, 4)

    def forward(self, x, h):
        new_h = torch.tanh(self.dg(self.linear(x)) + h)
        return new_h, new_h


# CHECK:      RecursiveScriptModule(original_name=MyCell
# CHECK-NEXT:   (dg): RecursiveScriptModule(original_name=MyDecisionGate)
# CHECK-NEXT:   (linear): RecursiveScriptModule(original_name=Linear))
cell = frontend.script(MyCell())
print(cell)

# CHECK-LABEL: func.func @MyCell.forward(%self.linear.weight: !torch.vtensor<[4,4],f32>, %self.linear.bias: !torch.vtensor<[4],f32>, %x: !torch.vtensor<*,unk>, %h: !torch.vtensor<*,unk>)
# CHECK:         %[[L:.*]] = func.call @Linear.forward(%self.linear.weight, %self.linear.bias, %x)
# CHECK:         %[[G:.*]] = func.call @MyDecisionGate.forward(%[[L]])
# CHECK:         %[[T:.*]] = torch.aten.tanh
# CHECK:         func.return %[[T]], %[[T]]
# CHECK-LABEL: func.func @Linear.forward(%self.weight: !torch.vtensor<[4,4],f32>, %self.bias: !torch.vtensor<[4],f32>, %input: !torch.vtensor<*,unk>)
# CHECK:         torch.aten.linear %input, %self.weight, %self.bias
# CHECK-LABEL: func.func @MyDecisionGate.forward(%x: !torch.vtensor<*,unk>)
# CHECK:         torch.aten.Bool.Tensor
# CHECK:         torch.prim.If
print(cell.graph)

# After torch-opt the callees are inlined into one function with known types.
# CHECK-LABEL: func.func @MyCell.forward(%self.linear.weight: !torch.vtensor<[4,4],f32>, %self.linear.bias: !torch.vtensor<[4],f32>, %x: !torch.vtensor<[?,4],f32>, %h: !torch.vtensor<[?,4],f32>)
# CHECK-NOT:     func.call
# CHECK:         torch.aten.linear %x, %self.linear.weight, %self.linear.bias : {{.*}} -> !torch.vtensor<[?,4],f32>
# CHECK:         torch.prim.If
# CHECK-NOT:   func.func
print(cell.ir("torch-opt", "f32[4,4],f32[4],f32[?,4],f32[?,4]"))


class Stack(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(2, 2), nn.Linear(2, 2)])
        self.scale = 0.5

    def forward(self, x):
        for layer in self.layers:
            x = x + self.scale * torch.relu(layer(x))
        return x


# A loop over a ModuleList is unrolled; a plain float attribute is a constant.
# CHECK-LABEL: func.func @Stack.forward(%self.layers.0.weight: {{.*}}, %self.layers.0.bias: {{.*}}, %self.layers.1.weight: {{.*}}, %self.layers.1.bias: {{.*}}, %x: !torch.vtensor<*,unk>)
# CHECK-NOT:     torch.prim.Loop
# CHECK:         func.call @Linear.forward(%self.layers.0.weight, %self.layers.0.bias, %x)
# CHECK:         torch.constant.float 5.000000e-01
# CHECK:         func.call @Linear.forward_1(%self.layers.1.weight, %self.layers.1.bias,
print(frontend.script(Stack()).graph)
