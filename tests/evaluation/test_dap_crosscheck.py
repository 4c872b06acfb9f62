"""The DAP cross-check: ndb dap (oracle backend) and debugpy agree stop by stop on real programs.

The programs cover a script, an entry call through a ``main``, a direct entry call with a dict
comprehension, and a script that ends with an uncaught exception (exit code 1). Frame names
and depth are not asserted: the report lists why they differ (see NOTES in the module).
"""

from __future__ import annotations

import json

import pytest

from neural_debugger.evaluation.dap_crosscheck import (
    NOTES,
    NdbSide,
    Prepared,
    ProgramResult,
    Snapshot,
    clean_value,
    compare,
    crosscheck,
    main,
    value_kind,
)
from neural_debugger.tracer.values import CUT_MARKER

PROGRAMS = (
    "p007_average",  # script, uncaught ZeroDivisionError at the end
    "p030_guarded_pop_dot",  # entry main(), a second breakpoint hit
    "p072_first_negative_bubble_sort",  # script
    "p102_vowels",  # entry call of the function itself
)


@pytest.fixture(scope="module")
def checked() -> tuple[dict, list[ProgramResult]]:
    return crosscheck(backend="oracle", jobs=2, timeout=60.0, names=PROGRAMS)


def test_oracle_agrees_with_debugpy_on_positions_and_variables(
    checked: tuple[dict, list[ProgramResult]],
) -> None:
    summary, results = checked
    assert sorted(r.name for r in results) == sorted(PROGRAMS)
    assert all(r.error is None for r in results), [r.error for r in results]
    assert not summary["programs_desynced"]
    every = summary["scenarios"]["all"]
    assert every["stops"] >= 30
    assert every["position"] == every["stops"], summary["disagreements"]
    assert every["variables_compared"] >= 20
    assert every["variables"] == every["variables_compared"], summary["disagreements"]
    for scenario in ("breakpoint", "next", "stepIn", "stepOut", "exit"):
        assert summary["scenarios"][scenario]["stops"] > 0, scenario
    exits = {r.name: r.pairs[-1] for r in results}
    assert exits["p007_average"].ours.exit_code == exits["p007_average"].theirs.exit_code == 1
    assert exits["p102_vowels"].ours.exit_code == exits["p102_vowels"].theirs.exit_code == 0
    for kind in summary["disagreements"]:
        assert kind in NOTES, kind  # every disagreement is of an explained kind


def test_another_programs_stops_disagree(checked: tuple[dict, list[ProgramResult]]) -> None:
    """The comparison can fail: one program's ndb stops against another's debugpy stops."""
    _, results = checked
    by_name = {r.name: r for r in results}
    ours = [p.ours for p in by_name["p072_first_negative_bubble_sort"].pairs]
    theirs = [p.theirs for p in by_name["p030_guarded_pop_dot"].pairs]
    pairs = [compare(a, b) for a, b in zip(ours, theirs, strict=False)]
    assert pairs and not all(p.position for p in pairs)
    assert any("position" in p.kinds for p in pairs)
    same = [compare(p.ours, p.theirs) for p in by_name["p072_first_negative_bubble_sort"].pairs]
    assert all(p.position for p in same)


def test_a_changed_value_is_a_disagreement() -> None:
    stop = Snapshot(exited=False, frames=(("f", 3),), top_is_user=True, variables={"x": "1"})
    other = Snapshot(exited=False, frames=(("f", 3),), top_is_user=True, variables={"x": "2"})
    pair = compare(stop, other)
    assert pair.position and pair.variables is False and pair.kinds == ["value"]
    moved = Snapshot(exited=False, frames=(("f", 4),), top_is_user=True, variables={"x": "1"})
    assert not compare(stop, moved).position
    assert compare(stop, Snapshot(exited=True, exit_code=0)).kinds == ["ended_early"]


def test_value_normalisation_removes_only_what_must_go() -> None:
    assert clean_value("<function f at 0x7f3a2b1c0d40>") == "<function f>"
    assert clean_value("[1, 2]  (62% sure)") == "[1, 2]"
    assert clean_value("'jump at 0x1F'") == "'jump at 0x1F'"
    long = repr(list(range(100)))
    assert value_kind(long[:160] + CUT_MARKER, long) == "truncated"
    assert value_kind(long[:150] + "X" + CUT_MARKER, long) == "value"
    assert value_kind("[1, 2, 3]", "[1, 2, ...]") == "truncated"
    assert value_kind("Box(v=3)", "<prog.Box object>") == "object_repr"
    assert value_kind("<class 'Box'>", "<class 'prog.Box'>") == "class_repr"
    assert value_kind("[1]", "[1]") is None


def test_breakpoint_steps_reach_the_launch_and_the_report(tmp_path) -> None:
    """``--breakpoint-steps`` travels as ``breakpointSteps`` and is recorded with the command."""
    out = tmp_path / "crosscheck.json"
    argv = ["--programs", "1", "--jobs", "1", "--breakpoint-steps", "0", "--out", str(out)]
    assert main(argv) == 0
    report = json.loads(out.read_text(encoding="utf-8"))
    assert report["breakpoint_steps"] == 0
    assert report["command"].endswith("--breakpoint-steps 0 --out " + str(out))
    assert report["scenarios"]["breakpoint"]["stops"] == 1
    prepared = Prepared("p", tmp_path / "p.py", None, 3, tmp_path / "run.py")
    side = NdbSide(prepared, 60.0, tmp_path, "oracle", 5)
    assert side.launch_arguments()["breakpointSteps"] == 5
    assert "breakpointSteps" not in NdbSide(prepared, 60.0, tmp_path, "oracle").launch_arguments()


def test_negative_breakpoint_steps_are_refused(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["--breakpoint-steps", "-1"])
    assert exited.value.code == 2
    assert "--breakpoint-steps must be at least 0" in capsys.readouterr().err
