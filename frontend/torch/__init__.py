"""`frontend.torch`: a numpy-backed, PyTorch-compatible namespace that runs without PyTorch.

`Tensor` wraps a numpy array with PyTorch semantics; every op spelling `torch.<name>` in the
registry is a function here and every `Tensor.<name>` a method (so programs written as
`torch.tanh(x)` run eagerly and script or trace to the same IR); constructors, dtypes, the
random generator and `nn` complete the namespace. There is no autograd and only the cpu device.
"""

from __future__ import annotations

from frontend.torch.device import cuda, device
from frontend.torch.dtype import (
    DTYPES,
    as_dtype,
    bfloat16,
    dtype,
    finfo,
    float16,
    float32,
    float64,
    get_default_dtype,
    int8,
    int16,
    int32,
    int64,
    set_default_dtype,
    uint8,
)
from frontend.torch.functions import GENERATED as _GENERATED
from frontend.torch.methods import finish_tensor_class
from frontend.torch.ops import functions_for
from frontend.torch.tensor import Size, Tensor, is_floating_point, is_tensor, numel

finish_tensor_class(Tensor)
globals().update(_GENERATED)

from frontend.torch import linalg as linalg  # noqa: E402
from frontend.torch import nn  # noqa: E402
from frontend.torch import special as special  # noqa: E402
from frontend.torch.creation import (  # noqa: E402  (constructors win over generated spellings)
    arange,
    as_tensor,
    empty,
    empty_like,
    eye,
    from_numpy,
    full,
    full_like,
    linspace,
    ones,
    ones_like,
    rand,
    rand_like,
    randint,
    randn,
    randn_like,
    randperm,
    tensor,
    zeros,
    zeros_like,
)
from frontend.torch.einsum import einsum  # noqa: E402
from frontend.torch.grad_mode import enable_grad, inference_mode, no_grad  # noqa: E402
from frontend.torch.random import (  # noqa: E402
    Generator,
    default_generator,
    initial_seed,
    manual_seed,
    seed,
)
from frontend.torch.recurrent import (  # noqa: E402
    gru,
    gru_cell,
    lstm,
    lstm_cell,
    rnn_relu,
    rnn_relu_cell,
    rnn_tanh,
    rnn_tanh_cell,
)
from frontend.torch.reductions import FUNCTIONS as _REDUCTIONS  # noqa: E402

globals().update({f.__name__: f for f in _REDUCTIONS})  # std_mean, allclose, ...: written with ops
from frontend.torch.unique import FUNCTIONS as _UNIQUE  # noqa: E402

globals().update({f.__name__: f for f in _UNIQUE})  # unique, unique_consecutive: with flags

bool = DTYPES["bool"]  # noqa: A001
float = float32  # noqa: A001
double = float64
long = int64
int = int32  # noqa: A001
short = int16
half = float16


__all__ = [
    "DTYPES", "Generator", "Size", "Tensor", "arange", "as_dtype", "as_tensor", "bfloat16", "bool",
    "cuda", "float16", "half",
    "device", "default_generator", "double", "dtype", "einsum", "empty", "empty_like", "finfo",
    "enable_grad", "eye", "float", "float32", "float64", "from_numpy", "full", "full_like",
    "get_default_dtype", "gru", "gru_cell", "inference_mode", "initial_seed", "int", "int32",
    "int64", "is_floating_point", "is_tensor", "linspace", "lstm", "lstm_cell", "long",
    "manual_seed", "nn", "no_grad", "numel", "ones", "ones_like", "rand", "rand_like",
    "randint", "randn", "randn_like", "randperm", "seed", "set_default_dtype", "tensor",
    "zeros", "zeros_like", "rnn_relu", "rnn_relu_cell", "rnn_tanh", "rnn_tanh_cell",
]  # fmt: skip
__all__ += ["int8", "int16", "short", "uint8"]
__all__ += [name for name in functions_for("torch") if name not in __all__]
