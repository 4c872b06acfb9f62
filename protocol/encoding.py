"""Serialise states, actions and trajectories in the paper's layout.

::

    <|begin_of_text|><|trace_context_start|>CODE
    <|frame_sep|>STATE
    <|action_sep|>ACTION

    <|frame_sep|>STATE
    ...
    <|frame_sep|><|exit_normal|><|trace_end|><|end_of_text|>

States (``\\n`` is a newline character; SRC is one source line with its indentation)::

    <|call_sep|>\\n<|src_sep|>SRC\\n<|arg_sep|>{"x": "5"}              call, inverse call/line
    <|line_sep|>\\n<|arg_sep|>{"..": "..", "n": "0"}<|src_sep|>SRC     forward line: locals first
    <|return_sep|>\\n<|src_sep|>SRC\\n<|arg_sep|>"[1, 2, 3]"           return/exception: a value
    <|exit_normal|>                                                   exits: the token alone

Locals are a JSON object of ``repr`` strings; a diff starts with ``"..": ".."``. A prompt for one
prediction ends with ``<|action_sep|>ACTION\\n\\n<|frame_sep|>``; the model then writes the next
state followed by ``\\n<|action_sep|>`` (or, for an exit, ``<|trace_end|>``).
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from .language import Action, Locals, State, Trajectory
from .tokens import (
    ACTION_SEP,
    ARG_SEP,
    BEGIN_OF_TEXT,
    DIFF_MARKER_KEY,
    DIFF_MARKER_VALUE,
    END_OF_TEXT,
    FRAME_SEP,
    SRC_SEP,
    TRACE_CONTEXT_START,
    TRACE_END,
    ActionKind,
    StateKind,
)


def encode_locals(locals_: Locals, diff: bool) -> str:
    """The JSON object of a state's locals, with the diff marker first when it is a diff."""
    shown: dict[str, str | None] = {DIFF_MARKER_KEY: DIFF_MARKER_VALUE} if diff else {}
    shown.update(locals_)
    return json.dumps(shown, ensure_ascii=False)


def encode_value(value: str) -> str:
    """A return value or exception: the JSON string of its repr text."""
    return json.dumps(value, ensure_ascii=False)


def encode_state(state: State) -> str:
    """One state, without the newline that follows it in a trajectory."""
    kind = state.kind
    if kind.is_exit:
        return kind.token
    assert state.src is not None
    if kind is StateKind.LINE:
        assert state.locals is not None
        return (
            f"{kind.token}\n{ARG_SEP}{encode_locals(state.locals, state.diff)}{SRC_SEP}{state.src}"
        )
    if kind.shows_locals:
        assert state.locals is not None
        payload = encode_locals(state.locals, state.diff)
    else:
        assert state.value is not None
        payload = encode_value(state.value)
    return f"{kind.token}\n{SRC_SEP}{state.src}\n{ARG_SEP}{payload}"


def encode_action(action: Action) -> str:
    if action.kind is ActionKind.BREAKPOINT:
        return f"{action.kind.token}{action.target}"
    return action.kind.token


def encode_header(code: str) -> str:
    return f"{BEGIN_OF_TEXT}{TRACE_CONTEXT_START}{code}\n"


def encode_frame(state: State) -> str:
    """A state as it stands in a trajectory: frame separator, state, newline (none after exits)."""
    text = FRAME_SEP + encode_state(state)
    return text if state.kind.is_exit else text + "\n"


def encode_step(action: Action) -> str:
    """An action as it stands between two states."""
    return f"{ACTION_SEP}{encode_action(action)}\n\n"


def encode(trajectory: Trajectory) -> str:
    """The whole trajectory as text; a complete one closes with trace end and end of text."""
    parts = [encode_header(trajectory.code)]
    for i, state in enumerate(trajectory.states):
        parts.append(encode_frame(state))
        if i < len(trajectory.actions):
            parts.append(encode_step(trajectory.actions[i]))
    if trajectory.complete:
        parts.append(TRACE_END + END_OF_TEXT)
    return "".join(parts)


def encode_prompt(code: str, states: Sequence[State], actions: Sequence[Action]) -> str:
    """The prompt for predicting the state that ``actions[-1]`` leads to from ``states[-1]``.

    ``actions`` has as many entries as ``states``: the last one is the action to predict.
    """
    if len(actions) != len(states) or not states:
        raise ValueError("a prompt needs one action after each state, the last being asked")
    if any(state.kind.is_exit for state in states):
        raise ValueError("no action can follow an exit state")
    Trajectory(code=code, states=tuple(states), actions=tuple(actions[:-1]))  # validates
    parts = [encode_header(code)]
    for state, action in zip(states, actions, strict=True):
        parts.append(encode_frame(state))
        parts.append(encode_step(action))
    parts.append(FRAME_SEP)
    return "".join(parts)
