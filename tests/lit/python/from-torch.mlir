// RUN: xdsl-opt %s -t python | filecheck %s
// RUN: xdsl-opt %s -t python > %t.py && python -c "import sys, numpy as np; from lowering.run import jit; print(jit.load_module(open(sys.argv[1]).read()).f(np.ones(4, np.float32)))" %t.py | filecheck %s --check-prefix=RUNS

// Torch IR whose types are known goes to the python target through the default pipeline
// (torch-opt, linalg, memref, loops, each contract checked), and the source runs.
// CHECK: @numba.njit
// CHECK: def f(
// RUNS: [0.7615942 0.7615942 0.7615942 0.7615942]
func.func @f(%x: !torch.vtensor<[4],f32>) -> !torch.vtensor<[4],f32> {
  %y = torch.aten.tanh %x : !torch.vtensor<[4],f32> -> !torch.vtensor<[4],f32>
  func.return %y : !torch.vtensor<[4],f32>
}
