"""`frontend.torch.nn`: `Module`, `Parameter`, the standard layers, `functional` and `init`."""

from frontend.torch.nn import functional, init
from frontend.torch.nn.module import Module
from frontend.torch.nn.modules.activation import (
    CELU,
    ELU,
    GELU,
    GLU,
    SELU,
    Hardshrink,
    Hardsigmoid,
    Hardswish,
    Hardtanh,
    LeakyReLU,
    LogSigmoid,
    LogSoftmax,
    Mish,
    PReLU,
    ReLU,
    ReLU6,
    RReLU,
    Sigmoid,
    SiLU,
    Softmax,
    Softmin,
    Softplus,
    Softshrink,
    Softsign,
    Tanh,
    Tanhshrink,
    Threshold,
)
from frontend.torch.nn.modules.container import ModuleDict, ModuleList, Sequential
from frontend.torch.nn.modules.conv import Conv2d
from frontend.torch.nn.modules.dropout import Dropout, Flatten
from frontend.torch.nn.modules.linear import Identity, Linear
from frontend.torch.nn.modules.normalization import BatchNorm1d, BatchNorm2d, LayerNorm
from frontend.torch.nn.modules.pooling import AdaptiveAvgPool2d, AvgPool2d, MaxPool2d
from frontend.torch.nn.modules.rnn import LSTM, LSTMCell
from frontend.torch.nn.modules.sparse import Embedding
from frontend.torch.nn.parameter import Buffer, Parameter

__all__ = [
    "CELU",
    "ELU",
    "GLU",
    "SELU",
    "Hardshrink",
    "Hardsigmoid",
    "Hardswish",
    "Hardtanh",
    "LeakyReLU",
    "LogSigmoid",
    "Mish",
    "PReLU",
    "RReLU",
    "ReLU6",
    "SiLU",
    "Softmin",
    "Softplus",
    "Softshrink",
    "Softsign",
    "Tanhshrink",
    "Threshold",
    "GELU",
    "LSTM",
    "AdaptiveAvgPool2d",
    "AvgPool2d",
    "BatchNorm1d",
    "BatchNorm2d",
    "Buffer",
    "Conv2d",
    "Dropout",
    "Embedding",
    "Flatten",
    "Identity",
    "LSTMCell",
    "LayerNorm",
    "Linear",
    "LogSoftmax",
    "MaxPool2d",
    "Module",
    "ModuleDict",
    "ModuleList",
    "Parameter",
    "ReLU",
    "Sequential",
    "Sigmoid",
    "Softmax",
    "Tanh",
    "functional",
    "init",
]
