"""An installed package works anywhere: ``pip install .``, then ``ndb debug`` from another folder.

The wheel is built from this checkout and installed into a fresh virtual environment whose only
view of the checkout is the wheel itself; its dependencies (torch and the rest) come from the
test's own environment through a ``.pth`` line, so the test installs nothing from the network.
The debug session then runs in an empty folder, where no relative path can find the model.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

import pytest

REPOSITORY = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh environment with the wheel of this checkout installed; returns its ``bin``."""
    root = tmp_path_factory.mktemp("installed")
    wheels = root / "wheels"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation",
         "--wheel-dir", str(wheels), str(REPOSITORY)],
        check=True, cwd=root, capture_output=True, timeout=600,
    )  # fmt: skip
    env_dir = root / "env"
    venv.EnvBuilder(with_pip=False).create(env_dir)
    site = next((env_dir / "lib").glob("python3*/site-packages"))
    (site / "test_dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    wheel = next(wheels.glob("neural_debugger-*.whl"))
    subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(env_dir / "bin" / "python"), "install",
         "--quiet", "--no-deps", str(wheel)],
        check=True, capture_output=True, timeout=600,
    )  # fmt: skip
    return env_dir / "bin"


def clean_env() -> dict[str, str]:
    """The environment without anything that points back at the checkout or another model."""
    return {
        key: value
        for key, value in os.environ.items()
        if key not in {"PYTHONPATH", "NDB_MODEL", "VIRTUAL_ENV"}
    }


def test_the_installed_package_finds_its_shipped_model(installed: Path, tmp_path: Path) -> None:
    probe = subprocess.run(
        [str(installed / "python"), "-c",
         "from neural_debugger.paths import default_model_dir; print(default_model_dir())"],
        check=True, cwd=tmp_path, env=clean_env(), capture_output=True, text=True,
    )  # fmt: skip
    model = Path(probe.stdout.strip())
    assert model.is_dir()
    assert installed.parent in model.parents, f"{model} is not inside the installed environment"
    assert REPOSITORY not in model.parents
    assert {"config.json", "tokenizer.json", "model.safetensors.index.json"} <= {
        path.name for path in model.iterdir()
    }


def test_ndb_debug_runs_from_another_folder(installed: Path, tmp_path: Path) -> None:
    program = tmp_path / "running_total.py"
    shutil.copy(REPOSITORY / "examples" / "running_total.py", program)
    run = subprocess.run(
        [str(installed / "ndb"), "debug", program.name, "--entry", "running_total([3, 1, 2])",
         "--script", "step_into,step_over", "--json"],
        cwd=tmp_path, env=clean_env(), capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    stops = [json.loads(line) for line in run.stdout.splitlines() if line.startswith("{")]
    assert len(stops) >= 2, run.stdout
    assert all(str(REPOSITORY) not in line for line in run.stdout.splitlines())


def test_ndb_model_names_another_model_folder(installed: Path, tmp_path: Path) -> None:
    missing = tmp_path / "no-such-model"
    run = subprocess.run(
        [str(installed / "ndb"), "debug", str(REPOSITORY / "examples" / "running_total.py"),
         "--entry", "running_total([1])", "--script", "step_into"],
        cwd=tmp_path, env={**clean_env(), "NDB_MODEL": str(missing)},
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert run.returncode != 0
    assert str(missing) in run.stderr + run.stdout
