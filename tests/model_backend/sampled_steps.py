"""Steps from line states of real trajectories, as training data samples them: the shared
replay of the tests that check a decoder rule against what real runs do."""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from neural_debugger.model_backend.flow import LineFlow
from neural_debugger.protocol import (
    Action,
    ActionKind,
    State,
    StateKind,
    parse_trajectory,
    standalone,
)
from neural_debugger.protocol.source_map import SourceMap
from neural_debugger.tracer.program import Program
from neural_debugger.tracer.record import record
from neural_debugger.tracer.tree import StateTree
from neural_debugger.training.data import TRACE_LIMITS, DataSpec, program_trajectories
from neural_debugger.training.programs.drills import drill_programs
from neural_debugger.training.programs.everyday import everyday_programs


@dataclass(frozen=True)
class Step:
    """A step into or over from a line state, and the state the real run showed next."""

    flow: LineFlow
    source: SourceMap
    states: tuple[State, ...]  # the history, up to the line state
    actions: tuple[Action, ...]  # the actions between those states
    action: Action
    after: State
    here: list[int]  # the lines the line state may stand on
    before: Mapping[str, str | None]  # the frame's whole locals on the line


def line_steps(seed: int) -> Iterator[Step]:
    """Every step into or over from a line state of the trajectories of 120 drills and 60
    everyday scripts drawn with ``seed`` (the real tracer)."""
    spec = DataSpec(programs=120, seed=seed, max_states=40)
    rng = random.Random(seed)
    programs = drill_programs(seed, 120)[0] + everyday_programs(seed, 60)[0]
    for index, candidate in enumerate(programs):
        for sampled in program_trajectories(candidate, index, spec, rng)[0]:
            trajectory = parse_trajectory(sampled["text"])
            source, flow = SourceMap(trajectory.code), LineFlow(trajectory.code)
            states, actions = trajectory.states, trajectory.actions
            for k in range(1, len(states)):
                last, action = states[k - 1], actions[k - 1]
                stepped = action.kind in (ActionKind.STEP_INTO, ActionKind.STEP_OVER)
                if not stepped or last.kind is not StateKind.LINE:
                    continue
                here = source.by_text.get(last.src or "", [])
                before = standalone(states[:k], k - 1).locals or {}
                yield Step(
                    flow, source, states[:k], actions[: k - 1], action, states[k], here, before
                )


def run_steps(code: str, entry: str) -> list[tuple[tuple[State, ...], tuple[Action, ...], State]]:
    """Every step into of a real run of ``entry`` over ``code`` (the real tracer): the history
    before it (states, actions) and the state it shows next."""
    program = Program(path="p.py", source=code, entry=entry)
    tree = StateTree.forward(program, record(program, TRACE_LIMITS))
    into = Action(kind=ActionKind.STEP_INTO)
    states, i, steps = [tree.state(0)], 0, []
    while True:
        following = tree.next(i, into)
        if following is None:
            return steps
        after = tree.state(following, i, into)
        steps.append((tuple(states), (into,) * (len(states) - 1), after))
        if after.kind.is_exit:
            return steps
        states.append(after)
        i = following
