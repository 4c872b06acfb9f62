"""Branch heads whose way the values shown fix: checked against real runs and the decoder."""

from __future__ import annotations

import ast

import pytest
from sampled_steps import line_steps

from neural_debugger.model_backend.backend import DecodeOptions, History
from neural_debugger.model_backend.branches import (
    Undecided,
    Values,
    heads,
    outside_its_loop,
    unbound_builtins,
    way,
)
from neural_debugger.model_backend.flow import branch_lines, expect
from neural_debugger.model_backend.local import LocalEngine, LocalSession
from neural_debugger.protocol import Action, ActionKind, StateKind, standalone
from neural_debugger.tracer.program import Program
from neural_debugger.tracer.record import record
from neural_debugger.tracer.tree import StateTree
from neural_debugger.tracer.values import MORE_VARIABLES_KEY
from neural_debugger.training.data import TRACE_LIMITS

WALK = "\n".join(
    [
        "def walk(n, word):",  # 1
        "    seen = []",  # 2
        "    for i in range(n):",  # 3
        "        seen.append(i)",  # 4
        "    for k, c in enumerate(word):",  # 5
        "        if c.isupper() and k > 0:",  # 6
        "            seen.append(c)",  # 7
        "    while len(seen) > 4:",  # 8
        "        seen.pop()",  # 9
        "    for x in seen:",  # 10
        "        print(x)",  # 11
        "    return seen",  # 12
    ]
)
TREE = ast.parse(WALK)
STEP_INTO = Action(kind=ActionKind.STEP_INTO)
HEADS = heads(TREE)
BUILTINS = unbound_builtins(TREE)


def _way(line: int, shown: dict[str, str | None], arrived: list[int]) -> tuple[bool, dict]:
    head = HEADS[line]
    found = way(head, Values(shown, {}, BUILTINS, head.local), arrived)
    return found.into, dict(found.shown)


def test_a_range_loop_goes_on_to_its_next_item_and_ends_after_its_last() -> None:
    # arriving from the body with the item just done
    assert _way(3, {"n": "3", "seen": "[0]", "i": "0"}, [4]) == (True, {"i": "1"})
    assert _way(3, {"n": "3", "seen": "[0, 1, 2]", "i": "2"}, [4]) == (False, {})
    # arriving from before the loop: it starts (an empty range skips the body)
    assert _way(3, {"n": "2", "seen": "[]"}, [2]) == (True, {"i": "0"})
    assert _way(3, {"n": "0", "seen": "[]"}, [2]) == (False, {})
    # a target value no item has, or variables hidden (the targets may be among them): no
    # way is known
    with pytest.raises(Undecided):
        _way(3, {"n": "3", "seen": "[]", "i": "7"}, [4])
    with pytest.raises(Undecided):
        _way(3, {"n": "3", "seen": "[]", MORE_VARIABLES_KEY: "2 more"}, [4])


def test_enumerate_tests_on_strings_and_a_while_read_the_values_shown() -> None:
    shown = {"n": "1", "word": "'aBc'", "seen": "[0]", "i": "0", "k": "0", "c": "'a'"}
    assert _way(5, shown, [6]) == (True, {"k": "1", "c": "'B'"})
    assert _way(5, {**shown, "k": "2", "c": "'c'"}, [6]) == (False, {})
    assert _way(6, {**shown, "k": "1", "c": "'B'"}, [5])[0] is True
    assert _way(6, {**shown, "k": "0", "c": "'A'"}, [5])[0] is False  # `and k > 0`
    assert _way(8, {**shown, "seen": "[1, 2, 3, 4, 5]"}, [])[0] is True
    assert _way(8, {**shown, "seen": "[1, 2]"}, [])[0] is False


@pytest.mark.parametrize(
    "shown",
    [
        {"seen": "[1, 2, …<cut>"},  # a cut value
        {"seen": "[[...]]"},  # a cycle
        {"seen": "<Bag object>"},  # no literal
        {},  # not shown: in a function, an unbound local
    ],
)
def test_values_that_are_not_whole_literals_leave_the_way_open(shown: dict) -> None:
    with pytest.raises(Undecided):
        _way(8, shown, [])


def test_a_list_the_body_mentions_or_a_rebound_builtin_leaves_the_way_open() -> None:
    # `for x in seen:` with `seen` unmentioned in its body is read; a loop over a list its body
    # changes is not
    assert _way(10, {"seen": "[1, 2]", "x": "1"}, [11]) == (True, {"x": "2"})
    changing = ast.parse("def f(xs):\n    for x in xs:\n        xs.append(x)\n")
    head = heads(changing)[2]
    with pytest.raises(Undecided):
        way(head, Values({"xs": "[1]", "x": "1"}, {}, unbound_builtins(changing), None), [3])
    rebound = ast.parse("len = 3\nitems = [1]\nwhile len(items) > 0:\n    items.pop()\n")
    head = heads(rebound)[3]
    with pytest.raises(Undecided):
        way(head, Values({"items": "[1]"}, {}, unbound_builtins(rebound), None), [])


def test_a_jump_landing_after_the_last_turn_is_outside_its_loop() -> None:
    assert outside_its_loop(HEADS, 4, {"n": "3", "seen": "[0, 1, 2]", "i": "3"}, BUILTINS)
    assert not outside_its_loop(HEADS, 4, {"n": "3", "seen": "[0, 1]", "i": "2"}, BUILTINS)
    assert not outside_its_loop(HEADS, 12, {"n": "3", "seen": "[]", "i": "3"}, BUILTINS)


def test_every_way_the_values_fix_is_the_way_real_runs_go() -> None:
    """Trajectories of drills and everyday scripts, as training data samples them (the real
    tracer): from every head whose way :func:`branch_lines` fixes, the real next line is one
    it allows, and a ``for``'s targets show there what it says."""
    decided = into = 0
    for step in line_steps(9):
        found = branch_lines(step.flow, step.source, step.states, step.here, step.before)
        if found is None:
            continue
        texts, shown = found
        after = step.after
        assert after.kind is StateKind.LINE and after.src in texts, (step.states[-1], after)
        full = standalone((*step.states, after), len(step.states)).locals or {}
        assert all(full.get(name) == text for name, text in shown.items()), (full, shown)
        expected = expect(step.flow, step.source, step.states, step.actions, step.action)
        assert expected.allows(after)
        decided += 1
        into += bool(shown)
    assert decided > 60 and into > 10


CASES = [
    # (code, entry, the head, a variable and its value there, the line the run goes to next);
    # without the rule the shipped model steps the other way in each
    (
        "def walk(n):\n    seen = []\n    for i in range(n):\n        seen.append(i)\n"
        "    return seen",
        "walk(3)",
        "    for i in range(n):",
        ("i", "2"),
        "    return seen",
    ),
    (
        "def f(text):\n    count = 0\n    for c in text:\n        if c.isupper():\n"
        "            count += 1\n    return count",
        "f('aBcD')",
        "        if c.isupper():",
        ("c", "'B'"),
        "            count += 1",
    ),
    (
        "def f(s):\n    i = 0\n    while i < len(s) and s[i] == ' ':\n        i += 1\n"
        "    return s[i:]",
        "f('  ab')",
        "    while i < len(s) and s[i] == ' ':",
        ("i", "2"),
        "    return s[i:]",
    ),
]


@pytest.mark.parametrize(("code", "entry", "head", "shown", "after"), CASES)
def test_the_model_steps_the_way_the_values_it_was_shown_fix(
    code: str, entry: str, head: str, shown: tuple[str, str], after: str
) -> None:
    """The shipped model, stepping from a head with the run's real history, writes the line
    the run goes to: the way is fixed before it writes a token."""
    program = Program(path="p.py", source=code, entry=entry)
    tree = StateTree.forward(program, record(program, TRACE_LIMITS))
    states, i = [tree.state(0)], 0
    while True:
        i, previous = tree.next(i, STEP_INTO), i
        states.append(tree.state(i, previous, STEP_INTO))
        values = standalone(tuple(states), len(states) - 1).locals or {}
        if states[-1].src == head and values.get(shown[0]) == shown[1]:
            break
    history = History(program.context, tuple(states), (STEP_INTO,) * (len(states) - 1))
    session = LocalSession(LocalEngine().loaded, program.context)
    predicted = session.predict_now(history, STEP_INTO, DecodeOptions())
    assert predicted.state.src == after
