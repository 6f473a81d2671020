# RUN: python %s | filecheck %s
"""`if`, loops and the seed programs script to torch.prim.If / torch.prim.Loop (TorchScript's
prim::If / prim::Loop), with tensor conditions through aten.Bool.Tensor."""

import frontend
from frontend import torch


# MyDecisionGate as a plain function: `if x.sum() > 0` is aten.Bool of aten.gt, then prim.If.
# CHECK-LABEL: func.func @decision_gate
# CHECK:         %[[SUM:.*]] = torch.aten.sum %x, %none
# CHECK:         %[[GT:.*]] = torch.aten.gt.Scalar %[[SUM]], %int0
# CHECK:         %[[COND:.*]] = torch.aten.Bool.Tensor %[[GT]] : !torch.vtensor<*,i1> -> !torch.bool
# CHECK:         %[[R:.*]] = torch.prim.If %[[COND]] -> (!torch.vtensor<*,unk>) {
# CHECK-NEXT:      torch.prim.If.yield %x
# CHECK-NEXT:    } else {
# CHECK-NEXT:      %[[NEG:.*]] = torch.aten.neg %x
# CHECK-NEXT:      torch.prim.If.yield %[[NEG]]
# CHECK-NEXT:    }
# CHECK-NEXT:    func.return %[[R]]
def decision_gate(x):
    if x.sum() > 0:
        return x
    else:
        return -x


# The seed `foo`: the merged variable keeps its name.
# CHECK-LABEL: func.func @foo
# CHECK:         %[[GT:.*]] = torch.aten.gt.Tensor
# CHECK:         %[[COND:.*]] = torch.aten.Bool.Tensor %[[GT]]
# CHECK:         %r = torch.prim.If %[[COND]] -> (!torch.vtensor<*,unk>) {
# CHECK-NEXT:      torch.prim.If.yield %x
# CHECK-NEXT:    } else {
# CHECK-NEXT:      torch.prim.If.yield %y
# CHECK:         func.return %r
def foo(x, y):
    if x.max() > y.max():
        r = x
    else:
        r = y
    return r


# An early return inside a branch: the rest of the function becomes the else branch.
# CHECK-LABEL: func.func @early_return
# CHECK:         torch.prim.If %{{.*}} -> (!torch.vtensor<*,unk>) {
# CHECK-NEXT:      torch.prim.If.yield %x
# CHECK-NEXT:    } else {
# CHECK:           torch.aten.mul.Scalar
# CHECK:           torch.prim.If.yield
def early_return(x, n: int):
    if n < 0:
        return x
    y = x * 2.0
    return y


# A for-range loop over a tensor's first dim carries `h`; `x[t]` is aten.select.int.
# CHECK-LABEL: func.func @rnn
# CHECK:         %[[N:.*]] = torch.aten.size.int %x, %int0
# CHECK:         %[[H:.*]] = torch.prim.Loop %[[N]], %true, init(%h) {
# CHECK-NEXT:    ^{{.*}}(%t: !torch.int, %[[HC:.*]]: !torch.vtensor<*,unk>):
# CHECK:           %[[XT:.*]] = torch.aten.select.int %x, %{{.*}}, %t
# CHECK:           torch.aten.matmul %[[XT]], %w
# CHECK:           torch.aten.matmul %[[HC]], %u
# CHECK:           %[[NEW:.*]] = torch.aten.tanh
# CHECK:           torch.prim.Loop.condition %{{.*}}, iter(%[[NEW]] : !torch.vtensor<*,unk>)
# CHECK:         func.return %[[H]]
def rnn(x, h, w, u, b):
    for t in range(x.shape[0]):
        h = torch.tanh(x[t] @ w + h @ u + b)
    return h


# range(lo, hi, step): the trip count and the loop variable are derived as in TorchScript.
# CHECK-LABEL: func.func @stepped
# CHECK:         %[[TRIP:.*]] = torch.aten.__range_length %lo, %hi, %int2
# CHECK:         torch.prim.Loop %[[TRIP]], %true, init(%{{.*}}) {
# CHECK:           torch.aten.__derive_index %iter, %lo, %int2
# CHECK:           torch.aten.add.int
def stepped(x, lo: int, hi: int):
    total = 0
    for i in range(lo, hi, 2):
        total = total + i
    return x * total


# `while` with `break`: the trip count is INT64_MAX and the continue flag comes from a prim.If.
# CHECK-LABEL: func.func @while_break
# CHECK:         %[[C0:.*]] = torch.aten.lt.int %int0, %n
# CHECK:         %x_{{.*}}, %i{{.*}} = torch.prim.Loop %int9223372036854775807, %[[C0]], init(%x, %int0{{.*}}) {
# CHECK:           %[[DONE:.*]] = torch.aten.ge.int
# CHECK:           %condition, {{.*}} = torch.prim.If %[[DONE]] -> (!torch.bool, !torch.vtensor<*,unk>, !torch.int) {
# CHECK-NEXT:        %false = torch.constant.bool false
# CHECK-NEXT:        torch.prim.If.yield %false,
# CHECK-NEXT:      } else {
# CHECK:             %[[AGAIN:.*]] = torch.aten.lt.int
# CHECK-NEXT:        torch.prim.If.yield %[[AGAIN]],
# CHECK:           torch.prim.Loop.condition %condition, iter(
def while_break(x, n: int):
    i = 0
    while i < n:
        x = x + 1.0
        i = i + 1
        if i >= 10:
            break
    return x, i


for fn in (decision_gate, foo, early_return, rnn, stepped, while_break):
    print(frontend.script(fn).graph)
