"""Sample trajectories (states and actions in the language) by walking a state tree.

The paper's action policy, per step: with probability 0.5 draw an action from fixed weights
(``step_into`` .35, ``step_over`` .1, ``step_return`` .2, ``breakpoint`` .1, ``continue`` .05,
normalised), otherwise ``step_into`` or ``step_over`` with equal odds, which keeps trajectories
long. Inverse trajectories use the same scheme over ``inv_step_into`` .35, ``inv_step_over`` .1
and ``inv_step_call`` .2 (ours: the paper gives no inverse weights).

Breakpoint targets (ours, the paper does not say): with probability ``breakpoint_reached``
(0.8), the source line of a later line state drawn uniformly among all later line states (so a
line that runs often is drawn more often); otherwise a statement line of the code context drawn
uniformly, which may never be reached and then teaches the jump to the exit.

A trajectory longer than ``max_states`` is closed early: forward with ``continue`` to the exit,
inverse with ``inv_step_call`` up to the entry exit, so every sampled trajectory is complete.
"""

from __future__ import annotations

import ast
import bisect
import random
from collections.abc import Mapping
from dataclasses import dataclass, field

from neural_debugger.protocol.language import Action, State, Trajectory
from neural_debugger.protocol.tokens import ActionKind, StateKind

from .tree import StateTree


@dataclass(frozen=True)
class Policy:
    """How actions are drawn: from ``weights`` with probability ``mix``, else from ``fallback``."""

    name: str
    weights: Mapping[ActionKind, float]
    fallback: Mapping[ActionKind, float]
    mix: float = 0.5
    breakpoint_reached: float = 0.8

    def draw(self, rng: random.Random) -> ActionKind:
        table = self.weights if rng.random() < self.mix else self.fallback
        kinds = list(table)
        return rng.choices(kinds, weights=[table[k] for k in kinds])[0]


PAPER = Policy(
    name="paper",
    weights={
        ActionKind.STEP_INTO: 0.35,
        ActionKind.STEP_OVER: 0.1,
        ActionKind.STEP_RETURN: 0.2,
        ActionKind.BREAKPOINT: 0.1,
        ActionKind.CONTINUE: 0.05,
    },
    fallback={ActionKind.STEP_INTO: 0.5, ActionKind.STEP_OVER: 0.5},
)
PAPER_INVERSE = Policy(
    name="paper",
    weights={
        ActionKind.INV_STEP_INTO: 0.35,
        ActionKind.INV_STEP_OVER: 0.1,
        ActionKind.INV_STEP_CALL: 0.2,
    },
    fallback={ActionKind.INV_STEP_INTO: 0.5, ActionKind.INV_STEP_OVER: 0.5},
)
STEP_INTO = Policy(
    name="step_into",
    weights={ActionKind.STEP_INTO: 1.0},
    fallback={ActionKind.STEP_INTO: 1.0},
)
INV_STEP_INTO = Policy(
    name="step_into",
    weights={ActionKind.INV_STEP_INTO: 1.0},
    fallback={ActionKind.INV_STEP_INTO: 1.0},
)

POLICIES: dict[tuple[str, bool], Policy] = {
    ("paper", False): PAPER,
    ("paper", True): PAPER_INVERSE,
    ("step_into", False): STEP_INTO,
    ("step_into", True): INV_STEP_INTO,
}


def statement_lines(code: str) -> list[str]:
    """Distinct source lines of the code context on which a statement starts."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return []
    lines = code.split("\n")
    numbers = sorted({node.lineno for node in ast.walk(tree) if isinstance(node, ast.stmt)})
    return list(dict.fromkeys(lines[n - 1] for n in numbers if 0 < n <= len(lines)))


@dataclass
class SampledTrajectory:
    """A trajectory and, for each of its states, the tree node it shows."""

    trajectory: Trajectory
    nodes: list[int]
    tree: StateTree = field(repr=False)


def _line_nodes(tree: StateTree) -> list[int]:
    return [n.index for n in tree.nodes if n.kind is StateKind.LINE]


def sample(
    tree: StateTree,
    policy: Policy,
    rng: random.Random,
    max_states: int | None = None,
) -> SampledTrajectory:
    """Walk ``tree`` from its first node with actions drawn by ``policy``."""
    if max_states is not None and max_states < 2:
        raise ValueError("max_states must leave room for a start state and the exit")
    line_nodes = _line_nodes(tree)
    code_lines = statement_lines(tree.code)
    i = 0
    nodes = [0]
    states: list[State] = [tree.state(0)]
    actions: list[Action] = []
    while not tree.nodes[i].kind.is_exit:
        if max_states is not None and len(states) >= max_states - 1:
            kind = ActionKind.INV_STEP_CALL if tree.inverse else ActionKind.CONTINUE
        else:
            kind = policy.draw(rng)
        if kind is ActionKind.BREAKPOINT:
            action = Action(
                kind=kind, target=_breakpoint_target(tree, i, line_nodes, code_lines, policy, rng)
            )
        else:
            action = Action(kind=kind)
        j = tree.next(i, action)
        states.append(tree.state(j, i, action))
        actions.append(action)
        nodes.append(j)
        i = j
    trajectory = Trajectory(code=tree.code, states=tuple(states), actions=tuple(actions))
    return SampledTrajectory(trajectory=trajectory, nodes=nodes, tree=tree)


def _breakpoint_target(
    tree: StateTree,
    i: int,
    line_nodes: list[int],
    code_lines: list[str],
    policy: Policy,
    rng: random.Random,
) -> str:
    later = line_nodes[bisect.bisect_right(line_nodes, i) :]
    if later and (rng.random() < policy.breakpoint_reached or not code_lines):
        event = tree.nodes[rng.choice(later)].event
        assert event is not None
        return event.src
    if code_lines:
        return rng.choice(code_lines)
    event = tree.nodes[i].event
    return event.src if event is not None else ""
