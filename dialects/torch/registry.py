"""The op registry: every torch op class, found by IR name or by Python spelling."""

from __future__ import annotations

from dialects.torch.op_base import TorchOp
from dialects.torch.ops import (
    activations,
    adaptive_max_pool,
    arithmetic,
    attention,
    bilinear,
    binary_math,
    blends,
    bucketing,
    casts,
    constructors,
    conv,
    conv_1d,
    conv_transpose,
    covariance,
    data_movement,
    diagonals,
    differences,
    distances,
    elementwise,
    entropy,
    fills,
    fmax_fmin,
    gathering,
    group_norm,
    histograms,
    index_put,
    indexing,
    integration,
    joining,
    linalg_products,
    linear,
    linear_algebra,
    local_response_norm,
    logical,
    losses,
    math_functions,
    membership,
    nonlinearities,
    normalization,
    norms,
    padding,
    patches,
    pieces,
    pixel_shuffle,
    pooling,
    prim,
    products,
    quantiles,
    ranges,
    reduction,
    renorm,
    reorder,
    reshaping,
    resize,
    rotation,
    scalar,
    scaled_products,
    scans,
    scatter,
    scatter_index,
    shifts,
    sorting,
    special_extras,
    special_functions,
    stacking,
    tensor_lists,
    triangle_indices,
    triangular,
    unique,
    value_sized,
    vandermonde,
    variance,
    views,
)

ATEN_OPS: tuple[type[TorchOp], ...] = (
    *elementwise.OPS,
    *arithmetic.OPS,
    *activations.OPS,
    *math_functions.OPS,
    *binary_math.OPS,
    *blends.OPS,
    *nonlinearities.OPS,
    *special_functions.OPS,
    *logical.OPS,
    *casts.OPS,
    *normalization.OPS,
    *reduction.OPS,
    *variance.OPS,
    *linear.OPS,
    *bilinear.OPS,
    *scalar.OPS,
    *data_movement.OPS,
    *views.OPS,
    *joining.OPS,
    *indexing.OPS,
    *constructors.OPS,
    *conv.OPS,
    *pooling.OPS,
    *attention.OPS,
    *conv_1d.OPS,
    *group_norm.OPS,
    *resize.OPS,
    *conv_transpose.OPS,
    *adaptive_max_pool.OPS,
    *local_response_norm.OPS,
    *padding.OPS,
    *scatter.OPS,
    *triangular.OPS,
    *sorting.OPS,
    *scans.OPS,
    *norms.OPS,
    *distances.OPS,
    *losses.OPS,
    *reorder.OPS,
    *reshaping.OPS,
    *diagonals.OPS,
    *products.OPS,
    *ranges.OPS,
    *scatter_index.OPS,
    *index_put.OPS,
    *gathering.OPS,
    *pieces.OPS,
    *stacking.OPS,
    *pixel_shuffle.OPS,
    *scaled_products.OPS,
    *patches.OPS,
    *value_sized.OPS,
    *unique.OPS,
    *entropy.OPS,
    *fills.OPS,
    *shifts.OPS,
    *fmax_fmin.OPS,
    *membership.OPS,
    *differences.OPS,
    *rotation.OPS,
    *integration.OPS,
    *vandermonde.OPS,
    *triangle_indices.OPS,
    *renorm.OPS,
    *covariance.OPS,
    *linear_algebra.OPS,
    *bucketing.OPS,
    *quantiles.OPS,
    *tensor_lists.OPS,
    *histograms.OPS,
    *special_extras.OPS,
    *linalg_products.OPS,
)
ALL_OPS = (*prim.OPS, *ATEN_OPS)

BY_NAME: dict[str, type[TorchOp]] = {op.name: op for op in ATEN_OPS}


def _by_py_name() -> dict[str, tuple[type[TorchOp], ...]]:
    table: dict[str, list[type[TorchOp]]] = {}
    for op in ATEN_OPS:
        for spelling in op.PY_NAMES:
            table.setdefault(spelling, []).append(op)
    return {k: tuple(v) for k, v in table.items()}


BY_PY_NAME: dict[str, tuple[type[TorchOp], ...]] = _by_py_name()
"""Spelling -> overloads in declaration order (`torch.add` -> add.Tensor, add.Scalar)."""

CUSTOM_OPS: list[type[TorchOp]] = []
"""Ops registered at run time (`frontend.library(...).define(...)`), in registration order."""


def register_op(op: type[TorchOp]) -> None:
    """Add an op made at run time to BY_NAME, BY_PY_NAME and CUSTOM_OPS (so also to the torch
    dialect of every new context: `dialects.torch.torch_dialect`). ValueError if an op of
    that name exists: an op, once registered, stays."""
    if op.name in BY_NAME:
        raise ValueError(f"an op named {op.name} is already registered")
    BY_NAME[op.name] = op
    CUSTOM_OPS.append(op)
    for spelling in op.PY_NAMES:
        BY_PY_NAME[spelling] = (*BY_PY_NAME.get(spelling, ()), op)
