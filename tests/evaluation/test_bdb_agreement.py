"""The state tree's action targets are where the standard library's bdb debugger stops."""

from __future__ import annotations

import pytest

from neural_debugger.evaluation.bdb_agreement import run
from neural_debugger.protocol import Action, ActionKind
from neural_debugger.tracer.tree import StateTree


@pytest.fixture(scope="module")
def report():
    return run(240)


def test_trees_agree_with_bdb_on_240_programs(report) -> None:
    assert report.programs == 240
    for action in ("step_into", "step_over", "step_return", "breakpoint", "continue"):
        assert report.checked[action] >= 200, action
    # Every divergence is one of the documented kinds: bdb's generator handling, and the
    # language's breakpoint stopping at non-line events (as the paper defines it).
    assert set(report.divergences) <= {"generator", "breakpoint_event"}
    total = sum(report.checked.values())
    assert sum(report.agreed.values()) / total > 0.995
    assert report.divergences["generator"] < 0.005 * total
    for action in ("step_over", "step_return", "continue"):
        agreed, checked = report.agreed[action], report.checked[action]
        assert agreed / checked > 0.98, (action, agreed, checked)
    assert report.agreed["breakpoint"] / report.checked["breakpoint"] > 0.85


class _StepOverIsStepInto(StateTree):
    """A deliberately wrong tree: step_over descends into calls."""

    def next(self, i: int, action: Action) -> int:
        if action.kind is ActionKind.STEP_OVER:
            return i + 1
        return super().next(i, action)


def test_the_check_catches_wrong_semantics() -> None:
    wrong = run(40, tree_type=_StepOverIsStepInto)
    assert wrong.divergences["unexplained"] > 0
    assert wrong.agreed["step_over"] < wrong.checked["step_over"]
