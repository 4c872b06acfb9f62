"""How often the stack a session infers has the real depth, on the corpus programs' traces.

Why: the language carries no stack depth; :class:`neural_debugger.protocol.source_map.LineTracker`
infers the stack from the states it has seen and, after a breakpoint jump, from the code. This
replays sampled trajectories of the 240 corpus programs (the paper's forward and inverse
policies and pure step-into, as the tests do) through the tracker with the true states, and
counts where its depth matches the tracer's: over all states, at breakpoint stops, and at the
stops after a breakpoint jump (where a wrong stack stays wrong).

``python -m neural_debugger.evaluation.stack_depth`` prints the counts and rates.
"""

from __future__ import annotations

import json
import random
import tempfile
from pathlib import Path

from neural_debugger.protocol.source_map import LineTracker, SourceMap
from neural_debugger.protocol.tokens import ActionKind
from neural_debugger.tracer.program import load_program
from neural_debugger.tracer.record import record
from neural_debugger.tracer.sampler import PAPER, PAPER_INVERSE, STEP_INTO, sample
from neural_debugger.tracer.tree import StateTree

from .corpus import corpus


def measure(programs: int = 240, seed: int = 1) -> dict[str, int | float]:
    counts = dict.fromkeys(
        ("states", "depth", "line", "breakpoint", "breakpoint_depth", "after", "after_depth"), 0
    )
    with tempfile.TemporaryDirectory() as folder:
        for item in corpus(programs):
            path = Path(folder) / f"{item.name}.py"
            path.write_text(item.source)
            program = load_program(path, item.entry)
            trace = record(program)
            for inverse in (False, True):
                tree = (StateTree.inverse_of if inverse else StateTree.forward)(program, trace)
                for policy in (PAPER_INVERSE,) if inverse else (PAPER, STEP_INTO):
                    sampled = sample(tree, policy, random.Random(seed), max_states=150)
                    tracker = LineTracker(SourceMap(sampled.trajectory.code))
                    jumped = False
                    states, actions = sampled.trajectory.states, sampled.trajectory.actions
                    for k, (state, index) in enumerate(zip(states, sampled.nodes, strict=True)):
                        action = actions[k - 1] if k else None
                        located = tracker.locate(state, action)
                        node = tree.nodes[index]
                        if node.event is None:
                            continue
                        right = located.depth == node.depth
                        counts["states"] += 1
                        counts["depth"] += right
                        line = program.context_line(node.event.file, node.event.line)
                        counts["line"] += located.line == line
                        if action is not None and action.kind is ActionKind.BREAKPOINT:
                            jumped = True
                            counts["breakpoint"] += 1
                            counts["breakpoint_depth"] += right
                        elif jumped:
                            counts["after"] += 1
                            counts["after_depth"] += right
    rates = {
        "depth_rate": counts["depth"] / max(counts["states"], 1),
        "breakpoint_depth_rate": counts["breakpoint_depth"] / max(counts["breakpoint"], 1),
        "after_breakpoint_depth_rate": counts["after_depth"] / max(counts["after"], 1),
    }
    return {**counts, **rates}


def main() -> int:
    print(json.dumps(measure(), indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
