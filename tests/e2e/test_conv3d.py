"""3-D convolution (`nn.Conv3d` / `F.conv3d`: stride, numeric / "same" / "valid" padding,
dilation, groups, bias, unbatched inputs) and `nn.ConvTranspose3d` / `F.conv_transpose3d`,
scripted and traced against PyTorch."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F
from torch import nn

import frontend

torch.manual_seed(0)
LAYERS = {
    "strided_padded_dilated_groups": (
        nn.Conv3d(4, 6, (2, 3, 2), (2, 1, 2), (1, 0, 1), (2, 1, 1), groups=2),
        (1, 4, 6, 5, 7),
    ),
    "same_no_bias": (nn.Conv3d(2, 2, (3, 1, 3), padding="same", bias=False), (2, 2, 4, 5, 6)),
    "valid_unbatched": (nn.Conv3d(3, 2, 2, padding="valid", dtype=torch.float64), (3, 4, 4, 3)),
    "transpose": (
        nn.ConvTranspose3d(2, 3, 3, stride=2, padding=1, output_padding=1),
        (2, 2, 3, 4, 3),
    ),
}


@pytest.mark.parametrize("kind", ["script", "trace"])
@pytest.mark.parametrize("name", LAYERS)
def test_layer_matches_pytorch(name, kind) -> None:
    layer, shape = LAYERS[name]
    x = torch.randn(shape, dtype=layer.weight.dtype)
    layer = nn.Sequential(layer)  # a top-level ConvTranspose's `output_size` is an argument
    program = frontend.script(layer) if kind == "script" else frontend.trace(layer, (x,))
    with torch.no_grad():
        expected = layer(x)
    torch.testing.assert_close(torch.as_tensor(program(x)), expected, rtol=1e-4, atol=1e-5)


def functions(x, w, wt):
    return (
        F.conv3d(x, w, None, 1, "same", 2),
        torch.ops.aten.conv3d.default(x, w, None, [1, 2, 1], [1, 1, 0]),
        F.conv_transpose3d(x, wt, None, 2),
    )


@pytest.mark.parametrize("kind", ["script", "trace"])
def test_functions_with_weights_as_arguments_match_pytorch(kind) -> None:
    x, w, wt = torch.randn(1, 2, 5, 4, 6), torch.randn(3, 2, 2, 3, 3), torch.randn(2, 3, 2, 2, 1)
    program = (
        frontend.script(functions) if kind == "script" else frontend.trace(functions, (x, w, wt))
    )
    for got, want in zip(program(x, w, wt), functions(x, w, wt), strict=True):
        torch.testing.assert_close(torch.as_tensor(got), want, rtol=1e-4, atol=1e-5)


def test_pytorch_refusals_are_refused() -> None:
    def conv(x, w):
        return F.conv3d(x, w, stride=2, padding="same")

    x, w = torch.randn(1, 2, 4, 4, 4), torch.randn(1, 2, 3, 3, 3)
    with pytest.raises(RuntimeError, match="not supported for strided"):
        conv(x, w)
    with pytest.raises(Exception, match="not supported for strided"):
        frontend.script(conv)(x, w)
