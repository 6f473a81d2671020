"""Compiled programs on a real Dask cluster: two worker processes of one thread each
(`distributed.LocalCluster`, no mocks), against PyTorch eager and the same program run here.

The cluster is started once for the module. Workers share this process's cache folder
(`TSJIT_CACHE_DIR` is inherited), so a program compiled here loads there from the disk cache.
"""

from __future__ import annotations

import os
from pathlib import Path

import dask.array as da
import numpy as np
import pytest
import torch
from distributed import Client, LocalCluster, wait
from models import MnistCnn

import frontend
from frontend import torch as ft

RTOL, ATOL = 1e-4, 1e-5


@pytest.fixture(scope="module")
def client():
    with (
        LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster,
        Client(cluster) as client,
    ):
        yield client


@pytest.fixture(scope="module")
def cnn() -> torch.nn.Module:
    torch.manual_seed(0)
    return MnistCnn().eval()


@pytest.fixture(scope="module")
def batches() -> list[np.ndarray]:
    rng = np.random.default_rng(0)
    return [rng.random((8, 1, 28, 28), dtype=np.float32) for _ in range(4)]


def gelu_mix(x):
    return ft.tanh(x) * 0.5 + x * ft.sigmoid(x)


def test_map_blocks_runs_a_scripted_function_on_each_chunk(client: Client) -> None:
    values = np.random.default_rng(1).standard_normal((64, 24)).astype(np.float32)
    chunked = da.from_array(values, chunks=(16, 12))  # 8 blocks
    scripted = frontend.script(gelu_mix)
    result = da.map_blocks(scripted, chunked, meta=np.empty((0, 0), np.float32))
    got = result.compute(scheduler=client)
    x = torch.from_numpy(values)
    expected = torch.tanh(x) * 0.5 + x * torch.sigmoid(x)
    np.testing.assert_allclose(got, expected.numpy(), rtol=RTOL, atol=ATOL)
    np.testing.assert_array_equal(got, scripted(values))


def program_of(kind: str, model: torch.nn.Module, example: np.ndarray):
    if kind == "traced":
        return frontend.trace(model, (torch.from_numpy(example),))
    scripted = frontend.script(model)
    return frontend.loads(frontend.dumps(scripted)) if kind == "loaded" else scripted


@pytest.mark.parametrize("kind", ["scripted", "traced", "loaded"])
def test_client_map_runs_the_mnist_cnn_on_each_batch(
    client: Client, cnn: torch.nn.Module, batches: list[np.ndarray], kind: str
) -> None:
    program = program_of(kind, cnn, batches[0])
    local = [program(b) for b in batches]  # compiled here: the workers find it on disk
    futures = client.map(program, batches)
    got = client.gather(futures)
    for batch, result, here in zip(batches, got, local):
        with torch.no_grad():
            expected = cnn(torch.from_numpy(batch)).numpy()
        np.testing.assert_allclose(result, expected, rtol=RTOL, atol=ATOL)
        np.testing.assert_array_equal(result, here)


def numba_threads_in_a_task(program, x: np.ndarray) -> tuple[int, int, str | None]:
    """Runs `program` in a worker's task thread; the thread counts it ran with there."""
    import numba

    program(x)
    return frontend.get_num_threads(), numba.get_num_threads(), os.environ.get("OMP_NUM_THREADS")


def test_each_worker_runs_compiled_code_on_its_one_thread(client: Client) -> None:
    scripted = frontend.script(gelu_mix)
    x = np.ones((4, 4), np.float32)
    workers = list(client.scheduler_info()["workers"])
    futures = [
        client.submit(numba_threads_in_a_task, scripted, x, workers=[w], pure=False)
        for w in workers
    ]
    assert client.gather(futures) == [(1, 1, "1")] * len(workers)


def compile_in_folder(program, folder: str, x: np.ndarray) -> np.ndarray:
    """Runs `program` with its compiled code written to `folder` (a cache of its own)."""
    before = os.environ.get("TSJIT_CACHE_DIR")
    os.environ["TSJIT_CACHE_DIR"] = folder
    try:
        return program(x)
    finally:
        if before is None:
            del os.environ["TSJIT_CACHE_DIR"]
        else:
            os.environ["TSJIT_CACHE_DIR"] = before


def swish_cubed(x):
    y = x * ft.sigmoid(x)
    return y * y * y - 0.25


def test_two_workers_compile_into_one_new_cache_folder_at_once(
    client: Client, tmp_path: Path
) -> None:
    scripted = frontend.script(swish_cubed)
    x = np.linspace(-3, 3, 40, dtype=np.float32).reshape(5, 8)
    workers = list(client.scheduler_info()["workers"])
    futures = [
        client.submit(compile_in_folder, scripted, str(tmp_path), x, workers=[w], pure=False)
        for w in workers
    ]
    wait(futures)
    t = torch.from_numpy(x)
    expected = (t * torch.sigmoid(t)) ** 3 - 0.25
    for result in client.gather(futures):
        np.testing.assert_allclose(result, expected.numpy(), rtol=RTOL, atol=ATOL)
    assert len(list((tmp_path / "programs").glob("*.py"))) == 1
    assert not list(tmp_path.glob(".*.tmp"))  # no temporary file left behind
