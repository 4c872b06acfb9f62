"""``ndb trace`` as a user runs it: a real subprocess, real programs."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from neural_debugger.protocol import ActionKind, StateKind, parse_trajectory
from neural_debugger.tracer.program import load_program
from neural_debugger.tracer.record import record

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "bubble_sort.py"


def ndb(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "neural_debugger", *args],
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )


def test_help_explains_every_option() -> None:
    out = ndb("trace", "--help")
    assert out.returncode == 0
    for option in ("--entry", "--inverse", "--policy", "--seed", "--max-states", "--timeout"):
        assert option in out.stdout
    assert "replays the full trace" in " ".join(out.stdout.split())


def test_step_into_policy_prints_the_whole_trace() -> None:
    out = ndb("trace", str(EXAMPLE), "--entry", "bubble_sort([3, 1, 2])", "--policy", "step_into")
    assert out.returncode == 0, out.stderr
    trajectory = parse_trajectory(out.stdout.rstrip("\n"))
    events = record(load_program(EXAMPLE, "bubble_sort([3, 1, 2])")).events
    assert len(trajectory.states) == len(events) + 1
    assert {a.kind for a in trajectory.actions} == {ActionKind.STEP_INTO}
    assert [s.src for s in trajectory.states[:-1]] == [e.src for e in events]
    assert trajectory.states[-1].kind is StateKind.EXIT_NORMAL
    assert trajectory.states[-2].value == "[1, 2, 3]"


def test_inverse_trajectory_ends_at_the_entry_and_seed_is_reproducible() -> None:
    args = ("trace", str(EXAMPLE), "--entry", "bubble_sort([3, 1, 2])", "--inverse", "--seed", "4")
    first, second = ndb(*args), ndb(*args)
    assert first.returncode == 0, first.stderr
    assert first.stdout == second.stdout
    trajectory = parse_trajectory(first.stdout.rstrip("\n"))
    assert trajectory.states[0].kind is StateKind.INV_RETURN
    assert trajectory.states[-1].kind is StateKind.INV_EXIT_ENTRY
    assert "def main():" not in trajectory.code


def test_errors_are_one_clear_line_and_exit_code_2(tmp_path: Path) -> None:
    broken = tmp_path / "broken.py"
    broken.write_text("def f(:\n")
    out = ndb("trace", str(broken))
    assert out.returncode == 2
    assert out.stderr.startswith("ndb trace: error: syntax error in")
    missing = ndb("trace", str(tmp_path / "missing.py"))
    assert missing.returncode == 2 and "no such file" in missing.stderr


def test_runaway_program_notes_the_never_exit(tmp_path: Path) -> None:
    loop = tmp_path / "loop.py"
    loop.write_text("n = 0\nwhile True:\n    n += 1\n")
    out = ndb("trace", str(loop), "--max-events", "200", "--policy", "step_into")
    assert out.returncode == 0
    assert out.stdout.rstrip("\n").endswith("<|exit_never|><|trace_end|><|end_of_text|>")
    assert "never finished: stopped after 200 events" in out.stderr
