"""A session compared with a real run of the same actions: what diverged, where, and why."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from neural_debugger.model_backend.compare import compare_with_real_run, diverged, follow
from neural_debugger.model_backend.oracle import OracleEngine
from neural_debugger.model_backend.session import DebugSession, resume
from neural_debugger.protocol import Action, ActionKind
from neural_debugger.tracer.program import load_program

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "bubble_sort.py"
ENTRY = "bubble_sort([3, 1, 2])"
STEP_INTO = Action(kind=ActionKind.STEP_INTO)


async def _session(path: Path = EXAMPLE, breakpoint_steps: int = 64) -> DebugSession:
    return await DebugSession.open(
        load_program(path, ENTRY), OracleEngine(), breakpoint_steps=breakpoint_steps
    )


async def test_a_real_run_agrees_with_itself() -> None:
    session = await _session()
    for _ in range(6):
        await session.step(STEP_INTO)
    comparison = await compare_with_real_run(session, OracleEngine())
    assert (comparison.stops, comparison.compared) == (7, 7)
    assert comparison.divergences == () and comparison.first is None


async def test_wrong_values_are_found_at_their_stop_and_line(tmp_path: Path) -> None:
    # the "prediction" is a run of a subtly different program at the same path: every swap
    # counts twice, so the predicted swaps diverge from reality from the first swap on
    wrong = tmp_path / "bubble_sort.py"
    wrong.write_text(EXAMPLE.read_text().replace("swaps += 1", "swaps += 2"))
    predicted = await _session(wrong, breakpoint_steps=0)
    await resume(predicted, {12})  # one jump to `return result`
    truth = await _session(EXAMPLE)
    await follow(truth, predicted)
    comparison = diverged(predicted, truth)
    assert comparison.compared == 2 and comparison.wrong_stops == 1
    (only,) = comparison.divergences
    assert (only.step, only.kind, only.name, only.line, only.real_line) == (
        1,
        "variable",
        "swaps",
        12,
        12,
    )
    assert (only.predicted, only.real, only.counterfactual) == ("4", "2", False)
    assert only.message == "Stop 1 after breakpoint: predicted swaps = 4; the real run had 2"


async def test_edits_and_jumps_are_reported_as_counterfactual() -> None:
    session = await _session()
    await resume(session, {11})
    session.set_value("swaps", "41")
    comparison = await compare_with_real_run(session, OracleEngine())
    (edit,) = comparison.divergences
    assert (edit.name, edit.predicted, edit.real, edit.counterfactual) == ("swaps", "41", "0", True)
    assert edit.message.endswith("(after an edit the real run never made)")

    session.goto(12)  # a jump: the predicted position is not where the real run stood
    comparison = await compare_with_real_run(session, OracleEngine())
    position = [d for d in comparison.divergences if d.kind == "position"]
    assert [(d.line, d.real_line, d.counterfactual) for d in position] == [(12, 11, True)]
    assert "predicted line 12; the real run was at line 11" in position[0].message


def _ndb_debug_json(script: str) -> list[dict]:
    # the demo's program: the model's stops there show variables (on bubble_sort it may
    # instead step into `main` again, whose frame has none)
    program = ROOT / "examples" / "running_total.py"
    command = ["debug", str(program), "--entry", "running_total([3, 1, 2])", "--compare"]
    command += ["--json", "--script", script]
    out = subprocess.run(
        [sys.executable, "-m", "neural_debugger", *command],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert out.returncode == 0, out.stderr
    return [json.loads(line) for line in out.stdout.splitlines()]


def test_ndb_debug_compare_marks_an_edited_value() -> None:
    stops = _ndb_debug_json("step_into,step_into,step_into")
    assert stops[0]["differs_from_real_run"] == []  # the first stop is given, not predicted
    # the shipped model's stops differ from run to model: edit the first predicted variable
    step, name = next((s["step"], next(iter(s["locals"]))) for s in stops if s["locals"])
    edited = _ndb_debug_json(",".join(["step_into"] * step + [f"set:{name}=[9]"]))[-1]
    assert edited["step"] == step and edited["locals"][name] == "[9]"
    assert name in edited["differs_from_real_run"]
