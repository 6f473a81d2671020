"""1-D convolution and pooling: `conv1d` (numeric and "same"/"valid" padding), `max_pool1d`,
`avg_pool1d` and `adaptive_avg_pool1d`, each the 2-D op over a height of one.

Input (N, C, L) or unbatched (C, L). The shape rule, the reference and the decomposition
(`torch-decompose`: unsqueeze the height, the 2-D op, squeeze it) all go through the 2-D op,
whose window arguments get a unit height: kernel / stride / dilation 1, padding 0.
"""

from __future__ import annotations

from typing import Any, ClassVar

from xdsl.ir import Attribute
from xdsl.irdl import operand_def, result_def

from dialects.torch.meta import ShapeError, TensorMeta
from dialects.torch.op_base import Sample, TorchOp, torch_op
from dialects.torch.op_base import T as Tn
from dialects.torch.ops.conv import AtenConv2dOp, AtenConv2dPaddingOp
from dialects.torch.ops.op_sequence import OpSequence
from dialects.torch.ops.pooling import AtenAdaptiveAvgPool2dOp, AtenAvgPool2dOp, AtenMaxPool2dOp
from dialects.torch.ops.views import AtenSqueezeDimOp, AtenUnsqueezeOp
from dialects.torch.types import BoolType, IntType, ListType, NoneType, StrType, ValueTensorType

IntList = ListType | IntType


def single(op_name: str, arg_name: str, value: Any) -> list[int]:
    """An `int[1]` argument as a list: [] (a pooling stride's default, also None), or [v]."""
    if value is None:
        return []
    if isinstance(value, int) and not isinstance(value, bool):
        return [value]
    if (
        isinstance(value, list | tuple)
        and len(value) <= 1
        and all(isinstance(v, int) for v in value)
    ):
        return list(value)
    raise TypeError(f"{op_name}: `{arg_name}` must be one constant int, got {value!r}")


class OneDimOp(TorchOp):
    """A 1-D op computed by `TWO_D` with a unit height; `WINDOW` gives, per argument
    position, the value the height takes in a window argument (None: passed as it is)."""

    TWO_D: ClassVar[type[TorchOp]]
    WINDOW: ClassVar[dict[int, int]]
    WEIGHT: ClassVar[bool] = False  # conv1d: the weight (C_out, C_in / g, k) gets a height too

    @classmethod
    def short_name(cls) -> str:
        return cls.name.removeprefix("torch.aten.").split(".")[0]

    @classmethod
    def two_d_args(cls, args: tuple[Any, ...], unsqueeze: Any) -> list[Any]:
        """The 2-D op's arguments; `unsqueeze(x)` gives a tensor argument its height."""
        out: list[Any] = []
        for index, value in enumerate(args):
            if index == 0 or (index == 1 and cls.WEIGHT):
                out.append(unsqueeze(value))
            elif index in cls.WINDOW:
                values = single(cls.short_name(), cls.arg_name(index), value)
                out.append([cls.WINDOW[index], *values] if values else [])
            else:
                out.append(value)
        return out

    @classmethod
    def arg_name(cls, index: int) -> str:
        return cls.parsed_schema().arguments[index].name

    @classmethod
    def check_rank(cls, x: TensorMeta) -> None:
        if x.shape is not None and len(x.shape) not in (2, 3):
            raise ShapeError(
                f"Expected 2D (unbatched) or 3D (batched) input to {cls.short_name()}, but got "
                f"input of size: {list(x.shape)}"
            )

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        x = args[0]
        cls.check_rank(x)

        def unsqueeze(meta: Any) -> Any:
            if not isinstance(meta, TensorMeta) or meta.shape is None:
                return meta
            return TensorMeta((*meta.shape[:-1], 1, meta.shape[-1]), meta.dtype)

        (result,) = cls.TWO_D.infer(*cls.two_d_args(args, unsqueeze))
        sizes = result.sizes  # type: ignore[attr-defined]
        if sizes is None:
            return [result]
        return [ValueTensorType((*sizes[:-2], sizes[-1]), result.element)]  # type: ignore[attr-defined]

    @classmethod
    def eager(cls, *args: Any) -> Any:
        cls.check_rank(TensorMeta.of_array(args[0]))
        out = cls.TWO_D.run_eager(*cls.two_d_args(args, lambda a: a[..., None, :]))
        return out[..., 0, :]

    def decompose(self) -> Any:
        x = self.operands[0]
        if not isinstance(x.type, ValueTensorType) or x.type.rank is None:
            return None
        s = OpSequence()
        converted = self.two_d_args(tuple(self.arg_values()), lambda a: a)
        args: list[Any] = []
        for index, operand in enumerate(self.operands):
            if index == 0 or (index == 1 and self.WEIGHT):
                args.append(s.call(AtenUnsqueezeOp, operand, -2))
            else:
                args.append(converted[index] if index in self.WINDOW else operand)
        args += converted[len(self.operands) :]  # the 2-D op's extra arguments
        two_d = s.call(self.TWO_D, *args)
        s.call(AtenSqueezeDimOp, two_d, -2)
        return s.ops


@torch_op
class AtenConv1dOp(OneDimOp):
    """`F.conv1d(input, weight, bias, stride, padding, dilation, groups)`: conv2d over a
    height of one."""

    name = "torch.aten.conv1d"
    SCHEMA = (
        "aten::conv1d(Tensor input, Tensor weight, Tensor? bias=None, int[1] stride=[1], "
        "int[1] padding=[0], int[1] dilation=[1], int groups=1) -> Tensor"
    )
    PY_NAMES = ("F.conv1d", "torch.conv1d")
    TWO_D = AtenConv2dOp
    WINDOW: ClassVar[dict[int, int]] = {3: 1, 4: 0, 5: 1}
    WEIGHT = True
    SAMPLES = (
        Sample(Tn((2, 4, 9), low=-1, high=1), Tn((6, 2, 3), low=-1, high=1),
               Tn((6,), low=-1, high=1), 2, 1, 2, 2),
        Sample(Tn((3, 7), "float64"), Tn((2, 3, 2), "float64")),
    )  # fmt: skip
    input = operand_def(ValueTensorType)
    weight = operand_def(ValueTensorType)
    bias = operand_def(ValueTensorType | NoneType)
    stride = operand_def(IntList)
    padding = operand_def(IntList)
    dilation = operand_def(IntList)
    groups = operand_def(IntType)
    result = result_def(ValueTensorType)


@torch_op
class AtenConv1dPaddingOp(OneDimOp):
    """`F.conv1d(..., padding="same" | "valid")`."""

    name = "torch.aten.conv1d.padding"
    SCHEMA = (
        "aten::conv1d.padding(Tensor input, Tensor weight, Tensor? bias=None, "
        'int[1] stride=[1], str padding="valid", int[1] dilation=[1], int groups=1) -> Tensor'
    )
    PY_NAMES = ("F.conv1d", "torch.conv1d")
    TWO_D = AtenConv2dPaddingOp
    WINDOW: ClassVar[dict[int, int]] = {3: 1, 5: 1}
    WEIGHT = True
    SAMPLES = (Sample(Tn((1, 2, 8)), Tn((3, 2, 4)), Tn((3,)), 1, "same", 2),)
    input = operand_def(ValueTensorType)
    weight = operand_def(ValueTensorType)
    bias = operand_def(ValueTensorType | NoneType)
    stride = operand_def(IntList)
    padding = operand_def(StrType)
    dilation = operand_def(IntList)
    groups = operand_def(IntType)
    result = result_def(ValueTensorType)


@torch_op
class AtenMaxPool1dOp(OneDimOp):
    """`F.max_pool1d(x, kernel_size, stride=kernel_size, padding=0, dilation=1, ceil_mode)`."""

    name = "torch.aten.max_pool1d"
    SCHEMA = (
        "aten::max_pool1d(Tensor self, int[1] kernel_size, int[1]? stride=None, int[1] padding=[0], "
        "int[1] dilation=[1], bool ceil_mode=False) -> Tensor"
    )
    PY_NAMES = ("F.max_pool1d", "torch.max_pool1d")
    TWO_D = AtenMaxPool2dOp
    WINDOW: ClassVar[dict[int, int]] = {1: 1, 2: 1, 3: 0, 4: 1}
    SAMPLES = (
        Sample(Tn((2, 3, 9)), 3, 2, 1, 1, True),
        Sample(Tn((3, 8), "float64"), 2),
    )
    self_ = operand_def(ValueTensorType)
    kernel_size = operand_def(IntList)
    stride = operand_def(IntList | NoneType)
    padding = operand_def(IntList)
    dilation = operand_def(IntList)
    ceil_mode = operand_def(BoolType)
    result = result_def(ValueTensorType)

    @classmethod
    def check_rank(cls, x: TensorMeta) -> None:
        super().check_rank(x)
        if x.dtype is not None and not x.dtype.is_float:
            names = {"int64": "Long", "int32": "Int", "bool": "Bool"}
            raise TypeError(f"\"max_pool1d_impl\" not implemented for '{names[x.dtype.name]}'")


@torch_op
class AtenAvgPool1dOp(OneDimOp):
    """`F.avg_pool1d(x, kernel_size, stride=kernel_size, padding=0, ceil_mode,
    count_include_pad)`."""

    name = "torch.aten.avg_pool1d"
    SCHEMA = (
        "aten::avg_pool1d(Tensor self, int[1] kernel_size, int[1]? stride=None, int[1] padding=[0], "
        "bool ceil_mode=False, bool count_include_pad=True) -> Tensor"
    )
    PY_NAMES = ("F.avg_pool1d", "torch.avg_pool1d")
    TWO_D = AtenAvgPool2dOp
    WINDOW: ClassVar[dict[int, int]] = {1: 1, 2: 1, 3: 0}
    SAMPLES = (Sample(Tn((2, 3, 9)), 3, 2, 1, True, False), Sample(Tn((3, 8), "float64"), 2))
    self_ = operand_def(ValueTensorType)
    kernel_size = operand_def(IntList)
    stride = operand_def(IntList | NoneType)
    padding = operand_def(IntList)
    ceil_mode = operand_def(BoolType)
    count_include_pad = operand_def(BoolType)
    result = result_def(ValueTensorType)

    @classmethod
    def two_d_args(cls, args: tuple[Any, ...], unsqueeze: Any) -> list[Any]:
        return [*super().two_d_args(args, unsqueeze), None]  # divisor_override


@torch_op
class AtenAdaptiveAvgPool1dOp(OneDimOp):
    """`F.adaptive_avg_pool1d(x, output_size)`: the average of each of `output_size` windows
    spread evenly over the length."""

    name = "torch.aten.adaptive_avg_pool1d"
    SCHEMA = "aten::adaptive_avg_pool1d(Tensor self, int[1] output_size) -> Tensor"
    PY_NAMES = ("F.adaptive_avg_pool1d", "torch.adaptive_avg_pool1d")
    TWO_D = AtenAdaptiveAvgPool2dOp
    WINDOW: ClassVar[dict[int, int]] = {1: 1}
    SAMPLES = (Sample(Tn((2, 3, 7)), 3), Sample(Tn((3, 8), "float64"), [1]))
    self_ = operand_def(ValueTensorType)
    output_size = operand_def(IntList)
    result = result_def(ValueTensorType)


OPS = (AtenConv1dOp, AtenConv1dPaddingOp, AtenMaxPool1dOp, AtenAvgPool1dOp, AtenAdaptiveAvgPool1dOp)
