# RUN: python %s 2>&1 | filecheck %s
"""Tracing records the ops that ran: the seed's data-dependent `if` is baked in (with a
TracerWarning naming the line), a module's weights become named literals, and the same trace
comes from frontend.torch, numpy and real PyTorch programs."""

import warnings

import numpy as np

import frontend
from frontend import torch

warnings.simplefilter("always")


def test(x):
    if x > 2.0:
        r = 1.0 - x
    else:
        r = 2.0 - x
    return r


# CHECK: trace_seed.py:[[# @LINE - 7]]: TracerWarning: Converting a tensor to a Python boolean
# CHECK-LABEL: func.func @test(%x: !torch.vtensor<[?],f32>) -> !torch.vtensor<[?],f32>
# CHECK-NEXT:    %float = torch.constant.float 2.000000e+00
# CHECK-NEXT:    %int1 = torch.constant.int 1
# CHECK-NEXT:    %0 = torch.aten.rsub.Scalar %x, %float, %int1
# CHECK-NEXT:    func.return %0
print(frontend.trace(test, (torch.ones(1),), check_trace=False).graph)


class Cell(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = torch.nn.Linear(2, 2)

    def forward(self, x, h):
        return torch.tanh(self.linear(x) + h)


cell = Cell()
cell.load_state_dict({"linear.weight": np.eye(2), "linear.bias": np.array([0.5, -1.0])})
# CHECK-LABEL: func.func @Cell.forward(%x: !torch.vtensor<[?,?],f32>, %h: !torch.vtensor<[?,?],f32>) -> !torch.vtensor<[?,2],f32>
# CHECK-NEXT:    %self.linear.weight = torch.vtensor.literal(dense<{{\[\[}}1.000000e+00, 0.000000e+00], [0.000000e+00, 1.000000e+00]]> : tensor<2x2xf32>) : !torch.vtensor<[2,2],f32>
# CHECK-NEXT:    %self.linear.bias = torch.vtensor.literal(dense<[5.000000e-01, -1.000000e+00]> : tensor<2xf32>) : !torch.vtensor<[2],f32>
# CHECK-NEXT:    %0 = torch.aten.linear %x, %self.linear.weight, %self.linear.bias
# CHECK-NEXT:    %int1 = torch.constant.int 1
# CHECK-NEXT:    %1 = torch.aten.add.Tensor %0, %h, %int1
# CHECK-NEXT:    %2 = torch.aten.tanh %1
# CHECK-NEXT:    func.return %2
print(frontend.trace(cell, (torch.rand(3, 2), torch.rand(3, 2)), check_trace=False).graph)


def numpy_cell(x, w):
    return np.tanh(x @ w) - x


# CHECK-LABEL: func.func @numpy_cell(%x: !torch.vtensor<[?,?],f64>, %w: !torch.vtensor<[?,?],f64>)
# CHECK-NEXT:    %0 = torch.aten.matmul %x, %w
# CHECK-NEXT:    %1 = torch.aten.tanh %0
# CHECK-NEXT:    %int1 = torch.constant.int 1
# CHECK-NEXT:    %2 = torch.aten.sub.Tensor %1, %x, %int1
print(frontend.trace(numpy_cell, (np.ones((2, 2)), np.eye(2)), check_trace=False).graph)
