"""The stepping rules on the oracle backend, without an adapter (debugpy's own stops are checked
against these rules live in tests/evaluation/test_stepping_check.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from neural_debugger.model_backend.backend import BackendError
from neural_debugger.model_backend.oracle import OracleEngine
from neural_debugger.model_backend.session import DebugSession, Stop
from neural_debugger.model_backend.stepping import Stepper, code_facts
from neural_debugger.protocol import ActionKind, StateKind
from neural_debugger.tracer.program import load_program

PROGRAM = """\
def work(n):
    acc = 0
    for i in range(n):
        acc += i
    return acc


def gen(k):
    while k > 0:
        yield k
        k -= 1


start = 1
done = work(2)
total = sum(gen(2))
print(done, total)
"""


async def _stepper(tmp_path: Path, source: str = PROGRAM, exact: bool = True) -> Stepper:
    """A stepper on the oracle; ``exact`` off, it steps as with a model (it jumps, and gives
    up walking where a model's walk has lost its way)."""
    path = tmp_path / "prog.py"
    path.write_text(source)
    session = await DebugSession.open(load_program(path), OracleEngine())
    return Stepper(session, exact_continue=exact)


def _no_breakpoints(stop: Stop) -> tuple[bool, str | None]:
    return False, None


def _at(line: int):
    def decide(stop: Stop) -> tuple[bool, str | None]:
        return stop.line == line, None

    return decide


async def test_step_in_lands_on_the_body_and_step_out_on_the_call_line(tmp_path: Path) -> None:
    stepper = await _stepper(tmp_path)
    entry = await stepper.entry()
    assert (entry.line, entry.reason) == (1, "entry")  # the def statement runs first
    assert (await stepper.request("continue", _at(15), set())).line == 15
    inside = await stepper.request("stepIn", _no_breakpoints, set())
    assert (inside.frames[-1].name, inside.line) == ("work", 2)  # not the def line
    out = await stepper.request("stepOut", _no_breakpoints, set())
    assert (out.frames[-1].name, out.line, out.depth) == ("<module>", 15, 0)
    assert out.returns == (("(return) work", "1"),) and "done" not in (out.locals or {})
    after = await stepper.request("next", _no_breakpoints, set())
    assert after.line == 16 and after.locals is not None and after.locals["done"] == "1"
    assert after.returns == (("(return) work", "1"),)  # kept while the frame runs
    back = stepper.step_back()
    assert back.line == 15 and back.returns == out.returns
    assert stepper.step_back().line == 2
    assert stepper.step_back().line == 15


async def test_next_over_a_call_stops_at_a_breakpoint_in_it(tmp_path: Path) -> None:
    stepper = await _stepper(tmp_path)
    await stepper.entry()
    await stepper.request("continue", _at(15), set())
    hit = await stepper.request("next", _at(4), set())
    assert (hit.frames[-1].name, hit.line, hit.reason) == ("work", 4, "breakpoint")
    again = await stepper.request("continue", _at(4), set())
    assert again.line == 4 and again.locals is not None and again.locals["i"] == "1"
    end = await stepper.request("continue", _no_breakpoints, set())
    assert end.exited
    with pytest.raises(BackendError, match="exited"):
        await stepper.request("next", _no_breakpoints, set())


async def test_a_class_body_returns_to_its_class_line_before_the_class_is_bound(
    tmp_path: Path,
) -> None:
    """A breakpoint on a method's ``def`` line stops in the class body; a step into past the
    body's end stops in the module on the ``class`` line, as debugpy does, where the class
    is not bound yet (its ``(return)`` entry is shown), nor a loop header's target after a
    call in the header returned."""
    source = (
        "LIMIT = 5\n"
        "class Box:\n"
        "    def __init__(self, n):\n"
        "        self.n = n\n"
        "def count(n):\n"
        "    return n\n"
        "for i in range(count(2)):\n"
        "    box = Box(i)\n"
    )
    stepper = await _stepper(tmp_path, source)
    await stepper.entry()
    hit = await stepper.request("continue", _at(3), set())
    assert (hit.frames[-1].name, hit.line) == ("Box", 3)
    view = await stepper.request("stepIn", _no_breakpoints, set())
    assert (view.frames[-1].name, view.line) == ("<module>", 2)
    assert view.locals == {"LIMIT": "5"} and view.returns == (("(return) Box", "None"),)
    await stepper.request("continue", _at(6), set())
    header = await stepper.request("stepIn", _no_breakpoints, set())
    assert header.line == 7 and "i" not in (header.locals or {})


async def test_a_caller_that_returns_at_once_keeps_its_own_locals(tmp_path: Path) -> None:
    """``return merge(...)``: after ``merge`` returns, the caller returns too, and the next
    event at the caller's depth is another frame's call (the outer level's ``merge``). The
    stop in the caller shows the caller's locals, as debugpy does, not that call's."""
    source = (
        "def merge(left, right):\n"
        "    return left + right\n"
        "def halves(xs):\n"
        "    if len(xs) <= 1:\n"
        "        return xs\n"
        "    mid = len(xs) // 2\n"
        "    return merge(halves(xs[:mid]), halves(xs[mid:]))\n"
        "halves([3, 1, 2])\n"
    )
    stepper = await _stepper(tmp_path, source)
    await stepper.entry()
    inner = await stepper.request("continue", _at(2), set())
    assert inner.locals == {"left": "[1]", "right": "[2]"}
    view = await stepper.request("stepIn", _no_breakpoints, set())
    assert (view.frames[-1].name, view.line, len(view.frames)) == ("halves", 7, 3)
    assert view.locals == {"xs": "[1, 2]", "mid": "1"}
    assert view.returns == (("(return) merge", "[1, 2]"),)


def test_code_facts_name_the_variable_whose_class_names_a_return() -> None:
    source = (
        "class Box:\n"
        "    def put(self, x):\n        return x\n"
        "def star(*items):\n    return items\n"
        "def only(*, key):\n    return key\n"
        "def plain():\n    total = 1\n    return total\n"
    )
    facts = {c.name: c for c in code_facts(source, "prog.py")}
    assert (facts["put"].first_var, facts["put"].first_is_parameter) == ("self", True)
    assert facts["put"].shown_name == "Box.put"
    assert (facts["star"].first_var, facts["star"].first_is_parameter) == ("items", True)
    assert (facts["only"].first_var, facts["only"].first_is_parameter) == ("key", True)
    # a local, which may be unbound at the return (then debugpy writes the bare name)
    assert (facts["plain"].first_var, facts["plain"].first_is_parameter) == ("total", False)


async def test_a_yield_is_not_a_return(tmp_path: Path) -> None:
    facts = {c.name: c for c in code_facts(PROGRAM, "prog.py")}
    assert facts["gen"].generator and 10 not in facts["gen"].return_lines
    assert not facts["work"].generator and facts["work"].return_lines == {5}
    stepper = await _stepper(tmp_path)
    await stepper.entry()
    hit = await stepper.request("continue", _at(10), set())
    assert (hit.frames[-1].name, hit.line) == ("gen", 10)
    resumed = await stepper.request("next", _no_breakpoints, set())  # the yield: no stop
    assert (resumed.frames[-1].name, resumed.line) == ("gen", 11)


CAUGHT_THEN_UNCAUGHT = """\
def f(x):
    return 1 // x


try:
    f(0)
except ZeroDivisionError:
    pass
y = f(1)
z = f(0)
"""


@pytest.mark.parametrize("exact", [True, False], ids=["walking", "jumping"])
async def test_uncaught_exception_stops_at_its_raise_point_then_ends(
    tmp_path: Path, exact: bool
) -> None:
    """The stop is where the exception that ended the run was raised, not the one caught
    before it. A predicting continue (``exact`` off) jumps to the run's end, which writes no
    event on the way: it is taken back and walked to find the raise."""
    stepper = await _stepper(tmp_path, CAUGHT_THEN_UNCAUGHT, exact=exact)
    await stepper.entry()
    raised = await stepper.request("continue", _no_breakpoints, {"uncaught"})
    assert raised.reason == "exception" and raised.state.kind is StateKind.EXCEPTION
    assert (raised.frames[-1].name, raised.line, raised.frames[-2].line) == ("f", 2, 10)
    assert raised.locals == {"x": "0"}
    end = await stepper.request("next", _no_breakpoints, {"uncaught"})
    assert end.state.kind is StateKind.EXIT_ERROR


async def test_a_predicting_continue_stops_where_an_exception_is_raised(tmp_path: Path) -> None:
    """With the ``raised`` filter a predicting continue walks single events first (a jump to
    the breakpoint would pass the raise without writing it) and stops where the exact walk
    does; the next continue goes on to the breakpoint."""
    stops: dict[bool, list[tuple[str | None, int | None]]] = {}
    for exact in (True, False):
        stepper = await _stepper(tmp_path, CAUGHT_THEN_UNCAUGHT, exact=exact)
        await stepper.entry()
        stepper.set_breakpoint_lines({10})
        first = await stepper.request("continue", _at(10), {"raised"})
        second = await stepper.request("continue", _at(10), {"raised"})
        stops[exact] = [(s.reason, s.line) for s in (first, second)]
    assert stops[False] == stops[True] == [("exception", 2), ("breakpoint", 10)]


async def test_a_predicting_step_out_without_breakpoints_is_one_step_return(
    tmp_path: Path,
) -> None:
    """A backend that predicts (exact_continue off) steps out with one ``step_return``
    when nothing could stop it on the way, and lands where the walk lands; with a
    breakpoint set, it walks every event and stops there."""
    exact = await _stepper(tmp_path)
    path = tmp_path / "prog.py"
    session = await DebugSession.open(load_program(path), OracleEngine())
    jumping = Stepper(session, exact_continue=False)
    for stepper in (exact, jumping):
        await stepper.entry()
        stepper.set_breakpoint_lines({15})  # where a predicting continue jumps to
        assert (await stepper.request("continue", _at(15), set())).line == 15
        stepper.set_breakpoint_lines(set())
        await stepper.request("stepIn", _no_breakpoints, set())
        assert (await stepper.request("next", _no_breakpoints, set())).line == 3
    before = len(session.stops)
    walked = await exact.request("stepOut", _no_breakpoints, set())
    jumped = await jumping.request("stepOut", _no_breakpoints, set())
    assert len(session.stops) == before + 1  # one prediction: the frame's return
    assert len(exact.session.stops) > before + 1  # the walk: every event of the loop
    for out in (walked, jumped):
        assert (out.frames[-1].name, out.line, out.depth) == ("<module>", 15, 0)
        assert out.returns == (("(return) work", "1"),)
    jumping.step_back()
    jumping.set_breakpoint_lines({4})
    stopped = await jumping.request("stepOut", _at(4), set())
    assert (stopped.line, stopped.reason) == (4, "breakpoint")


async def test_a_predicting_step_out_steps_as_its_session_allows(tmp_path: Path) -> None:
    """With the session's ``return_steps`` (a model's default), a step out nothing can stop
    on the way is the session's own: steps into until the frame returns, then the same view
    in the caller as the walk's; with too few, one ``step_return`` after all."""
    path = tmp_path / "prog.py"
    path.write_text(PROGRAM)
    outs = []
    for steps in (50, 2):
        session = await DebugSession.open(load_program(path), OracleEngine(), return_steps=steps)
        stepper = Stepper(session, exact_continue=False)
        await stepper.entry()
        stepper.set_breakpoint_lines({15})
        await stepper.request("continue", _at(15), set())
        stepper.set_breakpoint_lines(set())
        await stepper.request("stepIn", _no_breakpoints, set())
        before = len(session.stops)
        outs.append(await stepper.request("stepOut", _no_breakpoints, set()))
        kinds = {a.kind for a in session.actions[before - 1 :]}
        assert kinds == ({ActionKind.STEP_INTO} if steps == 50 else {ActionKind.STEP_RETURN})
    for out in outs:
        assert (out.frames[-1].name, out.line, out.depth) == ("<module>", 15, 0)
        assert out.returns == (("(return) work", "1"),)


async def test_a_predicting_walk_past_half_its_budget_finishes_the_callee(tmp_path: Path) -> None:
    """A model's ``next`` whose walk has not stopped within half of its budget of predictions
    finishes the callee with one ``step_return`` rather than failing the request; the oracle
    walks every event."""
    long_loop = PROGRAM.replace("work(2)", "work(150)")  # line 15: 150 turns of work's loop
    jumping = await _stepper(tmp_path, long_loop, exact=False)
    exact = await _stepper(tmp_path, long_loop)
    for stepper in (jumping, exact):
        await stepper.entry()
        stepper.set_breakpoint_lines({15})
        assert (await stepper.request("continue", _at(15), set())).line == 15
        stepper.set_breakpoint_lines({9})  # in gen, which a callee could reach: it walks
        before = len(stepper.session.stops)
        over = await stepper.request("next", _at(9), set())
        assert (over.line, over.returns) == (16, (("(return) work", str(sum(range(150)))),))
        walked = len(stepper.session.stops) - before
        if stepper is jumping:
            assert jumping.max_events // 2 < walked < jumping.max_events
        else:
            assert walked > 300  # every event of the loop


CALLED_OFTEN = """\
def square(i):
    return i * i


total = sum(square(i) for i in range(200))
done = total
"""


async def test_a_predicting_walk_that_still_walks_is_answered_by_one_jump(
    tmp_path: Path,
) -> None:
    """A ``next`` over a line whose callees keep calling (two events per item even when each
    is finished at once) would outrun a model's budget: at three quarters of it, the walk is
    taken back and one ``step_over`` answers. The oracle walks every event to the same line."""
    jumping = await _stepper(tmp_path, CALLED_OFTEN, exact=False)
    exact = await _stepper(tmp_path, CALLED_OFTEN)
    for stepper in (jumping, exact):
        await stepper.entry()
        stepper.set_breakpoint_lines({5})
        assert (await stepper.request("continue", _at(5), set())).line == 5
        stepper.set_breakpoint_lines(set())  # the generator's frame would hit line 5 again
        before = len(stepper.session.stops)
        over = await stepper.request("next", _no_breakpoints, set())
        assert (over.line, over.reason) == (6, "step")
        walked = len(stepper.session.stops) - before
        assert walked == 1 if stepper is jumping else walked > jumping.max_events
    assert jumping.session.stops[-1].action.kind is ActionKind.STEP_OVER
    assert jumping.current.locals == exact.current.locals


SAME_EACH_TURN = """\
word = "aaa"
count = 0
for ch in word:
    count = count
print(count)
"""


async def test_a_predicting_continue_that_jumps_back_to_where_it_was_walks_on(
    tmp_path: Path,
) -> None:
    """A model's continue jumps from hit to hit; a jump that lands where the request began (a
    model writing the same hit again, its condition false there forever) cannot get further,
    so it is taken back and the request walks event by event. Here each turn's hit looks
    alike: the walk stops on every one of them, as the oracle's exact walk does."""
    jumping = await _stepper(tmp_path, SAME_EACH_TURN, exact=False)
    exact = await _stepper(tmp_path, SAME_EACH_TURN)
    seen: dict[Stepper, list[tuple[int | None, dict[str, str] | None]]] = {}
    for stepper in (jumping, exact):
        await stepper.entry()
        stepper.set_breakpoint_lines({4})
        hits = []
        for _ in range(4):
            stop = await stepper.request("continue", _at(4), set())
            hits.append((None if stop.exited else stop.line, stop.locals))
        seen[stepper] = hits
    assert seen[jumping] == seen[exact]
    assert [line for line, _ in seen[jumping]] == [4, 4, 4, None]
    kinds = [a.kind for a in jumping.session.actions]
    assert kinds.count(ActionKind.BREAKPOINT) == 2  # the first hit, then the end
    # the second and third hits were walked to (the turn's ``for`` line, then the body)
    assert kinds.count(ActionKind.STEP_INTO) >= 4
