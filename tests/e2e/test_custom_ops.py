"""Custom ops: `frontend.library(...).define(...)` and the `my_ops::warp_perspective` op from
eager code, script, trace, the interpreter and save/load, plus the errors of a bad definition."""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from warp_perspective_op import (
    SCHEMA,
    define_warp_perspective,
    warp_perspective_kernel,
    warp_perspective_numpy,
    warp_perspective_shape,
)

import frontend
from dialects.torch.custom import CustomOp
from dialects.torch.meta import ShapeError
from dialects.torch.registry import BY_NAME, BY_PY_NAME
from frontend import ops
from frontend import torch as ft
from lowering.pipeline import PipelineError
from lowering.run.custom_kernels import KernelError, kernel, kernel_digest, source_digest

RNG = np.random.default_rng(7)
SKEW = np.array([[1.1, 0.2, 0.5], [-0.1, 0.9, 1.3], [0.01, -0.02, 1.0]], np.float32)


@pytest.fixture(scope="module")
def warp():
    return define_warp_perspective()


def image(*shape: int) -> np.ndarray:
    return RNG.uniform(-1, 1, size=shape).astype(np.float32)


def translation(tx: float, ty: float) -> np.ndarray:
    return np.array([[1, 0, tx], [0, 1, ty], [0, 0, 1]], np.float32)


def warped(warp, src: np.ndarray, m: np.ndarray) -> np.ndarray:
    return warp(src, m).numpy()


# ---- eager: the op against independent computations ----


def test_identity_gives_the_source(warp) -> None:
    src = image(5, 7)
    np.testing.assert_array_equal(warped(warp, src, np.eye(3, dtype=np.float32)), src)


@pytest.mark.parametrize(("tx", "ty"), [(2, 1), (-1, 3)])
def test_integer_translation_shifts_with_a_zero_border(warp, tx: int, ty: int) -> None:
    src = image(6, 8)
    expected = np.zeros_like(src)
    h, w = src.shape
    expected[max(ty, 0) : h + min(ty, 0), max(tx, 0) : w + min(tx, 0)] = src[
        max(-ty, 0) : h - max(ty, 0), max(-tx, 0) : w - max(tx, 0)
    ]
    np.testing.assert_allclose(warped(warp, src, translation(tx, ty)), expected, atol=1e-6)


def test_half_pixel_translation_averages_neighbours(warp) -> None:
    src = image(4, 6)
    left = np.pad(src, ((0, 0), (1, 0)))[:, :-1]  # src[y, x - 1], zero outside
    np.testing.assert_allclose(warped(warp, src, translation(0.5, 0)), (src + left) / 2, atol=1e-6)


def test_scaling_samples_between_pixels(warp) -> None:
    src = image(6, 6)
    out = warped(warp, src, np.diag([2, 2, 1]).astype(np.float32))  # out[y, x] = src(y/2, x/2)
    np.testing.assert_allclose(out[::2, ::2], src[:3, :3], atol=1e-6)
    np.testing.assert_allclose(out[0, 1:5:2], (src[0, :2] + src[0, 1:3]) / 2, atol=1e-6)


def test_general_warp_matches_the_loop_kernel_and_channels_warp_alike(warp) -> None:
    src = image(3, 9, 11)
    out = warped(warp, src, SKEW)
    loops = np.zeros_like(src)
    warp_perspective_kernel(src, SKEW, loops)
    np.testing.assert_allclose(out, loops, atol=1e-6)
    np.testing.assert_allclose(out[1], warped(warp, src[1], SKEW), atol=1e-6)
    assert np.count_nonzero(out == 0) < out.size // 2  # mostly inside the source


def test_matches_opencv_when_installed(warp) -> None:
    cv2 = pytest.importorskip("cv2")
    src = image(16, 16)
    expected = cv2.warpPerspective(src, SKEW, (16, 16), flags=cv2.INTER_LINEAR, borderValue=0)
    # OpenCV interpolates with 1/32-pixel fixed-point weights.
    np.testing.assert_allclose(warped(warp, src, SKEW), expected, atol=0.05)


def test_the_op_runs_eagerly_on_frontend_tensors(warp) -> None:
    x = ft.tensor(image(4, 4))
    out = ops.my_ops.warp_perspective(x, ft.tensor(np.eye(3, dtype=np.float32)))
    assert isinstance(out, ft.Tensor)
    np.testing.assert_array_equal(out.numpy(), x.numpy())
    assert frontend.ops.my_ops.warp_perspective is warp
    assert "warp_perspective" in repr(ops.my_ops)


# ---- script, trace, interpreter: the same results, the op in the IR, the kernel in the code ----


def pipeline(x, m):
    return ft.relu(ops.my_ops.warp_perspective(x, m) - 0.25)


def eager_pipeline(x: np.ndarray, m: np.ndarray) -> np.ndarray:
    return pipeline(x, m).numpy()


def test_script_matches_eager_and_calls_the_kernel(warp) -> None:
    scripted = frontend.script(pipeline)
    assert "torch.my_ops.warp_perspective %x, %m" in str(scripted.graph)
    for shape in ((7, 9), (2, 5, 6)):  # one compiled function per rank
        src = image(*shape)
        np.testing.assert_allclose(scripted(src, SKEW), eager_pipeline(src, SKEW), atol=1e-6)
    digest = kernel_digest("my_ops.warp_perspective")
    assert f'= tsjit_kernel("my_ops.warp_perspective", "{digest}")' in scripted.code


def test_trace_matches_eager_on_other_sizes(warp) -> None:
    traced = frontend.trace(pipeline, (image(5, 6), SKEW))
    assert "torch.my_ops.warp_perspective" in str(traced.graph)
    src = image(8, 3)
    np.testing.assert_allclose(traced(src, SKEW), eager_pipeline(src, SKEW), atol=1e-6)


def test_interpreter_runs_the_eager_reference(warp) -> None:
    interpreted = frontend.script(pipeline, backend="interpreter")
    src = image(4, 5)
    np.testing.assert_allclose(interpreted(src, SKEW), eager_pipeline(src, SKEW), atol=1e-6)


def two_warps(x, m1, m2):
    a = ops.my_ops.warp_perspective(x, m1)
    b = ops.my_ops.warp_perspective(x, m2)
    return a - b


def test_two_calls_write_separate_buffers(warp) -> None:
    """CSE merges their equal `tensor.empty`s; bufferization must split them again."""
    scripted = frontend.script(two_warps)
    src, m2 = image(5, 5), translation(1, 0)
    expected = warped(warp, src, SKEW) - warped(warp, src, m2)
    np.testing.assert_allclose(scripted(src, SKEW, m2), expected, atol=1e-6)


def test_the_kernel_checks_sizes_known_only_at_run_time(warp) -> None:
    traced = frontend.trace(pipeline, (image(5, 6), SKEW))  # M is traced as [?, ?]
    with pytest.raises(ValueError, match="M must be a 3x3 matrix"):
        traced(image(5, 6), np.eye(2, dtype=np.float32))


def test_the_op_class_mirrors_its_schema(warp) -> None:
    op = BY_NAME["torch.my_ops.warp_perspective"]
    assert issubclass(op, CustomOp)
    assert f"my_ops::{SCHEMA}" == op.SCHEMA
    assert [name for name, _ in op.get_irdl_definition().operands] == ["src", "M"]
    assert BY_PY_NAME["ops.my_ops.warp_perspective"] == (op,)


def test_generated_code_refuses_a_kernel_that_changed(warp) -> None:
    with pytest.raises(KernelError, match="changed after this code was generated"):
        kernel("my_ops.warp_perspective", "0" * 64)
    with pytest.raises(KernelError, match=r"no kernel nope\.op is registered"):
        kernel("nope.op", "0" * 64)


def test_the_kernel_digest_follows_its_source() -> None:
    def double(x, out):
        out[0] = x[0] * 2

    def triple(x, out):
        out[0] = x[0] * 3

    assert source_digest(double) != source_digest(triple)
    assert source_digest(double) == source_digest(double)


# ---- save / load ----


def test_save_and_load_with_the_library_registered(warp, tmp_path: Path) -> None:
    traced = frontend.trace(pipeline, (image(5, 6), SKEW))
    traced.save(tmp_path / "warp.tsj")
    loaded = frontend.load(tmp_path / "warp.tsj")
    assert "torch.my_ops.warp_perspective" in loaded.graph
    src = image(6, 4)
    np.testing.assert_allclose(loaded(src, SKEW), eager_pipeline(src, SKEW), atol=1e-6)


def test_load_without_the_library_names_the_op(warp, tmp_path: Path) -> None:
    path = tmp_path / "warp.tsj"
    frontend.trace(pipeline, (image(5, 6), SKEW)).save(path)
    code = (
        "import sys, frontend\n"
        "try:\n"
        "    frontend.load(sys.argv[1])\n"
        "except frontend.LoadError as err:\n"
        "    print('LoadError:', err)\n"
    )
    run = subprocess.run(
        [sys.executable, "-c", code, str(path)], check=True, capture_output=True, text=True
    )
    assert "LoadError:" in run.stdout
    assert "torch.my_ops.warp_perspective" in run.stdout
    assert "frontend.library" in run.stdout


# ---- errors ----


def kernel_1(x, out):
    out[:] = x


def define(schema: str, **overrides):
    functions = {"eager": lambda x: x, "shape": lambda x: x, "kernel": kernel_1} | overrides
    return frontend.library("test_errors").define(schema, **functions)


@pytest.mark.parametrize(
    ("schema", "message"),
    [
        ("bad(Tensor x", "malformed schema"),
        ("bad(Tensor? x) -> Tensor", "custom ops take Tensor, int, float and bool"),
        ("bad(int[] sizes) -> Tensor", "custom ops take Tensor, int, float and bool"),
        ("bad(Tensor x) -> int", "return one or more Tensors"),
        ("bad(Tensor x, Tensor x) -> Tensor", "duplicate argument names"),
        ("bad(Tensor name) -> Tensor", "reserved"),
        ("other::bad(Tensor x) -> Tensor", "defines ops in its namespace"),
    ],
)
def test_a_bad_schema_is_rejected(schema: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        define(schema)


def test_redefining_an_op_fails(warp) -> None:
    with pytest.raises(RuntimeError, match="already defined"):
        frontend.library("my_ops").define(
            SCHEMA,
            eager=warp_perspective_numpy,
            shape=warp_perspective_shape,
            kernel=warp_perspective_kernel,
        )


def test_a_kernel_must_take_the_arguments_and_the_outputs() -> None:
    with pytest.raises(TypeError, match=r"2 positional parameters"):
        define("arity(Tensor x) -> Tensor", kernel=lambda x: None)
    with pytest.raises(TypeError, match="`eager` must be a function"):
        define("arity(Tensor x) -> Tensor", eager=None)


@pytest.mark.parametrize("name", ["aten", "prim", "tsjit", "not a name"])
def test_a_library_cannot_take_a_reserved_or_bad_name(name: str) -> None:
    with pytest.raises(ValueError, match="cannot name a library"):
        frontend.library(name)


def test_wrong_argument_kinds_are_named(warp) -> None:
    with pytest.raises(TypeError, match="argument 'M' must be Tensor, not int"):
        warp(image(3, 3), 3)
    with pytest.raises(ShapeError, match=r"my_ops::warp_perspective.*src must be \[H, W\]"):
        warp(image(2, 2, 2, 2), SKEW)
    with pytest.raises(frontend.ScriptError, match=r"wrong arguments for torch\.my_ops\.warp"):
        frontend.script(wrong_kinds)


def wrong_kinds(x):
    return ops.my_ops.warp_perspective(x, 1.5)


def test_unknown_libraries_and_ops_are_named(warp) -> None:
    with pytest.raises(AttributeError, match="no library 'nope'"):
        _ = ops.nope
    with pytest.raises(AttributeError, match="defines no op 'warp'"):
        _ = ops.my_ops.warp


def test_an_eager_result_that_disagrees_with_the_shape_rule_is_reported() -> None:
    op = define("mismatch(Tensor x) -> Tensor", eager=lambda x: x[:1])
    with pytest.raises(ShapeError, match="eager function gave result #0 the shape"):
        op(image(3, 2))


def doubled_rows(x):
    return ops.test_errors.doubled(x)


def test_a_run_time_result_size_must_come_from_an_argument() -> None:
    def shape(x):
        rows = -1 if x.shape[0] == -1 else 2 * x.shape[0]
        return (rows, x.shape[1]), x.dtype

    define("doubled(Tensor x) -> Tensor", eager=lambda x: np.concatenate([x, x]), shape=shape)
    src = image(2, 3)
    np.testing.assert_array_equal(ops.test_errors.doubled(src).numpy(), np.vstack([src, src]))
    with pytest.raises(PipelineError, match="is not an argument's size"):
        frontend.script(doubled_rows).ir("linalg", "f32[?,3]")


# ---- scalar arguments ----


def axpb_kernel(x, a, b, out):
    for i in range(x.shape[0]):
        out[i] = a * x[i] + b


def scaled(x, a: float):
    return ops.test_scalars.axpb(x, a, 3)


def test_scalar_arguments_reach_the_kernel() -> None:
    frontend.library("test_scalars").define(
        "axpb(Tensor x, float a, int b=0) -> Tensor",
        eager=lambda x, a, b: a * x + b,
        shape=lambda x, a, b: x,
        kernel=axpb_kernel,
    )
    x = image(6)
    np.testing.assert_allclose(ops.test_scalars.axpb(x, 2.0).numpy(), 2 * x, rtol=1e-6)
    scripted = frontend.script(scaled)
    np.testing.assert_allclose(scripted(x, math.pi), np.pi * x + 3, rtol=1e-6)
