"""Builtin drills: every core-type method drilled, valid traces, whole families held out."""

from __future__ import annotations

import ast
import random
from collections import Counter

import pytest

from neural_debugger.tracer.events import ExitKind, TraceLimits
from neural_debugger.tracer.program import load_program
from neural_debugger.tracer.record import record
from neural_debugger.training.programs import TrainingProgram
from neural_debugger.training.programs.cruxeval_filter import functions_of
from neural_debugger.training.programs.drill_catalog import OWNERS, TYPES, methods_of
from neural_debugger.training.programs.drills import (
    FAMILIES,
    drill_programs,
    families_on_side,
)

LIMITS = TraceLimits(max_events=600, max_seconds=1.0)
BUILTINS = {"len", "sorted", "reversed", "enumerate", "zip", "min", "max", "sum", "range",
            "int", "str", "chr", "ord"}  # fmt: skip


@pytest.fixture(scope="module")
def sample() -> list[TrainingProgram]:
    return drill_programs(11, 60, "train")[0]


def _candidates(names: set[str], draws: int, seed: int = 0) -> list[ast.Module]:
    """Unvalidated drills of the named families (cheap: nothing runs)."""
    rng = random.Random(seed)
    families = [f for f in FAMILIES if f.name in names]
    return [ast.parse(rng.choice(families).build(rng).source) for _ in range(draws)]


def test_the_catalogue_names_every_public_method_of_the_core_types() -> None:
    for owner in OWNERS:
        public = {name for name in dir(TYPES[owner]) if not name.startswith("_")}
        assert methods_of(owner) == public, owner


def test_every_catalogued_method_is_drilled_by_a_training_family() -> None:
    train = {f.name for f in families_on_side("train")}
    for owner in OWNERS:
        generic = {f"{owner}.steps", f"{owner}.each"} & train
        assert generic, f"no training family drills {owner}'s methods"
        used = {
            node.attr
            for tree in _candidates(generic, 500)
            for node in ast.walk(tree)
            if isinstance(node, ast.Attribute)
        }
        missing = methods_of(owner) - used
        assert not missing, (owner, missing)


def test_training_families_drill_the_builtins_and_syntax() -> None:
    trees = _candidates({f.name for f in families_on_side("train")}, 1500, seed=1)
    nodes = [node for tree in trees for node in ast.walk(tree)]
    called = {n.func.id for n in nodes if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
    assert called >= BUILTINS
    keyed = {
        n.func.id
        for n in nodes
        if isinstance(n, ast.Call)
        and isinstance(n.func, ast.Name)
        and any(k.arg == "key" for k in n.keywords)
    }
    assert {"min", "max", "sorted"} <= keyed
    slices = [n for n in nodes if isinstance(n, ast.Slice)]
    assert any(s.step is not None for s in slices)
    assert any(isinstance(s.lower, ast.UnaryOp) or isinstance(s.upper, ast.UnaryOp) for s in slices)
    assert any(isinstance(n, ast.FormattedValue) and n.format_spec for n in nodes)
    kinds = {type(n) for n in nodes}
    assert {ast.ListComp, ast.DictComp, ast.SetComp, ast.GeneratorExp, ast.Starred} <= kinds
    assert any(isinstance(n, ast.Compare) and isinstance(n.ops[0], ast.In) for n in nodes)


def test_drills_run_under_the_tracer_as_their_family_means(
    sample: list[TrainingProgram],
) -> None:
    for program in sample:
        loaded = load_program("program.py", entry=program.entry, source=program.source)
        trace = record(loaded, LIMITS)
        wanted = ExitKind.ERROR if program.origin.endswith("expected_error") else ExitKind.NORMAL
        assert trace.exit == wanted, (program.source, program.entry, trace.exit_reason)
        lines = sum(1 for ev in trace.events if ev.kind == "line")
        assert 3 <= lines <= 400
        body = program.source.count("\n") - 1
        assert 1 <= body <= 15, program.source


def test_drills_are_deterministic_per_seed() -> None:
    assert drill_programs(5, 15) == drill_programs(5, 15)
    a = {p.source + p.entry for p in drill_programs(5, 15)[0]}
    b = {p.source + p.entry for p in drill_programs(6, 15)[0]}
    assert len(a & b) <= 1


def test_drills_are_varied(sample: list[TrainingProgram]) -> None:
    families = Counter(p.origin for p in sample)
    assert len(families) >= 15
    assert max(families.values()) <= 8
    forms = {form for p in sample for form in functions_of(p.source)}
    assert len(forms) >= 55  # different code, not the same function renamed
    entries = " ".join(p.entry or "" for p in sample)
    assert any(ord(c) > 127 for c in entries)  # non-ASCII arguments
    assert "[]" in entries or "''" in entries  # empty values


def test_held_out_families_never_reach_training_data() -> None:
    train, heldout = families_on_side("train"), families_on_side("heldout")
    assert heldout and train
    assert not {f.name for f in train} & {f.name for f in heldout}
    assert len(train) + len(heldout) == len(FAMILIES)
    assert len(heldout) <= len(FAMILIES) // 4
    held = {f.origin for f in heldout}
    assert not held & {p.origin for p in drill_programs(3, 80, "train")[0]}
    assert {p.origin for p in drill_programs(3, 12, "heldout")[0]} <= held
