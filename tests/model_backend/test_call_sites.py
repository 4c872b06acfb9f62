"""Call sites read from the code: which lines can call a plain function, and after a return
whose call a breakpoint jump skipped, where the caller can go on (checked against a real run)."""

from __future__ import annotations

from neural_debugger.model_backend.call_sites import CallSites
from neural_debugger.model_backend.flow import LineFlow, expect
from neural_debugger.protocol import Action, ActionKind, State, StateKind
from neural_debugger.protocol.source_map import SourceMap
from neural_debugger.tracer.program import Program
from neural_debugger.tracer.record import record
from neural_debugger.training.data import TRACE_LIMITS

CODE = "\n".join(
    [
        "def half(n):",  # 1
        "    return n // 2",  # 2
        "def twice(f, x):",  # 3
        "    return f(f(x))",  # 4
        "def clamp(v):",  # 5
        "    if v > 9:",  # 6
        "        return 9",  # 7
        "    return v",  # 8
        "def main():",  # 9
        "    a = clamp(4)",  # 10
        "    b = twice(half, 8)",  # 11
        "    ys = [clamp(v) for v in (1, 20)]",  # 12
        "    c = clamp(",  # 13
        "        a + b)",  # 14
        "    return a + b + c + sum(ys)",  # 15
        "class Box:",  # 16
        "    def get(self):",  # 17
        "        return 1",  # 18
        "def gen():",  # 19
        "    yield 1",  # 20
    ]
)


def test_only_a_function_named_just_as_a_callee_has_known_call_sites() -> None:
    sites = CallSites(CODE)
    assert sites.returning_to([8]) == {10, 12, 13, 14}  # clamp: its calls' lines
    assert sites.returning_to([7, 8]) == {10, 12, 13, 14}
    assert sites.returning_to([4]) == {11}  # twice
    assert sites.returning_to([2]) is None  # half is passed as a value: called from anywhere
    assert sites.returning_to([18]) is None  # a method
    assert sites.returning_to([20]) is None  # a generator
    assert sites.returning_to([12]) is None  # the comprehension's frame shares the line
    assert sites.returning_to([15]) == frozenset()  # main: called from outside the code
    assert sites.returning_to([]) is None


def test_code_that_can_reach_names_dynamically_or_does_not_parse_lists_nothing() -> None:
    assert CallSites(CODE + "\nprint(globals()['clamp'](3))").returning_to([8]) is None
    assert CallSites(CODE + "\nclamp = abs").returning_to([8]) is None  # rebound
    assert CallSites(CODE + "\nx = box.clamp").returning_to([8]) is None  # an attribute
    assert CallSites("def f(:\n    return 1\n").returning_to([2]) is None
    shadowed = "def f(x):\n    return x\ndef g(f):\n    return f(1)\nprint(g(f))\n"
    assert CallSites(shadowed).returning_to([2]) is None


def test_after_a_jump_a_return_goes_on_where_the_code_calls_the_function() -> None:
    """A breakpoint jump into clamp skipped its call; its return leads only to the lines
    after clamp's call sites, and the real run's next line is one of them."""
    flow, source = LineFlow(CODE), SourceMap(CODE)
    states = (
        State(kind=StateKind.CALL, src="def main():", locals={}),
        State(kind=StateKind.LINE, src="    return v", locals={"v": "4"}),
        State(kind=StateKind.RETURN, src="    return v", value="4"),
    )
    jump = Action(kind=ActionKind.BREAKPOINT, target="    return v")
    into = Action(kind=ActionKind.STEP_INTO)
    after = expect(flow, source, states, (jump, into), into)
    allowed = after.lines[StateKind.LINE]
    assert "    b = twice(half, 8)" in allowed  # after `a = clamp(4)`
    assert "    return a + b + c + sum(ys)" in allowed  # after `c = clamp(a + b)`
    assert "    if v > 9:" not in allowed and "        return 1" not in allowed
    program = Program(path="sites.py", source=CODE, entry="main()")
    events = [e for e in record(program, TRACE_LIMITS).events if e.function in ("main", "clamp")]
    seen = [(e.function, e.kind, e.line) for e in events]
    first_return = seen.index(("clamp", "return", 8))
    function, kind, line = seen[first_return + 1]
    assert (function, kind) == ("main", "line") and source.lines[line - 1] in allowed
