"""The built-in kernels: every `KernelRef` an op can name has one registered `Kernel`."""

from __future__ import annotations

import pytest

from dialects.torch import kernel_refs
from dialects.torch.kernel_refs import KernelRef
from dialects.torch.ops.along_dim import AlongDimOp
from dialects.torch.registry import ATEN_OPS
from lowering.run.custom_kernels import BUILTIN_KERNELS, kernel, kernel_digest, register_kernel

REFS = [v for v in vars(kernel_refs).values() if isinstance(v, KernelRef)]


def test_every_reference_has_one_kernel() -> None:
    assert sorted(BUILTIN_KERNELS) == sorted(ref.name for ref in REFS)
    assert all(BUILTIN_KERNELS[ref.name].ref is ref for ref in REFS)


def test_kernel_ops_name_a_builtin_kernel() -> None:
    kernel_ops = [op for op in ATEN_OPS if issubclass(op, AlongDimOp)]
    assert kernel_ops
    assert all(op.KERNEL.name in BUILTIN_KERNELS for op in kernel_ops)


def test_builtin_kernels_are_found_by_name_and_digest() -> None:
    name = kernel_refs.SORT.name
    assert kernel(name, kernel_digest(name)) is BUILTIN_KERNELS[name].function


def test_a_builtin_name_cannot_be_registered_again() -> None:
    with pytest.raises(ValueError, match="already registered"):
        register_kernel(kernel_refs.NONZERO.name, lambda x, out: None)
