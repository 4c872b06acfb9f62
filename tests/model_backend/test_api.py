"""The session API: one way to open a session, whichever frontend asks."""

from __future__ import annotations

from pathlib import Path

import pytest

from neural_debugger.model_backend.api import (
    EnginePool,
    SessionError,
    check_breakpoints,
    open_session,
)
from neural_debugger.model_backend.backend import DecodeOptions
from neural_debugger.model_backend.session import resume
from neural_debugger.protocol import StateKind
from neural_debugger.tracer.program import load_program

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "bubble_sort.py"
ENTRY = "bubble_sort([3, 1, 2])"


async def test_opens_a_session_at_its_first_stop_with_checked_breakpoints() -> None:
    opened = await open_session(EXAMPLE, entry=ENTRY, breakpoints=[11], backend="oracle")
    assert opened.backend == "oracle" and opened.breakpoints == {11}
    assert opened.session.current.state.kind is StateKind.CALL
    assert opened.session.breakpoint_steps == 64  # the oracle's default: exact steps
    stop = await resume(opened.session, opened.breakpoints)
    assert stop.line == 11 and stop.locals is not None and stop.locals["swaps"] == "0"


async def test_an_inverse_session_starts_from_the_return_value() -> None:
    opened = await open_session(EXAMPLE, entry=ENTRY, inverse="[1, 2, 3]", backend="oracle")
    assert opened.session.inverse
    assert opened.session.current.state.kind is StateKind.INV_RETURN


async def test_the_pool_shares_one_engine_per_configuration() -> None:
    pool = EnginePool()
    first = await open_session(EXAMPLE, entry=ENTRY, backend="oracle", engines=pool)
    second = await open_session(EXAMPLE, entry="bubble_sort([2])", backend="oracle", engines=pool)
    assert first.session is not second.session
    assert await pool.get("oracle", None) is await pool.get("oracle", None)
    await pool.aclose()


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"program": ROOT / "no_such.py"}, "no such file"),
        ({"program": EXAMPLE, "entry": "bubble_sort("}, "not valid Python"),
        ({"program": EXAMPLE, "breakpoints": [2]}, "line 2 is not a statement line"),
        ({"program": EXAMPLE, "backend": "gpu"}, "unknown backend 'gpu'"),
        ({"program": EXAMPLE, "backend": "oracle", "options": DecodeOptions(check=3)}, "local"),
        ({"program": EXAMPLE, "breakpoint_steps": -1}, "breakpoint_steps"),
        ({"program": EXAMPLE, "inverse": "[1]"}, "entry call"),
        ({"program": EXAMPLE, "model": ROOT / "no_model_here"}, "does not exist"),
    ],
)
async def test_every_failure_is_one_session_error(arguments: dict, message: str) -> None:
    program = arguments.pop("program")
    with pytest.raises(SessionError, match=message):
        await open_session(program, **arguments)


def test_breakpoints_must_start_a_statement(tmp_path: Path) -> None:
    source = tmp_path / "p.py"
    source.write_text("x = [\n    1,\n]\n# a comment\ny = x\n")
    program = load_program(source)
    assert check_breakpoints(program, [1, 5]) == {1, 5}
    for line in (2, 4, 9):
        with pytest.raises(SessionError, match=f"line {line} is not a statement line"):
            check_breakpoints(program, [line])


async def test_an_unsaved_source_replaces_the_file(tmp_path: Path) -> None:
    program = tmp_path / "p.py"
    program.write_text("x = 1\n")
    opened = await open_session(program, source="x = 1\ny = x + 1\n", backend="oracle")
    assert opened.program.lines[1] == "y = x + 1"
