"""Fixtures shared by the tests of training stages (test_gpu_stage.py, test_grow.py)."""

from __future__ import annotations

import tarfile
from collections.abc import Callable
from pathlib import Path

import pytest

from neural_debugger.paths import cruxeval_path
from neural_debugger.training.data import DataSpec, generate_data


@pytest.fixture(scope="module")
def stage_data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A data folder for tiny stages: train/ (40 programs) and heldout/ (12), short
    trajectories."""
    root = Path(tmp_path_factory.mktemp("stage-data"))
    crux = cruxeval_path()
    crux_path = str(crux) if crux.exists() else None
    generate_data(DataSpec(programs=40, seed=11, max_states=8), root / "train", crux_path, 1)
    generate_data(DataSpec(programs=12, seed=12, max_states=8), root / "heldout", crux_path, 1)
    return root


@pytest.fixture
def carried_kit(stage_data: Path) -> Callable[[Path], Path]:
    """Makes what `make device-data-kit` packs in a kit folder: the train/ and heldout/ shards
    of ``stage_data`` in data.tar.xz."""

    def make(kit: Path) -> Path:
        kit.mkdir(parents=True, exist_ok=True)
        with tarfile.open(kit / "data.tar.xz", "w:xz") as archive:
            archive.add(stage_data / "train", "train")
            archive.add(stage_data / "heldout", "heldout")
        return kit

    return make
