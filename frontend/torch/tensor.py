"""`Tensor`: a numpy array with PyTorch semantics.

The class holds the data and everything that is not an op: metadata (`shape`, `dtype`,
`size()`), conversions to Python and numpy values, printing, indexing and numpy interop.
Every op method (`x.tanh()`, `x.sum(1)`, `x + y`, `x.add_(y)`) is generated from the op
registry by `frontend.torch.methods` and runs through `dispatch`, so a tracer sees it.
There is no autograd: `requires_grad=True` is rejected and `backward()` raises.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any

import numpy as np

from frontend.torch.device import device
from frontend.torch.dtype import as_dtype, dtype, dtype_of_array, get_default_dtype
from frontend.torch.interception import notify
from frontend.torch.printing import tensor_repr

NO_AUTOGRAD = "frontend.torch has no autograd: tensors cannot require gradients"


class Size(tuple):  # type: ignore[type-arg]
    """`torch.Size`: a tuple of ints that prints as `torch.Size([2, 3])`."""

    def __getitem__(self, index: Any) -> Any:
        item = super().__getitem__(index)
        return Size(item) if isinstance(index, slice) else item

    def numel(self) -> int:
        return int(np.prod(self, dtype=np.int64))

    def __repr__(self) -> str:
        return f"torch.Size([{', '.join(str(d) for d in self)}])"


class Tensor:
    """A numpy-backed tensor; `Tensor(data)` builds a default-float tensor like `torch.Tensor`."""

    __array_priority__ = 1000  # numpy defers binary operators on arrays to Tensor

    def __init__(self, *data: Any) -> None:
        if len(data) == 1 and not isinstance(data[0], int):
            values = np.asarray(_unwrap(data[0]), dtype=get_default_dtype().numpy)
        else:  # torch.Tensor(2, 3): uninitialized of that size (here: zeros)
            values = np.zeros(tuple(data), dtype=get_default_dtype().numpy)
        self._data = values

    @classmethod
    def wrap(cls, array: np.ndarray) -> Tensor:  # type: ignore[type-arg]
        """A Tensor viewing `array` (no copy); TypeError for unsupported dtypes."""
        dtype_of_array(array)
        tensor = cls.__new__(cls)
        tensor._data = array
        return tensor

    # ---- metadata ----

    @property
    def shape(self) -> Size:
        notify().reading_size(self, None)
        return Size(self._data.shape)

    @property
    def dtype(self) -> dtype:
        return dtype_of_array(self._data)

    @property
    def ndim(self) -> int:
        return self._data.ndim

    @property
    def device(self) -> device:
        return device("cpu")

    @property
    def is_cuda(self) -> bool:
        return False

    @property
    def requires_grad(self) -> bool:
        return False

    @requires_grad.setter
    def requires_grad(self, value: bool) -> None:
        if value:
            raise NotImplementedError(NO_AUTOGRAD)

    @property
    def grad(self) -> None:
        return None

    def requires_grad_(self, requires_grad: bool = True) -> Tensor:
        self.requires_grad = requires_grad
        return self

    def backward(self, *args: Any, **kwargs: Any) -> None:
        raise NotImplementedError(NO_AUTOGRAD)

    def size(self, dim: int | None = None) -> Any:
        if dim is None:
            return self.shape
        index = _dim_index(dim, self.ndim)
        notify().reading_size(self, index)
        return Size(self._data.shape)[index]

    def numel(self) -> int:
        notify().reading_size(self, None)
        return int(self._data.size)

    nelement = numel

    def dim(self) -> int:
        return self._data.ndim

    ndimension = dim

    def element_size(self) -> int:
        return int(self._data.itemsize)

    def is_floating_point(self) -> bool:
        return self.dtype.is_float

    def is_contiguous(self) -> bool:
        return bool(self._data.flags.c_contiguous)

    # ---- values without ops: copies and aliases (the tracer keeps following them) ----

    def _alias(self, array: np.ndarray) -> Tensor:  # type: ignore[type-arg]
        new = Tensor.wrap(array)
        notify().aliased(new, self)
        return new

    def clone(self, memory_format: Any = None) -> Tensor:  # a memory format: only strides
        return self._alias(self._data.copy())

    def detach(self) -> Tensor:
        return self._alias(self._data)

    def contiguous(self, memory_format: Any = None) -> Tensor:
        return self if self.is_contiguous() else self._alias(np.ascontiguousarray(self._data))

    def cpu(self) -> Tensor:
        return self

    def to(self, *args: Any, **kwargs: Any) -> Tensor:
        """`.to(dtype)`, `.to("cpu")`, `.to(other_tensor)`; a cast needs the registry's cast op."""
        target = kwargs.pop("dtype", None)
        device(kwargs.pop("device", "cpu") or "cpu")  # only the cpu exists: anything else fails
        for arg in args:
            if isinstance(arg, Tensor):
                target = arg.dtype
            elif arg is None or _is_device(arg):
                continue
            elif isinstance(arg, str) and not _is_dtype_name(arg):
                device(arg)
            else:
                target = arg
        if target is None or as_dtype(target) == self.dtype:
            return self
        return self._cast(as_dtype(target))

    def type_as(self, other: Tensor) -> Tensor:
        return self.to(other.dtype)

    @property
    def data(self) -> Tensor:
        """The same values, outside any autograd history (there is none here)."""
        return Tensor.wrap(self._data)

    @data.setter
    def data(self, value: Any) -> None:
        self._data = np.asarray(_unwrap(value))

    def numpy(self) -> np.ndarray:  # type: ignore[type-arg]
        """The numpy array behind this tensor (shared, like `torch.Tensor.numpy`)."""
        return self._data

    def __copy__(self) -> Tensor:
        return type(self).wrap(self._data)

    def __deepcopy__(self, memo: dict[int, Any]) -> Tensor:
        new = copy.copy(self)
        new.__dict__.update(copy.deepcopy(self.__dict__, memo))
        return new

    # ---- conversions to Python values (a tracer warns: the trace bakes the value in) ----

    def _python(self, target: str) -> Any:
        notify().converting(self, target)
        return self._data

    def item(self) -> Any:
        values = self._python("a Python number")
        if values.size != 1:
            raise RuntimeError(
                f"a Tensor with {values.size} elements cannot be converted to Scalar"
            )
        return values.item()

    def tolist(self) -> Any:
        return self._python("a Python list").tolist()

    def __bool__(self) -> bool:
        values = self._python("a Python boolean")
        if values.size != 1:
            raise RuntimeError(
                f"Boolean value of Tensor with more than one value is ambiguous "
                f"(shape {list(values.shape)})"
            )
        return bool(values.item())

    def __float__(self) -> float:
        return float(self._single("a Python float"))

    def __int__(self) -> int:
        return int(self._single("a Python integer"))

    def __index__(self) -> int:
        if self.dtype.is_float or self.dtype.is_bool:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self._single("a Python index"))

    def _single(self, target: str) -> Any:
        values = self._python(target)
        if values.size != 1:
            raise RuntimeError("only one element tensors can be converted to Python scalars")
        return values.item()

    def __len__(self) -> int:
        notify().converting(self, "a Python int (len)")
        if self.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return int(self._data.shape[0])

    def __iter__(self) -> Iterator[Tensor]:
        if self.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        notify().converting(self, "an iterator (one row per step)")
        return (self[i] for i in range(self._data.shape[0]))

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> np.ndarray:  # type: ignore[type-arg]
        values = self._python("a NumPy array")
        if dtype is not None and np.dtype(dtype) != values.dtype:
            return values.astype(dtype)
        return values.copy() if copy else values

    def __format__(self, spec: str) -> str:
        if self.ndim == 0 and spec:
            return format(self.item(), spec)
        return format(repr(self), spec)

    def __repr__(self) -> str:
        return tensor_repr(self._data, self.dtype.name, get_default_dtype().name)

    __hash__ = object.__hash__  # `==` is elementwise; hashing is by identity, like torch

    # ---- indexing ----

    def __setitem__(self, key: Any, value: Any) -> None:
        notify().mutating(self, "an indexed assignment (x[i] = v)")
        self._data[_unwrap_index(key)] = _unwrap(value)



def _dim_index(dim: int, rank: int) -> int:
    if not -max(rank, 1) <= dim < max(rank, 1):
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-max(rank, 1)}, "
            f"{max(rank, 1) - 1}], but got {dim})"
        )
    return dim % max(rank, 1)


def _is_device(value: Any) -> bool:
    return (isinstance(value, device) or type(value).__name__ == "device") and str(value) == "cpu"


def _is_dtype_name(name: str) -> bool:
    try:
        as_dtype(name)
    except TypeError:
        return False
    return True


def _unwrap(value: Any) -> Any:
    """numpy values for Tensors, also inside lists and tuples."""
    if isinstance(value, Tensor):
        return value.numpy()
    if isinstance(value, list | tuple):
        return type(value)(_unwrap(v) for v in value)
    return value


def _unwrap_index(key: Any) -> Any:
    if isinstance(key, tuple):
        return tuple(_unwrap(k) for k in key)
    return _unwrap(key)


def is_tensor(obj: Any) -> bool:
    return isinstance(obj, Tensor)


def is_floating_point(input: Tensor) -> bool:
    return input.is_floating_point()


def numel(input: Tensor) -> int:
    return input.numel()
