"""Where the project finds its model and the data that lives beside the repository.

The shipped model travels inside the package (``neural_debugger.models``, the repository's
``models/`` folder), so ``pip install .`` finds it from any working directory; ``NDB_MODEL``
names another model folder. Evaluation data is never shipped: CruxEval is read from
``NDB_CRUXEVAL`` or from ``shared/benchmarks/`` beside a checkout, and every evaluation command
takes the path as a flag too.
"""

from __future__ import annotations

import os
from importlib.resources import files
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parents[1]
SHIPPED_MODEL = "ndb-small"


def cruxeval_path() -> Path:
    """``$NDB_CRUXEVAL``, else ``shared/benchmarks/cruxeval.jsonl`` next to the checkout."""
    if override := os.environ.get("NDB_CRUXEVAL"):
        return Path(override)
    return REPOSITORY.parent / "shared" / "benchmarks" / "cruxeval.jsonl"


def shipped_model_dir() -> Path:
    """The model folder installed with the package (``models/ndb-small`` in a checkout)."""
    return Path(str(files("neural_debugger.models") / SHIPPED_MODEL))


def default_model_dir() -> Path:
    """The embedded engine's default model: ``$NDB_MODEL``, else the shipped model."""
    if override := os.environ.get("NDB_MODEL"):
        return Path(override)
    return shipped_model_dir()
