"""The code's line flow: which lines can follow which in one frame, checked against real runs."""

from __future__ import annotations

import random
from collections.abc import Iterator
from itertools import pairwise
from pathlib import Path

import pytest

from neural_debugger.model_backend.backend import DecodeOptions, History
from neural_debugger.model_backend.call_sites import CallSites
from neural_debugger.model_backend.flow import (
    MODULE_ENTRY,
    Expected,
    LineFlow,
    entry_text,
    expect,
)
from neural_debugger.model_backend.grammar import (
    FORWARD_KINDS,
    INVERSE_KINDS,
    SourceLines,
    StateWriter,
)
from neural_debugger.model_backend.local import LocalEngine, LocalSession
from neural_debugger.model_backend.tokenizer import load_tokenizer
from neural_debugger.model_backend.vocab import Vocab
from neural_debugger.paths import default_model_dir
from neural_debugger.protocol import Action, ActionKind, State, StateKind, parse_trajectory
from neural_debugger.protocol.source_map import SourceMap
from neural_debugger.tracer.events import TraceEvent
from neural_debugger.tracer.program import Program, load_program
from neural_debugger.tracer.record import record
from neural_debugger.training.data import TRACE_LIMITS, DataSpec, program_trajectories
from neural_debugger.training.programs import generate_programs, package_programs
from neural_debugger.training.programs.base import TrainingProgram
from neural_debugger.training.programs.everyday import everyday_programs

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = load_program(ROOT / "examples" / "running_total.py", "running_total([3, 1, 2])")
STEP_OVER = Action(kind=ActionKind.STEP_OVER)
EXAMPLE_SCRIPT = load_program(ROOT / "examples" / "bubble_sort.py").context


def test_the_flow_of_a_loop() -> None:
    flow = LineFlow(EXAMPLE.context)  # 4: def, 5: total = 0, 6: out = [], 7: for, 10: return
    assert flow.first_lines(4) == {5}
    assert flow.following(5) == {6}
    assert flow.following(7) == {8, 10}  # the body, or past the loop
    assert flow.following(9) == {7}  # back to the header
    assert flow.following(10) == frozenset()  # a return: no line of this frame follows
    assert flow.preceding(5) == frozenset()  # the first body line: only the call comes before
    assert flow.following(99) is None and flow.preceding(99) is None  # no such line: not known


def test_a_def_line_is_followed_by_the_next_statement_not_by_the_body() -> None:
    """A ``def`` line's instructions in the function's own code (cell set-up, RESUME) run
    before its call event and fire no line event, so in a module or class body the line after
    a ``def`` is the next statement, and a function's first body line follows no line."""
    code = "\n".join(
        [
            "def scale(x):",  # 1
            "    y = x * 2",  # 2
            "    return y",  # 3
            "class Box:",  # 4
            "    def get(self):",  # 5
            "        return 1",  # 6
            "def one(x): return x",  # 7
            "def counter():",  # 8
            "    n = 0",  # 9
            "    def bump():",  # 10
            "        return n + 1",  # 11
            "    return bump",  # 12
            "print(scale(3))",  # 13
        ]
    )
    flow = LineFlow(code)
    assert flow.following(1) == {4}
    assert flow.preceding(2) == frozenset()
    assert flow.following(4) == {5, 7}  # the class body's first line, or the module's next
    assert flow.following(5) == frozenset()  # the class body ends there
    assert flow.following(7) == {8}  # the module's next line (the one-line body returns)
    assert flow.following(10) == {12} and flow.preceding(11) == frozenset()
    assert flow.preceding(9) == frozenset()  # a function with a cell: set-up is no line


def test_a_step_from_a_def_line_cannot_enter_the_body() -> None:
    """The grammar holds a step into from a module's ``def`` line to the next statement, a
    step back from a first body line to its own call (no line comes before it), and one from
    a line in the middle of a frame to a line (no call comes just before it)."""
    source = SourceMap(EXAMPLE_SCRIPT)
    flow = LineFlow(EXAMPLE_SCRIPT)
    at_def = State(kind=StateKind.LINE, src="def bubble_sort(items):", locals={}, diff=False)
    into = Action(kind=ActionKind.STEP_INTO)
    expected = expect(flow, source, (at_def,), (), into)
    assert expected.lines[StateKind.LINE] == {'if __name__ == "__main__":'}
    first = State(
        kind=StateKind.INV_LINE,
        src="    result = list(items)",
        locals={"items": "[2, 1]"},
        diff=False,
    )
    back = expect(flow, source, (first,), (), Action(kind=ActionKind.INV_STEP_INTO))
    assert back.lines[StateKind.INV_LINE] == back.lines[StateKind.INV_LINE_CALL] == frozenset()
    assert back.lines[StateKind.INV_CALL] == {"def bubble_sort(items):"}  # its own call only
    middle = State(kind=StateKind.INV_LINE, src="    swaps = 0", locals={}, diff=False)
    before = expect(flow, source, (middle,), (), Action(kind=ActionKind.INV_STEP_INTO))
    assert before.lines[StateKind.INV_CALL] == frozenset()  # no call comes just before it
    assert before.lines[StateKind.INV_LINE] == {"    result = list(items)"}
    last = State(kind=StateKind.LINE, src="    return result", locals={}, diff=False)
    ends = expect(flow, source, (last,), (), into)
    assert ends.lines[StateKind.LINE] == frozenset()
    vocab = Vocab(load_tokenizer(Path(default_model_dir())))
    writer = StateWriter(vocab, SourceLines(EXAMPLE_SCRIPT.split("\n"), vocab), FORWARD_KINDS, ends)
    allowed = writer.allowed_ids()
    assert allowed is not None and vocab.special_id[StateKind.LINE.token] not in allowed
    assert vocab.special_id[StateKind.RETURN.token] in allowed
    assert (
        vocab.special_id[StateKind.LINE.token]
        in StateWriter(
            vocab, SourceLines(EXAMPLE_SCRIPT.split("\n"), vocab), FORWARD_KINDS, expected
        ).allowed_ids()
    )


def test_code_that_does_not_compile_has_no_flow() -> None:
    flow = LineFlow("def f(:\n    return 1\n")
    assert flow.following(1) is None and flow.first_lines(1) is None


def _traced(
    programs: list[TrainingProgram],
) -> Iterator[tuple[TrainingProgram, LineFlow, tuple[str, int] | None, TraceEvent, int]]:
    """Each event of the programs' real runs, with its program and code flow, the kind and
    context line of the event before it in the same frame activation, and its own line."""
    for index, candidate in enumerate(programs):
        program = Program(path=f"p{index}.py", source=candidate.source, entry=candidate.entry)
        flow = LineFlow(program.context)
        last: dict[int, tuple[str, int]] = {}
        for event in record(program, TRACE_LIMITS).events:
            line = program.context_line(event.file, event.line)
            before = last.get(event.activation)
            last[event.activation] = (event.kind, line)
            yield candidate, flow, before, event, line


def test_every_step_of_real_runs_is_one_the_flow_allows() -> None:
    """Trace generated and package programs; every line a frame shows next (after a line or
    after its call event) must be in the flow's list (after a line with no exception event
    between them, in the list of lines reached with no exception raised), and every variable
    it shows among its code's. The lists are also narrow."""
    programs = generate_programs(11, 40) + package_programs(11, 15)[0]
    checked = single = narrower = required = narrower_lines = 0
    for candidate, flow, before, event, line in _traced(programs):
        if event.kind in ("line", "call"):  # the frame's variables, bound by then
            if event.kind == "line":
                whole, names = flow.names_on([line]), flow.names_at([line])
            else:
                whole, names = flow.names_starting(line), flow.names_calling([line])
            assert names is not None and whole is not None and names <= whole
            assert set(event.locals) - {"…"} <= names, (candidate.origin, line, event)
            narrower += len(names) < len(whole)
            if event.kind == "line":
                surely = flow.names_surely_at([line])
            else:  # the module's own call is the run's first event
                module = event.function == "<module>"
                surely = flow.names_surely_calling([line], module=module)
            assert surely <= set(event.locals), (candidate.origin, line, event)
            required += bool(surely)
        if event.kind != "line" or before is None or before[0] not in ("line", "call"):
            continue
        if before[0] == "line":  # no exception event between them: no handler's way
            allowed = flow.following(before[1], normally=True)
            assert allowed is not None and allowed <= (flow.following(before[1]) or set())
            narrower_lines += allowed != flow.following(before[1])
        else:
            allowed = flow.first_lines(before[1])
        assert allowed is not None and line in allowed, (candidate.origin, before, line)
        checked += 1
        single += len(allowed) == 1
    assert checked > 1000
    assert single > checked / 3
    assert narrower > checked / 4  # not yet bound: often fewer than all the frame's variables
    assert required > checked / 2  # and most stops must show some (arguments, at least)
    assert narrower_lines > 10  # lines in a ``try``: not its handler (28 of 2,340 written)


def test_a_line_shows_only_variables_some_path_has_bound_by_then() -> None:
    code = "\n".join(
        [
            "def f(n, *rest):",  # 1
            "    if n:",  # 2
            "        a = 1",  # 3
            "    b = 2",  # 4
            "    for i in range(n):",  # 5
            "        c = i",  # 6
            "    del b",  # 7
            "    return c",  # 8
            "def outer():",  # 9
            "    def bump():",  # 10
            "        nonlocal total",  # 11
            "        total = 1",  # 12
            "    bump()",  # 13
            "    if total:",  # 14
            "        total = 0",  # 15
            "def gen(k):",  # 16
            "    j = k",  # 17
            "    yield j",  # 18
            "    m = 1",  # 19
        ]
    )
    flow = LineFlow(code)
    assert flow.names_at([2]) == flow.names_at([3]) == {"n", "rest"}
    assert flow.names_at([4]) == {"n", "rest", "a"}
    assert flow.names_at([5]) == flow.names_at([8]) == {"n", "rest", "a", "b", "i", "c"}
    assert flow.names_on([2]) == {"n", "rest", "a", "b", "i", "c"}  # the whole frame
    assert flow.names_at([10]) == {"total"}  # an inner function may bind it any time
    assert flow.names_at([13]) == {"total", "bump"}
    assert flow.names_at([12]) == {"total"}  # bump's free variable
    assert flow.names_calling([16]) == {"k"}  # a call event shows the arguments
    assert flow.names_calling([9]) == {"total"}  # the cell bump may assign, to be safe
    assert flow.names_calling([18]) == {"k", "j"}  # a generator resumed after its yield
    # a module's line: the names its code binds before it (`def f` on line 1 binds f once it
    # has run), and any name a function assigns as a global (a call may bind it any time)
    assert flow.names_at([1, 4]) == {"n", "rest", "a"}
    assert flow.names_at([16]) == {"f", "outer"}
    assert flow.names_at([16, 19]) == {"f", "outer", "j", "k"}  # and gen's, by line 19
    script = ["def bump():", "    global hits", "    hits = 1", "x = 1", "bump()"]
    module = LineFlow("\n".join([*script, "for i in range(2):", "    y = i"]))
    assert module.names_at([4]) == {"bump", "hits"}
    assert module.names_at([6]) == {"bump", "hits", "x", "i", "y"}  # the loop comes round
    assert LineFlow("x = 1\nexec('y = 2')\n").names_at([2]) is None  # dynamic: any


def test_a_line_surely_shows_what_every_path_to_it_has_bound() -> None:
    """Whole locals must show what every path binds: the arguments from the start, a variable
    once each branch has bound it, not a loop's variable at its header or after the loop (it
    may not have run), nothing deleted or cleared, a closure's free variable only when its
    maker had bound it before making it; at module level, not what imports may bind."""
    code = "\n".join(
        [
            "import math",  # 1
            "def f(n, *rest, key=None):",  # 2
            "    if n:",  # 3
            "        a = 1",  # 4
            "    else:",  # 5
            "        a = 2",  # 6
            "    for i in range(n):",  # 7
            "        b = i",  # 8
            "    del a",  # 9
            "    return n",  # 10
            "def outer(x):",  # 11
            "    y = x",  # 12
            "    def inner():",  # 13
            "        return y + later",  # 14
            "    later = 1",  # 15
            "    try:",  # 16
            "        z = int(x)",  # 17
            "    except ValueError as err:",  # 18
            "        z = 0",  # 19
            "    return inner()",  # 20
            "lib = math",  # 21
            "LIMIT = 2",  # 22
            "if LIMIT:",  # 23
            "    extra = 1",  # 24
            "print(LIMIT)",  # 25
        ]
    )
    flow = LineFlow(code)
    assert flow.names_surely_at([3]) == {"n", "rest", "key"}
    assert flow.names_surely_at([7]) == flow.names_surely_at([9]) == {"n", "rest", "key", "a"}
    assert flow.names_surely_at([8]) == {"n", "rest", "key", "a", "i"}
    assert flow.names_surely_at([10]) == {"n", "rest", "key"}  # a deleted, b and i maybe
    assert flow.names_surely_at([14]) == {"y"}  # `later` is bound after inner is made
    assert flow.names_surely_at([20]) == {"x", "y", "z", "inner", "later"}  # err is cleared
    assert flow.names_surely_at([25]) == {"LIMIT", "f", "outer"}  # math, lib: modules
    assert flow.names_surely_at([3, 12]) == set()  # two frames: what both show
    assert flow.names_surely_calling([2], module=False) == {"n", "rest", "key"}
    assert flow.names_surely_calling([1]) == set()  # the module's own call shows nothing
    # code that binds names dynamically fixes none
    assert LineFlow("def g(v):\n    exec('w = 1')\n    return v\n").names_surely_at([3]) == set()


def test_whole_locals_wait_for_what_the_line_surely_shows() -> None:
    """A breakpoint in a function cannot close its locals before its arguments; a call state
    shows every argument; a diff is left alone."""
    code = "def f(a, b):\n    c = a + b\n    return c\n\nprint(f(1, 2))\n"
    source, flow = SourceMap(code), LineFlow(code)
    start = State(kind=StateKind.CALL, src="def f(a, b):", locals={})
    jump = Action(kind=ActionKind.BREAKPOINT, target="    return c")
    expected = expect(flow, source, (start,), (), jump)
    assert expected.required == {"a", "b", "c"}
    line = State(kind=StateKind.LINE, src="    return c", locals={"a": "1", "b": "2", "c": "3"})
    assert expected.allows(line)
    assert not expected.allows(line.model_copy(update={"locals": {"a": "1", "c": "3"}}))
    call = State(kind=StateKind.CALL, src="def f(a, b):", locals={"a": "1", "b": "2"})
    assert expected.call_required["def f(a, b):"] == {"a", "b"}
    assert not expected.allows(call.model_copy(update={"locals": {"a": "1"}}))
    vocab = Vocab(load_tokenizer(Path(default_model_dir())))
    writer = StateWriter(vocab, SourceLines(source.lines, vocab), FORWARD_KINDS, expected)
    writer.advance(vocab.special_id[StateKind.LINE.token])
    while writer.part != "object":
        writer.take_forced(writer.forced())  # type: ignore[arg-type]
    close = vocab.id_of_bytes[b"}"]
    for byte in b'{"a": "1", "b": "2"':
        writer.advance(vocab.id_of_bytes[bytes([byte])])
    assert not writer.accepts(close)  # c is still to come
    for byte in b', "c": "3"':
        writer.advance(vocab.id_of_bytes[bytes([byte])])
    assert writer.accepts(close)


def test_a_step_cannot_change_an_immutable_value_its_line_does_not_bind() -> None:
    code = "\n".join(
        [
            "def f(xs, n):",  # 1
            "    s = 'a'",  # 2
            "    t = (1, 'b')",  # 3
            "    xs.append(n)",  # 4
            "    s, k = s + 'b', 2",  # 5
            "    del t",  # 6
            "    def g():",  # 7
            "        nonlocal k",  # 8
            "        k = 3",  # 9
            "    return g",  # 10
            "def h():",  # 11
            "    global count",  # 12
            "    count = 1",  # 13
            "count = 0",  # 14
            "h()",  # 15
        ]
    )
    flow = LineFlow(code)
    shown = {"xs": "[1]", "n": "3", "s": "'a'", "t": "(1, 'b')", "k": "2", "u": "None"}
    assert flow.unchanged([4], shown) == {"n", "s", "t", "u"}  # xs is a list; k is a cell
    # s is bound again; the line calls nothing and reads literals, so the list xs keeps its value
    assert flow.unchanged([5], shown) == {"n", "t", "u", "xs"}
    assert flow.unchanged([5], {**shown, "s": "<Text object>"}) == {"n", "t", "u"}
    assert flow.unchanged([6], shown) == {"n", "s", "u"}  # t is deleted
    assert flow.unchanged([5, 6], shown) == {"n", "u"}  # lines sharing one text add up
    assert flow.unchanged([4], {"n": "'aaa…<cut>", "s": "{1}", "t": "(1, [2])"}) == set()
    assert flow.unchanged([15], {"count": "0", "h": "<function h>"}) == set()  # h binds it
    assert flow.unchanged([], shown) == set()
    for reaching in ("import sys\nsys._getframe", "exec('n = 1')", "x = locals()"):
        assert LineFlow(f"{code}\n{reaching}").unchanged([4], shown) == set()
    assert LineFlow("def f(:").unchanged([1], shown) == set()  # no code, no constraint


def _states() -> tuple[State, ...]:
    return (
        State(kind=StateKind.CALL, src="def running_total(xs):", locals={"xs": "[3, 1, 2]"}),
        State(kind=StateKind.LINE, src="    total = 0", locals={"xs": "[3, 1, 2]"}),
    )


def test_a_line_of_builtin_operations_on_literals_keeps_lists_it_does_not_bind() -> None:
    flow = LineFlow("def f(xs):\n    ys = xs\n    xs += [1]\n    n = len(xs)\n    return ys\n")
    shown = {"xs": "[0]", "ys": "[0]", "zs": "[5]"}
    # `xs += [1]` changes its list in place: `ys`, showing the same text, may be that list
    assert flow.unchanged([3], shown) == {"zs"}
    assert flow.unchanged([4], shown) == set()  # a call: any list may change


def test_what_the_history_and_the_action_fix() -> None:
    source = SourceMap(EXAMPLE.context)
    flow = LineFlow(EXAMPLE.context)
    states = _states()
    variables = {"xs", "total", "out", "x"}  # running_total's frame
    ends = {StateKind.EXIT_NORMAL: frozenset(), StateKind.EXIT_ERROR: frozenset()}
    over = expect(flow, source, states, (STEP_OVER,), STEP_OVER)
    # `total = 0` goes on to `out = []`: the frame cannot return first, and a line the values
    # compute calls no code of the program's and raises nothing
    nothing = frozenset[str]()
    assert over.lines == {
        StateKind.CALL: nothing,
        StateKind.LINE: {"    out = []"},
        StateKind.RETURN: nothing,
        StateKind.EXCEPTION: nothing,
        **ends,
    }
    assert over.diff is True and over.names == {"xs", "total"}  # `out` is not bound yet
    assert over.call_names["def running_total(xs):"] == {"xs"}  # a call shows the arguments
    assert over.call_names["def main():"] == set()
    first = expect(flow, source, states[:1], (), STEP_OVER)
    assert first.lines[StateKind.LINE] == {"    total = 0"} and first.names == {"xs"}
    step_return = Action(kind=ActionKind.STEP_RETURN)
    returning = expect(flow, source, states, (STEP_OVER,), step_return)
    # a step out shows the frame's own return, nothing else (see the step-out test below)
    assert returning.lines[StateKind.CALL] == returning.lines[StateKind.LINE] == frozenset()
    assert "    return out" in returning.lines[StateKind.RETURN] and returning.diff is None
    breakpoint = Action(kind=ActionKind.BREAKPOINT, target="    return out")
    stop = expect(flow, source, states, (STEP_OVER,), breakpoint)
    assert stop.lines[StateKind.RETURN] == stop.lines[StateKind.LINE] == {"    return out"}
    assert stop.diff is False and stop.names == variables
    called = (
        State(kind=StateKind.CALL, src="def main():", locals={}),
        State(kind=StateKind.LINE, src="    return running_total([3, 1, 2])", locals={}),
        *states,
        State(kind=StateKind.RETURN, src="    return out", value="[]"),
    )
    actions = (Action(kind=ActionKind.STEP_INTO),) * 2 + (STEP_OVER, step_return)
    after = expect(flow, source, called, actions, STEP_OVER)
    # main's line `return running_total(...)` leads to no line of main: it returns in turn,
    # or raises, on that line; the run goes on (main, the top frame, has not returned yet)
    caller = frozenset({"    return running_total([3, 1, 2])"})
    assert after.lines == {
        StateKind.CALL: frozenset(),  # the line's one call, the only one it makes, returned
        StateKind.LINE: frozenset(),
        StateKind.RETURN: caller,
        StateKind.EXCEPTION: caller,
        **ends,
    }
    assert after.diff is False and after.names == set()  # main's frame has no variables
    assert not after.allows(State(kind=StateKind.LINE, src=called[1].src, locals={"xs": "[]"}))
    counted = (*states, State(kind=StateKind.LINE, src="    out = []", locals={"total": "0"}))
    after_out = expect(flow, source, counted, (STEP_OVER,) * 2, STEP_OVER)
    assert after_out.unchanged == {"    for x in xs:": {"total"}}  # xs is a list
    changed = State(kind=StateKind.LINE, src="    for x in xs:", locals={"total": "1"}, diff=True)
    assert not after_out.allows(changed)
    # `out = []` only copies a literal: the diff shows `out`, with that value
    assert after_out.fixed == {"out": "[]"} and after_out.required == {"out"}
    assert after_out.allows(
        State(kind=StateKind.LINE, src="    for x in xs:", locals={"out": "[]"}, diff=True)
    )
    assert not after_out.allows(
        State(kind=StateKind.LINE, src="    for x in xs:", locals={}, diff=True)
    )


def test_a_step_back_cannot_change_what_the_line_it_lands_on_does_not_bind() -> None:
    source = SourceMap(EXAMPLE.context)
    flow = LineFlow(EXAMPLE.context)
    whole = {"xs": "[3, 1, 2]", "total": "6", "out": "[3, 4, 6]", "x": "2"}
    states = (
        State(kind=StateKind.INV_RETURN, src="    return out", value="[3, 4, 6]"),
        State(kind=StateKind.INV_LINE, src="    return out", locals=whole),
    )
    back = Action(kind=ActionKind.INV_STEP_INTO)
    expected = expect(flow, source, states, (back,), back)
    assert expected.lines[StateKind.INV_LINE] == {"    for x in xs:"}  # the loop ran out
    assert expected.unchanged == {"    for x in xs:": {"total"}}  # it binds x, not total
    header = State(kind=StateKind.INV_LINE, src="    for x in xs:", locals={}, diff=True)
    assert expected.allows(header)
    assert not expected.allows(header.model_copy(update={"locals": {"total": "3"}}))
    assert expected.before == whole  # the diff is written against the later state's locals
    assert not expected.allows(header.model_copy(update={"locals": {"out": "[3, 4, 6]"}}))
    assert expected.allows(header.model_copy(update={"locals": {"out": "[3, 4]"}}))
    assert not expected.allows(header.model_copy(update={"locals": {"k": None}}))


def test_every_sampled_state_keeps_to_what_was_expected() -> None:
    """Trajectories sampled as training data is (the real tracer, the paper's policy, every
    action kind, forward and inverse): each state keeps to what :func:`expect` fixed from the
    states before it."""
    spec = DataSpec(programs=60, seed=5, max_states=40)
    rng = random.Random(5)
    checked = fixed = unchanged = 0
    kinds: set[ActionKind] = set()
    for index, candidate in enumerate(generate_programs(5, 60) + package_programs(5, 15)[0]):
        for sampled in program_trajectories(candidate, index, spec, rng)[0]:
            trajectory = parse_trajectory(sampled["text"])
            source = SourceMap(trajectory.code)
            flow = LineFlow(trajectory.code)
            states, actions = trajectory.states, trajectory.actions
            for k in range(1, len(states)):
                expected = expect(flow, source, states[:k], actions[: k - 1], actions[k - 1])
                assert expected.allows(states[k]), (actions[k - 1], states[k], expected)
                checked += 1
                fixed += expected != Expected()
                unchanged += bool(expected.unchanged)
                kinds.add(actions[k - 1].kind)
    assert checked > 500 and fixed > checked / 2
    assert unchanged > checked / 20  # steps whose diff may not show some variable
    assert {ActionKind.BREAKPOINT, ActionKind.STEP_INTO, ActionKind.STEP_RETURN} <= kinds
    assert {ActionKind.INV_STEP_INTO, ActionKind.INV_STEP_OVER, ActionKind.INV_STEP_CALL} <= kinds


def test_every_sampled_state_of_everyday_scripts_keeps_to_what_was_expected() -> None:
    """The same over scripts a user runs with F5: module constants, an ``Enum`` (whose class
    body holds a name its code never stores), exceptions leaving ``with`` blocks (whose
    ``__exit__`` runs on the ``with`` line before the frame returns)."""
    spec = DataSpec(programs=80, seed=7, max_states=40)
    rng = random.Random(7)
    checked = module = 0
    themes: set[str] = set()
    for index, candidate in enumerate(everyday_programs(7, 80)[0]):
        themes.add(candidate.origin)
        for sampled in program_trajectories(candidate, index, spec, rng)[0]:
            trajectory = parse_trajectory(sampled["text"])
            source, flow = SourceMap(trajectory.code), LineFlow(trajectory.code)
            states, actions = trajectory.states, trajectory.actions
            for k in range(1, len(states)):
                expected = expect(flow, source, states[:k], actions[: k - 1], actions[k - 1])
                assert expected.allows(states[k]), (actions[k - 1], states[k], expected)
                checked += 1
                module += bool(expected.fixed)
    assert {"everyday:todo_list", "everyday:with_blocks"} <= themes
    assert checked > 1000 and module > 20


def test_the_writer_forces_the_only_line_that_can_follow() -> None:
    vocab = Vocab(load_tokenizer(Path(default_model_dir())))
    source = SourceLines(EXAMPLE.context.split("\n"), vocab)
    expected = Expected({StateKind.LINE: frozenset({"    out = []"})}, diff=True)
    writer = StateWriter(vocab, source, FORWARD_KINDS, expected)
    writer.advance(vocab.special_id[StateKind.LINE.token])
    while writer.part != "object":
        writer.take_forced(writer.forced())  # type: ignore[arg-type]
    for byte in b'{"..": ".."}':
        writer.advance(vocab.id_of_bytes[bytes([byte])])
    writer.take_forced(writer.forced())  # type: ignore[arg-type]  # <|src_sep|>
    forced = writer.forced()
    assert forced is not None and vocab.text(forced.ids) == "    out = []\n"


def test_the_writer_leaves_out_a_variable_the_step_cannot_change() -> None:
    vocab = Vocab(load_tokenizer(Path(default_model_dir())))
    source = SourceLines(EXAMPLE.context.split("\n"), vocab)
    expected = Expected(
        {StateKind.LINE: frozenset({"    out = []"})},
        diff=True,
        names=frozenset({"xs", "total"}),
        unchanged={"    out = []": frozenset({"total"})},
    )
    writer = StateWriter(vocab, source, FORWARD_KINDS, expected)
    writer.advance(vocab.special_id[StateKind.LINE.token])
    while writer.part != "object":
        writer.take_forced(writer.forced())  # type: ignore[arg-type]
    for byte in b'{"..": "..", "':
        writer.advance(vocab.id_of_bytes[bytes([byte])])
    assert writer.accepts(vocab.id_of_bytes[b"x"])  # xs, a list, may have changed
    assert not writer.accepts(vocab.id_of_bytes[b"t"])  # total, an int the line never binds
    # a step back writes its line first; the rule for that line holds
    header = "    for x in xs:"
    expected = Expected(
        {StateKind.INV_LINE: frozenset({header, "    total = 0"})},
        diff=True,
        names=frozenset({"xs", "total", "x"}),
        unchanged={header: frozenset({"total"})},
    )
    writer = StateWriter(vocab, source, INVERSE_KINDS, expected)
    writer.advance(vocab.special_id[StateKind.INV_LINE.token])
    while writer.part != "src":
        writer.take_forced(writer.forced())  # type: ignore[arg-type]
    for token in source.canonical(header.encode()):
        writer.advance(token)
    while writer.part != "object":
        writer.take_forced(writer.forced())  # type: ignore[arg-type]
    for byte in b'{"..": "..", "':
        writer.advance(vocab.id_of_bytes[bytes([byte])])
    assert writer.accepts(vocab.id_of_bytes[b"x"])
    assert not writer.accepts(vocab.id_of_bytes[b"t"])


@pytest.mark.parametrize("steps", [1, 2])
def test_the_engine_shows_the_line_the_flow_allows(steps: int) -> None:
    engine = LocalEngine()
    session = LocalSession(engine.loaded, EXAMPLE.context)
    states = _states()[:steps]
    history = History(EXAMPLE.context, states, (STEP_OVER,) * (steps - 1))
    predicted = session.predict_now(history, STEP_OVER, DecodeOptions())
    assert predicted.state.kind is StateKind.LINE
    assert predicted.state.src == ("    total = 0" if steps == 1 else "    out = []")


HALVING = "\n".join(
    [
        "def half(n):",  # 1
        "    if n % 2:",  # 2
        "        raise ValueError(n)",  # 3
        "    return n // 2",  # 4
        "def main():",  # 5
        "    total = half(4)",  # 6
        "    try:",  # 7
        "        total += half(3)",  # 8
        "    except ValueError:",  # 9
        "        total = -1",  # 10
        "    return total",  # 11
    ]
)


def test_after_a_return_or_an_exception_the_frame_goes_on_from_its_line() -> None:
    """A step from a return lands on a line the caller's line leads to (here `try:`, never
    the handler); from an exception on the handler or past the ``try``; and the real run's
    next line in that frame is among them."""
    flow, source = LineFlow(HALVING), SourceMap(HALVING)
    into = Action(kind=ActionKind.STEP_INTO)
    called = (
        State(kind=StateKind.CALL, src="def main():", locals={}),
        State(kind=StateKind.LINE, src="    total = half(4)", locals={}),
        State(kind=StateKind.CALL, src="def half(n):", locals={"n": "4"}),
        State(kind=StateKind.LINE, src="    if n % 2:", locals={"n": "4"}),
        State(kind=StateKind.LINE, src="    return n // 2", locals={"..": ".."}, diff=True),
        State(kind=StateKind.RETURN, src="    return n // 2", value="2"),
    )
    returned = expect(flow, source, called, (into,) * 5, into)
    assert returned.lines[StateKind.LINE] == {"    try:"}
    assert not returned.allows(State(kind=StateKind.LINE, src="        total = -1", locals={}))
    raised = (
        *called[:1],
        State(kind=StateKind.LINE, src="        total += half(3)", locals={"total": "2"}),
        State(kind=StateKind.EXCEPTION, src="        total += half(3)", value="ValueError(3)"),
    )
    handled = expect(flow, source, raised, (into,) * 2, into)
    assert handled.lines[StateKind.LINE] == {"    except ValueError:", "    return total"}
    # step out of a return is not a step: what it lands on is left to the other rules
    out = expect(flow, source, called, (into,) * 5, Action(kind=ActionKind.STEP_RETURN))
    assert StateKind.LINE not in out.lines
    program = Program(path="halving.py", source=HALVING, entry="main()")
    events = [e for e in record(program, TRACE_LIMITS).events if e.function == "main"]
    kinds = [(e.kind, program.context_line(e.file, e.line)) for e in events]
    at = kinds.index(("exception", 8))
    assert kinds[at + 1] == ("line", 9)


def test_after_a_return_the_caller_returns_at_once_only_from_a_returning_line() -> None:
    """A callee returns to ``x = f()``: the caller goes on to its next line (or raises), it
    cannot return there; to ``return f()`` or a function's last line it can. A call next is
    only into what the caller's line calls, and not again into a function the line calls
    once, whose call just returned."""
    code = "\n".join(
        [
            "def half(n):",  # 1
            "    return n // 2",  # 2
            "def twice(n):",  # 3
            "    return n * 2",  # 4
            "def main(n):",  # 5
            "    m = half(n) + twice(n)",  # 6
            "    m = half(m)",  # 7
            "    return half(m)",  # 8
            "def last(n):",  # 9
            "    m = half(n)",  # 10
        ]
    )
    flow, source = LineFlow(code), SourceMap(code)
    into = Action(kind=ActionKind.STEP_INTO)

    def after_half(caller: str, call: str) -> Expected:
        states = (
            State(kind=StateKind.CALL, src=call, locals={"n": "4"}),
            State(kind=StateKind.LINE, src=caller, locals={"n": "4"}),
            State(kind=StateKind.CALL, src="def half(n):", locals={"n": "4"}),
            State(kind=StateKind.LINE, src="    return n // 2", locals={"n": "4"}),
            State(kind=StateKind.RETURN, src="    return n // 2", value="2"),
        )
        return expect(flow, source, states, (into,) * 4, into)

    middle = after_half("    m = half(n) + twice(n)", "def main(n):")
    line = "    m = half(n) + twice(n)"
    assert not middle.allows(State(kind=StateKind.RETURN, src=line, value="None"))
    assert middle.allows(State(kind=StateKind.EXCEPTION, src=line, value="TypeError()"))
    assert middle.lines[StateKind.CALL] == {"def twice(n):"}
    assert middle.allows(State(kind=StateKind.CALL, src="def twice(n):", locals={"n": "4"}))
    assert middle.lines[StateKind.LINE] == {"    m = half(m)"}
    then = after_half("    m = half(m)", "def main(n):")
    assert then.lines[StateKind.RETURN] == frozenset() == then.lines[StateKind.CALL]
    returning = (("    return half(m)", "def main(n):"), ("    m = half(n)", "def last(n):"))
    for caller, call in returning:
        assert after_half(caller, call).lines[StateKind.RETURN] == {caller}


def test_a_line_calling_a_function_twice_or_in_a_comprehension_may_call_it_again() -> None:
    code = "\n".join(
        [
            "def half(n):",  # 1
            "    return n // 2",  # 2
            "x = half(4) + half(8)",  # 3
            "y = [half(v) for v in (1, 2)]",  # 4
            "z = half(6)",  # 5
        ]
    )
    sites = CallSites(code)
    assert not sites.called_once([3], 1) and not sites.called_once([4], 1)
    assert sites.called_once([5], 1) and not sites.called_once([5], 3)


RISKY = "\n".join(
    [
        "def risky(v):",  # 1
        "    if v < 0:",  # 2
        "        raise ValueError(v)",  # 3
        "    return v",  # 4
        "for k in (1, 2):",  # 5
        "    risky(k)",  # 6
        "try:",  # 7
        "    risky(-1)",  # 8
        "except ValueError:",  # 9
        "    msg = 'caught'",  # 10
        "print(msg)",  # 11
    ]
)


@pytest.mark.parametrize(("line", "more"), [(11, False), (9, False), (7, True), (5, True)])
def test_a_breakpoint_no_line_the_module_can_still_reach_leads_to_is_not_hit(
    line: int, more: bool
) -> None:
    """From the module's line 11 (or the handler), nothing calls ``risky`` again: a jump to
    its breakpoint can only end the run. From the loop or the ``try`` it can still come."""
    flow, source = LineFlow(RISKY), SourceMap(RISKY)
    text = source.lines[line - 1]
    states = (
        State(kind=StateKind.CALL, src=source.lines[0], locals={}),
        State(kind=StateKind.LINE, src=text, locals={"risky": "<function risky>"}),
    )
    jump = Action(kind=ActionKind.BREAKPOINT, target="    if v < 0:")
    expected = expect(flow, source, states, (Action(kind=ActionKind.STEP_OVER),), jump)
    hit = State(kind=StateKind.LINE, src="    if v < 0:", locals={"v": "-1"})
    assert expected.allows(hit) is more
    assert expected.allows(State(kind=StateKind.EXIT_NORMAL))


def test_after_a_class_body_returns_the_module_goes_on_past_the_class() -> None:
    """A breakpoint on a method's ``def`` line stops in the class body; after the body
    returns, the module goes on from the ``class`` line to the next statement, never into the
    body again, showing only what the module has bound (not the body's names), as the real
    run does."""
    code = "\n".join(
        [
            "LIMIT = 5",  # 1
            "class Box:",  # 2
            "    def __init__(self, n):",  # 3
            "        self.n = n",  # 4
            "    def size(self):",  # 5
            "        return self.n",  # 6
            "box = Box(LIMIT)",  # 7
        ]
    )
    flow, source = LineFlow(code), SourceMap(code)
    assert flow.following(2, normally=True) == {3, 7}  # the class frame's first line, too
    assert flow.following(2, normally=True, caller=True) == {7}
    into = Action(kind=ActionKind.STEP_INTO)
    jumped = (
        State(kind=StateKind.CALL, src="LIMIT = 5", locals={}),
        State(kind=StateKind.LINE, src="    def __init__(self, n):", locals={}),
        State(kind=StateKind.LINE, src="    def size(self):", locals={}),
        State(kind=StateKind.RETURN, src="    def size(self):", value="None"),
    )
    breakpoint = Action(kind=ActionKind.BREAKPOINT, target="    def __init__(self, n):")
    after = expect(flow, source, jumped, (breakpoint, into, into), into)
    assert after.lines[StateKind.LINE] == {"box = Box(LIMIT)"} and after.names == {"LIMIT", "Box"}
    assert not after.allows(
        State(kind=StateKind.LINE, src="box = Box(LIMIT)", locals={"__init__": "<function>"})
    )
    real = [
        (e.kind, e.line, e.function)
        for e in record(Program(path="box.py", source=code), TRACE_LIMITS).events
    ]
    at = real.index(("return", 5, "Box"))
    assert real[at + 1] == ("line", 7, "<module>")


SQUARES = "\n".join(
    [
        "def square(n):",  # 1
        "    return n * n",  # 2
        "def total(xs):",  # 3
        "    squares = [square(x) for x in xs]",  # 4
        "    odd = [square(x) for x in xs if x % 2]",  # 5
        "    return sum(squares) + sum(odd)",  # 6
    ]
)


def test_in_a_comprehension_each_turn_calls_before_its_line_fires_again() -> None:
    """In ``[square(x) for x in xs]`` a step into from the comprehension's line enters
    ``square`` (or the comprehension returns), never that line again nor the comprehension
    itself; after ``square`` returns, the comprehension goes on (its line again), not the
    function around it; with a filter, the line may come again with no call between. The
    real run's events agree."""
    flow, source = LineFlow(SQUARES), SourceMap(SQUARES)
    assert flow.calls_before_line([4]) and not flow.calls_before_line([5])
    assert flow.calls_before_line([2])  # a return: no line of the frame comes next either
    into = Action(kind=ActionKind.STEP_INTO)
    line = "    squares = [square(x) for x in xs]"
    opened = (
        State(kind=StateKind.CALL, src="def total(xs):", locals={"xs": "[1, 2]"}),
        State(kind=StateKind.LINE, src=line, locals={"xs": "[1, 2]"}),
        State(kind=StateKind.CALL, src=line, locals={".0": "<list_iterator object>"}),
        State(kind=StateKind.LINE, src=line, locals={".0": "<list_iterator object>"}),
    )
    inside = expect(flow, source, opened, (into,) * 3, into)
    assert inside.lines[StateKind.LINE] == frozenset()
    assert inside.lines[StateKind.CALL] == {"def square(n):"}  # not the comprehension again
    assert inside.lines[StateKind.RETURN] == {line}  # it returns where it stands
    out = expect(flow, source, opened, (into,) * 3, Action(kind=ActionKind.STEP_RETURN))
    assert out.lines[StateKind.RETURN] == {line}  # the comprehension's, not total's line 6
    returned = (
        *opened,
        State(kind=StateKind.CALL, src="def square(n):", locals={"n": "1"}),
        State(kind=StateKind.LINE, src="    return n * n", locals={"n": "1"}),
        State(kind=StateKind.RETURN, src="    return n * n", value="1"),
    )
    after = expect(flow, source, returned, (into,) * 6, into)
    assert after.lines[StateKind.LINE] == {line}  # the comprehension's, not line 5
    program = Program(path="squares.py", source=SQUARES, entry="total([1, 2])")
    events = [
        (e.kind, program.context_line(e.file, e.line), e.function)
        for e in record(program, TRACE_LIMITS).events
    ]
    for k, (kind, number, function) in enumerate(events[:-1]):
        if kind == "line" and number == 4 and function == "total.<locals>.<listcomp>":
            assert events[k + 1][0] in ("call", "return")
    at = events.index(("return", 2, "square"))
    assert events[at + 1] == ("line", 4, "total.<locals>.<listcomp>")
    assert (
        ("line", 5, "total.<locals>.<listcomp>"),
        ("line", 5, "total.<locals>.<listcomp>"),
    ) in pairwise(events)


def test_a_step_ends_the_run_only_from_a_return() -> None:
    """The tracer records the top frame's return before the run's end: a step into, over or
    out ends the run only from a return state (or by the tracer's limits, ``exit_never``)."""
    source, flow = SourceMap(EXAMPLE.context), LineFlow(EXAMPLE.context)
    states = _states()
    ended = State(kind=StateKind.EXIT_NORMAL)
    failed = State(kind=StateKind.EXIT_ERROR)
    for kind in (ActionKind.STEP_INTO, ActionKind.STEP_OVER, ActionKind.STEP_RETURN):
        expected = expect(flow, source, states, (STEP_OVER,), Action(kind=kind))
        assert not expected.allows(ended) and not expected.allows(failed)
        assert expected.allows(State(kind=StateKind.EXIT_NEVER))
    returned = (*states, State(kind=StateKind.RETURN, src="    return out", value="[]"))
    after = expect(flow, source, returned, (STEP_OVER,) * 2, STEP_OVER)
    assert after.allows(ended)
    go_on = expect(flow, source, states, (STEP_OVER,), Action(kind=ActionKind.CONTINUE))
    assert go_on.allows(ended)


def test_a_step_ends_the_run_only_from_the_top_frames_return() -> None:
    """A function's return goes back to its caller: only the return of the run's top frame
    (here the entry call's wrapper, which the history's first state opened) ends the run."""
    source, flow = SourceMap(EXAMPLE.context), LineFlow(EXAMPLE.context)
    wrapper = EXAMPLE.wrapper_lines
    into = Action(kind=ActionKind.STEP_INTO)
    run = (
        State(kind=StateKind.CALL, src=wrapper[0], locals={}),
        State(kind=StateKind.LINE, src=wrapper[1], locals={}),
        *_states(),
        State(kind=StateKind.RETURN, src="    return out", value="[]"),
    )
    ended = State(kind=StateKind.EXIT_NORMAL)
    for kind in (ActionKind.STEP_INTO, ActionKind.STEP_OVER, ActionKind.STEP_RETURN):
        inner = expect(flow, source, run, (into,) * 4, Action(kind=kind))
        assert not inner.allows(ended) and not inner.allows(State(kind=StateKind.EXIT_ERROR))
    top = (*run, State(kind=StateKind.RETURN, src=wrapper[1], value="[]"))
    assert expect(flow, source, top, (into,) * 5, into).allows(ended)
    # a history that does not start with the run's first call cannot tell: any return may end
    assert expect(flow, source, run[1:], (into,) * 3, into).allows(ended)
    # the module frame's return (a line only it runs): every action ends the run
    script = SourceMap(EXAMPLE_SCRIPT), LineFlow(EXAMPLE_SCRIPT)
    last = "    print(bubble_sort([5, 2, 9, 1]))"
    returned = (
        State(kind=StateKind.CALL, src=EXAMPLE_SCRIPT.split("\n")[0], locals={}),
        State(kind=StateKind.RETURN, src=last, value="None"),
    )
    for kind in (ActionKind.STEP_INTO, ActionKind.CONTINUE, ActionKind.STEP_RETURN):
        over = expect(script[1], script[0], returned, (into,), Action(kind=kind))
        assert over.allows(ended) and over.allows(State(kind=StateKind.EXIT_ERROR))
        assert not over.allows(State(kind=StateKind.LINE, src=last, locals={}))
        assert not over.allows(State(kind=StateKind.EXCEPTION, src=last, value="E()"))


def test_a_step_out_shows_the_frames_own_return() -> None:
    """A step out of a line or a call state lands on that frame's return event: never another
    kind of event, and only on a line of the frame's own code."""
    source, flow = SourceMap(EXAMPLE.context), LineFlow(EXAMPLE.context)
    out = Action(kind=ActionKind.STEP_RETURN)
    body = {"    total = 0", "    out = []", "    for x in xs:", "    total += x"}
    body |= {"        total += x", "        out.append(total)", "    return out"}
    for states in (_states(), _states()[:1]):  # from a line, from the call
        expected = expect(flow, source, states, (STEP_OVER,), out)
        shown = expected.lines[StateKind.RETURN]
        assert "    return out" in shown and shown <= body | {"def running_total(xs):"}
        assert "    return running_total([3, 1, 2])" not in shown  # the wrapper's line
        for kind in (StateKind.LINE, StateKind.CALL, StateKind.EXCEPTION):
            assert expected.lines[kind] == frozenset()
        assert not expected.allows(State(kind=StateKind.LINE, src="    out = []", locals={}))
        assert expected.allows(State(kind=StateKind.RETURN, src="    return out", value="[]"))
    assert flow.return_lines([99], called=False) is None  # no code there: not known


def test_a_lines_first_hit_shows_only_what_paths_not_yet_through_it_bind() -> None:
    code = "\n".join(
        [
            "def f(words):",  # 1
            "    total = 0",  # 2
            "    for w in words:",  # 3
            "        n = len(w)",  # 4
            "        if n > 3:",  # 5
            "            big = w",  # 6
            "        total += n",  # 7
            "    return total",  # 8
            "class Tag:",  # 9
            "    def __enter__(self):",  # 10
            "        return 't'",  # 11
            "    def __exit__(self, *exc):",  # 12
            "        return False",  # 13
            "with Tag() as name:",  # 14
            "    size = len(name)",  # 15
            "keys = sorted(['b', 'a'], key=lambda k: k)",  # 16
            "table = {k: k.upper() for k in keys}",  # 17
        ]
    )
    flow = LineFlow(code)
    everything = {"words", "total", "w", "n", "big"}
    assert flow.names_at([3]) == flow.names_at([4]) == everything  # the loop comes round
    assert flow.names_first_at([3]) == {"words", "total"}  # first hit: before the loop
    assert flow.names_first_at([4]) == {"words", "total", "w"}
    assert flow.names_first_at([6]) == {"words", "total", "w", "n"}
    assert flow.names_first_at([7]) == everything
    # a ``with`` line fires again when its block ends; its first hit is before the block
    assert flow.names_at([14]) == {"f", "Tag", "name", "size"}
    assert flow.names_first_at([14]) == {"f", "Tag"}
    # the module fires a line before the lambda or comprehension it makes there can run
    assert "k" in flow.names_at([16]) and flow.names_first_at([16]) == {"f", "Tag", "name", "size"}
    assert ".0" in flow.names_at([17]) and "k" not in flow.names_first_at([17])
    assert LineFlow("x = 1\nexec('y = 2')\n").names_first_at([2]) is None  # dynamic: any


def test_a_breakpoint_jump_narrows_to_the_first_hit_only_when_the_history_shows_it() -> None:
    code = "\n".join(
        [
            "def f(words):",  # 1
            "    total = 0",  # 2
            "    for w in words:",  # 3
            "        total += len(w)",  # 4
            "    return total",  # 5
            "for word in ['ab', 'c']:",  # 6
            "    print(word)",  # 7
            "f(['ab'])",  # 8
        ]
    )
    flow, source = LineFlow(code), SourceMap(code)
    start = State(kind=StateKind.CALL, src=source.lines[0], locals={})
    jump = Action(kind=ActionKind.BREAKPOINT, target=source.lines[2])  # the loop in f
    assert expect(flow, source, (start,), (), jump).names == {"words", "total"}
    # once the history has stood on the line, a later hit may come after the loop's body
    on_it = State(kind=StateKind.LINE, src=source.lines[2], locals={"words": "['ab']"})
    assert "w" in (expect(flow, source, (start, on_it), (jump,), jump).names or ())
    # a jump to another line, or a step over (its callees' events), may have skipped a hit
    other = Action(kind=ActionKind.BREAKPOINT, target=source.lines[7])
    at_call = State(kind=StateKind.LINE, src=source.lines[7], locals={})
    assert "w" in (expect(flow, source, (start, at_call), (other,), jump).names or ())
    step_over = Action(kind=ActionKind.STEP_OVER)
    assert "w" in (expect(flow, source, (start, at_call), (step_over,), jump).names or ())
    # ... but no event of the module's own frame: its loop's first hit is still to come
    loop = Action(kind=ActionKind.BREAKPOINT, target=source.lines[5])
    first = State(kind=StateKind.LINE, src=source.lines[0], locals={})
    expected = expect(flow, source, (start, first), (step_over,), loop)
    assert expected.names == {"f"} and not expected.allows(
        State(kind=StateKind.LINE, src=source.lines[5], locals={"f": "<function f>", "word": "'c'"})
    )
    # a history that does not start at the run's first event (a call) says nothing
    middle = State(kind=StateKind.LINE, src=source.lines[1], locals={"words": "['ab']"})
    assert "w" in (expect(flow, source, (middle,), (), jump).names or ())


def test_a_functions_first_hit_on_a_line_it_makes_a_comprehension_on_is_its_own_frame() -> None:
    """The function fires the line before the comprehension it makes there runs, so the first
    hit is the function's frame: its arguments are surely shown, with the values every call
    passes where it keeps them, and the kinds its code gives them. A later hit may be the
    comprehension's frame, which shows none of that."""
    code = "\n".join(
        [
            "def scaled(xs, k):",  # 1
            "    return [x * k for x in xs]",  # 2
            "def pairs(a, b):",  # 3
            "    out = [(x, y) for x in a for y in b]",  # 4
            "    return out",  # 5
            "print(scaled([1, 2], 3), pairs([1], 'ab'), pairs([2], 'c'))",  # 6
        ]
    )
    flow, source = LineFlow(code), SourceMap(code)
    assert flow.first_hit_function([2]) == 1 and flow.first_hit_function([4]) == 3
    assert flow.first_hit_function([6]) is None  # the module's line
    assert flow.call_sites.function_at([2]) is None  # any hit: the comprehension's frame too
    start = State(kind=StateKind.CALL, src=source.lines[0], locals={})
    first = expect(
        flow, source, (start,), (), Action(kind=ActionKind.BREAKPOINT, target=source.lines[1])
    )
    assert first.required == {"xs", "k"} and first.fixed == {"xs": "[1, 2]", "k": "3"}
    assert not first.allows(
        State(kind=StateKind.LINE, src=source.lines[1], locals={"xs": "[1, 2]"})
    )
    assert not first.allows(
        State(kind=StateKind.LINE, src=source.lines[1], locals={"xs": "[2]", "k": "3"})
    )
    assert first.allows(
        State(kind=StateKind.LINE, src=source.lines[1], locals={"xs": "[1, 2]", "k": "3"})
    )
    # calls pass other values: no value fixed, but the kinds the code gives them
    jump = Action(kind=ActionKind.BREAKPOINT, target=source.lines[3])
    other = expect(flow, source, (start,), (), jump)
    assert other.required == {"a", "b"} and other.fixed == {}
    assert not other.allows(
        State(
            kind=StateKind.LINE, src=source.lines[3], locals={"a": "[1]", "b": "'ab'", "out": "[]"}
        )
    )
    # once the history stood on the line, a hit may be the comprehension's, which shows ``k``
    # (its free variable) but not ``xs``
    on_it = State(kind=StateKind.LINE, src=source.lines[1], locals={"xs": "[1, 2]", "k": "3"})
    jump_again = Action(kind=ActionKind.BREAKPOINT, target=source.lines[1])
    later = expect(flow, source, (start, on_it), (jump_again,), jump_again)
    assert later.required == {"k"} and later.fixed == {}


def test_a_def_on_the_modules_first_line_is_not_the_runs_entry() -> None:
    """The module's call event shows the module's first line, here ``def f(x):``, and no
    variables; a run that starts in ``f`` itself (called from outside) shows its argument.
    Only then are ``f``'s parameters not the code's to fix."""
    code = "def f(x):\n    return x + 1\n\n\ny = f(2)\n"
    flow, source = LineFlow(code), SourceMap(code)
    into = Action(kind=ActionKind.STEP_INTO)
    module = State(kind=StateKind.CALL, src=source.lines[0], locals={})
    at_call = State(kind=StateKind.LINE, src="y = f(2)", locals={"f": "<function f>"})
    jump = Action(kind=ActionKind.BREAKPOINT, target="y = f(2)")
    assert entry_text((module,)) == MODULE_ENTRY
    called = expect(flow, source, (module, at_call), (jump,), into)
    assert called.call_fixed[source.lines[0]] == {"x": "2"}
    assert not called.allows(State(kind=StateKind.CALL, src=source.lines[0], locals={"x": "3"}))
    outside = State(kind=StateKind.CALL, src=source.lines[0], locals={"x": "5"})
    body = State(kind=StateKind.LINE, src="    return x + 1", locals={"x": "5"})
    assert entry_text((outside,)) == source.lines[0]
    step = expect(flow, source, (outside, body), (into,), into)
    assert source.lines[0] not in step.call_fixed


def test_the_first_hit_of_each_line_in_real_runs_shows_what_the_flow_allows() -> None:
    """Trace generated, package and everyday programs: the first line event of each line in a
    run shows only variables :meth:`LineFlow.names_first_at` allows, often fewer than
    :meth:`LineFlow.names_at`."""
    programs = generate_programs(13, 40) + package_programs(13, 15)[0]
    programs += everyday_programs(13, 30)[0]
    checked = narrower = 0
    seen: set[tuple[int, int]] = set()  # (program, line) of every event so far
    for candidate, flow, _, event, line in _traced(programs):
        first = (id(candidate), line) not in seen
        seen.add((id(candidate), line))
        if event.kind != "line" or not first:
            continue
        names = flow.names_first_at([line])
        if names is None:  # not known (an ``Enum`` body): any
            assert flow.names_at([line]) is None
            continue
        assert set(event.locals) - {"…"} <= names, (candidate.origin, line, event)
        checked += 1
        narrower += names != flow.names_at([line])
    assert checked > 1000 and narrower > checked / 10  # 1469 and 294 when written


def test_a_frame_shows_the_functions_its_own_defs_bind_by_their_qualified_names() -> None:
    code = "\n".join(
        [
            "def make_counter(start):",  # 1
            "    count = start",  # 2
            "    def increment():",  # 3
            "        nonlocal count",  # 4
            "        count += 1",  # 5
            "        return count",  # 6
            "    square = lambda v: v * v",  # 7
            "    def logged(f):",  # 8
            "        return f",  # 9
            "    @logged",  # 10
            "    def wrapped():",  # 11
            "        return 1",  # 12
            "    helper = None",  # 13
            "    def helper():",  # 14
            "        return 2",  # 15
            "    return increment",  # 16
            "class Box:",  # 17
            "    def area(self):",  # 18
            "        def side():",  # 19
            "            return 2",  # 20
            "        return side() * side()",  # 21
        ]
    )
    flow = LineFlow(code)
    assert flow.defined_at([2, 16]) == {
        "increment": "<function make_counter.<locals>.increment>",
        "square": "<function make_counter.<locals>.<lambda>>",
        "logged": "<function make_counter.<locals>.logged>",
    }  # not a decorator's result, not a name bound otherwise too
    assert flow.defined_at([21]) == {"side": "<function Box.area.<locals>.side>"}
    assert flow.defined_at([7]) == {}  # the lambda's own code runs there too
    assert flow.defined_at([2, 21]) == {}  # two frames
    # code that may rename a function (``functools.wraps``): none
    assert LineFlow(code + "\nfrom functools import wraps").defined_at([2]) == {}
    # a parameter the call binds, which a ``def`` may bind again later: not fixed
    default = "def order(xs, key=None):\n    if key is None:\n        def key(x):\n"
    default += "            return x\n    return sorted(xs, key=key)"
    assert LineFlow(default).defined_at([2]) == {}
    # the tracer writes each as the rule says, in every frame that shows one
    program = Program(path="counter.py", source=code, entry="make_counter(1)")
    checked = 0
    for event in record(program, TRACE_LIMITS).events:
        line = program.context_line(event.file, event.line)
        for name, text in flow.defined_at([line]).items():
            if event.kind == "line" and name in event.locals:
                assert event.locals[name] == text, (event, name)
                checked += 1
    assert checked >= 10


def test_a_frame_returns_only_from_lines_that_reach_a_return_first() -> None:
    code = "\n".join(
        [
            "def guarded(x):",  # 1
            "    try:",  # 2
            "        return x * 2",  # 3
            "    finally:",  # 4
            "        x = 0",  # 5
            "def first(words):",  # 6
            "    for w in words:",  # 7
            "        if w:",  # 8
            "            return w",  # 9
            "def lookup(d, k):",  # 10
            "    try:",  # 11
            "        return d[k]",  # 12
            "    except KeyError:",  # 13
            "        pass",  # 14
            "def count(n):",  # 15
            "    yield n",  # 16
        ]
    )
    flow = LineFlow(code)
    assert flow.returning([3]) is False  # the ``finally`` line fires first
    assert flow.returning([5]) is True
    assert flow.returning([7]) is True  # the loop ends: the function returns None
    assert flow.returning([8]) is False and flow.returning([9]) is True
    assert flow.returning([13]) is True  # another exception than KeyError leaves the frame
    assert flow.returning([16]) is True  # a yield is a return event too
    assert flow.returning([99]) is None
    # a step from line 3 cannot show guarded's return
    source = SourceMap(code)
    states = (
        State(kind=StateKind.CALL, src="def guarded(x):", locals={"x": "3"}),
        State(kind=StateKind.LINE, src="        return x * 2", locals={"x": "3"}),
    )
    expected = expect(flow, source, states, (STEP_OVER,), STEP_OVER)
    assert expected.lines[StateKind.RETURN] == frozenset()
    assert expected.lines[StateKind.LINE] == {"        x = 0"}


def test_every_return_of_real_runs_comes_from_a_line_that_can_return() -> None:
    programs = generate_programs(17, 40) + package_programs(17, 15)[0]
    programs += everyday_programs(17, 30)[0]
    returns = ruled_out = 0
    for candidate, flow, before, event, _ in _traced(programs):
        if event.kind == "line" and before is not None and before[0] == "line":
            ruled_out += flow.returning([before[1]]) is False
        if event.kind != "return" or before is None or before[0] != "line":
            continue
        assert flow.returning([before[1]]) is not False, (candidate.origin, before, event)
        returns += 1
    # most lines go on to another line (731 returns and 2844 such steps when written)
    assert returns > 300 and ruled_out > 2 * returns


def test_an_except_line_shows_no_variable_only_the_raising_line_would_have_bound() -> None:
    """The store of ``n = parse(text)`` never happens when ``parse`` raises, so the handler
    cannot show ``n`` (unless a path through the ``try`` stored it before)."""
    code = "\n".join(
        [
            "def parse(text):",  # 1
            "    return int(text)",  # 2
            "def main(text):",  # 3
            "    try:",  # 4
            "        n = parse(text)",  # 5
            "        m = parse(text + '0')",  # 6
            "    except ValueError as err:",  # 7
            "        n = -1",  # 8
            "    return n",  # 9
        ]
    )
    flow = LineFlow(code)
    assert flow.names_at([7]) == {"text", "n"}  # line 6 may raise after line 5 stored n
    assert flow.names_at([8]) == {"text", "n", "err"}
    one = code.replace("        m = parse(text + '0')\n", "")
    assert LineFlow(one).names_at([6]) == {"text"}  # the except line, now line 6


def test_after_a_line_or_a_return_the_handler_comes_only_after_an_exception() -> None:
    code = "\n".join(
        [
            "def parse(text):",  # 1
            "    return int(text)",  # 2
            "try:",  # 3
            "    n = parse('x1')",  # 4
            "except ValueError as err:",  # 5
            "    n = -1",  # 6
            "print(n)",  # 7
        ]
    )
    flow, source = LineFlow(code), SourceMap(code)
    assert flow.following(4) == {5, 7} and flow.following(4, normally=True) == {7}
    # parse returned (no exception): the module's next line is past the handler
    states = (
        State(kind=StateKind.CALL, src="try:", locals={}),
        State(kind=StateKind.LINE, src="    n = parse('x1')", locals={"parse": "<function parse>"}),
        State(kind=StateKind.CALL, src="def parse(text):", locals={"text": "'x1'"}),
        State(kind=StateKind.RETURN, src="    return int(text)", value="1"),
    )
    into = Action(kind=ActionKind.STEP_INTO)
    expected = expect(flow, source, states, (into,) * 3, into)
    assert expected.lines[StateKind.LINE] == {"print(n)"}
    assert expected.fixed["n"] == "1" and "n" in expected.required  # what parse returned
