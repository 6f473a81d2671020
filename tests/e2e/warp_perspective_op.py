"""The custom op `my_ops::warp_perspective` (the TorchScript custom-op tutorial's op), for tests.

A perspective warp with bilinear sampling and a zero border, like OpenCV's
`cv2.warpPerspective(src, M, (w, h), flags=INTER_LINEAR, borderValue=0)`: output pixel (x, y)
samples the source at `M⁻¹ · (x, y, 1)` (projected). `src` is [H, W] or [C, H, W] (each channel
warped alike), `M` a [3, 3] matrix; the output has the source's shape and dtype. A singular `M`
inverts to zeros, as in OpenCV. The eager reference is vectorized numpy; the kernel is loops.
"""

from __future__ import annotations

import math
from typing import Any

import numba
import numpy as np

import frontend
from dialects.torch.meta import TensorMeta

SCHEMA = "warp_perspective(Tensor src, Tensor M) -> Tensor"

# ---- shared by both implementations ----


def invert_3x3(m: Any) -> Any:
    """The inverse by the adjugate, in float64; zeros for a singular matrix (OpenCV)."""
    a = np.empty((3, 3), np.float64)
    for i in range(3):
        for j in range(3):
            r0, r1 = (j + 1) % 3, (j + 2) % 3
            c0, c1 = (i + 1) % 3, (i + 2) % 3
            a[i, j] = float(m[r0, c0]) * float(m[r1, c1]) - float(m[r0, c1]) * float(m[r1, c0])
    det = float(m[0, 0]) * a[0, 0] + float(m[0, 1]) * a[1, 0] + float(m[0, 2]) * a[2, 0]
    if det == 0.0:
        return np.zeros((3, 3), np.float64)
    return a / det


invert_3x3_jit = numba.njit(invert_3x3)

# ---- eager reference: numpy over the whole grid ----


def warp_perspective_numpy(src: np.ndarray, m: np.ndarray) -> np.ndarray:
    inverse = invert_3x3(m)
    h, w = src.shape[-2:]
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float64)
    x_, y_, w_ = (inverse[r, 0] * xs + inverse[r, 1] * ys + inverse[r, 2] for r in range(3))
    scale = np.divide(1.0, w_, out=np.zeros_like(w_), where=w_ != 0)
    # Clamped to [-1, size]: every point outside samples only the zero border (NaN too).
    sx = np.where(x_ * scale >= -1, np.minimum(x_ * scale, w), -1.0)
    sy = np.where(y_ * scale >= -1, np.minimum(y_ * scale, h), -1.0)
    x0, y0 = np.floor(sx), np.floor(sy)
    fx, fy = sx - x0, sy - y0
    out = np.zeros(src.shape, np.float64)
    for dy, wy in ((0, 1 - fy), (1, fy)):
        for dx, wx in ((0, 1 - fx), (1, fx)):
            xi, yi = x0.astype(np.int64) + dx, y0.astype(np.int64) + dy
            inside = (xi >= 0) & (xi < w) & (yi >= 0) & (yi < h)
            values = src[..., np.clip(yi, 0, h - 1), np.clip(xi, 0, w - 1)]
            out += np.where(inside, wx * wy * values, 0.0)
    return out.astype(src.dtype)


# ---- shape rule ----


def warp_perspective_shape(src: TensorMeta, m: TensorMeta) -> TensorMeta:
    if src.rank not in (2, 3):
        raise ValueError(f"src must be [H, W] or [C, H, W], got rank {src.rank}")
    if m.shape is None or m.rank != 2 or any(d not in (3, -1) for d in m.shape):
        raise ValueError(f"M must be a 3x3 matrix, got {list(m.shape or ())}")
    if not (src.dtype and src.dtype.is_float and m.dtype and m.dtype.is_float):
        raise TypeError("src and M must be floating point")
    return src


# ---- kernel: loops, compiled by numba ----


@numba.njit
def warp_plane(src: Any, inverse: Any, out: Any) -> None:
    h, w = src.shape
    for y in range(h):
        for x in range(w):
            x_ = inverse[0, 0] * x + inverse[0, 1] * y + inverse[0, 2]
            y_ = inverse[1, 0] * x + inverse[1, 1] * y + inverse[1, 2]
            w_ = inverse[2, 0] * x + inverse[2, 1] * y + inverse[2, 2]
            scale = 1.0 / w_ if w_ != 0.0 else 0.0
            sx, sy = x_ * scale, y_ * scale
            sx = min(sx, float(w)) if sx >= -1.0 else -1.0
            sy = min(sy, float(h)) if sy >= -1.0 else -1.0
            x0, y0 = math.floor(sx), math.floor(sy)
            fx, fy = sx - x0, sy - y0
            acc = 0.0
            for dy in range(2):
                yi = int(y0) + dy
                wy = fy if dy == 1 else 1.0 - fy
                for dx in range(2):
                    xi = int(x0) + dx
                    wx = fx if dx == 1 else 1.0 - fx
                    if 0 <= xi < w and 0 <= yi < h:
                        acc += wx * wy * src[yi, xi]
            out[y, x] = acc


def warp_perspective_kernel(src: Any, m: Any, out: Any) -> None:
    """Writes the warp of `src` into `out` (same shape and dtype)."""
    # Sizes known only at run time reach the kernel unchecked by the shape rule.
    if m.shape[0] != 3 or m.shape[1] != 3:
        raise ValueError("warp_perspective: M must be a 3x3 matrix")
    inverse = invert_3x3_jit(m)
    if src.ndim == 3:
        for c in range(src.shape[0]):
            warp_plane(src[c], inverse, out[c])
    else:
        warp_plane(src, inverse, out)


def define_warp_perspective() -> Any:
    """Define `my_ops::warp_perspective` once per process; its Python function."""
    namespace = getattr(frontend.ops, "my_ops", None)
    if namespace is not None and hasattr(namespace, "warp_perspective"):
        return namespace.warp_perspective
    return frontend.library("my_ops").define(
        SCHEMA,
        eager=warp_perspective_numpy,
        shape=warp_perspective_shape,
        kernel=warp_perspective_kernel,
    )
