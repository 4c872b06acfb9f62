"""Long trajectories become the windows a long session's prompt shows, not lost training data."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from neural_debugger.model_backend.tokenizer import load_tokenizer
from neural_debugger.paths import default_model_dir
from neural_debugger.protocol import encode, parse_prompt, parse_trajectory
from neural_debugger.protocol.tokens import FRAME_SEP, TRACE_END
from neural_debugger.tracer.program import load_program
from neural_debugger.tracer.record import record
from neural_debugger.tracer.sampler import STEP_INTO, sample
from neural_debugger.tracer.tree import StateTree
from neural_debugger.training.train import pack, state_mask
from neural_debugger.training.windows import cut

TOKENIZER = load_tokenizer(Path(default_model_dir()))
LOOP = """\
def grow(n):
    items = []
    total = 0
    for i in range(n):
        items.append(i * i)
        total += items[-1]
    return total, len(items)

def main():
    return grow(30)
"""


@pytest.fixture(scope="module")
def traced(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, StateTree, list[int]]:
    """A real run of a loop stepped into all the way: its text, state tree and visited nodes."""
    path = Path(tmp_path_factory.mktemp("prog")) / "loop.py"
    path.write_text(LOOP)
    program = load_program(path, "main()")
    tree = StateTree.forward(program, record(program))
    sampled = sample(tree, STEP_INTO, random.Random(0))
    return encode(sampled.trajectory), tree, sampled.nodes


@pytest.fixture(scope="module")
def long_text(traced: tuple[str, StateTree, list[int]]) -> str:
    return traced[0]


def ids_of(text: str) -> list[int]:
    return TOKENIZER.encode(text, add_special_tokens=False).ids


def test_a_trajectory_that_fits_is_one_window_of_its_own_tokens(long_text: str) -> None:
    whole = cut(long_text, ids_of(long_text), TOKENIZER, 10**6)
    assert [w.ids for w in whole.windows] == [ids_of(long_text)]
    assert whole.windows[0].context == 0 and whole.lost_transitions == 0


def test_windows_fit_share_one_state_and_cover_every_transition(long_text: str) -> None:
    full = parse_trajectory(long_text)
    size = 400
    assert len(ids_of(long_text)) > 3 * size
    pieces = cut(long_text, ids_of(long_text), TOKENIZER, size)
    assert pieces.lost_transitions == 0 and len(pieces.windows) >= 3
    covered = []
    for k, window in enumerate(pieces.windows):
        assert len(window.ids) <= size
        text = TOKENIZER.decode(window.ids, skip_special_tokens=False)
        last = k == len(pieces.windows) - 1
        if last:
            part = parse_trajectory(text)
        else:  # a window ends with an action, like a prompt before its frame separator
            part, action = parse_prompt(text + FRAME_SEP)
            assert action == full.actions[len(covered) + len(part.states) - 1]
        assert part.code == full.code
        assert not part.states[0].diff  # a window starts with a whole state
        if k:
            assert window.context > 0
            assert covered[-1] == len(covered) - 1  # starts at the previous window's last state
            covered.pop()
        covered += range(len(covered), len(covered) + len(part.states))
    assert covered == list(range(len(full.states)))
    assert parse_trajectory(text).states[-1] == full.states[-1]


def test_a_window_starts_with_the_state_the_tracer_shows_whole(
    traced: tuple[str, StateTree, list[int]],
) -> None:
    long_text, tree, nodes = traced
    full = parse_trajectory(long_text)
    windows = cut(long_text, ids_of(long_text), TOKENIZER, 400).windows
    start = 0
    for window in windows:
        text = TOKENIZER.decode(window.ids, skip_special_tokens=False)
        part = (
            parse_trajectory(text)
            if text.endswith("<|end_of_text|>")
            else parse_prompt(text + FRAME_SEP)[0]
        )
        # the tracer's own state at that point, its locals written whole (no earlier state)
        assert part.states[0] == tree.state(nodes[start])
        assert part.states[1:] == full.states[start + 1 : start + len(part.states)]
        start += len(part.states) - 1
    assert start == len(full.states) - 1


def test_packing_trains_each_state_once_and_never_a_window_s_first(long_text: str) -> None:
    pad = TOKENIZER.token_to_id("<|pad|>")
    packed = pack([long_text], TOKENIZER, block_size=399, seed=0, pad_id=pad)
    windows = cut(long_text, ids_of(long_text), TOKENIZER, 400).windows
    assert packed.windowed == 1 and packed.lost_transitions == 0
    assert packed.documents == len(windows) > 1
    frame_id = TOKENIZER.token_to_id(FRAME_SEP)
    stop_ids = {TOKENIZER.token_to_id("<|action_sep|>"), TOKENIZER.token_to_id(TRACE_END)}
    whole_targets = sum(state_mask(ids_of(long_text), frame_id, stop_ids))
    assert packed.target_tokens == whole_targets
    assert packed.tokens.shape[1] == 400


def test_a_state_too_big_for_any_window_loses_only_its_transitions(long_text: str) -> None:
    pieces = cut(long_text, ids_of(long_text), TOKENIZER, len(ids_of(LOOP)) + 40)
    assert pieces.lost_transitions > 0
    assert all(len(w.ids) <= len(ids_of(LOOP)) + 40 for w in pieces.windows)
