"""Plain names for drills: the same function under ``f(lst)``, traced to the same values."""

from __future__ import annotations

import random

from neural_debugger.tracer.events import TraceLimits
from neural_debugger.tracer.program import load_program
from neural_debugger.tracer.record import record
from neural_debugger.training.programs import TrainingProgram
from neural_debugger.training.programs.drills import drill_programs
from neural_debugger.training.programs.plain_names import FUNCTIONS, plainly_named

LIMITS = TraceLimits(max_events=600, max_seconds=1.0)
TALLY = TrainingProgram(
    "def tally(count, key):\n"
    "    words = sorted(count, key=len)  # key= is a keyword, .count an attribute\n"
    "    first = words[0] if words else 'key'\n"
    "    return words.count(key), len(first), tally.__name__\n",
    "tally(['ab', 'c', 'ab'], 'ab')",
    "drill:test",
)


def _trace(program: TrainingProgram) -> list[tuple[str, int, tuple[str, ...], str | None]]:
    run = record(load_program("drill.py", program.entry, program.source), LIMITS)
    return [(e.kind, e.line, tuple(e.locals.values()), e.value) for e in run.events]


def test_a_renamed_drill_runs_as_the_original_with_only_its_own_names_changed() -> None:
    renamed = plainly_named(TALLY, random.Random(1))
    assert renamed is not None and renamed.origin == TALLY.origin
    name = renamed.entry.split("(")[0]
    assert name in FUNCTIONS and renamed.entry == name + "(['ab', 'c', 'ab'], 'ab')"
    header = renamed.source.split("\n")[0]
    assert "count" not in header and "key" not in header  # both parameters renamed
    assert "key=len" in renamed.source and "words.count(" in renamed.source
    assert "'key'" in renamed.source and "# key= is a keyword" in renamed.source
    assert f"{name}.__name__" in renamed.source
    original, plain = _trace(TALLY), _trace(renamed)
    # the same events, lines and values, save the function's own name it returns
    assert [e[:3] for e in plain] == [e[:3] for e in original]
    assert plain[-1][3] == f"(2, 1, '{name}')" and original[-1][3] == "(2, 1, 'tally')"


def test_what_cannot_be_renamed_safely_keeps_its_names() -> None:
    rng = random.Random(0)
    fstring = TrainingProgram("def show(n):\n    return f'{n}!'\n", "show(3)", "drill:test")
    assert plainly_named(fstring, rng) is None  # names inside an f-string
    two = TrainingProgram("def a(x):\n    return x\ndef b(y):\n    return a(y)\n", "b(1)", "t")
    assert plainly_named(two, rng) is None  # one function only
    named = TrainingProgram("def g(x, y=2):\n    return x + y\n", "g(1, y=3)", "t")
    assert plainly_named(named, rng) is None  # keyword arguments in the entry


def test_a_share_of_the_drills_has_plain_names_and_the_draw_stays_deterministic() -> None:
    programs, stats = drill_programs(3, 60)
    plain = [p for p in programs if (p.entry or "").split("(")[0] in FUNCTIONS]
    assert 8 <= len(plain) <= 30 and stats["kept plain names"] == len(plain)
    assert drill_programs(3, 60) == (programs, stats)
    heldout, tally = drill_programs(3, 30, "heldout")  # held-out sets stay as they were made
    assert tally["kept plain names"] == 0
    assert not any((p.entry or "").split("(")[0] in FUNCTIONS for p in heldout)
