"""Module constants: what the code alone fixes about a script's globals, checked against real
runs, and the grammar writing them where a model would have to guess."""

from __future__ import annotations

from pathlib import Path

import pytest

from neural_debugger.model_backend.flow import Expected, LineFlow, expect
from neural_debugger.model_backend.grammar import JsonCursor
from neural_debugger.model_backend.local import LocalEngine
from neural_debugger.model_backend.session import DebugSession, resume
from neural_debugger.protocol import Action, ActionKind, State, StateKind
from neural_debugger.protocol.source_map import SourceMap
from neural_debugger.tracer.program import load_program
from neural_debugger.tracer.run import trace

SCRIPT = '''"""A script with constants."""
import math

LIMIT = 3
NAME = 'alpha'
RATE = -0.25
PAIR = (1, "two", None)
counter = 0
label = "x"
label = label + "y"


class Temperature:
    def __init__(self, c):
        self.c = c


class Odd(ValueError):
    pass


class Late(Odd):
    pass


def double(x):
    global counter
    counter += 1
    return 2 * x


def square(x):
    return x * x


def tagged(f):
    return f


@tagged
def decorated():
    return 1


squares = [square(i) for i in range(LIMIT)]
total = 0
for s in squares:
    total += double(s)
t = Temperature(21.5)
if total > 3:
    extra = True
print(NAME, total, math.pi > 3)
'''
CONSTANTS = {
    "LIMIT": "3",
    "NAME": "'alpha'",
    "RATE": "-0.25",
    "PAIR": "(1, 'two', None)",
    "Temperature": "<class 'Temperature'>",
    "Odd": "<class 'Odd'>",
    "Late": "<class 'Late'>",
    "double": "<function double>",
    "square": "<function square>",
    "tagged": "<function tagged>",
}


def test_the_constants_are_what_every_real_module_stop_shows(tmp_path: Path) -> None:
    path = tmp_path / "script.py"
    path.write_text(SCRIPT)
    program = load_program(path)
    flow = LineFlow(program.context)
    constants = flow.module_constants
    # counter (rebound through ``global``), label (bound twice), decorated (a wrapper may
    # replace it) and squares (not a literal) are not constants
    assert constants.values == CONSTANTS
    stops = [e for e in trace(program).events if e.kind == "line" and e.depth == 0]
    module_stops = [e for e in stops if flow.module_only(e.line)]
    assert len(module_stops) >= 15
    for event in module_stops:
        for name, value in constants.values.items():
            assert event.locals.get(name, value) == value, (event.line, name)
        assert constants.bound_at([event.line]) <= set(event.locals), event.line
    last = module_stops[-1]  # the print: every constant is bound by then
    assert constants.bound_at([last.line]) == set(CONSTANTS)
    # lines that other frames share (a class body, a comprehension) are not the module's alone
    assert not flow.module_only(13) and not flow.module_only(44)


@pytest.mark.parametrize(
    "code",
    [
        "LIMIT = 2\nglobals()['LIMIT'] = 5\n",  # reached through globals()
        "LIMIT = 2\nexec('LIMIT = 5')\n",
        "import sys\nLIMIT = 2\nsys._getframe().f_globals['LIMIT'] = 5\n",
        "LIMIT = 2\nfor LIMIT in range(3):\n    pass\n",
        "LIMIT = 2\ndel LIMIT\n",
        "from enum import Enum\nclass Color(Enum):\n    RED = 1\n",  # a metaclass of its own
        "class Meta(type):\n    pass\nclass Thing(metaclass=Meta):\n    pass\n",
        "def f(:\n",  # does not compile
    ],
)
def test_names_something_else_can_bind_are_not_constants(code: str) -> None:
    values = LineFlow(code).module_constants.values
    assert "LIMIT" not in values and "Color" not in values and "Thing" not in values


def _breakpoint_expectation(code: str, line: int) -> Expected:
    source = SourceMap(code)
    start = State(kind=StateKind.LINE, src=source.lines[0], locals={})
    target = Action(kind=ActionKind.BREAKPOINT, target=source.lines[line - 1])
    return expect(LineFlow(code), source, (start,), (), target)


def test_a_module_stop_fixes_the_constants_and_the_names_bound_before_it() -> None:
    expected = _breakpoint_expectation(SCRIPT, 50)  # `print(NAME, ...)`
    assert expected.fixed == CONSTANTS
    # the constants, and every other name each path to the line binds (not `math`, a module
    # the tracer hides, nor `s`, bound only if the loop ran, nor `extra`, bound further on)
    surely = {"counter", "label", "decorated", "squares", "total", "t"}
    assert expected.required == frozenset(CONSTANTS) | surely
    shown = {**CONSTANTS, "squares": "[0, 1, 4]", "total": "12", "t": "Temperature(c=21.5)"}
    shown |= {"counter": "3", "label": "'xy'", "decorated": "<function decorated>"}
    assert expected.allows(State(kind=StateKind.LINE, src=SCRIPT.split("\n")[49], locals=shown))
    wrong = {**shown, "LIMIT": "4"}
    assert not expected.allows(State(kind=StateKind.LINE, src=SCRIPT.split("\n")[49], locals=wrong))
    short = {k: v for k, v in shown.items() if k != "NAME"}
    assert not expected.allows(State(kind=StateKind.LINE, src=SCRIPT.split("\n")[49], locals=short))
    # inside a function no value is fixed: its frame has names of its own, and must show
    # only its argument
    inside = _breakpoint_expectation(SCRIPT, 33)  # `return x * x`
    assert not inside.fixed and inside.required == {"x"}


GAME = """LIMIT = 2
GREETING = 'hello'


def shout(word):
    loud = word.upper()
    return loud + '!'


def main():
    said = shout(GREETING)
    return said


result = main()
count = LIMIT + 1
print(result, count)
"""


async def test_a_session_back_in_the_module_shows_its_constants(tmp_path: Path) -> None:
    """A breakpoint jump into a function leaves the module's globals unseen; stepping out to
    the module, the embedded model writes them again, and the grammar fixes the constants."""
    path = tmp_path / "game.py"
    path.write_text(GAME)
    session = await DebugSession.open(load_program(path), LocalEngine(), breakpoint_steps=0)
    await resume(session, {6})
    over = Action(kind=ActionKind.STEP_OVER)
    for _ in range(6):
        stop = await session.step(over)
        if stop.line == 16 or session.finished:
            break
    assert stop.line == 16 and stop.locals is not None, stop
    for name in ("LIMIT", "GREETING", "shout", "main"):
        assert (
            stop.locals[name]
            == {
                "LIMIT": "2",
                "GREETING": "'hello'",
                "shout": "<function shout>",
                "main": "<function main>",
            }[name]
        )


def test_the_locals_object_writes_fixed_values_and_waits_for_required_names() -> None:
    def whole(text: str) -> bool:
        cursor = JsonCursor("object", fixed={b"LIMIT": b"2", b"NAME": b"'a\\\\n'"},
                            required=frozenset({b"LIMIT"}))  # fmt: skip
        return all(cursor.feed(b) for b in text.encode()) and cursor.done

    assert whole('{"LIMIT": "2"}') and whole('{"x": "1", "LIMIT": "2", "NAME": "\'a\\\\n\'"}')
    assert not whole('{"LIMIT": "3"}') and not whole('{"LIMIT": "22"}')
    assert not whole("{}") and not whole('{"x": "1"}')  # closed before LIMIT was shown
    assert not whole('{"LIMIT": "2", "NAME": "\'b\'"}')
    diff = JsonCursor(
        "object", need_diff=True, fixed={b"LIMIT": b"2"}, required=frozenset({b"LIMIT"})
    )
    # a diff shows what it is required to (what a copy changed) before it closes, too
    assert not all(diff.feed(b) for b in b'{"..": "..", "x": "1"}')
    diff = JsonCursor(
        "object", need_diff=True, fixed={b"LIMIT": b"2"}, required=frozenset({b"LIMIT"})
    )
    assert all(diff.feed(b) for b in b'{"..": "..", "LIMIT": "2"}') and diff.done


LISTS = """WORDS = ["to", "be", "or"]
SETTINGS = {"depth": "8", "width": "12"}
GRID = [[1, 2], [3, 4]]
SEEN = []
BACK = [0]
SHARED = {"n": [1]}


def count(words, limit):
    return sum(1 for w in words if len(w) <= limit)


def read(settings, name):
    raw = settings[name]
    return int(raw)


def remember(word):
    SEEN.append(word)
    SHARED["n"].append(len(word))


def back():
    return BACK


for word in WORDS:
    remember(word)
short = count(WORDS, 2)
depth = read(SETTINGS, "depth")
width = read(SETTINGS, "width")
first = GRID[0][1]
back().append(1)
print(short, depth + width, first)
"""


def test_lists_and_dicts_the_run_only_reads_are_constants_and_pass_as_arguments(
    tmp_path: Path,
) -> None:
    path = tmp_path / "lists.py"
    path.write_text(LISTS)
    program = load_program(path)
    flow = LineFlow(program.context)
    values = flow.module_constants.values
    # SEEN and SHARED are changed by a function, BACK by its caller after ``back`` returns it
    assert {k: v for k, v in values.items() if not v.startswith("<function")} == {
        "WORDS": "['to', 'be', 'or']",
        "SETTINGS": "{'depth': '8', 'width': '12'}",
        "GRID": "[[1, 2], [3, 4]]",
    }
    read_line = LISTS.split("\n").index("def read(settings, name):") + 1
    count_line = LISTS.split("\n").index("def count(words, limit):") + 1
    assert flow.passed.by_every_call(read_line) == {"settings": "{'depth': '8', 'width': '12'}"}
    assert flow.passed.kept(read_line) == {"settings": "{'depth': '8', 'width': '12'}"}
    assert flow.passed.by_every_call(count_line) == {"words": "['to', 'be', 'or']", "limit": "2"}
    # what every real stop shows: the module's constants, and the parameters they pass
    events = trace(program).events
    checked = 0
    for event in events:
        if event.kind not in ("line", "call"):
            continue
        line = program.context_line(event.file, event.line)
        if event.kind == "line" and flow.module_only(line):
            fixed = values
        elif event.function == "read":
            fixed = flow.passed.kept(read_line)
        else:
            continue
        for name, value in fixed.items():
            checked += name in event.locals
            assert event.locals.get(name, value) == value, (event, name)
    assert checked >= 20


def test_the_first_hit_of_a_line_a_lambda_shares_is_the_modules_and_shows_its_constants() -> None:
    code = 'words = ["pear", "fig"]\nordered = sorted(words, key=lambda w: len(w))\nprint(ordered)'
    source = SourceMap(code)
    start = State(kind=StateKind.CALL, src=source.lines[0], locals={})
    jump = Action(kind=ActionKind.BREAKPOINT, target=source.lines[1])
    expected = expect(LineFlow(code), source, (start,), (), jump)
    assert expected.names == {"words"} and expected.required == {"words"}
    assert expected.fixed == {"words": "['pear', 'fig']"}
    # once the history stood there, the jump may land in the lambda's frame
    there = State(kind=StateKind.LINE, src=source.lines[1], locals={"words": "['pear', 'fig']"})
    again = expect(LineFlow(code), source, (start, there), (jump,), jump)
    assert "w" in (again.names or ()) and again.fixed == {}
