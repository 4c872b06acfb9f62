"""A call's return value, handed on by ``y = f(x)`` or ``return f(x)``, fixes the caller's next
state: read from the code, applied by the grammar, checked against real runs."""

from __future__ import annotations

import ast
import itertools
from pathlib import Path

from neural_debugger.model_backend.backend import DecodeOptions, History
from neural_debugger.model_backend.flow import LineFlow, expect
from neural_debugger.model_backend.handed_back import (
    Appended,
    Copied,
    Receiver,
    appended_text,
    appends,
    copies,
    made_generators,
    receivers,
    returns,
)
from neural_debugger.model_backend.local import LocalEngine, LocalSession
from neural_debugger.protocol import Action, ActionKind, State, StateKind
from neural_debugger.protocol.source_map import SourceMap
from neural_debugger.tracer.program import Program
from neural_debugger.tracer.record import record
from neural_debugger.training.data import TRACE_LIMITS

INTO = Action(kind=ActionKind.STEP_INTO)
OVER = Action(kind=ActionKind.STEP_OVER)

CODE = "\n".join(
    [
        "def square(n):",  # 1
        "    return n * n",  # 2
        "def main(box):",  # 3
        "    y = square(3)",  # 4
        "    z: int = box.square(2)",  # 5
        "    w = square(square(2))",  # 6
        "    a, b = square(1), 2",  # 7
        "    v = square(1) + 1",  # 8
        "    u = square(1); u = 0",  # 9
        "    t = square(",  # 10
        "        4)",  # 11
        "    __x__ = square(1)",  # 12
        "    twice = lambda k: k * 2",  # 13
        "    s = twice(3)",  # 14
        "    return square(y)",  # 15
    ]
)
# what main's frame shows of the function its own ``lambda`` line binds, wherever it is shown
OWN = {"twice": "<function main.<locals>.<lambda>>"}


def test_the_lines_that_hand_a_value_on_unchanged() -> None:
    found = receivers(ast.parse(CODE))
    assert found == {
        4: Receiver("square", "y"),
        5: Receiver("square", "z"),  # a method, by its attribute's name
        14: Receiver("twice", "s"),
        15: Receiver("square", None),  # returned on
    }
    # left out: a value that is no call (2), the same name called twice (6), a tuple target
    # (7), a value computed from the call (8), another statement on the line (9), a statement
    # over lines (10), a dunder (12)


def _history(code: str, lines: list[str], value: str) -> tuple[tuple[State, ...], tuple]:
    """main called, standing on each of ``lines`` in turn, then a call to ``square`` from the
    last of them that returns ``value``."""
    states = [State(kind=StateKind.CALL, src="def main(box):", locals={"box": "B()"})]
    states += [State(kind=StateKind.LINE, src=text, locals={}, diff=True) for text in lines]
    states += [
        State(kind=StateKind.CALL, src="def square(n):", locals={"n": "3"}),
        State(kind=StateKind.LINE, src="    return n * n", locals={"n": "3"}),
        State(kind=StateKind.RETURN, src="    return n * n", value=value),
    ]
    return tuple(states), (INTO,) * (len(states) - 1)


def test_after_the_call_returns_the_caller_shows_its_value() -> None:
    flow, source = LineFlow(CODE), SourceMap(CODE)
    states, actions = _history(CODE, ["    y = square(3)"], "9")
    for action in (INTO, OVER):
        expected = expect(flow, source, states, actions, action)
        assert expected.fixed == {"y": "9", **OWN} and "y" in expected.required
        line = "    z: int = box.square(2)"
        right = State(kind=StateKind.LINE, src=line, locals={"box": "B()", "y": "9"})
        assert expected.allows(right)
        assert not expected.allows(right.model_copy(update={"locals": {"box": "B()", "y": "3"}}))
        assert not expected.allows(right.model_copy(update={"locals": {"box": "B()"}}))
    # a step out of the caller is not a step: the caller's next line may be far on
    out = expect(flow, source, states, actions, Action(kind=ActionKind.STEP_RETURN))
    assert out.fixed == {}
    # ``return square(y)``: the caller returns the value
    states, actions = _history(CODE, ["    return square(y)"], "81")
    returned = expect(flow, source, states, actions, OVER)
    assert returned.returned == "81" and returned.fixed == {}
    assert not returned.allows(State(kind=StateKind.RETURN, src="    return square(y)", value="9"))


def test_only_the_call_the_line_hands_on() -> None:
    flow, source = LineFlow(CODE), SourceMap(CODE)
    for line in ["    w = square(square(2))", "    v = square(1) + 1", "    u = square(1); u = 0"]:
        states, actions = _history(CODE, [line], "1")
        expected = expect(flow, source, states, actions, OVER)
        assert expected.fixed == OWN and expected.returned is None, line
    # a lambda's frame is not the function the name calls, though the code names it so
    lambda_states = (
        State(kind=StateKind.CALL, src="def main(box):", locals={"box": "B()"}),
        State(kind=StateKind.LINE, src="    s = twice(3)", locals={}, diff=True),
        State(kind=StateKind.CALL, src="    twice = lambda k: k * 2", locals={"k": "3"}),
        State(kind=StateKind.RETURN, src="    twice = lambda k: k * 2", value="6"),
    )
    expected = expect(flow, source, lambda_states, (INTO,) * 3, OVER)
    assert expected.fixed == OWN


def test_after_a_jump_the_code_says_which_lines_called() -> None:
    """A breakpoint jump skips the call; a plain function's callers are listed by the code,
    and when all of them hand the value on to one name, the rule holds there too."""
    one = "def square(n):\n    return n * n\ndef main(box):\n    y = square(3)\n    return y"
    states, actions = _history(one, ["    y = square(3)"], "9")
    jumped = (*actions[:-1], Action(kind=ActionKind.BREAKPOINT, target="    return n * n"))
    flow, source = LineFlow(one), SourceMap(one)
    assert expect(flow, source, states, jumped, OVER).fixed == {"y": "9"}
    two = one.replace("    return y", "    z = square(y)\n    return z")
    flow, source = LineFlow(two), SourceMap(two)
    assert expect(flow, source, states, jumped, OVER).fixed == {}  # y or z: not known
    # a function the code also reaches otherwise (here as an attribute) lists no callers
    flow, source = LineFlow(CODE), SourceMap(CODE)
    assert expect(flow, source, states, jumped, OVER).fixed == {}


def test_real_runs_show_what_the_call_returned() -> None:
    """The tracer's next state after each return from a handing-on line is what the rule
    says: the variable's value, or the caller's return value, is the callee's."""
    code = CODE.replace("    z: int = box.square(2)", "    z: int = box.square(2) if box else 0")
    program = Program(path="handed.py", source=code + "\nmain(None)\n")
    events = record(program, TRACE_LIMITS).events
    found = receivers(ast.parse(program.context))
    checked = 0
    for event, after in itertools.pairwise(events):
        if event.kind != "return" or event.function != "square":
            continue
        before = events[: events.index(event)]
        receiver = found.get([e for e in before if e.depth == event.depth - 1][-1].line)
        if receiver is None or after.depth != event.depth - 1:
            continue
        if receiver.target is None:
            assert after.kind == "return" and after.value == event.value
        else:
            assert after.kind == "line" and after.locals[receiver.target] == event.value
        checked += 1
    assert checked >= 2


def test_the_engine_writes_the_value_returned_whatever_the_model_thinks() -> None:
    """A counterfactual return value (edited, as a user may) is what the caller returns."""
    code = Program(path="t.py", source=CODE).context
    engine = LocalEngine()
    session = LocalSession(engine.loaded, code)
    states, actions = _history(code, ["    return square(y)"], "'edited'")
    history = History(code, states, actions)
    predicted = session.predict_now(history, OVER, DecodeOptions())
    assert predicted.state.kind is StateKind.RETURN
    assert predicted.state.value == "'edited'"
    states, actions = _history(code, ["    y = square(3)"], "12345")
    predicted = session.predict_now(History(code, states, actions), OVER, DecodeOptions())
    assert predicted.state.kind is StateKind.LINE and predicted.state.locals is not None
    assert predicted.state.locals["y"] == "12345"


def test_the_rule_is_read_from_the_examples() -> None:
    path = Path(__file__).resolve().parents[2] / "examples" / "running_total.py"
    program = Program(path="running_total.py", source=path.read_text(), entry="running_total([1])")
    lines = program.context.split("\n")
    wrapper = next(n for n, text in enumerate(lines, 1) if "return running_total" in text)
    assert receivers(ast.parse(program.context))[wrapper] == Receiver("running_total", None)


COPYING = "\n".join(
    [
        "def fib(n):",  # 1
        "    a, b = 0, 1",  # 2
        "    for _ in range(n):",  # 3
        "        a, b = b, a + b",  # 4
        "        previous = a",  # 5
        "        a, b = b, a",  # 6
        "    total = previous = {1, 2}",  # 7
        "    return a",  # 8
    ]
)


def test_the_lines_that_only_copy() -> None:
    found = copies(ast.parse(COPYING))
    assert found == {
        2: {"a": Copied(text="0"), "b": Copied(text="1")},
        5: {"previous": Copied(variable="a")},
        6: {"a": Copied(variable="b"), "b": Copied(variable="a")},  # a swap: the old values
    }  # not `a + b` (an operator may run code), not a set (its order is the hash's)


def test_a_step_from_a_copy_shows_the_source_values_and_real_runs_agree() -> None:
    flow, source = LineFlow(COPYING), SourceMap(COPYING)
    states = (
        State(kind=StateKind.CALL, src="def fib(n):", locals={"n": "3"}),
        State(kind=StateKind.LINE, src="        a, b = b, a", locals={"a": "1", "b": "2"}),
    )
    expected = expect(flow, source, states, (INTO,), OVER)
    assert expected.fixed == {"a": "2", "b": "1"} and expected.required == {"a", "b"}
    header = "    for _ in range(n):"
    swapped = State(kind=StateKind.LINE, src=header, locals={"a": "2", "b": "1"}, diff=True)
    assert expected.allows(swapped)
    assert not expected.allows(swapped.model_copy(update={"locals": {"a": "3", "b": "1"}}))
    assert not expected.allows(swapped.model_copy(update={"locals": {"a": "2"}}))  # b changed
    # a target whose value stays the same is left out of the diff, so it is not required
    same = (states[0], states[1].model_copy(update={"locals": {"a": "1", "b": "1"}}))
    assert expect(flow, source, same, (INTO,), OVER).required == frozenset()
    program = Program(path="fib.py", source=COPYING, entry="fib(4)")
    found = copies(ast.parse(program.context))
    events = record(program, TRACE_LIMITS).events
    checked = 0
    for before, after in itertools.pairwise(events):
        copied = found.get(program.context_line(before.file, before.line))
        if before.kind != "line" or copied is None or after.kind != "line":
            continue
        for target, origin in copied.items():
            want = origin.text if origin.variable is None else before.locals[origin.variable]
            assert after.locals[target] == want, (before, after)
            checked += 1
    assert checked >= 10


APPENDING = "\n".join(
    [
        "def collect(words):",  # 1
        "    out = []",  # 2
        "    seen = []",  # 3
        "    for word in words:",  # 4
        "        out.append(word)",  # 5
        "        out.append(0)",  # 6
        "        seen.append(len(word))",  # 7
        "        out.append(out)",  # 8
        "    return out",  # 9
    ]
)


def test_the_lines_that_only_append_and_the_text_they_leave() -> None:
    found = appends(ast.parse(APPENDING))
    assert found == {
        5: Appended("out", Copied(variable="word")),
        6: Appended("out", Copied(text="0")),
    }  # not a call's value (``len(word)``), not the list itself
    assert appended_text("[]", "'a'") == "['a']" and appended_text("[1]", "2") == "[1, 2]"
    assert appended_text("{}", "1") is None and appended_text("[1, 2…<cut>", "3") is None
    assert appended_text("[" + "1, " * 52 + "1]", "2") is None  # the tracer would cut it
    # code whose ``append`` may be its own
    for extra in (
        "class Stack(list):\n    pass",
        "class Log:\n    def append(self, x):\n        pass",
    ):
        assert appends(ast.parse(APPENDING + "\n" + extra)) == {}


def test_a_step_from_an_append_shows_the_list_grown_and_real_runs_agree() -> None:
    flow, source = LineFlow(APPENDING), SourceMap(APPENDING)
    states = (
        State(kind=StateKind.CALL, src="def collect(words):", locals={"words": "['ab']"}),
        State(
            kind=StateKind.LINE,
            src="        out.append(word)",
            locals={"words": "['ab']", "out": "[]", "seen": "[]", "word": "'ab'"},
        ),
    )
    expected = expect(flow, source, states, (INTO,), OVER)
    assert expected.fixed == {"out": "['ab']"} and expected.required == {"out"}
    grown = State(kind=StateKind.LINE, src="        out.append(0)", locals={"out": "['ab']"})
    assert expected.allows(grown.model_copy(update={"diff": True}))
    wrong = grown.model_copy(update={"diff": True, "locals": {"out": "['ab', 'ab']"}})
    assert not expected.allows(wrong)
    program = Program(path="collect.py", source=APPENDING, entry="collect(['ab', 'cd', 'é'])")
    found = appends(ast.parse(program.context))
    events = record(program, TRACE_LIMITS).events
    checked = 0
    for before, after in itertools.pairwise(events):
        appended = found.get(program.context_line(before.file, before.line))
        if before.kind != "line" or appended is None or after.kind != "line":
            continue
        origin = appended.source
        value = origin.text if origin.variable is None else before.locals[origin.variable]
        assert value is not None
        want = appended_text(before.locals[appended.target], value)
        assert after.locals[appended.target] == want, (before, after)
        checked += 1
    assert checked >= 6


RETURNING = "\n".join(
    [
        "def find(words, wanted):",  # 1
        "    count = 0",  # 2
        "    for word in words:",  # 3
        "        if word == wanted:",  # 4
        "            return count",  # 5
        "        count += 1",  # 6
        "    return -1",  # 7
        "def guarded(path):",  # 8
        "    try:",  # 9
        "        return path",  # 10
        "    finally:",  # 11
        "        path = None",  # 12
        "def numbers(n):",  # 13
        "    yield n",  # 14
        "    return n",  # 15
        "def nothing(x):",  # 16
        "    if x: return x",  # 17
        "    return",  # 18
    ]
)


def test_the_lines_that_only_return_a_variable_or_a_literal() -> None:
    assert returns(ast.parse(RETURNING)) == {
        5: Copied(variable="count"),
        7: Copied(text="-1"),
        18: Copied(text="None"),
    }  # not inside a ``finally``'s try, not a generator's, not sharing its line


def test_a_step_from_a_return_shows_that_return_and_real_runs_agree() -> None:
    flow, source = LineFlow(RETURNING), SourceMap(RETURNING)
    states = (
        State(kind=StateKind.CALL, src="def find(words, wanted):", locals={"words": "['a']"}),
        State(
            kind=StateKind.LINE,
            src="            return count",
            locals={"words": "['a']", "wanted": "'a'", "count": "0", "word": "'a'"},
        ),
    )
    for action in (INTO, OVER):
        expected = expect(flow, source, states, (INTO,), action)
        assert expected.returned == "0"
        assert expected.lines[StateKind.RETURN] == {"            return count"}
        assert not expected.lines[StateKind.LINE] and not expected.lines[StateKind.CALL]
        returned = State(kind=StateKind.RETURN, src="            return count", value="0")
        assert expected.allows(returned)
        assert not expected.allows(returned.model_copy(update={"value": "1"}))
    program = Program(path="find.py", source=RETURNING, entry="find(['b', 'a'], 'z')")
    found = returns(ast.parse(program.context))
    checked = 0
    for entry in ("find(['b', 'a'], 'z')", "find(['b', 'a'], 'a')", "nothing(0)"):
        program = Program(path="find.py", source=RETURNING, entry=entry)
        events = record(program, TRACE_LIMITS).events
        for before, after in itertools.pairwise(events):
            copied = found.get(program.context_line(before.file, before.line))
            if before.kind != "line" or copied is None:
                continue
            want = copied.text if copied.variable is None else before.locals[copied.variable]
            assert after.kind == "return" and after.line == before.line, (before, after)
            assert after.value == want, (before, after)
            checked += 1
    assert checked == 3


MAKING = "\n".join(
    [
        "def count_up(n):",  # 1
        "    i = 0",  # 2
        "    while i < n:",  # 3
        "        yield i",  # 4
        "        i += 1",  # 5
        "def main(k):",  # 6
        "    g = count_up(3)",  # 7
        "    h = count_up(n=k)",  # 8
        "    j = count_up(len(k))",  # 9
        "    return sum(g) + sum(h) + sum(j)",  # 10
        "top = count_up(2)",  # 11
        "print(main([1]), list(top))",  # 12
    ]
)


def test_a_line_that_makes_a_generator_fixes_its_text_and_real_runs_agree() -> None:
    made = made_generators(ast.parse(MAKING))
    text = Copied(text="<generator object count_up>")
    assert made == {7: {"g": text}, 8: {"h": text}, 11: {"top": text}}  # not len(k): a call
    # a generator function the code binds again elsewhere may be another object
    assert made_generators(ast.parse(MAKING + "\ncount_up = print")) == {}
    flow, source = LineFlow(MAKING), SourceMap(MAKING)
    states = (
        State(kind=StateKind.CALL, src="def main(k):", locals={"k": "[1]"}),
        State(kind=StateKind.LINE, src="    g = count_up(3)", locals={"k": "[1]"}),
    )
    expected = expect(flow, source, states, (INTO,), INTO)
    assert expected.fixed["g"] == "<generator object count_up>" and "g" in expected.required
    program = Program(path="making.py", source=MAKING)
    found = made_generators(ast.parse(program.context))
    checked = 0
    for before, after in itertools.pairwise(record(program, TRACE_LIMITS).events):
        targets = found.get(program.context_line(before.file, before.line))
        if before.kind != "line" or targets is None:
            continue
        assert after.kind == "line", (before, after)  # the call runs none of its code
        for target, origin in targets.items():
            assert after.locals[target] == origin.text, (before, after)
            checked += 1
    assert checked == 3
