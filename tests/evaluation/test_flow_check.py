"""The grammar's rules replayed over real trajectory shards: none forbids a recorded state, and
a state changed to break the "a step cannot change it" rule is caught."""

from __future__ import annotations

import json
import random
from pathlib import Path

from neural_debugger.evaluation.flow_check import main
from neural_debugger.model_backend.flow import LineFlow, expect
from neural_debugger.protocol import ActionKind, State, parse_trajectory
from neural_debugger.protocol.encoding import encode
from neural_debugger.protocol.source_map import SourceMap
from neural_debugger.training.data import DataSpec, program_trajectories
from neural_debugger.training.programs import generate_programs
from neural_debugger.training.shards import ShardWriter


def _records() -> list[dict]:
    spec = DataSpec(programs=30, seed=9, max_states=40)
    rng = random.Random(9)
    records: list[dict] = []
    for index, program in enumerate(generate_programs(9, 30)):
        records += program_trajectories(program, index, spec, rng)[0]
    return records


def _break_one(records: list[dict]) -> list[dict]:
    """The records with one step's diff changed to show a variable its line cannot change."""
    for n, record in enumerate(records):
        trajectory = parse_trajectory(record["text"])
        states, actions = trajectory.states, trajectory.actions
        source, flow = SourceMap(trajectory.code), LineFlow(trajectory.code)
        for k in range(1, len(states)):
            if actions[k - 1].kind not in (ActionKind.STEP_INTO, ActionKind.STEP_OVER):
                continue
            expected = expect(flow, source, states[:k], actions[: k - 1], actions[k - 1])
            kept = expected.unchanged.get(states[k].src or "")
            if kept and states[k].diff:
                name = sorted(kept)[0]
                changed = State(
                    kind=states[k].kind,
                    src=states[k].src,
                    locals={**(states[k].locals or {}), name: "'changed'"},
                    diff=True,
                )
                broken = trajectory.model_copy(
                    update={"states": (*states[:k], changed, *states[k + 1 :])}
                )
                return [*records[:n], {**record, "text": encode(broken)}, *records[n + 1 :]]
    raise AssertionError("no step had a variable its line cannot change")


def _run(records: list[dict], folder: Path) -> dict:
    folder.mkdir()
    writer = ShardWriter(folder, 50)
    writer.write(records)
    writer.close()
    out = folder.parent / f"{folder.name}.json"
    assert main([str(folder), "--out", str(out)]) == 0
    return json.loads(out.read_text())


def test_real_trajectories_keep_to_the_rules_and_a_broken_one_is_caught(tmp_path: Path) -> None:
    records = _records()
    real = _run(records, tmp_path / "real")
    assert real["trajectories"] == {str(tmp_path / "real"): len(records)}
    assert real["all"]["states"] > 300 and real["all"]["forbidden"] == 0
    assert real["all"]["constrained"] > real["all"]["states"] / 2
    assert real["actions"]["step_over"]["narrowed"] > 0
    assert real["actions"]["inv_step_into"]["ruled_out"] > 0  # a first line's step back
    assert real["actions"]["breakpoint"]["required"] > 0  # e.g. a function's arguments
    assert real["forbidden_examples"] == []
    broken = _run(_break_one(records), tmp_path / "broken")
    # the changed state; a later step whose values a line computes from the changed history
    # may then be forbidden too
    assert broken["all"]["forbidden"] >= 1
    example = broken["forbidden_examples"][0]
    assert example["action"] in ("step_into", "step_over")
    assert "'changed'" in example["state"]["locals"].values()
