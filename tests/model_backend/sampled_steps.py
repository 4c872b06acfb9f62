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
from neural_debugger.training.data import DataSpec, program_trajectories
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
