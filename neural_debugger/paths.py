"""Where the project finds files that live beside the repository, not inside it."""

from __future__ import annotations

from pathlib import Path

REPOSITORY = Path(__file__).resolve().parents[1]


def cruxeval_path() -> Path:
    """``shared/benchmarks/cruxeval.jsonl`` next to the repository: evaluation data only."""
    return REPOSITORY.parent / "shared" / "benchmarks" / "cruxeval.jsonl"


def default_model_dir() -> Path:
    """The shipped model, ``models/ndb-small``: the embedded engine's default."""
    return REPOSITORY / "models" / "ndb-small"
