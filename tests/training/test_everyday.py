"""Everyday scripts: module-level programs that run as __main__, varied and method-heavy."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from collections import Counter

import pytest

from neural_debugger.tracer.events import ExitKind, TraceLimits
from neural_debugger.tracer.program import load_program
from neural_debugger.tracer.record import record
from neural_debugger.training.programs import TrainingProgram
from neural_debugger.training.programs.everyday import THEMES, everyday_programs

LIMITS = TraceLimits(max_events=600, max_seconds=1.0)


@pytest.fixture(scope="module")
def sample() -> list[TrainingProgram]:
    return everyday_programs(21, 120)[0]


def test_scripts_run_as_main_and_print(sample: list[TrainingProgram]) -> None:
    for program in sample[:25]:
        assert program.entry is None
        loaded = load_program("program.py", entry=None, source=program.source)
        trace = record(loaded, LIMITS)
        assert trace.exit == ExitKind.NORMAL, (program.source, trace.exit_reason)
        assert trace.output.strip()
        assert sum(1 for ev in trace.events if ev.kind == "line") >= 5


def test_scripts_are_deterministic_per_seed() -> None:
    assert everyday_programs(3, 10) == everyday_programs(3, 10)
    a = {p.source for p in everyday_programs(3, 10)[0]}
    b = {p.source for p in everyday_programs(4, 10)[0]}
    assert not a & b


def test_scripts_are_varied_and_use_the_features_of_real_scripts(
    sample: list[TrainingProgram],
) -> None:
    themes = Counter(p.origin.split(":")[1] for p in sample)
    assert set(themes) == set(THEMES)
    assert len({p.source for p in sample}) == len(sample)
    nodes = [node for p in sample for node in ast.walk(ast.parse(p.source))]
    kinds = {type(n) for n in nodes}
    assert {ast.ClassDef, ast.Try, ast.With, ast.Yield, ast.JoinedStr, ast.Raise} <= kinds
    decorators = {
        d.id for n in nodes if isinstance(n, ast.ClassDef | ast.FunctionDef)
        for d in n.decorator_list if isinstance(d, ast.Name)
    }  # fmt: skip
    assert {"dataclass", "property"} <= decorators
    assert any(isinstance(n, ast.Try) and n.finalbody for n in nodes)


def test_every_script_leans_on_library_methods(sample: list[TrainingProgram]) -> None:
    for program in sample:
        calls = [
            n
            for n in ast.walk(ast.parse(program.source))
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
        ]
        assert len(calls) >= 2, program.source


def test_sources_do_not_depend_on_the_hash_seed() -> None:
    """Data workers are separate processes, each with its own hash seed: a set of strings
    written into a program would come out in another order in each."""
    code = (
        "import hashlib\n"
        "from neural_debugger.training.programs.drills import drill_programs\n"
        "from neural_debugger.training.programs.everyday import everyday_programs\n"
        "ps = drill_programs(9, 40)[0] + everyday_programs(9, 40)[0]\n"
        "print(hashlib.sha1(''.join(p.source + str(p.entry) for p in ps).encode()).hexdigest())"
    )
    digests = {
        subprocess.run(
            [sys.executable, "-c", code],
            env={**os.environ, "PYTHONHASHSEED": seed},
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for seed in ("1", "2")
    }
    assert len(digests) == 1
