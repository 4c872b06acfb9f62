"""The horizon items: real jumps on real traces, bucketed by how far they go."""

from __future__ import annotations

from collections import Counter

import pytest

from neural_debugger.evaluation import next_state
from neural_debugger.protocol.encoding import encode_state


def test_buckets_cover_every_distance_once() -> None:
    assert [next_state.bucket_label(b) for b in next_state.BUCKETS] == [
        "1", "2-3", "4-7", "8-15", "16-31", "32+",
    ]  # fmt: skip
    for distance in range(1, 200):
        low, high = next_state.bucket_of(distance)
        assert low <= distance and (high is None or distance <= high)
    with pytest.raises(ValueError):
        next_state.bucket_of(0)


@pytest.fixture(scope="module")
def items() -> list[next_state.Item]:
    return next_state.horizon_items(programs=25, seed=11, per_bucket=3, max_prompt_chars=6000)


def test_items_are_jumps_with_their_real_targets(items: list[next_state.Item]) -> None:
    assert items
    actions = Counter(item.action for item in items)
    assert set(actions) <= {"step_over", "step_return", "breakpoint", "inv_step_over",
                            "inv_step_call"}  # fmt: skip
    assert {"breakpoint", "step_over", "inv_step_call"} <= set(actions)
    per_cell = Counter((i.action, next_state.bucket_of(i.distance)) for i in items)
    assert max(per_cell.values()) <= 3
    # breakpoints are drawn evenly over the buckets: more than the shortest jumps are asked
    assert len({next_state.bucket_of(i.distance) for i in items if i.action == "breakpoint"}) > 2
    for item in items:
        assert item.distance >= 1
        assert item.history is not None and item.next_action is not None
        assert item.next_action.kind.value == item.action
        assert item.prompt.endswith("\n\n<|frame_sep|>")
        # the truth scores as right, and another state as wrong
        assert next_state.score(encode_state(item.target), item.target)["exact"]
        assert not next_state.score(encode_state(item.history.states[-1]), item.target)["exact"]


def test_items_are_the_same_for_the_same_seed(items: list[next_state.Item]) -> None:
    again = next_state.horizon_items(programs=25, seed=11, per_bucket=3, max_prompt_chars=6000)
    assert [(i.prompt, i.target, i.distance) for i in again] == [
        (i.prompt, i.target, i.distance) for i in items
    ]
