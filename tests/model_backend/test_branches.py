"""Branch heads whose way the values shown fix: checked against real runs and the decoder."""

from __future__ import annotations

import ast

import pytest
from sampled_steps import line_steps, run_steps

from neural_debugger.model_backend.backend import DecodeOptions, History
from neural_debugger.model_backend.branches import (
    Undecided,
    Values,
    changed_names,
    heads,
    outside_its_loop,
    unbound_builtins,
    way,
)
from neural_debugger.model_backend.flow import LineFlow, branch_lines, expect, in_the_lines_frame
from neural_debugger.model_backend.local import LocalEngine, LocalSession
from neural_debugger.protocol import Action, ActionKind, StateKind, standalone
from neural_debugger.protocol.source_map import SourceMap
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
        if not in_the_lines_frame(step.flow, step.source, step.states, step.actions):
            continue  # a comprehension's or a lambda's frame, on the line that made it
        found = branch_lines(
            step.flow, step.source, step.states, step.actions, step.here, step.before
        )
        if found is None:
            continue
        texts, shown = found.texts, found.shown
        after = step.after
        expected = expect(step.flow, step.source, step.states, step.actions, step.action)
        assert expected.allows(after)
        if after.kind is StateKind.CALL:  # a frame the head makes runs first
            assert step.action.kind is ActionKind.STEP_INTO and step.flow.makes_frames(step.here)
            continue
        assert after.kind is StateKind.LINE and after.src in texts, (step.states[-1], after)
        full = standalone((*step.states, after), len(step.states)).locals or {}
        assert all(full.get(name) == text for name, text in shown.items()), (full, shown)
        # nothing else changes: a head binds only a ``for``'s targets
        if after.diff:
            assert set(after.locals or ()) <= found.binding, (step.states[-1], after)
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


TURNS = "\n".join(
    [
        "def shout(text, xs):",  # 1
        "    out = []",  # 2
        "    for c in text:",  # 3: repeated items, the target rebound in the body
        "        c = c.upper()",  # 4
        "        out.append(c)",  # 5
        "    for x in xs:",  # 6: a list the body grows, read by position
        "        if x < 3:",  # 7
        "            xs.append(x + 3)",  # 8
        "    for i in range(len(out) - 1):",  # 9: made once from a list the body changes
        "        out.pop()",  # 10
        "    return out, xs",  # 11
    ]
)


def test_the_turns_a_history_counts_fix_each_way_of_a_real_run() -> None:
    """From every arrival at a head of a real run, the way (and the item the targets take)
    is read from the turns the history counts, where the item repeats (``'l'``), the body
    binds the target, or the body changes the list the loop reads: as the run goes."""
    flow, source = LineFlow(TURNS), SourceMap(TURNS)
    decided = 0
    for states, actions, after in run_steps(TURNS, "shout('hello', [1, 2, 4])"):
        last = states[-1]
        if last.kind is not StateKind.LINE or not last.src.startswith("    for "):
            continue
        here = source.by_text[last.src]
        before = standalone(states, len(states) - 1).locals or {}
        found = branch_lines(flow, source, states, actions, here, before)
        assert found is not None, last
        assert after.src in found.texts
        full = standalone((*states, after), len(states)).locals or {}
        assert all(full.get(name) == text for name, text in found.shown.items())
        assert expect(flow, source, states, actions, STEP_INTO).allows(after)
        decided += 1
    assert decided == 6 + 6 + 5  # 'hello' and its end; 1, 2, 4, 4, 5 and the end; 4 and the end


def test_without_the_history_a_rebound_target_leaves_the_way_open() -> None:
    head = heads(ast.parse(TURNS))[3]
    assert head.rebinding
    with pytest.raises(Undecided):
        way(head, Values({"text": "'hello'", "c": "'H'"}, {}, BUILTINS, head.local), [5])


def test_what_a_loop_body_may_change_in_place() -> None:
    body = ast.parse(
        "d[k] = 1\nxs.append(y)\nzs.count(1)\nf(ws[0])\nalias = vs\nn = len(us)\nprint(ts)\n"
        "total = total + qs[0]\nrows[0][1] += 1\n"
    ).body
    assert changed_names(body) == {"d", "xs", "y", "ws", "vs", "rows"}


INLINE = "\n".join(
    [
        "def f(n, text):",  # 1
        "    t = 0",  # 2
        "    for d in n:",  # 3
        "        if d == 0: t += 1",  # 4
        "        else: break",  # 5
        "    if text.istitle(): return 'correct'",  # 6
        "    return t",  # 7
    ]
)


@pytest.mark.parametrize("arguments", ["[0, 0, 3], 'Ab'", "[0, 5], 'ab'", "[0], 'A'"])
def test_an_if_with_its_body_on_its_line_goes_the_way_its_test_says(arguments: str) -> None:
    flow, source = LineFlow(INLINE), SourceMap(INLINE)
    decided = 0
    for states, actions, after in run_steps(INLINE, f"f({arguments})"):
        last = states[-1]
        if last.kind is not StateKind.LINE or " if " not in last.src:
            continue
        expected = expect(flow, source, states, actions, STEP_INTO)
        assert expected.allows(after)
        if after.kind is StateKind.RETURN:  # `return 'correct'`, computed
            assert expected.returned == after.value == "'correct'"
        else:
            assert expected.lines[StateKind.LINE] == {after.src}
        decided += 1
    assert decided >= 2
