"""Dense linear algebra: inv, det, slogdet, cholesky (numba kernels), solve, matrix_power,
and the `torch.linalg` functions written with other ops: multi_dot, vecdot, diagonal, logdet.

inv, det, slogdet and cholesky are computed matrix by matrix by numba kernels
(`dialects/torch/matrix_kernels.py`: LU with partial pivoting, Cholesky), called like the
along-dim kernels with the rows dim the second to last. solve decomposes into `inv(A) @ B`,
matrix_power into repeated squaring (`matmul`), inverting first for a negative power.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.ir import Attribute
from xdsl.irdl import operand_def, result_def

from dialects.torch import kernel_refs
from dialects.torch.meta import ShapeError, TensorMeta
from dialects.torch.op_base import Sample, TorchOp, arg_value, torch_op
from dialects.torch.op_base import T as Tn
from dialects.torch.ops.along_dim import AlongDimOp, KernelPlan
from dialects.torch.ops.arithmetic import AtenMulTensorOp
from dialects.torch.ops.comparison import AtenLtScalarOp
from dialects.torch.ops.constructors import AtenOnesLikeOp
from dialects.torch.ops.diagonals import AtenDiagEmbedOp, AtenDiagonalOp
from dialects.torch.ops.linear import AtenMatmulOp
from dialects.torch.ops.logical import AtenWhereScalarSelfOp
from dialects.torch.ops.op_sequence import OpSequence, known_rank
from dialects.torch.ops.reduction import AtenSumDimIntListOp
from dialects.torch.ops.tensor_lists import listed, tensor_list
from dialects.torch.ops.views import AtenCloneOp, AtenSqueezeDimOp, AtenUnsqueezeOp
from dialects.torch.types import DYN, BoolType, IntType, ListType, ValueTensorType


def eager_kernel(name: str):  # type: ignore[no-untyped-def]
    """The numba kernel the compiled op calls, run by the eager reference. Imported on first
    use: defining numba functions fixes numba's code generator, which the machine model
    (`TSJIT_CPU`) must set up first."""
    from dialects.torch import matrix_kernels

    return getattr(matrix_kernels, f"{name}_kernel")


TORCH_NAMES = {"int64": "Long", "int32": "Int", "bool": "Bool"}


def check_square(name: str, a: TensorMeta, floats_only: bool = True) -> None:
    """torch's checks of a batch of square matrices (`linalg.inv: ...`)."""
    if floats_only and a.dtype is not None and not a.dtype.is_float:
        raise TypeError(
            f"linalg.{name}: Expected a floating point or complex tensor as input. Got "
            f"{TORCH_NAMES.get(a.dtype.name, a.dtype.name)}"
        )
    if a.rank is None:
        return
    if a.rank < 2:
        raise ShapeError(f"linalg.{name}: The input tensor A must have at least 2 dimensions.")
    rows, cols = a.shape[-2:]
    if DYN not in (rows, cols) and rows != cols:
        raise ShapeError(
            f"linalg.{name}: A must be batches of square matrices, but they are {rows} by "
            f"{cols} matrices"
        )


def run_kernel(name: str, a: Any, outputs: list[Any], *scalars: int) -> None:
    """Run kernel `name` on numpy `a` ([..., n, n]) writing `outputs` (eager references)."""
    n = a.shape[-1] if a.ndim else 1
    batch = int(np.prod(a.shape[:-2]))
    eager_kernel(name)(np.ascontiguousarray(a), batch, n, n, *scalars, *outputs)


class _MatrixKernelOp(AlongDimOp):
    """A kernel op over the last two dims: rows along dim -2."""

    LABEL = ""
    KEEPS_MATRIX = True

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        a = args[0]
        check_square(cls.LABEL, a)
        shape = a.shape if cls.KEEPS_MATRIX or a.shape is None else a.shape[:-2]
        return [ValueTensorType(shape, a.dtype)] * len(cls.parsed_schema().returns)

    def plan(self) -> KernelPlan:
        rank = self.arg_values()[0].rank  # lowered operands have builtin tensor types
        assert rank is not None
        outputs = tuple(range(len(self.results)))
        return KernelPlan(self.KERNEL, rank - 2, self.kernel_scalars(), outputs)

    def kernel_scalars(self) -> tuple[int, ...]:
        return ()


class _RaisingKernelOp(_MatrixKernelOp):
    """A kernel that raises torch's error, which names the matrix of a batch: its first
    scalar says whether A has batch dims."""

    def kernel_scalars(self) -> tuple[int, ...]:
        return (int(self.arg_values()[0].rank > 2),)


@torch_op
class AtenLinalgInvOp(_RaisingKernelOp):
    """`torch.linalg.inv(A)` / `torch.inverse` / `A.inverse()`: a singular matrix is torch's
    RuntimeError (`linalg.inv: The diagonal element k is zero, ...`)."""

    name = "torch.aten.linalg_inv"
    SCHEMA = "aten::linalg_inv(Tensor A) -> Tensor"
    PY_NAMES = ("torch.linalg.inv", "torch.inverse", "Tensor.inverse")
    KERNEL = kernel_refs.LINALG_INVERSE
    LABEL = "inv"
    SAMPLES = (Sample(Tn((2, 3, 3), low=1.0, high=3.0)),)
    A = operand_def(ValueTensorType)
    result = result_def(ValueTensorType)

    @staticmethod
    def eager(a: Any) -> Any:
        out = np.empty(a.shape, a.dtype)
        run_kernel("inverse", a, [out], int(a.ndim > 2))
        return out


@torch_op
class AtenLinalgDetOp(_MatrixKernelOp):
    """`torch.linalg.det(A)` / `torch.det` / `A.det()`: [...] (0 for a singular matrix)."""

    name = "torch.aten.linalg_det"
    SCHEMA = "aten::linalg_det(Tensor A) -> Tensor"
    PY_NAMES = ("torch.linalg.det", "torch.det", "Tensor.det")
    KERNEL = kernel_refs.LINALG_DET
    LABEL = "det"
    KEEPS_MATRIX = False
    SAMPLES = (Sample(Tn((2, 3, 3), "float64")),)
    A = operand_def(ValueTensorType)
    result = result_def(ValueTensorType)

    @staticmethod
    def eager(a: Any) -> Any:
        out = np.empty(a.shape[:-2], a.dtype)
        run_kernel("det", a, [out])
        return out


@torch_op
class AtenLinalgSlogdetOp(_MatrixKernelOp):
    """`torch.linalg.slogdet(A)` / `torch.slogdet` -> (sign, logabsdet): (0, -inf) for a
    singular matrix."""

    name = "torch.aten.linalg_slogdet"
    SCHEMA = "aten::linalg_slogdet(Tensor A) -> (Tensor sign, Tensor logabsdet)"
    PY_NAMES = ("torch.linalg.slogdet", "torch.slogdet", "Tensor.slogdet")
    KERNEL = kernel_refs.LINALG_SLOGDET
    LABEL = "slogdet"
    KEEPS_MATRIX = False
    SAMPLES = (Sample(Tn((2, 3, 3))),)
    A = operand_def(ValueTensorType)
    sign = result_def(ValueTensorType)
    logabsdet = result_def(ValueTensorType)

    @staticmethod
    def eager(a: Any) -> Any:
        sign, log = np.empty(a.shape[:-2], a.dtype), np.empty(a.shape[:-2], a.dtype)
        run_kernel("slogdet", a, [sign, log])
        return sign, log


@torch_op
class AtenLinalgCholeskyOp(_RaisingKernelOp):
    """`torch.linalg.cholesky(A, upper=False)`: L with A = L L^H from A's lower triangle
    (upper: L^H); not positive-definite is torch's RuntimeError."""

    name = "torch.aten.linalg_cholesky"
    SCHEMA = "aten::linalg_cholesky(Tensor self, *, bool upper=False) -> Tensor"
    PY_NAMES = ("torch.linalg.cholesky",)
    KERNEL = kernel_refs.LINALG_CHOLESKY
    LABEL = "cholesky"
    # random samples are positive-definite only as 1 x 1 matrices (larger ones are in
    # tests/e2e/test_ops_as_users_write_them.py)
    SAMPLES = (Sample(Tn((3, 1, 1), low=0.5, high=2.0)),)
    self_ = operand_def(ValueTensorType)
    upper = operand_def(BoolType)
    result = result_def(ValueTensorType)

    @staticmethod
    def eager(a: Any, upper: bool = False) -> Any:
        out = np.empty(a.shape, a.dtype)
        run_kernel("cholesky", a, [out], int(a.ndim > 2), int(bool(upper)))
        return out

    def kernel_scalars(self) -> tuple[int, ...]:
        return (*super().kernel_scalars(), int(arg_value(self.upper) is True))


def solve_shapes(a: TensorMeta, b: TensorMeta) -> bool:
    """Whether B is a (batch of) vector(s) for `A X = B` (torch's rule), after the checks."""
    check_square("solve", a)
    if b.dtype is not None and a.dtype is not None and b.dtype != a.dtype:
        raise TypeError(
            "linalg.solve: Expected A and B to have the same dtype, but found A of type "
            f"{_torch_type(a.dtype)} and B of type {_torch_type(b.dtype)} instead"
        )
    if a.rank is None or b.rank is None:
        return False
    return b.rank == 1 or (b.rank == a.rank - 1 and b.shape == a.shape[:-1])


def _torch_type(dtype: Any) -> str:
    return {"float32": "Float", "float64": "Double"}.get(dtype.name, dtype.name)


@torch_op
class AtenLinalgSolveOp(TorchOp):
    """`torch.linalg.solve(A, B, left=True)`: X with A X = B (left=False: X A = B); B a
    (batch of) matrix or vector, broadcast over the batch dims."""

    name = "torch.aten.linalg_solve"
    SCHEMA = "aten::linalg_solve(Tensor A, Tensor B, *, bool left=True) -> Tensor"
    PY_NAMES = ("torch.linalg.solve",)
    SAMPLES = (Sample(Tn((2, 3, 3), "float64", 1.0, 3.0), Tn((3,), "float64")),)
    A = operand_def(ValueTensorType)
    B = operand_def(ValueTensorType)
    left = operand_def(BoolType)
    result = result_def(ValueTensorType)

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        a, b, left = args
        vector = solve_shapes(a, b)
        if a.rank is None or b.rank is None:
            return [ValueTensorType(None, a.dtype)]
        inverse = TensorMeta(a.shape, a.dtype)
        b_matrix = TensorMeta((*b.shape, 1) if vector else b.shape, b.dtype)
        first, second = (inverse, b_matrix) if left is not False else (b_matrix, inverse)
        (typ,) = AtenMatmulOp.infer(first, second)
        shape = typ.sizes  # type: ignore[attr-defined]
        if shape is not None and vector:
            shape = shape[:-1]
        return [ValueTensorType(shape, a.dtype)]

    @staticmethod
    def eager(a: Any, b: Any, left: bool = True) -> Any:
        vector = b.ndim == 1 or (b.ndim == a.ndim - 1 and b.shape == a.shape[:-1])
        inverse = AtenLinalgInvOp.eager(a)
        matrix = b[..., None] if vector else b
        out = inverse @ matrix if left else matrix @ inverse
        return (out[..., 0] if vector else out).astype(a.dtype)

    def decompose(self) -> Any:
        a, b, left = self.operands
        if known_rank(a) is None or known_rank(b) is None:
            return None
        vector = solve_shapes(TensorMeta.of_type(a.type), TensorMeta.of_type(b.type))  # type: ignore[arg-type]
        seq = OpSequence()
        inverse = seq.call(AtenLinalgInvOp, a)
        matrix = seq.call(AtenUnsqueezeOp, b, -1) if vector else b
        if arg_value(left) is False:
            product = seq.call(AtenMatmulOp, matrix, inverse)
        else:
            product = seq.call(AtenMatmulOp, inverse, matrix)
        if vector:
            seq.call(AtenSqueezeDimOp, product, -1)
        return seq.ops


@torch_op
class AtenLinalgMatrixPowerOp(TorchOp):
    """`torch.linalg.matrix_power(A, n)` / `torch.matrix_power` / `A.matrix_power(n)`: n a
    constant; n = 0 the identity, n < 0 a power of the inverse (floats only)."""

    name = "torch.aten.linalg_matrix_power"
    SCHEMA = "aten::linalg_matrix_power(Tensor self, int n) -> Tensor"
    PY_NAMES = ("torch.linalg.matrix_power", "torch.matrix_power", "Tensor.matrix_power")
    SAMPLES = (Sample(Tn((2, 3, 3)), 5),)
    self_ = operand_def(ValueTensorType)
    n = operand_def(IntType)
    result = result_def(ValueTensorType)

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        a, n = args
        if not isinstance(n, int):
            raise TypeError("linalg.matrix_power: `n` must be a constant")
        check_square("matrix_power", a, floats_only=False)
        if n < 0:
            check_square("inv", a)
        return [ValueTensorType(a.shape, a.dtype)]

    @staticmethod
    def eager(a: Any, n: int) -> Any:
        base = AtenLinalgInvOp.eager(a) if n < 0 else a
        result = np.broadcast_to(np.eye(a.shape[-1], dtype=a.dtype), a.shape).copy()
        for _ in range(abs(n)):
            result = result @ base
        return result.astype(a.dtype)

    def decompose(self) -> Any:
        a, n = self.operands
        power = arg_value(n)
        if known_rank(a) is None or not isinstance(power, int):
            return None
        seq = OpSequence()
        if power == 0:
            diagonal = seq.call(AtenDiagonalOp, a, 0, -2, -1)
            ones = seq.call(AtenOnesLikeOp, diagonal, None)
            seq.call(AtenDiagEmbedOp, ones, 0, -2, -1)
            return seq.ops
        base = seq.call(AtenLinalgInvOp, a) if power < 0 else a
        result = None
        for bit in bin(abs(power))[2:]:  # left to right: square, then multiply
            if result is not None:
                result = seq.call(AtenMatmulOp, result, result)
            if bit == "1":
                result = base if result is None else seq.call(AtenMatmulOp, result, base)
        if not seq.ops:  # A ** 1
            seq.call(AtenCloneOp, a, None)
        return seq.ops


def _float_name(dtype: Any) -> str:
    return {"float32": "Float", "float64": "Double", "int64": "Long", "int32": "Int"}.get(
        dtype.name, dtype.name
    )


@torch_op
class AtenLinalgMultiDotOp(TorchOp):
    """`torch.linalg.multi_dot([a, b, c, ...])`: `a @ b @ c ...`; the first and the last may
    be 1-D (a row, a column), the others 2-D, all of one dtype."""

    name = "torch.aten.linalg_multi_dot"
    SCHEMA = "aten::linalg_multi_dot(Tensor[] tensors) -> Tensor"
    PY_NAMES = ("torch.linalg.multi_dot",)
    SAMPLES = (Sample([Tn((3,)), Tn((3, 4)), Tn((4, 2))]),)
    tensors = operand_def(ListType)
    result = result_def(ValueTensorType)

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        tensors = tensor_list("multi_dot", args[0])
        if len(tensors) < 2:
            raise ShapeError(f"multi_dot(): expected at least 2 tensors but got {len(tensors)}")
        for position, t in enumerate(tensors):
            edge = position in (0, len(tensors) - 1)
            if t.rank is not None and (t.rank not in (1, 2) if edge else t.rank != 2):
                which = "the first tensor" if position == 0 else "the last tensor"
                if edge:
                    raise ShapeError(f"multi_dot(): {which} must be 1D or 2D but got {t.rank}D")
                raise ShapeError(f"multi_dot(): tensor {position} must be 2D but got {t.rank}D")
            first = tensors[0].dtype
            if None not in (t.dtype, first) and t.dtype != first:
                raise TypeError(
                    "multi_dot(): all tensors must have be the same dtype but tensor 0 is "
                    f"{_float_name(first).lower()} and tensor {position} "
                    f"{_float_name(t.dtype).lower()}"
                )
        result: Any = tensors[0]
        for t in tensors[1:]:
            (typ,) = AtenMatmulOp.infer(result, t)
            result = TensorMeta.of_type(typ)  # type: ignore[arg-type]
        return [result.to_type()]

    @staticmethod
    def eager(tensors: Any) -> Any:
        out = tensors[0]
        for t in tensors[1:]:
            out = out @ t
        return np.asarray(out)

    def decompose(self) -> Any:
        tensors = listed(self)
        if not tensors:
            return None
        seq = OpSequence()
        result = tensors[0]
        for t in tensors[1:]:
            result = seq.call(AtenMatmulOp, result, t)
        return seq.ops


@torch_op
class AtenLinalgVecdotOp(TorchOp):
    """`torch.linalg.vecdot(x, y, dim=-1)`: `(x * y).sum(dim)`, broadcast; floats of one
    dtype (torch's messages)."""

    name = "torch.aten.linalg_vecdot"
    SCHEMA = "aten::linalg_vecdot(Tensor x, Tensor y, *, int dim=-1) -> Tensor"
    PY_NAMES = ("torch.linalg.vecdot",)
    SAMPLES = (Sample(Tn((2, 3)), Tn((3,))),)
    x = operand_def(ValueTensorType)
    y = operand_def(ValueTensorType)
    dim = operand_def(IntType)
    result = result_def(ValueTensorType)

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        x, y, dim = args
        if x.dtype is not None and not x.dtype.is_float:
            raise TypeError(
                "linalg.vecdot: Expected a floating point or complex tensor as input. Got "
                f"{_float_name(x.dtype)}"
            )
        if None not in (x.dtype, y.dtype) and x.dtype != y.dtype:
            raise TypeError(
                "linalg.vecdot: Expected x and y to have the same dtype, but found x of type "
                f"{_float_name(x.dtype)} and y of type {_float_name(y.dtype)} instead"
            )
        (product,) = AtenMulTensorOp.infer(x, y)
        return AtenSumDimIntListOp.infer(TensorMeta.of_type(product), [dim], False, None)  # type: ignore[arg-type]

    @staticmethod
    def eager(x: Any, y: Any, dim: int = -1) -> Any:
        return (x * y).sum(dim).astype(np.result_type(x, y))

    def decompose(self) -> Any:
        x, y, dim = self.operands
        seq = OpSequence()
        product = seq.call(AtenMulTensorOp, x, y)
        seq.call(AtenSumDimIntListOp, product, [arg_value(dim)], False, None)
        return seq.ops


@torch_op
class AtenLinalgDiagonalOp(TorchOp):
    """`torch.linalg.diagonal(A, *, offset=0, dim1=-2, dim2=-1)`: `torch.diagonal` with the
    last two dims by default."""

    name = "torch.aten.linalg_diagonal"
    SCHEMA = "aten::linalg_diagonal(Tensor A, *, int offset=0, int dim1=-2, int dim2=-1) -> Tensor"
    PY_NAMES = ("torch.linalg.diagonal",)
    SAMPLES = (Sample(Tn((2, 3, 4)), offset=1),)
    A = operand_def(ValueTensorType)
    offset = operand_def(IntType)
    dim1 = operand_def(IntType)
    dim2 = operand_def(IntType)
    result = result_def(ValueTensorType)

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        return AtenDiagonalOp.infer(*args)

    @staticmethod
    def eager(a: Any, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Any:
        return np.diagonal(a, offset, dim1, dim2).copy()

    def decompose(self) -> Any:
        seq = OpSequence()
        seq.call(AtenDiagonalOp, *self.operands)
        return seq.ops


@torch_op
class AtenLogdetOp(TorchOp):
    """`torch.logdet(A)` / `A.logdet()`: log(det), NaN where det < 0, -inf where it is 0."""

    name = "torch.aten.logdet"
    SCHEMA = "aten::logdet(Tensor self) -> Tensor"
    PY_NAMES = ("torch.logdet", "Tensor.logdet")
    SAMPLES = (Sample(Tn((2, 3, 3), "float64")),)
    self_ = operand_def(ValueTensorType)
    result = result_def(ValueTensorType)

    @classmethod
    def infer(cls, *args: Any) -> list[Attribute]:
        check_square("logdet", args[0])
        return [AtenLinalgSlogdetOp.infer(*args)[0]]

    @staticmethod
    def eager(a: Any) -> Any:
        sign, log = AtenLinalgSlogdetOp.eager(a)
        return np.where(sign < 0, np.nan, log).astype(a.dtype)

    def decompose(self) -> Any:
        if known_rank(self.self_) is None:
            return None
        seq = OpSequence()
        slogdet = seq.add(AtenLinalgSlogdetOp.build([self.self_]))
        sign, log = slogdet.results
        negative = seq.call(AtenLtScalarOp, sign, 0)
        seq.call(AtenWhereScalarSelfOp, negative, float("nan"), log)
        return seq.ops


OPS = (
    AtenLinalgInvOp,
    AtenLinalgDetOp,
    AtenLinalgSlogdetOp,
    AtenLinalgCholeskyOp,
    AtenLinalgSolveOp,
    AtenLinalgMatrixPowerOp,
    AtenLinalgMultiDotOp,
    AtenLinalgVecdotOp,
    AtenLinalgDiagonalOp,
    AtenLogdetOp,
)
