"""Lines whose effects the values shown on them fix: checked against real runs and the decoder."""

from __future__ import annotations

import ast

import pytest
from sampled_steps import line_steps, run_steps

from neural_debugger.model_backend.backend import DecodeOptions, History
from neural_debugger.model_backend.branches import Values, unbound_builtins
from neural_debugger.model_backend.computed import computing_lines, effects
from neural_debugger.model_backend.flow import (
    LineFlow,
    computed_effects,
    expect,
    in_the_lines_frame,
)
from neural_debugger.model_backend.local import LocalEngine, LocalSession
from neural_debugger.model_backend.session import DebugSession
from neural_debugger.protocol import Action, ActionKind, StateKind, standalone
from neural_debugger.protocol.source_map import SourceMap
from neural_debugger.tracer.program import Program
from neural_debugger.tracer.record import record
from neural_debugger.tracer.tree import StateTree
from neural_debugger.tracer.values import MORE_VARIABLES_KEY
from neural_debugger.training.data import TRACE_LIMITS

STEP_INTO = Action(kind=ActionKind.STEP_INTO)
CODE = "\n".join(
    [
        "LIMIT = 3",  # 1
        "def f(text, nums):",  # 2
        "    n = text.count('a')",  # 3
        "    a, b = text.split()",  # 4
        "    nums.append(n * 2)",  # 5
        "    last = nums.pop(0)",  # 6
        "    n += len(a) + LIMIT",  # 7
        "    table = {}",  # 8
        "    table[a] = b[::-1]",  # 9
        "    label = f'{a!r}:{n:>4}'",  # 10
        "    letters = set(text)",  # 11
        "    same = nums is table",  # 12
        "    ordered = sorted(set(text))[:3]",  # 13
        "    return text.title().replace(' ', '')",  # 14
        "def g(x):",  # 15
        "    global COUNT",  # 16
        "    COUNT = x + 1",  # 17
        "    with open(x) as handle:",  # 18
        "        return x + 1",  # 19
        "def h(n):",  # 20
        "    yield n",  # 21
        "    return n + 1",  # 22
        "out = f('banana split', [7])",  # 23
    ]
)
TREE = ast.parse(CODE)
LINES = computing_lines(TREE)
SHOWN = {
    "text": "'banana split'",
    "nums": "[7]",
    "n": "3",
    "a": "'banana'",
    "b": "'split'",
    "table": "{}",
}


def _effects(line: int, shown: dict[str, str | None]) -> tuple[dict[str, str], str | None] | None:
    computing = LINES[line]
    values = Values(shown, {"LIMIT": 3}, unbound_builtins(TREE), computing.local)
    found = effects(computing, values)
    return None if found is None else (found.shown, found.returned)


@pytest.mark.parametrize(
    ("line", "shown", "returned"),
    [
        (3, {"n": "3"}, None),  # str.count
        (4, {"a": "'banana'", "b": "'split'"}, None),  # unpacking what split returns
        (5, {"nums": "[7, 6]"}, None),  # a method that changes its receiver
        (6, {"nums": "[]", "last": "7"}, None),  # ... and returns a value too
        (7, {"n": "12"}, None),  # augmented, with a module constant
        (8, {"table": "{}"}, None),
        (9, {"table": "{'banana': 'tilps'}"}, None),  # an item stored in a dict
        (10, {"label": "\"'banana':   3\""}, None),  # an f-string's conversion and format spec
        (13, {"ordered": "[' ', 'a', 'b']"}, None),  # sorted: a set's order is not read
        (14, {}, "'BananaSplit'"),  # a return's value
    ],
)
def test_a_line_computes_what_it_binds_or_returns(
    line: int, shown: dict[str, str], returned: str | None
) -> None:
    assert _effects(line, SHOWN) == (shown, returned)


def test_what_the_values_cannot_tell_leaves_the_line_to_the_model() -> None:
    # a set: its text's order is its own hash table's; only that it is what changes is known
    assert _effects(11, SHOWN) == ({}, None)
    computing = LINES[11]
    found = effects(computing, Values(SHOWN, {}, unbound_builtins(TREE), computing.local))
    assert found is not None and found.touched == {"letters"}
    assert _effects(12, SHOWN) is None  # `is` between copies says nothing of the program
    assert _effects(3, {**SHOWN, "text": "'banana …<cut>"}) is None  # a cut value
    assert _effects(3, {"nums": "[7]", MORE_VARIABLES_KEY: "2 more"}) is None  # text hidden
    assert _effects(4, {**SHOWN, "text": "'one two three'"}) is None  # Python would raise
    assert _effects(3, {**SHOWN, "text": "<Doc object>"}) is None  # not a literal
    # a global's store, a return a `with` block wraps, a generator's return: not such lines
    assert not {17, 19, 22} & set(LINES)
    # a builtin the code binds a name to is not the builtin
    rebound = ast.parse("def len(x):\n    return 0\ndef f(s):\n    n = len(s)\n")
    computing = computing_lines(rebound)[4]
    values = Values({"s": "'ab'"}, {}, unbound_builtins(rebound), computing.local)
    assert effects(computing, values) is None


def test_every_computed_effect_is_what_real_runs_show() -> None:
    """Trajectories of drills and everyday scripts, as training data samples them (the real
    tracer): after a step from every line whose effects :func:`computed_effects` fixes, the
    real state shows those texts, or returns that value, and :func:`expect` allows it."""
    bound = returned = entered = 0
    for step in line_steps(11):
        if not in_the_lines_frame(step.flow, step.source, step.states, step.actions):
            continue  # a comprehension's or a lambda's frame, on the line that made it
        found = computed_effects(step.flow, step.here, step.before)
        if found is None:
            continue
        after = step.after
        if after.kind is StateKind.CALL:  # a frame the line makes runs before its end
            assert step.action.kind is ActionKind.STEP_INTO and step.flow.makes_frames(step.here)
            entered += 1
        elif found.returned is not None:
            assert after.kind is StateKind.RETURN and after.value == found.returned
            returned += 1
        elif after.kind is StateKind.LINE:
            full = standalone((*step.states, after), len(step.states)).locals or {}
            assert all(full.get(n) == t for n, t in found.shown.items()), (full, found)
            bound += 1
        expected = expect(step.flow, step.source, step.states, step.actions, step.action)
        assert expected.allows(after), (step.states[-1], after)
    assert bound > 100 and returned > 10 and entered > 0


MODEL_CASES = [
    # (code, entry, the line, what the next state shows); the shipped model writes another
    # value on each without the rule (``n = 0``, ``'WORLD'``, ``[99, 4, 5, 6]``, ``'banana
    # bread'``)
    (
        "def f(text):\n    n = text.count('a')\n    return n",
        "f('banana bread')",
        "    n = text.count('a')",
        ("n", "4"),
    ),
    (
        "def f(s):\n    r = s[::-1].upper()\n    return r",
        "f('hello world')",
        "    r = s[::-1].upper()",
        ("r", "'DLROW OLLEH'"),
    ),
    (
        "def f(nums):\n    nums.insert(1, 99)\n    return nums",
        "f([4, 5, 6])",
        "    nums.insert(1, 99)",
        ("nums", "[4, 99, 5, 6]"),
    ),
    (
        "def f(text):\n    return text.replace('a', 'o').title()",
        "f('banana bread')",
        "    return text.replace('a', 'o').title()",
        (None, "'Bonono Breod'"),
    ),
]


@pytest.mark.parametrize(("code", "entry", "line", "shown"), MODEL_CASES)
def test_the_model_writes_what_the_line_computes(
    code: str, entry: str, line: str, shown: tuple[str | None, str]
) -> None:
    """The shipped model, stepping from the line with the run's real history, writes the
    value the line computes: it is fixed before the model writes a token."""
    program = Program(path="p.py", source=code, entry=entry)
    tree = StateTree.forward(program, record(program, TRACE_LIMITS))
    states, i = [tree.state(0)], 0
    while states[-1].src != line:
        i, previous = tree.next(i, STEP_INTO), i
        states.append(tree.state(i, previous, STEP_INTO))
    history = History(program.context, tuple(states), (STEP_INTO,) * (len(states) - 1))
    session = LocalSession(LocalEngine().loaded, program.context)
    predicted = session.predict_now(history, STEP_INTO, DecodeOptions()).state
    name, text = shown
    if name is None:
        assert predicted.kind is StateKind.RETURN and predicted.value == text
    else:
        assert predicted.kind is StateKind.LINE and (predicted.locals or {}).get(name) == text


def test_a_comprehensions_return_fixes_what_its_line_computes() -> None:
    """A list comprehension runs in a frame of its own; after its return, its line's
    statement is computed with the value it handed back, from the caller's locals on the
    call (the real run's states, stepped into one by one)."""
    code = (
        "def f(y):\n"
        "    tmp = ''.join(['0' if c == '9' else '9' for c in y[::-1]])\n"
        "    n = len([c for c in y if c == '9']) + len(tmp)\n"
        "    return [c * 2 for c in y]\n"
    )
    program = Program(path="p.py", source=code, entry="f('1929')")
    tree = StateTree.forward(program, record(program, TRACE_LIMITS))
    flow, source = LineFlow(code), SourceMap(code)
    states, actions, i = [tree.state(0)], [], 0
    found = []
    while states[-1].kind is not StateKind.EXIT_NORMAL:
        j = tree.next(i, STEP_INTO)
        after = tree.state(j, i, STEP_INTO)
        # a comprehension's return comes after its last line (f's, after that return)
        returning = states[-1].kind is StateKind.RETURN and "for c" in (states[-1].src or "")
        if returning and states[-2].kind is StateKind.LINE:
            expected = expect(flow, source, tuple(states), tuple(actions), STEP_INTO)
            assert expected.allows(after)
            found.append((dict(expected.fixed), expected.returned))
        states.append(after)
        actions.append(STEP_INTO)
        i = j
    assert found == [
        ({"tmp": "'0909'"}, None),
        ({"n": "6"}, None),
        ({}, "['11', '99', '22', '99']"),
    ]


async def test_a_fixed_value_the_variable_already_had_is_no_dead_end() -> None:
    """``val = char_map.get(ch)`` gives None again: the diff cannot show ``val``, so the grammar
    does not offer its name (before, the model stepping on its own began writing it and found
    no token to go on with, an error in the session)."""
    code = (
        "def count_known(char_map, text):\n    known = 0\n    for ch in text:\n"
        "        val = char_map.get(ch)\n        if val is not None:\n            known += val\n"
        "    return known"
    )
    program = Program(path="p.py", source=code, entry="count_known({'z': 1}, 'abc')")
    session = await DebugSession.open(program, LocalEngine())
    try:
        for _ in range(30):
            await session.step(STEP_INTO)
            if session.states[-1].kind is StateKind.RETURN:
                break
    finally:
        await session.backend.aclose()
    assert session.states[-1].kind is StateKind.RETURN and session.states[-1].value == "0"


STATEMENTS = "\n".join(
    [
        "def f(nums, d, words):",  # 1
        "    nums[1:3] = nums[1:3][::-1]",  # 2: a slice stored
        "    nums[0], nums[-1] = nums[-1], nums[0]",  # 3: items swapped
        "    del d['b']",  # 4
        "    pairs = sorted(d.items(), key=lambda p: -p[1])",  # 5: lambdas run first
        "    big = [w.upper() for w in words if len(w) > 2]",  # 6: a comprehension's frame
        "    joined = '-'.join(w[0] for w in words)",  # 7: a generator's frames
        "    keys = dict.fromkeys(joined, 0)",  # 8
        "    digits = list(map(int, str(len(joined) * 37)))",  # 9
        "    return '{}:{}'.format(big, digits)",  # 10
    ]
)


def test_lines_with_slices_deletions_lambdas_and_comprehensions_compute_what_runs_show() -> None:
    """A real run: from every line state of the function's own frame whose effects the rules
    fix, or from the return of the last frame a line made, the next state is one
    :func:`expect` allows and shows exactly what it fixes."""
    flow, source = LineFlow(STATEMENTS), SourceMap(STATEMENTS)
    checked, comprehension = set(), STATEMENTS.split("\n")[5]
    turns = 0  # steps in the comprehension's own frame, each fixed
    for states, actions, after in run_steps(
        STATEMENTS, "f([1, 2, 3, 4], {'a': 1, 'b': 2, 'c': 3}, ['ab', 'cde', 'fghi'])"
    ):
        expected = expect(flow, source, states, actions, STEP_INTO)
        assert expected.allows(after), (states[-1], after)
        if after.kind is StateKind.CALL and after.src == comprehension:  # its call's values
            assert expected.call_fixed[comprehension] == after.locals
        if states[-1].src == after.src == comprehension and states[-2].src == comprehension:
            assert expected.lines.get(StateKind.CALL) == frozenset()
            turns += 1
        if after.kind is StateKind.RETURN and expected.returned is not None:
            assert after.value == expected.returned
            checked.add(states[-1].src)
        if after.kind is StateKind.LINE and expected.fixed and not after.src.startswith("def"):
            full = standalone((*states, after), len(states)).locals or {}
            assert all(full.get(n) == t for n, t in expected.fixed.items()), (full, expected)
            before = standalone(states, len(states) - 1).locals or {}
            if any(before.get(n) != t for n, t in expected.fixed.items()):  # a change it fixed
                checked.add(states[-1].src)
    # each statement's effects were fixed (the return's too)
    assert len(checked) >= 8, checked
    assert turns == 5  # from its call, and from its four line events (the last: to its return)
