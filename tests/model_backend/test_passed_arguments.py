"""Parameters the code alone fixes: the literals a plain function is called with, at its call
and in its frame while it keeps them, checked against real runs, and the grammar writing
them where a model jumping into the function would guess."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from neural_debugger.model_backend.flow import (
    Expected,
    LineFlow,
    entry_text,
    expect,
    kept_parameters,
)
from neural_debugger.model_backend.grammar import JsonCursor, _json_texts
from neural_debugger.model_backend.local import LocalEngine
from neural_debugger.model_backend.session import DebugSession, resume
from neural_debugger.protocol import Action, ActionKind, State, StateKind
from neural_debugger.protocol.source_map import SourceMap
from neural_debugger.tracer.program import Program, load_program
from neural_debugger.tracer.record import record
from neural_debugger.tracer.run import trace
from neural_debugger.tracer.tree import StateTree
from neural_debugger.training.data import TRACE_LIMITS

SCRIPT = """LIMIT = 2


def describe(d, sep=", "):
    parts = []
    for key in sorted(d):
        parts.append("%s=%d" % (key, d[key]))
    return "{} items: {}".format(len(parts), sep.join(parts))


def dot(a, b, scale=1):
    total = 0
    for i in range(len(a)):
        total += a[i] * b[i]
    a.append(0)
    return total * scale


def matmul(a, b):
    rows = []
    for row in a:
        rows.append([sum(x * b[k][j] for k, x in enumerate(row)) for j in range(len(b[0]))])
    return rows


def countdown(n, seen=[]):
    while n > 0:
        n -= 1
    seen.append(n)
    return n


def label(word, times):
    return word * times


print(describe({'kiwi': 3, 'fig': 1}))
print(dot([1, 2], [3, 4]), dot([1, 2], [5, 6], scale=2))
print(matmul([[1, 2]], [[3], [4]]))
print(countdown(3), countdown(n=3))
print(label('ab', 2), label('ab', LIMIT))
"""
DEFS = {"describe": 4, "dot": 11, "matmul": 19, "countdown": 26, "label": 33}


def test_every_call_passing_one_literal_fixes_it_and_a_frame_that_only_reads_keeps_it() -> None:
    passed = LineFlow(SCRIPT).passed
    assert passed.by_every_call(DEFS["describe"]) == {"d": "{'kiwi': 3, 'fig': 1}", "sep": "', '"}
    assert passed.kept(DEFS["describe"]) == {"d": "{'kiwi': 3, 'fig': 1}", "sep": "', '"}
    # two calls pass different ``b`` and ``scale``; ``a`` is changed by ``a.append``
    assert passed.by_every_call(DEFS["dot"]) == {"a": "[1, 2]"}
    assert passed.kept(DEFS["dot"]) == {}
    assert passed.at_call(DEFS["dot"], [38]) == {"a": "[1, 2]"}  # two calls on that line
    # nested lists read only through subscripts and ``len``; ``for row in a`` hands out an
    # inner list, which the frame could change, so ``a`` is not kept
    assert passed.kept(DEFS["matmul"]) == {"b": "[[3], [4]]"}
    # ``n`` is rebound; a mutable default is never fixed (it lives on between calls)
    assert passed.by_every_call(DEFS["countdown"]) == {"n": "3"}
    assert passed.kept(DEFS["countdown"]) == {}
    # ``times`` is given the module's constant ``LIMIT`` once, the same 2 as the other call
    assert passed.kept(DEFS["label"]) == {"word": "'ab'", "times": "2"}


@pytest.mark.parametrize(
    "code",
    [
        "def f(x):\n    return x\ng = f\nprint(f(1))\n",  # used as a value: callable from anywhere
        "def f(x):\n    return x\nprint(f(1), globals())\n",  # code that reaches names
        "def f(*xs):\n    return xs\nprint(f(1))\n",  # ``*args``
        "def f(x):\n    return x\nprint(f(*[1]))\n",
        "def f(x):\n    return x\nprint(f({1, 2}))\n",  # a set: its order is the hash's
        "def f(x):\n    return x\nprint(f(1, 2))\n",  # does not bind: TypeError
        "def f(x):\n    del x\nprint(f(1))\n",
        "def f(x):\n    for x in [2]:\n        pass\nprint(f(1))\n",
        "def f(x):\n    y = x\n    y.append(1)\nprint(f([1]))\n",  # an alias
        "def f(x):\n    g(x)\ndef g(y):\n    y.append(1)\nprint(f([1]))\n",  # another function
        "len = print\ndef f(x):\n    return len(x)\nprint(f([1]))\n",  # not the builtin
    ],
)
def test_what_the_code_cannot_vouch_for_is_not_kept(code: str) -> None:
    flow = LineFlow(code)
    assert all(not flow.passed.kept(line) for line in flow.call_sites.functions)


def test_real_runs_show_the_passed_values_at_the_call_and_wherever_the_frame_keeps_them(
    tmp_path: Path,
) -> None:
    path = tmp_path / "script.py"
    path.write_text(SCRIPT)
    program = load_program(path)
    flow = LineFlow(program.context)
    assert program.context == SCRIPT.rstrip("\n")  # a script: context lines are the file's
    events = trace(program).events
    checked = 0
    for event in events:
        line = program.context_line(event.file, event.line)
        if event.kind == "call" and line in DEFS.values():
            assert flow.passed.by_every_call(line).items() <= event.locals.items(), event
            checked += 1
        function = flow.call_sites.function_at([line])
        if event.kind == "line" and function is not None:
            assert flow.passed.kept(function).items() <= event.locals.items(), event
            checked += bool(flow.passed.kept(function))
    assert checked >= 20


VARIABLES = """def scale(xs, k):
    return [x * k for x in xs]


def pair(a, b=0):
    return (a, b)


def main():
    xs = [1, 2]
    k = 3
    ys = scale(xs, k)
    zs = [pair(x, b=k) for x in ys]
    more = pair(xs.pop(), k)
    print(pair(k), scale(xs, k=2))
    total = scale(ys, k)
    return ys, zs, more, total
"""


def test_a_step_into_passes_the_values_the_caller_showed_where_nothing_runs_first() -> None:
    passed = LineFlow(VARIABLES).passed
    shown = {"xs": "[1, 2]", "k": "3"}
    assert passed.at_call(1, [12], shown) == {"xs": "[1, 2]", "k": "3"}
    assert passed.at_call(1, [12], {"xs": "[1, 2…<cut>"}) == {}  # a cut value is not known
    # inside a comprehension: its own frame's ``x`` is not the caller's
    assert passed.at_call(5, [13], {"x": "3", "k": "3"}) == {}
    # ``xs.pop()`` runs before the call, which might change what it is given; and the calls
    # of ``pair`` agree on nothing
    assert passed.at_call(5, [14], shown) == {} == passed.by_every_call(5)
    # two calls on one line: another call may run first, so only literals and defaults count
    assert passed.at_call(5, [15], shown) == {"b": "0"}
    assert passed.at_call(1, [15], shown) == {"k": "2"}


def test_real_steps_into_a_call_show_what_the_calling_line_showed() -> None:
    program = Program(path="variables.py", source=VARIABLES, entry="main()")
    flow = LineFlow(program.context)
    starts = {n for n in flow.call_sites.functions}
    events = record(program, TRACE_LIMITS).events
    checked = 0
    for before, after in itertools.pairwise(events):
        line = program.context_line(after.file, after.line)
        if before.kind == "line" and after.kind == "call" and line in starts:
            here = [program.context_line(before.file, before.line)]
            values = flow.passed.at_call(line, here, before.locals)
            assert values.items() <= after.locals.items(), (before, after)
            checked += len(values)
    assert checked >= 5  # xs and k twice, b's default, k=2


def _history(code: str) -> tuple[SourceMap, tuple[State, ...]]:
    source = SourceMap(code)
    return source, (State(kind=StateKind.CALL, src=source.lines[0], locals={}),)


def test_a_breakpoint_in_the_function_and_a_step_into_its_call_fix_the_parameters() -> None:
    flow, (source, history) = LineFlow(SCRIPT), _history(SCRIPT)
    jump = Action(kind=ActionKind.BREAKPOINT, target=source.lines[6])  # in ``describe``
    expected = expect(flow, source, history, (), jump)
    assert expected.fixed == {"d": "{'kiwi': 3, 'fig': 1}", "sep": "', '"}
    shown = {"d": "{'kiwi': 3, 'fig': 1}", "sep": "', '", "parts": "[]", "key": "'fig'"}
    assert expected.allows(State(kind=StateKind.LINE, src=source.lines[6], locals=shown))
    wrong = {**shown, "d": "1"}
    assert not expected.allows(State(kind=StateKind.LINE, src=source.lines[6], locals=wrong))
    # of the line's two ``dot`` calls, the first is made first (``print`` runs after it, the
    # second call after it too): a step into the line enters it
    into = Action(kind=ActionKind.STEP_INTO)
    here = State(kind=StateKind.LINE, src=source.lines[37], locals={})
    expected = expect(flow, source, (*history, here), (jump,), into)
    call_text = source.lines[DEFS["dot"] - 1]
    assert expected.call_fixed[call_text] == {"a": "[1, 2]", "b": "[3, 4]", "scale": "1"}
    here = State(kind=StateKind.LINE, src=source.lines[40], locals={})  # label('ab', LIMIT)
    expected = expect(flow, source, (*history, here), (jump,), into)
    assert expected.call_fixed[source.lines[DEFS["label"] - 1]] == {"word": "'ab'", "times": "2"}
    # a run that starts in a function: its arguments come from outside the code
    entry = State(kind=StateKind.CALL, src=source.lines[3], locals={"d": "{}"})
    expected = expect(flow, source, (entry,), (), jump)
    assert entry_text((entry,)) == source.lines[3]
    assert not expected.fixed and not kept_parameters(flow, source, expected, source.lines[3])
    assert source.lines[3] not in expected.call_fixed


def test_the_locals_writer_keeps_to_the_passed_values() -> None:
    fixed = _json_texts({"d": "{'kiwi': 3}"})

    def whole(text: str) -> bool:
        cursor = JsonCursor("object", fixed=fixed, required=frozenset({b"d"}))
        return all(cursor.feed(b) for b in text.encode()) and cursor.done

    assert whole('{"d": "{\'kiwi\': 3}"}') and whole('{"d": "{\'kiwi\': 3}", "parts": "[]"}')
    assert not whole('{"d": "1"}') and not whole('{"parts": "[]"}')


async def test_a_session_jumping_into_the_function_shows_what_the_call_passed(
    tmp_path: Path,
) -> None:
    """The embedded model, jumping from the run's start to a breakpoint inside ``describe``,
    shows ``d`` and ``sep`` as the script's only call passes them."""
    path = tmp_path / "script.py"
    path.write_text(SCRIPT)
    session = await DebugSession.open(load_program(path), LocalEngine(), breakpoint_steps=0)
    stop = await resume(session, {7})
    assert stop.line == 7 and stop.locals is not None, stop
    assert stop.locals["d"] == "{'kiwi': 3, 'fig': 1}" and stop.locals["sep"] == "', '"


REBINDING = """def trim(text, width):
    size = len(text)
    if size > width:
        text = text[:width]
    while width > 0:
        width -= 1
    return text


def finish(x):
    try:
        return x * 2
    finally:
        x = 0


print(trim('abcdef', 3), trim('abcdef', 3), finish(3))
"""


def test_a_frame_shows_a_parameter_it_rebinds_as_passed_until_a_path_rebinds_it(
    tmp_path: Path,
) -> None:
    """``kept_parameters`` holds a rebound parameter on the lines no path from the call
    reaches through a store of it; real runs agree at every such line."""
    path = tmp_path / "rebinding.py"
    path.write_text(REBINDING)
    program = load_program(path)
    flow, source = LineFlow(program.context), SourceMap(program.context)

    def kept_on(line: int) -> dict[str, str]:
        lines = {StateKind.LINE: frozenset({source.lines[line - 1]})}
        return kept_parameters(flow, source, Expected(lines), "<module>")

    assert flow.passed.kept(1) == {} and flow.passed.kept(10) == {}  # both rebind theirs
    # line 4's event fires before its store; from line 5 on, a path has rebound both
    assert kept_on(2) == kept_on(3) == kept_on(4) == {"text": "'abcdef'", "width": "3"}
    assert kept_on(5) == kept_on(7) == {}
    assert kept_on(12) == kept_on(14) == {"x": "3"}  # ``finally`` fires before it stores
    checked = 0
    for event in trace(program).events:
        line = program.context_line(event.file, event.line)
        if event.kind == "line" and not flow.module_only(line):
            kept = kept_on(line)
            assert kept.items() <= event.locals.items(), event
            checked += len(kept)
    assert checked >= 10


ARGUMENTS = """def fact(n):
    if n < 2:
        return 1
    return n * fact(n - 1)
def shout(word, times):
    return word * times
def main(text):
    words = text.split()
    out = shout(words[0].upper(), len(words))
    total = fact(len(out) // 2) + len(out)
    return fib(total % 5) + fib(3)
def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)
"""


def test_a_step_into_the_first_call_of_a_line_passes_what_its_arguments_compute() -> None:
    """A call made first on its line, whose arguments only builtins and the methods of
    plain values compute (:mod:`.expressions`), passes what they compute from the values the
    line state showed: checked on every step into a call of the real run."""
    program = Program(path="arguments.py", source=ARGUMENTS, entry="main('ab cd ef')")
    flow, source = LineFlow(program.context), SourceMap(program.context)
    step = Action(kind=ActionKind.STEP_INTO)
    tree = StateTree.forward(program, record(program, TRACE_LIMITS))
    states, actions, i, fixed = [tree.state(0)], [], 0, []
    while states[-1].kind is not StateKind.EXIT_NORMAL:
        j = tree.next(i, step)
        after = tree.state(j, i, step)
        if after.kind is StateKind.CALL and states[-1].kind is StateKind.LINE:
            expected = expect(flow, source, tuple(states), tuple(actions), step)
            assert expected.allows(after)
            fixed.append(dict(expected.call_fixed.get(after.src or "", {})))
        states.append(after)
        actions.append(step)
        i = j
    assert fixed[:5] == [
        {"text": "'ab cd ef'"},  # the run's entry, a literal
        {"word": "'AB'", "times": "3"},  # shout(words[0].upper(), len(words))
        {"n": "3"},  # fact(len(out) // 2) + len(out): ``len(out)`` runs after the call
        {"n": "2"},  # n * fact(n - 1)
        {"n": "1"},
    ]
    # ``fib(total % 5) + fib(3)``: the first call's argument is computed; in fib's own line
    # the conditional expression's test runs first, and so does ``fib(n - 1)`` before
    # ``fib(n - 2)``: neither call is known to come first there
    assert fixed[5] == {"n": "2"}
    assert fixed[6:] and all(not values for values in fixed[6:])
