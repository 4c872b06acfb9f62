"""Sampled trajectories over the whole corpus: complete, parseable, faithful to the tree."""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path

from neural_debugger.evaluation.corpus import corpus
from neural_debugger.protocol import ActionKind, StateKind, encode, parse_trajectory
from neural_debugger.tracer.program import load_program
from neural_debugger.tracer.record import record
from neural_debugger.tracer.sampler import (
    INV_STEP_INTO,
    PAPER,
    PAPER_INVERSE,
    STEP_INTO,
    Policy,
    sample,
)
from neural_debugger.tracer.tree import StateTree


def test_every_corpus_trajectory_round_trips_and_ends_in_an_exit(tmp_path: Path) -> None:
    actions: Counter[ActionKind] = Counter()
    exits: Counter[StateKind] = Counter()
    for item in corpus(240):
        path = tmp_path / f"{item.name}.py"
        path.write_text(item.source)
        program = load_program(path, item.entry)
        trace = record(program)
        forward = StateTree.forward(program, trace)
        inverse = StateTree.inverse_of(program, trace)
        full = sample(forward, STEP_INTO, random.Random(0))
        assert full.nodes == list(range(len(forward)))  # step_into replays the full trace
        back = sample(inverse, INV_STEP_INTO, random.Random(0))
        assert back.nodes == list(range(len(inverse)))
        for tree, policy in ((forward, PAPER), (inverse, PAPER_INVERSE)):
            for seed in range(2):
                t = sample(tree, policy, random.Random(seed), max_states=200).trajectory
                assert parse_trajectory(encode(t)) == t
                actions.update(a.kind for a in t.actions)
                exits[t.states[-1].kind] += 1
                if tree.inverse:
                    assert t.states[0].kind is StateKind.INV_RETURN
                    assert t.states[-1].kind is StateKind.INV_EXIT_ENTRY
    assert set(actions) == set(ActionKind)  # every action of the language is exercised
    assert exits[StateKind.EXIT_ERROR] > 0 and exits[StateKind.EXIT_NORMAL] > 0


def test_policy_draws_follow_the_paper_mix() -> None:
    rng = random.Random(0)
    counts = Counter(PAPER.draw(rng) for _ in range(40_000))
    # 0.5 * normalised weights + 0.5 * (step_into / step_over 50/50)
    total_weight = 0.35 + 0.1 + 0.2 + 0.1 + 0.05
    expected_into = 0.5 * 0.35 / total_weight + 0.25
    assert abs(counts[ActionKind.STEP_INTO] / 40_000 - expected_into) < 0.01
    expected_continue = 0.5 * 0.05 / total_weight
    assert abs(counts[ActionKind.CONTINUE] / 40_000 - expected_continue) < 0.005


def test_breakpoint_targets_are_usually_reached() -> None:
    policy = Policy("bp", {ActionKind.BREAKPOINT: 1.0}, {ActionKind.BREAKPOINT: 1.0}, mix=1.0)
    source = "total = 0\nfor i in range(30):\n    total += i\n    if i == 99:\n        total = -1\n"
    from neural_debugger.tracer.program import Program

    program = Program(path="loop.py", source=source)
    tree = StateTree.forward(program, record(program))
    reached = unreached = 0
    for seed in range(200):
        sampled = sample(tree, policy, random.Random(seed), max_states=3)
        hit = not tree.nodes[sampled.nodes[1]].kind.is_exit
        reached += hit
        unreached += not hit
    # 0.8 drawn from later lines; 0.2 from any statement, of which 4 of 5 run later: about 0.96
    assert 0.9 < reached / 200 < 0.995
    assert unreached > 0  # e.g. `        total = -1`, which never runs
