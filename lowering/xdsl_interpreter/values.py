"""Conversions between numpy / Python values and the interpreter's runtime values.

Shaped values are `ShapedArray`s over a packed byte buffer; `i1` elements are one signed byte
each (true is -1 or 1). Scalars are `IntegerAttr` / `FloatAttr`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.dialects import builtin
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, FloatAttr, IntegerAttr, ShapedType
from xdsl.interpreters.shaped_array import ShapedArray
from xdsl.interpreters.utils.ptr import RawPtr, TypedPtr
from xdsl.ir import Attribute

from dialects.torch.dtypes import dtype_of_attr


def _numpy_dtype(element: Attribute) -> np.dtype[Any]:
    if element == builtin.i1:
        return np.dtype(np.int8)  # i1 elements are stored one signed byte each
    return dtype_of_attr(element).numpy


def to_runtime(value: Any, typ: Attribute) -> Any:
    """A numpy array or Python scalar as the interpreter's value of IR type `typ`."""
    if isinstance(typ, ShapedType):
        element = typ.get_element_type()
        array = np.require(value, dtype=_numpy_dtype(element), requirements="C")  # keeps 0-d
        data = TypedPtr(RawPtr(bytearray(array.tobytes())), xtype=element)  # type: ignore[arg-type]
        return ShapedArray(data, list(array.shape))
    if isinstance(typ, builtin.IntegerType | builtin.IndexType):
        return IntegerAttr(int(value), typ, truncate_bits=True)  # type: ignore[arg-type]
    return FloatAttr(float(value), typ)  # type: ignore[arg-type]


def from_runtime(value: Any, typ: Attribute) -> Any:
    """The interpreter's value of IR type `typ` as a numpy array or Python scalar."""
    if isinstance(typ, ShapedType):
        element = typ.get_element_type()
        raw = value.data_ptr.raw
        flat = np.frombuffer(
            raw.memory, _numpy_dtype(element), count=len(value.data), offset=raw.offset
        )
        array = flat.reshape(value.shape).copy()
        return array != 0 if element == builtin.i1 else array
    if typ == builtin.i1:
        return value.value.data != 0
    if isinstance(typ, builtin.IntegerType | builtin.IndexType):
        return int(value.value.data)
    return float(value.value.data)


def dense_to_runtime(attr: DenseIntOrFPElementsAttr) -> ShapedArray[Any]:
    """A dense constant (`arith.constant dense<...> : tensor<2xf32>`) as a shaped value."""
    element = attr.get_element_type()
    flat = np.frombuffer(attr.data.data, _numpy_dtype(element))
    return to_runtime(flat.reshape(attr.get_shape()), attr.type)
