"""Trajectories longer than a training row, cut into the windows a long session's prompt shows.

A debug session that outgrows the model's window drops its oldest states and writes the first
state it keeps with full locals (:func:`neural_debugger.protocol.standalone`). Training on whole
trajectories only would throw away every long one (the loops and deep call chains that need the
model most) and would never show the model a prompt that starts in the middle of a run. So a
trajectory longer than a row becomes windows: the code header, a first state written whole,
then the states that follow while they fit. Consecutive windows share one state (the last of
one is the first of the next), so every transition is a target exactly once. The first state of
a later window is context only: nothing before it in the window says what it should be.
"""

from __future__ import annotations

from dataclasses import dataclass

from tokenizers import Tokenizer

from neural_debugger.protocol import parse_trajectory, standalone
from neural_debugger.protocol.encoding import encode_frame
from neural_debugger.protocol.tokens import ACTION_SEP, FRAME_SEP, TRACE_END


@dataclass(frozen=True)
class Window:
    """Token ids of one training document; the first ``context`` of them carry no loss."""

    ids: list[int]
    context: int


@dataclass(frozen=True)
class Cut:
    """The windows of one trajectory, and how many of its transitions fit in none."""

    windows: list[Window]
    lost_transitions: int


def cut(text: str, ids: list[int], tokenizer: Tokenizer, size: int) -> Cut:
    """``text`` (one encoded trajectory, ``ids`` its tokens) as windows of at most ``size`` tokens.

    The language's separators are special tokens, so ``ids`` splits at them into the header and
    one piece per state and per action; only a window's whole first state is tokenized anew.
    A transition is lost when its two states and the header do not fit in ``size``.
    """
    trajectory = parse_trajectory(text)
    states = trajectory.states
    header, frames, tails = _pieces(ids, tokenizer)
    if len(frames) != len(states):
        raise ValueError(f"{len(states)} states but {len(frames)} frame separators in the tokens")

    windows: list[Window] = []
    lost = 0
    start = 0
    while start < len(states) - 1:
        first = frames[0]
        if start:
            whole = encode_frame(standalone(states, start))
            first = tokenizer.encode(whole, add_special_tokens=False).ids
        window = header + first + tails[start]
        context = len(window) if start else 0
        end = start + 1
        while end < len(states) and len(window) + len(frames[end]) + len(tails[end]) <= size:
            window += frames[end] + tails[end]
            end += 1
        if end == start + 1:  # not even the next state fits after this one: skip the transition
            lost += 1
            start += 1
            continue
        windows.append(Window(window, context))
        start = end - 1
    return Cut(windows, lost)


def _pieces(
    ids: list[int], tokenizer: Tokenizer
) -> tuple[list[int], list[list[int]], list[list[int]]]:
    """The header, each state's frame (from its frame separator) and what follows each state (its
    action, or the trace end) as token ids."""
    frame_id = tokenizer.token_to_id(FRAME_SEP)
    tail_ids = {tokenizer.token_to_id(ACTION_SEP), tokenizer.token_to_id(TRACE_END)}
    starts = [i for i, token in enumerate(ids) if token == frame_id]
    if not starts:
        raise ValueError("no state in the tokens")
    frames: list[list[int]] = []
    tails: list[list[int]] = []
    for k, begin in enumerate(starts):
        stop = starts[k + 1] if k + 1 < len(starts) else len(ids)
        middle = next((i for i in range(begin, stop) if ids[i] in tail_ids), stop)
        frames.append(ids[begin:middle])
        tails.append(ids[middle:stop])
    return ids[: starts[0]], frames, tails
