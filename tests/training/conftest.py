"""Fixtures shared by the tests of training stages (test_gpu_stage.py, test_grow.py)."""

from __future__ import annotations

import os
import subprocess
import sys
import tarfile
from collections.abc import Callable
from pathlib import Path

import pytest

from neural_debugger.paths import cruxeval_path
from neural_debugger.training.data import DataSpec, generate_data

ROOT = Path(__file__).resolve().parents[2]


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


def run_stage_here(kit: Path, out: Path, work: Path) -> subprocess.CompletedProcess[str]:
    """The lent machine's part of a stage, on this CPU: ``training/device_run.sh run`` with
    ``kit`` as the carried folder and ``out`` standing in for ``$OUT``."""
    env = {**os.environ, "OUT": str(out), "WORK": str(work), "KIT": str(kit)}
    env |= {"PYTHON": sys.executable, "DEVICE": "cpu"}
    return subprocess.run(
        ["bash", "training/device_run.sh", "run"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip


@pytest.fixture
def run_stage() -> Callable[[Path, Path, Path], subprocess.CompletedProcess[str]]:
    """:func:`run_stage_here`, for the tests that run a stage end to end."""
    return run_stage_here
