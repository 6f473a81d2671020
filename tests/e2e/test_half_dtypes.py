"""float16 and bfloat16 against PyTorch: elementwise ops, reductions, softmax, layer_norm,
linear / matmul, conv2d, a `.half()` module scripted and traced, promotion with other dtypes,
factories and casts, the rounding op bit for bit against numpy and torch, and save/load."""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as F

import frontend
from dialects.torch.dtypes import ALL_DTYPES, BFLOAT16, FLOAT16, promote
from lowering.signature import format_signature, parse_signature

HALVES = [torch.float16, torch.bfloat16]
TOLERANCE = {torch.float16: 1e-3, torch.bfloat16: 1e-2}


def assert_like_torch(got, want, dtype: torch.dtype) -> None:
    got = got if isinstance(got, tuple | list) else (got,)
    want = want if isinstance(want, tuple | list) else (want,)
    assert len(got) == len(want)
    for i, (g, w) in enumerate(zip(got, want)):
        assert g.dtype == w.dtype, (i, g.dtype, w.dtype)
        tol = TOLERANCE[dtype] if w.dtype == dtype else 1e-5
        torch.testing.assert_close(g, w, rtol=tol, atol=tol, msg=f"result {i}")


def operands(dtype: torch.dtype, *shapes: tuple[int, ...]) -> list[torch.Tensor]:
    gen = torch.Generator().manual_seed(0)
    return [torch.randn(*s, generator=gen).to(dtype) for s in shapes]


# ---- elementwise, reductions, normalizations ----


def elementwise(x, y):
    return (
        x + y, x * y - 0.1, x / (y.abs() + 1), torch.relu(x), torch.exp(x), torch.tanh(x),
        torch.sigmoid(x) * 3, x > y, torch.where(x > 0, x, y), torch.clamp(x, -0.5, 0.5),
        x ** 2, torch.sqrt(x.abs()), -x, torch.maximum(x, y), x.to(torch.float32) * 2,
    )  # fmt: skip


def reductions(x, y):
    return (
        x.sum(), x.sum(dim=1), x.mean(dim=0), x.max(dim=1)[0], x.amin(), x.var(dim=1),
        torch.softmax(x, dim=-1), torch.log_softmax(x, dim=1), torch.cumsum(x, dim=1),
        F.layer_norm(x, (x.shape[1],)), x.argmax(dim=1), x.norm(dim=1),
    )  # fmt: skip


def products(x, y, w, b):
    return x @ y.t(), torch.mm(x, w), F.linear(x, w.t(), b), torch.matmul(x.unsqueeze(0), w)


ELEMENTWISE = frontend.script(elementwise)
REDUCTIONS = frontend.script(reductions)
PRODUCTS = frontend.script(products)


@pytest.mark.parametrize("dtype", HALVES)
def test_elementwise_on_halves_matches_torch(dtype: torch.dtype) -> None:
    x, y = operands(dtype, (4, 33), (4, 33))
    assert_like_torch(ELEMENTWISE(x, y), elementwise(x, y), dtype)


@pytest.mark.parametrize("dtype", HALVES)
def test_reductions_and_normalizations_on_halves_match_torch(dtype: torch.dtype) -> None:
    x, y = operands(dtype, (5, 70), (5, 70))
    assert_like_torch(REDUCTIONS(x, y), reductions(x, y), dtype)


@pytest.mark.parametrize("dtype", HALVES)
def test_matmul_and_linear_on_halves_match_torch(dtype: torch.dtype) -> None:
    x, y, w, b = operands(dtype, (6, 40), (7, 40), (40, 9), (9,))
    assert_like_torch(PRODUCTS(x, y, w, b), products(x, y, w, b), dtype)


def exact_ops(x, y):
    return x + y, x * y, torch.relu(x), torch.maximum(x, y), x / (y.abs() + 1), x > y


EXACT_OPS = frontend.script(exact_ops)


@pytest.mark.parametrize("dtype", HALVES)
def test_elementwise_results_are_torchs_bits(dtype: torch.dtype) -> None:
    """One rounding per op, of the float32 result: the same bits as torch's CPU kernels."""
    x, y = operands(dtype, (3, 50), (3, 50))
    for got, want in zip(EXACT_OPS(x, y), exact_ops(x, y)):
        assert torch.equal(got, want)


# ---- modules ----


class Block(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 4, 3, padding=1)
        self.norm = torch.nn.LayerNorm(6)
        self.fc = torch.nn.Linear(6, 5)

    def forward(self, x):
        h = self.norm(torch.relu(self.conv(x)))
        return torch.softmax(self.fc(h), -1), h.mean(dim=(2, 3))


def half_block(dtype: torch.dtype) -> tuple[torch.nn.Module, torch.Tensor]:
    torch.manual_seed(0)
    return Block().to(dtype).eval(), operands(dtype, (2, 3, 6, 6))[0]


@pytest.mark.parametrize("dtype", HALVES)
def test_scripted_half_module_matches_torch(dtype: torch.dtype) -> None:
    module, x = half_block(dtype)
    with torch.no_grad():
        assert_like_torch(frontend.script(module)(x), module(x), dtype)


def test_traced_half_module_matches_torch() -> None:
    module, x = half_block(torch.float16)
    with torch.no_grad():
        assert_like_torch(frontend.trace(module, (x,))(x), module(x), torch.float16)


def test_a_trace_of_bfloat16_is_refused_with_a_hint() -> None:
    module, x = half_block(torch.bfloat16)
    with pytest.raises(TypeError, match="script the program instead"):
        frontend.trace(module, (x,))


@pytest.mark.parametrize("dtype", HALVES)
def test_half_weights_save_load_and_pickle(dtype: torch.dtype, tmp_path) -> None:
    import pickle

    module, x = half_block(dtype)
    scripted = frontend.script(module)
    want = scripted(x)
    scripted.save(tmp_path / "m.tsj")
    assert_like_torch(frontend.load(tmp_path / "m.tsj")(x), want, dtype)
    assert_like_torch(pickle.loads(pickle.dumps(scripted))(x), want, dtype)


# ---- promotion, casts, factories ----


def mixed(h, f, i, b):
    return (
        h + f, h + i, h * 2.5, h + 3, h + b, h.float(), f.half(), f.bfloat16(),
        i.to(torch.float16), h.to(torch.int32), torch.zeros(3, dtype=torch.float16),
        torch.full((2,), 0.1, dtype=torch.bfloat16), torch.ones_like(h) * 0.1, h.double(),
        h.is_floating_point(), h.dtype == torch.float16,
    )  # fmt: skip


MIXED = frontend.script(mixed)


def test_mixed_half_and_other_dtypes_promote_like_torch() -> None:
    h, f = operands(torch.float16, (3, 4), (3, 4))
    f = f.float()
    i = torch.arange(12, dtype=torch.int64).reshape(3, 4)
    b = torch.randn(3, 4).to(torch.bfloat16)
    got, want = MIXED(h, f, i, b), mixed(h, f, i, b)
    assert got[-2:] == want[-2:]
    assert_like_torch(got[:-2], want[:-2], torch.float16)


def test_promotion_of_every_dtype_pair_is_torchs() -> None:
    for a in ALL_DTYPES:
        for b in ALL_DTYPES:
            want = torch.promote_types(getattr(torch, a.name), getattr(torch, b.name))
            assert promote(a, b).name == str(want).removeprefix("torch."), (a, b)


def test_numpy_callers_get_float16_arrays_and_bfloat16_values_in_float32() -> None:
    to_bf16 = frontend.script(lambda x: (x + 1, x.bfloat16()))
    x = np.linspace(-3, 3, 11).astype(np.float16)
    plus, rounded = to_bf16(x)
    assert plus.dtype == np.float16 and rounded.dtype == np.float32
    np.testing.assert_array_equal(plus, (torch.from_numpy(x) + 1).numpy())
    np.testing.assert_array_equal(rounded, torch.from_numpy(x).bfloat16().float().numpy())


def test_the_interpreter_backend_runs_the_emulated_program() -> None:
    x, y = operands(torch.bfloat16, (4, 33), (4, 33))
    eager = frontend.script(elementwise, backend="interpreter")
    assert_like_torch(eager(x, y), elementwise(x, y), torch.bfloat16)


def test_signatures_spell_halves_as_torch_mlir_does() -> None:
    text = "f16[?,4],bf16[2]"
    assert format_signature(parse_signature(text)) == text
    assert [FLOAT16.scalar_type, BFLOAT16.scalar_type] == [5, 15]  # torch's ScalarType codes


# ---- the rounding op, bit for bit ----

SPECIAL_BITS = [
    0x00000000, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0x7F800001, 0xFFC00001,
    0x7F802000, 0x477FE000, 0x477FF000, 0x477FEFFF, 0x477FF001, 0x38800000, 0x387FFFFF,
    0x33800000, 0x33000000, 0x33000001, 0x337FFFFF, 0x7F7FFFFF, 0x00000001, 0x3F808000,
    0x3F818000, 0x3F800001, 0x007FFFFF, 0x80400000,
]  # fmt: skip


def probe_bits() -> np.ndarray:
    """Random bit patterns, the special ones, and values spread over float16's range."""
    rng = np.random.default_rng(0)
    random = rng.integers(0, 2**32, size=100_000, dtype=np.uint64).astype(np.uint32)
    scales = rng.choice([1e-8, 3e-6, 1e-4, 1.0, 300.0, 6.5e4, 1e5], size=50_000)
    spread = (rng.standard_normal(50_000) * scales).astype(np.float32).view(np.uint32)
    return np.concatenate([random, np.array(SPECIAL_BITS, np.uint32), spread])


ROUND_F16 = frontend.script(lambda x: x.half())
ROUND_BF16 = frontend.script(lambda x: x.bfloat16())


def test_rounding_to_float16_is_numpys_cast_bit_for_bit() -> None:
    x = probe_bits().view(np.float32)
    with np.errstate(over="ignore"):
        want = x.astype(np.float16)
    np.testing.assert_array_equal(ROUND_F16(x).view(np.uint16), want.view(np.uint16))


def test_rounding_to_bfloat16_is_torchs_cast_bit_for_bit() -> None:
    """A numpy caller gets the rounded float32 values themselves: every bit but NaNs' (whose
    bits torch's own kernels disagree on) is torch's."""
    x = probe_bits().view(np.float32)
    got = ROUND_BF16(x)
    want = torch.from_numpy(x).bfloat16().float().numpy()
    numbers = ~np.isnan(want)
    np.testing.assert_array_equal(got.view(np.uint32)[numbers], want.view(np.uint32)[numbers])
    assert np.isnan(got[~numbers]).all()


def test_rounding_eager_reference_is_the_payload() -> None:
    from dialects.torch.ops.half_rounding import AtenRoundToBFloat16Op, AtenRoundToFloat16Op

    x = probe_bits().view(np.float32)
    with np.errstate(over="ignore"):
        f16 = x.astype(np.float16).astype(np.float32)
    bf16 = torch.from_numpy(x).bfloat16().float().numpy()
    np.testing.assert_array_equal(
        AtenRoundToFloat16Op.eager(x).view(np.uint32), f16.view(np.uint32)
    )
    # torch's own NaN bits in bfloat16 differ between its kernels: NaN is compared as NaN
    np.testing.assert_array_equal(AtenRoundToBFloat16Op.eager(x), bf16)


# ---- what stays refused ----


@pytest.mark.parametrize(
    "tensor",
    [
        torch.ones(2, dtype=torch.complex64),
        torch.ones(2).to(torch.float8_e4m3fn),
    ],
    ids=["complex64", "float8"],
)
def test_complex_and_float8_are_still_refused_by_name(tensor: torch.Tensor) -> None:
    with pytest.raises(TypeError, match=r"argument 'x' has dtype \w+, which tsjit does not"):
        frontend.script(lambda x: x + 1)(tensor)


def float_info(x):
    info = torch.finfo(torch.float16)
    return x * info.eps + torch.finfo(torch.bfloat16).tiny, info.max, info.resolution, info.bits


def test_finfo_of_a_named_dtype_is_torchs() -> None:
    x = operands(torch.float16, (5,))[0]
    got, want = frontend.script(float_info)(x), float_info(x)
    assert got[1:] == want[1:]
    assert torch.equal(got[0], want[0])
    for dtype in [*HALVES, torch.float32, torch.float64]:
        ours, theirs = frontend.torch.finfo(dtype), torch.finfo(dtype)
        for field in ("bits", "eps", "max", "min", "tiny", "resolution"):
            assert getattr(ours, field) == getattr(theirs, field), (dtype, field)


@pytest.mark.parametrize("dtype", HALVES)
def test_exported_half_program_matches_torch(dtype: torch.dtype) -> None:
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(8, 4), torch.nn.Softmax(-1)).to(dtype)
    (x,) = operands(dtype, (3, 8))
    imported = frontend.from_torch_export(torch.export.export(model, (x,)))
    with torch.no_grad():
        assert_like_torch(imported(x), model(x), dtype)


def test_the_eager_tier_runs_the_emulated_program() -> None:
    """The first call of a background-compiled function runs the emulated torch-opt IR."""
    program = frontend.script(elementwise, compile="background")
    x, y = operands(torch.bfloat16, (4, 33), (4, 33))
    assert_like_torch(program(x, y), elementwise(x, y), torch.bfloat16)
    assert program.wait_compiled(timeout=600)
    assert_like_torch(program(x, y), elementwise(x, y), torch.bfloat16)


def python_scalars(a):
    return (
        a + 0.1, a - 0.1, 0.1 - a, a * 0.1, a / 0.1, a < 0.1, torch.clamp(a, min=0.1),
        torch.where(a > 0, a, 0.1), torch.fmod(a, 0.1), a == 0.1, a + 3001,
    )  # fmt: skip


PYTHON_SCALARS = frontend.script(python_scalars)


@pytest.mark.parametrize("dtype", HALVES)
def test_python_scalars_are_rounded_where_torch_rounds_them(dtype: torch.dtype) -> None:
    """`x + 0.1` adds half's 0.1 (torch casts the scalar to the common dtype), `x * 0.1`
    multiplies by float32's 0.1 (torch's mul and div read the scalar in float32): bit for bit."""
    (x,) = operands(dtype, (4000,))
    for i, (got, want) in enumerate(zip(PYTHON_SCALARS(x), python_scalars(x))):
        assert got.dtype == want.dtype and torch.equal(got, want), i
