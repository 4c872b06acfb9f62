"""ndb dap (oracle backend) stops exactly where debugpy stops, stop by stop, no re-synchronising.

debugpy runs live: both adapters get the same requests from the same client on every scenario
of ``evaluation/scenarios`` (seen: the rules were written from them; unseen: kept apart until
the rules were done), and every stop (reason, line, frames, locals with ``(return)`` entries)
must be equal. Only value texts that differ by the tracer's rendering of objects are tolerated,
and counted.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from neural_debugger.evaluation.dap_crosscheck import Snapshot
from neural_debugger.evaluation.stepping_check import (
    SETS,
    Outcome,
    check,
    judge,
    load_scenario,
    scenarios,
    summary,
)


@pytest.mark.parametrize("which", SETS)
def test_oracle_stops_equal_debugpys_on_every_scenario(which: str) -> None:
    outcomes = check(which, "oracle", timeout=60.0, jobs=2)
    assert len(outcomes) == len(scenarios(which))
    report = summary(outcomes)
    failing = {o.name: (o.error, o.first_divergence) for o in outcomes if not o.agrees}
    assert not failing, failing
    assert report["rate"] == 1.0
    assert report["stops_compared"] >= (150 if which == "seen" else 35)
    # requests of every kind were compared, and debugpy stopped for each reason
    reasons = {stop.reason for o in outcomes for _, stop in o.theirs if not stop.exited}
    assert {"breakpoint", "step", "exception"} <= reasons
    requests = {request for o in outcomes for request, _ in o.theirs}
    assert {"next", "stepIn", "stepOut", "continue"} <= requests
    returns = [
        name
        for o in outcomes
        for _, stop in o.ours
        for name in stop.variables or {}
        if name.startswith("(return) ")
    ]
    assert returns  # return values were shown, and equal debugpy's


def test_scenario_set_covers_what_the_rules_are_about() -> None:
    seen = scenarios("seen")
    assert len(seen) >= 30
    marks = [bp for s in seen for bp in s.breakpoints]
    assert any(bp.condition for bp in marks)
    assert any(bp.hit_condition for bp in marks)
    assert any(bp.log_message for bp in marks)
    filters = {f for s in seen for f in s.filters}
    assert {"raised", "uncaught", "userUnhandled"} <= filters
    assert any(s.stop_on_entry for s in seen)
    names = {s.name for s in scenarios("unseen")} & {s.name for s in seen}
    assert not names


def test_a_stop_elsewhere_is_a_divergence_and_nothing_resynchronises(tmp_path: Path) -> None:
    def at(line: int) -> Snapshot:
        return Snapshot(exited=False, reason="step", frames=(("f", line),), top_is_user=True,
                        variables={"x": "1"})  # fmt: skip

    outcome = Outcome("made", ours=[("start", at(3)), ("next", at(5)), ("next", at(6))],
                      theirs=[("start", at(3)), ("next", at(4)), ("next", at(5))])  # fmt: skip
    judged = judge(outcome, [f"x = {i}" for i in range(10)])
    assert judged.equal == 1 and judged.compared == 3
    assert judged.first_divergence is not None and judged.first_divergence["stop"] == 1
    assert "position" in judged.first_divergence["kinds"]
    assert judged.first_place_divergence == {"stop": 1, "request": "next",
                                             "kinds": judged.first_divergence["kinds"]}  # fmt: skip
    same = judge(Outcome("same", ours=outcome.ours, theirs=outcome.ours), [])
    assert same.agrees and same.equal == 3


def test_a_malformed_scenario_is_refused_with_its_name(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("# actions: jump\nx = 1  # BP\n")
    with pytest.raises(ValueError, match=r"bad\.py"):
        load_scenario(bad)
    empty = tmp_path / "empty.py"
    empty.write_text("# actions: next\nx = 1\n")
    with pytest.raises(ValueError, match="nothing would stop"):
        load_scenario(empty)
