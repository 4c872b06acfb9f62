"""Debug sessions over the oracle backend: stops, history, breakpoints, inverse, terminal."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from neural_debugger.model_backend.backend import BackendError, DecodeOptions
from neural_debugger.model_backend.local import LocalEngine
from neural_debugger.model_backend.oracle import OracleEngine
from neural_debugger.model_backend.session import (
    DebugSession,
    default_breakpoint_steps,
    default_return_steps,
    finish,
    inverse_first_state,
    parse_action,
    resume,
    reverse_resume,
)
from neural_debugger.protocol import Action, ActionKind, StateKind
from neural_debugger.tracer.program import load_program

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "bubble_sort.py"
STEP_INTO = Action(kind=ActionKind.STEP_INTO)


async def _oracle(
    entry: str = "bubble_sort([3, 1, 2])", inverse: bool = False, breakpoint_steps: int = 64
) -> DebugSession:
    return await DebugSession.open(
        load_program(EXAMPLE, entry),
        OracleEngine(),
        inverse=inverse,
        breakpoint_steps=breakpoint_steps,
    )


async def test_oracle_session_locates_stops_and_rebuilds_full_locals() -> None:
    session = await _oracle()
    first = session.current
    assert (first.file, first.line, first.state.kind) == ("<entry>", 1, StateKind.CALL)
    lines = session.program.lines
    stops = [
        await session.step(parse_action(w, lines))
        for w in ("step_into", "step_into", "step_over", "step_over")
    ]
    assert [Path(s.file).name for s in stops[1:]] == ["bubble_sort.py"] * 3
    assert [f.name for f in stops[1].frames] == ["main", "bubble_sort"]  # the call, at the def
    assert [s.line for s in stops] == [2, 4, 5, 6]
    assert [f.name for f in stops[-1].frames] == ["main", "bubble_sort"]
    assert stops[-1].state.diff  # the language shows a diff ...
    assert stops[-1].locals == {"items": "[3, 1, 2]", "result": "[3, 1, 2]"}  # ... rebuilt
    assert stops[-1].confidence.overall == 1.0
    bp = await session.step(parse_action("breakpoint:12", lines))
    assert bp.line == 12 and bp.locals["swaps"] == "2"
    assert (await session.step(Action(kind=ActionKind.CONTINUE))).exited
    with pytest.raises(BackendError, match="exited"):
        await session.step(STEP_INTO)


async def test_step_back_restores_the_stop_and_the_stack() -> None:
    session = await _oracle()
    for _ in range(3):
        await session.step(STEP_INTO)
    before = session.current
    await session.step(STEP_INTO)
    assert session.step_back() == before
    again = await session.step(STEP_INTO)  # the same step again, from the restored tracker
    assert again.line == 6 and again.depth == before.depth
    while len(session.stops) > 1:
        session.step_back()
    with pytest.raises(BackendError, match="first stop"):
        session.step_back()


async def test_resume_to_one_or_several_breakpoints_and_back() -> None:
    session = await _oracle()
    one = await resume(session, {11})
    assert one.line == 11 and one.locals["swaps"] == "0"
    both = await resume(session, {11, 12})  # several: stepped until one is hit
    assert both.line == 11 and both.locals["swaps"] == "1"
    assert (await resume(session, {12})).line == 12
    assert (await resume(session, set())).exited
    back = reverse_resume(session, {11})
    assert back.line == 11 and back.locals["swaps"] == "1"


async def test_a_continue_steps_to_one_breakpoint_then_jumps_past_its_budget() -> None:
    # stepped: every event on the way is a recorded stop, the last on the breakpoint
    stepped = await _oracle()
    stop = await resume(stepped, {11})
    kinds = {a.kind for a in stepped.actions}
    assert (stop.line, stop.locals["swaps"]) == (11, "0") and kinds == {ActionKind.STEP_INTO}
    assert len(stepped.stops) > 5 and stop.action.kind is ActionKind.STEP_INTO
    # a budget too small to get there: that many steps, then one jump the rest of the way
    short = await _oracle(breakpoint_steps=3)
    stop = await resume(short, {11})
    assert [a.kind for a in short.actions] == [ActionKind.STEP_INTO] * 3 + [ActionKind.BREAKPOINT]
    assert (stop.line, stop.locals["swaps"]) == (11, "0")
    # 0: one jump, as the language's breakpoint action
    jumped = await _oracle(breakpoint_steps=0)
    stop = await resume(jumped, {11})
    assert [a.kind for a in jumped.actions] == [ActionKind.BREAKPOINT] and stop.line == 11
    with pytest.raises(ValueError, match="breakpoint_steps"):
        await _oracle(breakpoint_steps=-1)
    # unset: the oracle's exact steps, a model's one jump
    assert (default_breakpoint_steps("oracle"), default_breakpoint_steps("local")) == (64, 0)


async def test_a_step_out_steps_to_its_frames_return_then_jumps_past_its_budget() -> None:
    program = load_program(EXAMPLE, "bubble_sort([3, 1, 2])")
    stepped = await DebugSession.open(program, OracleEngine(), return_steps=200)
    await stepped.step(STEP_INTO)  # main's line, which calls bubble_sort
    stop = await finish(stepped)
    # the steps go through bubble_sort's call and return and stop at main's own return
    kinds = [s.state.kind for s in stepped.stops]
    assert kinds.count(StateKind.CALL) == 2 and kinds.count(StateKind.RETURN) == 2
    assert {a.kind for a in stepped.actions} == {ActionKind.STEP_INTO}
    assert (stop.state.kind, stop.depth, stop.state.value) == (StateKind.RETURN, 0, "[1, 2, 3]")
    # from inside the callee: its own return
    inner = await DebugSession.open(program, OracleEngine(), return_steps=200)
    await inner.step(STEP_INTO)
    await inner.step(STEP_INTO)
    await inner.step(STEP_INTO)  # bubble_sort's first line
    stop = await finish(inner)
    assert (stop.state.kind, stop.depth, stop.line) == (StateKind.RETURN, 1, 12)
    # a budget too small: the steps are taken back and one jump answers
    short = await DebugSession.open(program, OracleEngine(), return_steps=3)
    await short.step(STEP_INTO)
    stop = await finish(short)
    assert [a.kind for a in short.actions] == [ActionKind.STEP_INTO, ActionKind.STEP_RETURN]
    assert (stop.state.kind, stop.depth, stop.state.value) == (StateKind.RETURN, 0, "[1, 2, 3]")
    # from a return, the jump itself (to the caller's end), as the language's step_return
    again = await finish(short)
    assert again.exited and short.actions[-1].kind is ActionKind.STEP_RETURN
    with pytest.raises(ValueError, match="return_steps"):
        await DebugSession.open(program, OracleEngine(), return_steps=-1)
    # unset: the oracle's exact jump, a model's steps
    assert (default_return_steps("oracle"), default_return_steps("local")) == (0, 128)


async def test_a_step_out_the_model_cannot_write_jumps_or_leaves_the_session_as_it_was() -> None:
    program = load_program(ROOT / "examples" / "running_total.py", "running_total([3, 1, 2])")
    session = await DebugSession.open(program, LocalEngine(), return_steps=128)
    for _ in range(3):
        await session.step(STEP_INTO)
    before = list(session.states)
    with pytest.raises(BackendError, match="budget"):  # every step, and the jump, too long
        await finish(session, DecodeOptions(max_new_tokens=2))
    assert session.states == before and len(session.stops) == len(before)
    # 20 tokens: three steps fit and the fourth does not; they are taken back, the jump answers
    stop = await finish(session, DecodeOptions(max_new_tokens=20))
    assert stop.action is not None and stop.action.kind is ActionKind.STEP_RETURN
    assert session.states[:-1] == before and stop.state.kind is StateKind.RETURN


async def test_the_oracle_refuses_what_reality_did_not_do() -> None:
    session = await _oracle()
    await session.step(STEP_INTO)
    await session.step(STEP_INTO)
    session.set_value("items", "[9, 9]")  # a counterfactual: only a model can follow it
    assert session.current.locals == {"items": "[9, 9]"}
    with pytest.raises(BackendError, match="differs from the real run"):
        await session.step(STEP_INTO)
    with pytest.raises(BackendError, match="not available in a forward session"):
        await session.step(Action(kind=ActionKind.INV_STEP_INTO))
    with pytest.raises(BackendError, match="no variable"):
        session.set_value("nothing", "1")


async def test_inverse_oracle_session_walks_back_to_the_inputs() -> None:
    session = await _oracle(inverse=True)
    start = session.current
    assert start.state.kind is StateKind.INV_RETURN and start.state.value == "[1, 2, 3]"
    assert start.line == 12
    call = await session.step(Action(kind=ActionKind.INV_STEP_CALL))
    assert call.state.kind is StateKind.INV_CALL and call.locals == {"items": "[3, 1, 2]"}
    assert call.line == 4
    program = load_program(EXAMPLE, "bubble_sort([3, 1, 2])")
    assert inverse_first_state(program, "[1, 2, 3]").src == "    return result"
    with pytest.raises(ValueError, match="entry call"):
        inverse_first_state(load_program(EXAMPLE), "1")


def _ndb(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "neural_debugger", "debug", *args],
        capture_output=True,
        text=True,
        timeout=120,
        input=stdin,
    )


def test_ndb_debug_oracle_json_stops() -> None:
    out = _ndb(
        str(EXAMPLE),
        "--entry",
        "bubble_sort([3, 1, 2])",
        "--backend",
        "oracle",
        "--json",
        "--script",
        "step_into,step_into,breakpoint:12,step_into,step_back,step_into,continue",
    )
    assert out.returncode == 0, out.stderr
    stops = [json.loads(line) for line in out.stdout.splitlines()]
    events = [s["event"] for s in stops]
    assert events == ["call", "line", "call", "line", "return", "line", "return", "exit_normal"]
    assert stops[4]["value"] == "[1, 2, 3]" and stops[4]["confidence"]["value"] == 1.0
    assert stops[5]["step"] == 3  # step_back shows the earlier stop again
    bad = _ndb(str(EXAMPLE), "--script", "jump")
    assert bad.returncode == 2 and "unknown action 'jump'" in bad.stderr
    missing = _ndb(str(ROOT / "no_such.py"), "--script", "step_into")
    assert missing.returncode == 2 and "no_such.py" in missing.stderr
    unchecked = _ndb(str(EXAMPLE), "--backend", "oracle", "--check", "4", "--script", "step_into")
    assert unchecked.returncode == 2 and "--check" in unchecked.stderr
    negative = _ndb(str(EXAMPLE), "--breakpoint-steps", "-1", "--script", "step_into")
    assert negative.returncode == 2 and "--breakpoint-steps" in negative.stderr
    negative = _ndb(str(EXAMPLE), "--return-steps", "-1", "--script", "step_into")
    assert negative.returncode == 2 and "--return-steps" in negative.stderr


def test_ndb_debug_step_return_with_the_model_walks_to_the_return() -> None:
    """The embedded model's step out: steps into toward the frame's return (the terminal names
    the request and how many actions it took), or with --return-steps 0 the one jump."""
    program = str(ROOT / "examples" / "running_total.py")
    common = [program, "--entry", "running_total([3, 1, 2])", "--script"]
    walked = _ndb(*common, "step_into,step_into,step_over,step_return")
    assert walked.returncode == 0, walked.stderr
    last = walked.stdout.strip().splitlines()
    header = next(line for line in last if line.startswith("[") and "step_return" in line)
    assert "actions (step_into) -> return at running_total.py:10" in header
    jumped = _ndb(*common, "step_into,step_into,step_over,step_return", "--return-steps", "0",
                  "--json")  # fmt: skip
    assert jumped.returncode == 0, jumped.stderr
    stops = [json.loads(line) for line in jumped.stdout.splitlines()]
    assert (stops[-1]["action"], stops[-1]["steps"], stops[-1]["event"]) == (
        "step_return",
        1,
        "return",
    )


def test_ndb_debug_interactive_prompt_takes_pdb_like_commands() -> None:
    commands = "help\nb 11\nc\np swaps\nw\nl\nn\nback\nbogus\nb 0\nq\n"
    out = _ndb(
        str(EXAMPLE), "--entry", "bubble_sort([3, 1, 2])", "--backend", "oracle", stdin=commands
    )
    assert out.returncode == 0, out.stderr
    text = out.stdout
    assert "step into" in text and "reverse continue" in text  # help
    assert "-> line at bubble_sort.py:11" in text and "swaps = 0" in text
    assert "#1 bubble_sort at" in text and "  11 -> " in text
    assert "unknown command 'bogus'" in text and "no line 0" in text


async def test_restart_frame_and_goto_work_on_the_history() -> None:
    session = await _oracle(breakpoint_steps=0)
    jumped_there = await resume(session, {11})  # one jump: the call is not in the history
    with pytest.raises(BackendError, match="not in the recorded history"):
        session.restart_frame(1)
    session.step_back()
    stop = await resume(session, {11, 12})  # stepped there: every stop is recorded
    assert stop.line == jumped_there.line and [f.name for f in stop.frames] == [
        "main",
        "bubble_sort",
    ]
    entered = session.restart_frame(1)  # back to bubble_sort's call, through the history
    assert entered.state.kind is StateKind.CALL and entered.line == 4 and entered.depth == 1
    assert session.restart_frame(0).line == 1 and len(session.stops) == 1
    with pytest.raises(BackendError, match="no frame 3"):
        session.restart_frame(3)
    await resume(session, {11})
    assert session.goto_targets(12) and not session.goto_targets(15)  # 15: the module's code
    assert not session.goto_targets(13)  # a blank line
    jumped = session.goto(12)
    assert jumped.line == 12 and jumped.state.src == "    return result"
    assert jumped.locals["swaps"] == "0"
    with pytest.raises(BackendError, match="differs from the real run"):
        await session.step(STEP_INTO)  # the oracle cannot follow a jump; a model can


async def test_after_a_jump_into_a_function_the_caller_stands_on_the_call() -> None:
    session = await _oracle(breakpoint_steps=0)
    stop = await resume(session, {11})
    assert [(f.name, f.line) for f in stop.frames] == [("main", 2), ("bubble_sort", 11)]


NESTED = """def total(xs):
    s = 0
    for x in xs:
        s += x
    return s


def outer(xs):
    def inner(v):
        return v * 2
    doubled = [inner(x) for x in xs]
    return total(doubled)


count = 0
print(outer([1, 2, 3]))
count = 0
print(count)
"""


async def test_stacks_after_jumps_follow_the_calls_in_the_code(tmp_path: Path) -> None:
    path = tmp_path / "nested.py"
    path.write_text(NESTED)

    async def at(line: int) -> DebugSession:
        session = await DebugSession.open(load_program(path), OracleEngine(), breakpoint_steps=0)
        await resume(session, {line})
        return session

    def names(session: DebugSession) -> list[tuple[str, int | None]]:
        return [(f.name, f.line) for f in session.current.frames]

    # the functions in between are rebuilt from the calls in the code, not from def lines
    deep = await at(4)
    assert names(deep) == [("<module>", 16), ("outer", 12), ("total", 4)]
    # a line that defines a function runs in the function around it
    assert names(await at(9)) == [("<module>", 16), ("outer", 9)]
    # after the returns, the module goes on from its call, not from an earlier twin line
    session = await at(5)
    for _ in range(3):
        stop = await session.step(Action(kind=ActionKind.STEP_OVER))
    assert (stop.line, names(session)) == (17, [("<module>", 17)])
    comprehension = await at(11)
    await comprehension.step(STEP_INTO)
    assert names(comprehension)[-1] == ("<listcomp>", 11)


RECURSIVE = """def fact(n):
    return n * fact(n - 1) if n > 1 else 1


print([fact(k) for k in (3, 1)])
"""


async def test_stepped_stacks_tell_recursion_on_one_line_from_a_comprehension(
    tmp_path: Path,
) -> None:
    path = tmp_path / "recursive.py"
    path.write_text(RECURSIVE)
    session = await DebugSession.open(load_program(path), OracleEngine())
    seen: list[tuple[int | None, list[str]]] = []
    while not session.finished:
        stop = await session.step(STEP_INTO)
        seen.append((stop.line, [f.name for f in stop.frames]))
    # a recursive call on the line its caller stands on opened the function's frame (at its
    # def), while the comprehension on line 5 opened one without a def
    deepest = max((names for line, names in seen if line == 2), key=len)
    assert deepest == ["<module>", "<listcomp>", "fact", "fact", "fact"]


TWO_CALLS = """def parse(items):
    good = []
    for item in items:
        good.append(int(item))
    return good


def order(nums):
    out = sorted(nums)
    return out


def main():
    nums = parse(["3", "1"])
    return order(nums)


print(main())
"""


async def test_a_jump_out_of_a_function_that_cannot_reach_the_line_leaves_its_frame(
    tmp_path: Path,
) -> None:
    path = tmp_path / "two_calls.py"
    path.write_text(TWO_CALLS)
    session = await DebugSession.open(load_program(path), OracleEngine(), breakpoint_steps=0)
    stop = await resume(session, {3})  # in parse, called by main
    assert [(f.name, f.line) for f in stop.frames] == [("<module>", 18), ("main", 14), ("parse", 3)]
    stop = await resume(session, {9})  # parse has returned; main calls order
    assert [(f.name, f.line) for f in stop.frames] == [("<module>", 18), ("main", 15), ("order", 9)]


async def test_steps_that_end_the_program_short_of_the_breakpoint_give_way_to_the_jump(
    tmp_path: Path,
) -> None:
    path = tmp_path / "two_calls.py"
    path.write_text(TWO_CALLS + "\n\ndef never():\n    return 0\n")
    session = await DebugSession.open(load_program(path), OracleEngine(), breakpoint_steps=64)
    stop = await resume(session, {22})  # `return 0` of a function nothing calls
    # the steps ran to the end, were taken back, and the one jump answered (the end, too)
    assert stop.exited and [a.kind for a in session.actions] == [ActionKind.BREAKPOINT]
    assert len(session.stops) == 2
