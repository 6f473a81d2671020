"""Library kernels (matmul, conv2d, transpose): numba variants and the xDSL interpreter vs numpy."""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.parser import Parser

from lowering import jit
from lowering.pipeline import make_context
from lowering.python_target import emit_python
from lowering.python_target.library_kernels import LIBRARY_KERNELS
from lowering.xdsl_interpreter import run_xdsl_ir

RNG = np.random.default_rng(0)

DECLARATIONS = "\n".join(
    f"func.func private @tsjit.{name}_f32({', '.join(['memref<?x?xf32>'] * arity)}) -> () "
    f'attributes {{tsjit.library = "{name}"}}'
    for name, arity in (("matmul_nt", 3), ("matmul_nn", 3), ("transpose", 2))
)
CONV = (
    "func.func private @tsjit.conv2d_f32(memref<?x?x?x?xf32>, memref<?x?x?x?xf32>, "
    'memref<?x?x?x?xf32>, index, index, index, index) -> () attributes {tsjit.library = "conv2d"}'
)


def caller(name: str, arity: int, rank: int = 2, indices: int = 0) -> str:
    memref = "memref<" + "?x" * rank + "f32>"
    args = ", ".join(f"%a{i}: {memref}" for i in range(arity))
    index_args = "".join(f", %i{i}: index" for i in range(indices))
    operands = ", ".join([f"%a{i}" for i in range(arity)] + [f"%i{i}" for i in range(indices)])
    types = ", ".join([memref] * arity + ["index"] * indices)
    return (  # returns its output buffer (the last one)
        f"func.func @{name}({args}{index_args}) -> {memref} {{\n"
        f"  func.call @tsjit.{name}_f32({operands}) : ({types}) -> ()\n"
        f"  func.return %a{arity - 1} : {memref}\n}}\n"
    )


SOURCE = "\n".join(
    [DECLARATIONS, CONV, caller("matmul_nt", 3), caller("matmul_nn", 3), caller("transpose", 2),
     caller("conv2d", 3, rank=4, indices=4)]
)  # fmt: skip


@pytest.fixture(scope="module")
def module():
    return Parser(make_context(), SOURCE).parse_module()


@pytest.fixture(scope="module")
def kernels(module):
    return jit.load_module(emit_python(module))


MATMUL_SHAPES = [(7, 33, 13), (64, 40, 70), (1, 5, 3), (4, 0, 4), (9, 8, 1)]


@pytest.mark.parametrize("variant", ["parallel", "serial"])
@pytest.mark.parametrize(("m", "k", "n"), MATMUL_SHAPES)
def test_matmul_kernels_accumulate_into_the_output(kernels, variant, m, k, n) -> None:
    a = RNG.standard_normal((m, k), dtype=np.float32)
    b = RNG.standard_normal((k, n), dtype=np.float32)
    bias = RNG.standard_normal((m, n), dtype=np.float32)
    expected = a.astype(np.float64) @ b + bias
    nt, nn = bias.copy(), bias.copy()
    getattr(kernels, f"tsjit_matmul_nt_f32_{variant}")(a, np.ascontiguousarray(b.T), nt)
    getattr(kernels, f"tsjit_matmul_nn_f32_{variant}")(a, b, nn)
    np.testing.assert_allclose(nt, expected, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(nn, expected, rtol=1e-4, atol=1e-4)


def conv_reference(x, w, stride, dilation):
    n, _, h, width = x.shape
    o, _, kh, kw = w.shape
    oh = (h - dilation[0] * (kh - 1) - 1) // stride[0] + 1
    ow = (width - dilation[1] * (kw - 1) - 1) // stride[1] + 1
    out = np.zeros((n, o, oh, ow))
    for u in range(kh):
        for v in range(kw):
            rows = slice(u * dilation[0], u * dilation[0] + stride[0] * oh, stride[0])
            cols = slice(v * dilation[1], v * dilation[1] + stride[1] * ow, stride[1])
            out += np.einsum("ncyz,oc->noyz", x[:, :, rows, cols], w[:, :, u, v])
    return out


@pytest.mark.parametrize("variant", ["parallel", "serial"])
@pytest.mark.parametrize(
    ("shape", "weights", "stride", "dilation"),
    [((2, 3, 9, 8), (4, 3, 3, 3), (1, 1), (1, 1)), ((3, 2, 11, 10), (5, 2, 3, 2), (2, 1), (1, 2))],
)
def test_conv2d_kernel(kernels, variant, shape, weights, stride, dilation) -> None:
    x = RNG.standard_normal(shape, dtype=np.float32)
    w = RNG.standard_normal(weights, dtype=np.float32)
    expected = conv_reference(x.astype(np.float64), w, stride, dilation)
    out = np.zeros(expected.shape, np.float32)
    getattr(kernels, f"tsjit_conv2d_f32_{variant}")(x, w, out, *stride, *dilation)
    np.testing.assert_allclose(out, expected, rtol=1e-4, atol=1e-4)


def test_entry_points_dispatch_and_transpose(kernels) -> None:
    b = RNG.standard_normal((5, 3), dtype=np.float32)
    bt = kernels.transpose(b, np.empty((3, 5), np.float32))
    np.testing.assert_array_equal(bt, b.T)


def test_interpreter_runs_library_calls(module) -> None:
    a = RNG.standard_normal((3, 4), dtype=np.float32)
    b = RNG.standard_normal((4, 2), dtype=np.float32)
    out = np.zeros((3, 2), np.float32)
    x = RNG.standard_normal((1, 2, 5, 5), dtype=np.float32)
    w = RNG.standard_normal((3, 2, 2, 2), dtype=np.float32)
    np.testing.assert_allclose(run_xdsl_ir(module, "matmul_nn", [a, b, out]), a @ b, rtol=1e-5)
    conv = run_xdsl_ir(module, "conv2d", [x, w, np.zeros((1, 3, 4, 4), np.float32), 1, 1, 1, 1])
    np.testing.assert_allclose(conv, conv_reference(x, w, (1, 1), (1, 1)), rtol=1e-4)
    assert set(LIBRARY_KERNELS) == {"matmul_nt", "matmul_nn", "transpose", "conv2d"}
