"""State trees: every action's target on a small program worked out by hand, and the state shown."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from neural_debugger.protocol import Action, ActionKind, StateKind, encode, parse_trajectory
from neural_debugger.tracer.program import load_program
from neural_debugger.tracer.record import record
from neural_debugger.tracer.sampler import INV_STEP_INTO, PAPER, PAPER_INVERSE, STEP_INTO, sample
from neural_debugger.tracer.tree import StateTree

SOURCE = """\
def g(x):
    y = x * 2
    return y


def f(a):
    s = g(a) + g(a + 1)
    s += 1
    return s
"""

A = ActionKind


@pytest.fixture(scope="module")
def traced(tmp_path_factory: pytest.TempPathFactory):
    path = Path(tmp_path_factory.mktemp("prog")) / "two_calls.py"
    path.write_text(SOURCE)
    program = load_program(path, "f(1)")
    return program, record(program)


def act(kind: ActionKind, target: str | None = None) -> Action:
    return Action(kind=kind, target=target)


def test_forward_tree_nodes_follow_the_events(traced) -> None:
    program, trace = traced
    tree = StateTree.forward(program, trace)
    shape = [(n.kind.value, n.event.function if n.event else None, n.depth) for n in tree.nodes]
    assert shape == [
        ("call", "main", 0),
        ("line", "main", 0),
        ("call", "f", 1),
        ("line", "f", 1),
        ("call", "g", 2),
        ("line", "g", 2),
        ("line", "g", 2),
        ("return", "g", 2),
        ("call", "g", 2),
        ("line", "g", 2),
        ("line", "g", 2),
        ("return", "g", 2),
        ("line", "f", 1),
        ("line", "f", 1),
        ("return", "f", 1),
        ("return", "main", 0),
        ("exit_normal", None, -1),
    ]
    assert tree.nodes[14].event.value == "7"
    assert [n.parent for n in tree.nodes[:6]] == [-1, -1, 1, 1, 3, 3]


@pytest.mark.parametrize(
    ("start", "action", "target"),
    [
        (3, act(A.STEP_INTO), 4),  # into the first call of g
        (3, act(A.STEP_OVER), 12),  # over both calls made by the line
        (7, act(A.STEP_OVER), 8),  # from g's first return to the second call on the same line
        (11, act(A.STEP_OVER), 12),  # end of the level: up to the caller's next line
        (11, act(A.STEP_INTO), 12),
        (5, act(A.STEP_RETURN), 7),
        (9, act(A.STEP_RETURN), 11),
        (2, act(A.STEP_RETURN), 14),  # from f's call state to f's return
        (7, act(A.STEP_RETURN), 12),  # already returning: the caller's next line, as bdb
        (14, act(A.STEP_RETURN), 15),
        (15, act(A.STEP_RETURN), 16),  # the top frame returning: the exit
        (3, act(A.BREAKPOINT, "    return y"), 6),
        (7, act(A.BREAKPOINT, "    return y"), 10),
        (11, act(A.BREAKPOINT, "    return y"), 16),  # never reached again: the exit
        (0, act(A.BREAKPOINT, "    s += 1"), 12),
        (0, act(A.BREAKPOINT, "def g(x):"), 4),  # any event: the call of g
        (6, act(A.BREAKPOINT, "    return y"), 7),  # at the line itself: its return event
        (1, act(A.BREAKPOINT, "    return f(1)"), 15),  # main's return: the entry's output
        (4, act(A.CONTINUE), 16),
    ],
)
def test_forward_action_targets(traced, start: int, action: Action, target: int) -> None:
    program, trace = traced
    assert StateTree.forward(program, trace).next(start, action) == target


def test_inverse_tree_duplicates_lines_that_made_calls(traced) -> None:
    program, trace = traced
    tree = StateTree.inverse_of(program, trace)
    shape = [(n.kind.value, n.event.line if n.event else None, n.depth) for n in tree.nodes]
    assert shape == [
        ("inv_return", 9, 0),
        ("inv_line", 9, 0),
        ("inv_line", 8, 0),
        ("inv_line_call", 7, 0),
        ("inv_return", 3, 1),
        ("inv_line", 3, 1),
        ("inv_line", 2, 1),
        ("inv_call", 1, 1),
        ("inv_return", 3, 1),
        ("inv_line", 3, 1),
        ("inv_line", 2, 1),
        ("inv_call", 1, 1),
        ("inv_line", 7, 0),
        ("inv_call", 6, 0),
        ("inv_exit_entry", None, -1),
    ]
    assert tree.code == SOURCE.rstrip("\n")  # the function alone, no main wrapper
    assert tree.next(3, act(A.INV_STEP_OVER)) == 12
    assert tree.next(3, act(A.INV_STEP_INTO)) == 4
    assert tree.next(5, act(A.INV_STEP_CALL)) == 7
    assert tree.next(7, act(A.INV_STEP_CALL)) == 13  # from g's call up to f's call
    assert tree.next(0, act(A.INV_STEP_CALL)) == 13
    assert tree.next(13, act(A.INV_STEP_CALL)) == 14
    with pytest.raises(ValueError, match="not an action"):
        tree.next(0, act(A.STEP_INTO))


def test_states_are_diff_encoded_like_the_paper(traced) -> None:
    program, trace = traced
    fwd = StateTree.forward(program, trace)
    call_f = fwd.state(2, 1, act(A.STEP_INTO))
    assert (call_f.kind, call_f.locals, call_f.diff) == (StateKind.CALL, {"a": "1"}, False)
    first_line = fwd.state(3, 2, act(A.STEP_INTO))
    assert (first_line.locals, first_line.diff) == ({}, True)
    after_over = fwd.state(12, 3, act(A.STEP_OVER))
    assert (after_over.locals, after_over.diff) == ({"s": "6"}, True)
    after_return = fwd.state(12, 11, act(A.STEP_INTO))  # after g's return: full locals
    assert (after_return.locals, after_return.diff) == ({"a": "1", "s": "6"}, False)
    by_breakpoint = fwd.state(13, 3, act(A.BREAKPOINT, "    return s"))
    assert (by_breakpoint.locals, by_breakpoint.diff) == ({"a": "1", "s": "7"}, False)
    ret = fwd.state(14, 13, act(A.STEP_INTO))
    assert (ret.kind, ret.value, ret.locals) == (StateKind.RETURN, "7", None)

    inv = StateTree.inverse_of(program, trace)
    assert inv.state(1, 0).locals == {"a": "1", "s": "7"}  # after the return state: full
    assert (inv.state(2, 1).locals, inv.state(2, 1).diff) == ({"s": "6"}, True)
    # Stepping back over `s = g(a) + g(a + 1)`: s was not bound yet, marked null.
    back_over_call = inv.state(3, 2)
    assert (back_over_call.kind, back_over_call.locals) == (StateKind.INV_LINE_CALL, {"s": None})


def test_step_into_replays_the_full_trace(traced) -> None:
    program, trace = traced
    fwd = StateTree.forward(program, trace)
    sampled = sample(fwd, STEP_INTO, random.Random(0))
    assert sampled.nodes == list(range(len(fwd)))
    inv = StateTree.inverse_of(program, trace)
    back = sample(inv, INV_STEP_INTO, random.Random(0))
    assert back.nodes == list(range(len(inv)))
    assert back.trajectory.states[-1].kind is StateKind.INV_EXIT_ENTRY


def test_sampled_trajectories_round_trip_and_respect_max_states(traced) -> None:
    program, trace = traced
    fwd = StateTree.forward(program, trace)
    inv = StateTree.inverse_of(program, trace)
    for seed in range(30):
        for tree, policy in ((fwd, PAPER), (inv, PAPER_INVERSE)):
            sampled = sample(tree, policy, random.Random(seed), max_states=6)
            t = sampled.trajectory
            assert parse_trajectory(encode(t)) == t
            assert len(t.states) <= 6 + 2  # inverse closing may climb one level per step
            assert t.states[-1].kind.is_exit
            # every state is the tree's state for the node reached
            for k in range(1, len(t.states)):
                expected = tree.state(sampled.nodes[k], sampled.nodes[k - 1], t.actions[k - 1])
                assert t.states[k] == expected
                assert tree.next(sampled.nodes[k - 1], t.actions[k - 1]) == sampled.nodes[k]
