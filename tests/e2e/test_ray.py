"""A loaded program on Ray Data: `map_batches` with a callable class whose actors (two worker
processes of one CPU each, started by a real local Ray) unpickle the program once and run it
on each batch, against PyTorch eager."""

from __future__ import annotations

import os
import pickle
from pathlib import Path

import numpy as np
import pytest
import ray
import torch
from models import MnistCnn

import frontend

HERE = Path(__file__).resolve().parent
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning:ray.*")  # Ray's own


class Classify:
    """A Ray Data actor: unpickles the program once, then classifies each batch with it."""

    def __init__(self, pickled: bytes) -> None:
        self.program = pickle.loads(pickled)

    def __call__(self, batch: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        logits = self.program(batch["data"])
        threads = np.full(len(logits), frontend.get_num_threads())
        return {"data": batch["data"], "logits": logits, "threads": threads}


@pytest.fixture(scope="module")
def local_ray():
    path = os.pathsep.join(p for p in (os.environ.get("PYTHONPATH"), str(HERE)) if p)
    ray.init(
        num_cpus=2, include_dashboard=False, log_to_driver=False,
        runtime_env={"env_vars": {"PYTHONPATH": path}},
    )  # fmt: skip
    yield
    ray.shutdown()


def test_map_batches_with_a_callable_class_runs_a_loaded_program(local_ray) -> None:
    torch.manual_seed(0)
    model = MnistCnn().eval()
    loaded = frontend.loads(frontend.dumps(frontend.script(model)))
    images = np.random.default_rng(0).random((48, 1, 28, 28), dtype=np.float32)
    here = loaded(images)  # compiled here: the actors find it in the disk cache
    dataset = ray.data.from_numpy([images[:24], images[24:]])  # two blocks, one per actor
    rows = dataset.map_batches(
        Classify, fn_constructor_args=(pickle.dumps(loaded),), batch_size=8, concurrency=2
    ).take_all()
    assert len(rows) == len(images)
    order = {image.tobytes(): i for i, image in enumerate(images)}
    got = np.empty_like(here)
    for row in rows:
        got[order[row["data"].tobytes()]] = row["logits"]
    with torch.no_grad():
        expected = model(torch.from_numpy(images)).numpy()
    np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-5)
    np.testing.assert_array_equal(got, here)
    assert {int(row["threads"]) for row in rows} == {1}  # Ray gives each actor one CPU
