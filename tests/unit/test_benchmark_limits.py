"""`benchmarks/limits.py`: its kernels compute what they claim, its floors count the right
work and its verdicts compare the target with the right floor (no timing is checked)."""

import numpy as np
import pytest

from benchmarks import limits
from benchmarks.workloads import WORKLOADS

BY_NAME = {w.name: w for w in WORKLOADS}


def inputs_of(name):
    return BY_NAME[name].make_inputs(np.random.default_rng(0))


def test_reader_sums_every_element():
    x = np.arange(limits.LANES * 37, dtype=np.float32) % 7
    assert limits.read_all(x) == pytest.approx(float(x.sum()), rel=1e-6)


@pytest.mark.parametrize("kernel", [limits.add_into, limits.add_into_streaming])
def test_traffic_kernels_add(kernel):
    rng = np.random.default_rng(1)
    x, b = rng.standard_normal((2, 100_003), dtype=np.float32)
    out = np.full_like(x, np.nan)
    kernel(x, b, out)
    np.testing.assert_array_equal(out, x + b)


@pytest.mark.parametrize("kernel", [limits.copy_into, limits.copy_into_streaming])
def test_traffic_kernels_copy(kernel):
    x = np.random.default_rng(2).standard_normal(65_537, dtype=np.float32)
    out = np.zeros_like(x)
    kernel(x, out)
    np.testing.assert_array_equal(out, x)


def test_matrix_product_floors_count_multiply_adds():
    w4 = limits.workload_floors(BY_NAME["W4"], inputs_of("W4"))
    assert w4.flops == 2 * (2 * 256 * 1024 * 1024)  # two Linear(1024, 1024) on 256 rows
    w5 = limits.workload_floors(BY_NAME["W5"], inputs_of("W5"))
    assert w5.flops == 50 * 2 * (2 * 64 * 256 * 256)  # x[t] @ W and h @ U per step
    assert not w4.reads and not w5.reads


def test_memory_floors_read_the_inputs():
    assert limits.workload_floors(BY_NAME["W1b"], inputs_of("W1b")).reads == (0, 1)
    w3 = limits.workload_floors(BY_NAME["W3"], inputs_of("W3"))
    assert w3.reads == (0,) and w3.traffic and not w3.flops


def test_workload_without_floors_is_an_error():
    with pytest.raises(ValueError, match="no floors for W7"):
        limits.workload_floors(BY_NAME["W7"], inputs_of("W7"))


@pytest.mark.parametrize(
    ("record", "expected"),
    [
        ({"target_s": 1.0, "read_s": {"a": 2.0, "b": 1.5}}, "below the read floor"),
        ({"target_s": 1.0, "read_s": {"a": 0.5}, "traffic_s": {"c": 1.2}}, "below the traffic"),
        ({"target_s": 1.0, "read_s": {"a": 0.5}, "traffic_s": {"c": 0.8}}, "above the floors"),
        ({"target_s": 2.0, "compute_s": {"m": 1.5, "n": 1.8}}, "needs 75% of the best"),
    ],
)
def test_verdict_compares_the_target_with_the_fastest_floor(record, expected):
    assert limits.verdict(record).startswith(expected)
