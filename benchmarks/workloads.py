"""The workloads W1..W7 of issue 6: inputs, a numpy implementation and a float64 reference.

A workload names the ops it needs (`requires`, by the Python spelling that tsjit's registry
knows); while one of them is not registered the workload is reported as skipped.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from benchmarks import programs

Arrays = tuple[np.ndarray, ...]


@dataclass(frozen=True)
class Workload:
    """One benchmark: `program` is the PyTorch function both torch and tsjit run."""

    name: str
    description: str
    program: Callable[..., Any]
    make_inputs: Callable[[np.random.Generator], Arrays]
    numpy_impl: Callable[..., np.ndarray]
    reference: Callable[..., np.ndarray]
    requires: tuple[str, ...] = ()
    rtol: float = 1e-4
    atol: float = 1e-5


def f32(*arrays: np.ndarray) -> Arrays:
    return tuple(np.ascontiguousarray(a, dtype=np.float32) for a in arrays)


def f64(*arrays: np.ndarray) -> Arrays:
    return tuple(a.astype(np.float64) for a in arrays)


def sigmoid(x: np.ndarray) -> np.ndarray:
    return 1 / (1 + np.exp(-x))


# ---- numpy implementations (float32) and references (float64) ----


def w1_numpy(x: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.tanh(x * np.float32(2) + b) * (np.float32(1) / (np.float32(1) + np.exp(-x)))


def w1_reference(x: np.ndarray, b: np.ndarray) -> np.ndarray:
    x, b = f64(x, b)
    return np.tanh(x * 2 + b) * sigmoid(x)


def w1b_numpy(x: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.maximum(x * np.float32(2) + b, np.float32(0)) * x


def w1b_reference(x: np.ndarray, b: np.ndarray) -> np.ndarray:
    x, b = f64(x, b)
    return np.maximum(x * 2 + b, 0) * x


def softmax(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def w2_reference(x: np.ndarray) -> np.ndarray:
    return softmax(x.astype(np.float64))


def layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray) -> np.ndarray:
    mean = x.mean(-1, keepdims=True)
    centered = x - mean
    var = (centered * centered).mean(-1, keepdims=True)
    eps = np.asarray(1e-5, x.dtype)
    return centered / np.sqrt(var + eps) * weight + bias


def w3_reference(x: np.ndarray, weight: np.ndarray, bias: np.ndarray) -> np.ndarray:
    return layer_norm(*f64(x, weight, bias))


def mlp(x, w1, b1, w2, b2) -> np.ndarray:
    return np.maximum(x @ w1.T + b1, 0) @ w2.T + b2


def w4_reference(*args: np.ndarray) -> np.ndarray:
    return mlp(*f64(*args))


def rnn(x, h, w, u, b) -> np.ndarray:
    for t in range(x.shape[0]):
        h = np.tanh(x[t] @ w + h @ u + b)
    return h


def w5_reference(*args: np.ndarray) -> np.ndarray:
    return rnn(*f64(*args))


def conv2d(x: np.ndarray, w: np.ndarray, b: np.ndarray, padding: int = 0) -> np.ndarray:
    """Direct convolution by im2col (sliding windows) and one tensordot."""
    if padding:
        x = np.pad(x, ((0, 0), (0, 0), (padding, padding), (padding, padding)))
    kh, kw = w.shape[2:]
    windows = np.lib.stride_tricks.sliding_window_view(x, (kh, kw), axis=(2, 3))
    out = np.tensordot(windows, w, axes=([1, 4, 5], [1, 2, 3]))  # n, oh, ow, oc
    return np.ascontiguousarray(out.transpose(0, 3, 1, 2)) + b[None, :, None, None]


def w6_conv_numpy(x, w, b) -> np.ndarray:
    return np.maximum(conv2d(x, w, b, padding=1), np.float32(0))


def w6_conv_reference(*args: np.ndarray) -> np.ndarray:
    return w6_conv_numpy(*f64(*args))


def seed_net(x, w1, b1, w2, b2) -> np.ndarray:
    zero = np.asarray(0, x.dtype)
    return np.maximum(conv2d(np.maximum(conv2d(x, w1, b1), zero), w2, b2), zero)


def w6_seed_reference(*args: np.ndarray) -> np.ndarray:
    return seed_net(*f64(*args))


def w7_numpy(x: np.ndarray) -> np.ndarray:
    return x * np.float32(2) + np.float32(1)


def w7_reference(x: np.ndarray) -> np.ndarray:
    return x.astype(np.float64) * 2 + 1


# ---- inputs ----


def normal(rng: np.random.Generator, *shape: int, scale: float = 1.0) -> np.ndarray:
    return rng.standard_normal(shape) * scale


def linear_init(rng: np.random.Generator, out: int, fan_in: int) -> Arrays:
    bound = 1 / np.sqrt(fan_in)
    return f32(rng.uniform(-bound, bound, (out, fan_in)), rng.uniform(-bound, bound, out))


def conv_init(rng: np.random.Generator, out: int, inp: int, k: int) -> Arrays:
    bound = 1 / np.sqrt(inp * k * k)
    return f32(rng.uniform(-bound, bound, (out, inp, k, k)), rng.uniform(-bound, bound, out))


def w1_inputs(rng: np.random.Generator) -> Arrays:
    n = 4 * 1024 * 1024
    return f32(normal(rng, n, scale=2.0), normal(rng, n))


def mlp_inputs(rng: np.random.Generator) -> Arrays:
    return f32(normal(rng, 256, 1024)) + linear_init(rng, 1024, 1024) + linear_init(rng, 1024, 1024)


def rnn_inputs(rng: np.random.Generator) -> Arrays:
    steps, batch, hidden = 50, 64, 256
    w, b = linear_init(rng, hidden, hidden)
    u, _ = linear_init(rng, hidden, hidden)
    x = normal(rng, steps, batch, hidden)
    return f32(x, np.zeros((batch, hidden)), w, u, b)


def seed_net_inputs(batch: int) -> Callable[[np.random.Generator], Arrays]:
    def make(rng: np.random.Generator) -> Arrays:
        return (
            f32(normal(rng, batch, 1, 28, 28))
            + conv_init(rng, 20, 1, 5)
            + conv_init(rng, 20, 20, 5)
        )

    return make


CONV = ("F.conv2d",)

WORKLOADS: tuple[Workload, ...] = (
    Workload("W1", "tanh(x*2+b)*sigmoid(x), 4M f32", programs.w1_tanh_sigmoid, w1_inputs,
             w1_numpy, w1_reference),
    Workload("W1b", "relu(x*2+b)*x, 4M f32", programs.w1b_relu_mul, w1_inputs, w1b_numpy,
             w1b_reference),
    Workload("W2", "softmax(x, -1), [1024,1024]", programs.w2_softmax,
             lambda rng: f32(normal(rng, 1024, 1024, scale=3.0)), softmax, w2_reference,
             requires=("torch.softmax",)),
    Workload("W3", "layer_norm(x, [1024], w, b), [2048,1024]", programs.w3_layer_norm,
             lambda rng: f32(normal(rng, 2048, 1024), 1 + normal(rng, 1024, scale=0.1),
                             normal(rng, 1024, scale=0.1)),
             layer_norm, w3_reference, requires=("F.layer_norm",)),
    Workload("W4", "MLP [256,1024] -> Linear(1024,1024) -> relu -> Linear(1024,1024)",
             programs.w4_mlp, mlp_inputs, mlp, w4_reference, requires=("F.linear",)),
    Workload("W5", "RNN 50 steps tanh(x[t]@W + h@U + b), B64 H256", programs.w5_rnn, rnn_inputs,
             rnn, w5_reference, requires=("torch.matmul",), rtol=1e-3, atol=1e-4),
    Workload("W6a", "Conv2d(3,16,3,p=1)+relu, [8,3,64,64]", programs.w6_conv_relu,
             lambda rng: f32(normal(rng, 8, 3, 64, 64)) + conv_init(rng, 16, 3, 3),
             w6_conv_numpy, w6_conv_reference, requires=CONV),
    Workload("W6b", "seed net Conv(1,20,5)-relu-Conv(20,20,5)-relu, batch 1, 28x28",
             programs.w6_seed_net, seed_net_inputs(1), seed_net, w6_seed_reference,
             requires=CONV),
    Workload("W6c", "seed net, batch 64, 28x28", programs.w6_seed_net, seed_net_inputs(64),
             seed_net, w6_seed_reference, requires=CONV),
    Workload("W7", "x*2+1 on a [4] tensor (per-call overhead)", programs.w7_tiny,
             lambda rng: f32(normal(rng, 4)), w7_numpy, w7_reference),
)  # fmt: skip
