"""The language: exact layout, precise parse errors, and parse(encode(x)) == x."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from neural_debugger.protocol import (
    Action,
    ActionKind,
    ParseError,
    State,
    StateKind,
    Trajectory,
    encode,
    encode_prompt,
    encode_state,
    parse_action,
    parse_prompt,
    parse_state,
    parse_trajectory,
)
from neural_debugger.protocol.tokens import ALL_SPECIAL_TOKENS

CODE = "def f(x):\n    n = 0\n    return x + n"


def paper_example() -> Trajectory:
    return Trajectory(
        code=CODE,
        states=(
            State(kind=StateKind.CALL, src="def f(x):", locals={"x": "5"}),
            State(kind=StateKind.LINE, src="    n = 0", locals={}, diff=True),
            State(kind=StateKind.LINE, src="    return x + n", locals={"n": "0"}, diff=True),
            State(kind=StateKind.RETURN, src="    return x + n", value="5"),
            State(kind=StateKind.EXIT_NORMAL),
        ),
        actions=(
            Action(kind=ActionKind.STEP_INTO),
            Action(kind=ActionKind.STEP_OVER),
            Action(kind=ActionKind.BREAKPOINT, target="    return x + n"),
            Action(kind=ActionKind.CONTINUE),
        ),
    )


def test_encode_matches_the_paper_layout_exactly() -> None:
    expected = (
        "<|begin_of_text|><|trace_context_start|>def f(x):\n    n = 0\n    return x + n\n"
        '<|frame_sep|><|call_sep|>\n<|src_sep|>def f(x):\n<|arg_sep|>{"x": "5"}\n'
        "<|action_sep|><|step_into|>\n\n"
        '<|frame_sep|><|line_sep|>\n<|arg_sep|>{"..": ".."}<|src_sep|>    n = 0\n'
        "<|action_sep|><|step_over|>\n\n"
        '<|frame_sep|><|line_sep|>\n<|arg_sep|>{"..": "..", "n": "0"}<|src_sep|>    return x + n\n'
        "<|action_sep|><|breakpoint|>    return x + n\n\n"
        '<|frame_sep|><|return_sep|>\n<|src_sep|>    return x + n\n<|arg_sep|>"5"\n'
        "<|action_sep|><|continue|>\n\n"
        "<|frame_sep|><|exit_normal|><|trace_end|><|end_of_text|>"
    )
    assert encode(paper_example()) == expected
    assert parse_trajectory(expected) == paper_example()


def test_inverse_states_put_the_source_first() -> None:
    state = State(kind=StateKind.INV_LINE, src="    n = 0", locals={"n": None}, diff=True)
    assert (
        encode_state(state)
        == '<|inv_line_sep|>\n<|src_sep|>    n = 0\n<|arg_sep|>{"..": "..", "n": null}'
    )
    ret = State(kind=StateKind.INV_RETURN, src="    return x", value="[1, 2]")
    assert encode_state(ret) == '<|inv_return_sep|>\n<|src_sep|>    return x\n<|arg_sep|>"[1, 2]"'


def test_prompt_ends_where_the_model_writes_the_next_state() -> None:
    t = paper_example()
    prompt = encode_prompt(t.code, t.states[:2], t.actions[:2])
    assert prompt.endswith("<|action_sep|><|step_over|>\n\n<|frame_sep|>")
    full = encode(t)
    assert full.startswith(prompt)
    # What follows the prompt in the full text is the next state, then the next separator.
    rest = full[len(prompt) :]
    assert rest.startswith(encode_state(t.states[2]) + "\n<|action_sep|>")


@pytest.mark.parametrize(
    ("text", "field", "offset"),
    [
        ("<|lin_sep|>\n", "kind", 0),
        ("<|line_sep|><|arg_sep|>{}<|src_sep|>x", "layout", 12),
        ("<|line_sep|>\n<|arg_sep|>{}", "src", 26),
        ('<|line_sep|>\n<|arg_sep|>{"a": 1}<|src_sep|>x', "locals", 24),
        ('<|line_sep|>\n<|arg_sep|>{"a": "1",}<|src_sep|>x', "locals", 34),
        ('<|line_sep|>\n<|arg_sep|>{"a": "1", "..": ".."}<|src_sep|>x', "locals", 24),
        ('<|line_sep|>\n<|arg_sep|>{"a": "1", "a": "2"}<|src_sep|>x', "locals", 24),
        ('<|call_sep|>\n<|src_sep|>def f():\n<|arg_sep|>["x"]', "locals", 44),
        ("<|return_sep|>\n<|src_sep|>    return 1\n<|arg_sep|>1", "value", 50),
        ("<|return_sep|>\n<|src_sep|>    return 1", "value", 38),
        ("<|exit_normal|>junk", "kind", 15),
        ('<|line_sep|>\n<|arg_sep|>{"a": null}<|src_sep|>x', "locals", 24),
    ],
)
def test_parse_state_names_the_field_and_offset(text: str, field: str, offset: int) -> None:
    with pytest.raises(ParseError) as caught:
        parse_state(text)
    assert (caught.value.field, caught.value.offset) == (field, offset)
    assert f"offset {offset}" in str(caught.value)


def test_parse_state_accepts_one_trailing_newline() -> None:
    state = State(kind=StateKind.LINE, src="    x = 1", locals={"x": "0"}, diff=True)
    assert parse_state(encode_state(state) + "\n") == state


def test_a_call_state_cannot_be_a_diff() -> None:
    with pytest.raises(ParseError) as caught:
        parse_state('<|call_sep|>\n<|src_sep|>def f():\n<|arg_sep|>{"..": ".."}')
    assert caught.value.field == "state"


def test_special_tokens_are_rejected_in_free_text() -> None:
    with pytest.raises(ValidationError):
        State(kind=StateKind.RETURN, src="return 1", value="'<|frame_sep|>'")
    with pytest.raises(ValidationError):
        Trajectory(
            code="x = '<|action_sep|>'", states=(State(kind=StateKind.EXIT_NORMAL),), actions=()
        )
    with pytest.raises(ParseError):
        parse_action("<|breakpoint|>x = '<|src_sep|>'")


def test_actions_round_trip_and_reject_garbage() -> None:
    for kind in ActionKind:
        action = (
            Action(kind=kind, target="    y = x")
            if kind is ActionKind.BREAKPOINT
            else Action(kind=kind)
        )
        text = action.kind.token + (action.target or "")
        assert parse_action(text) == action
    with pytest.raises(ParseError) as caught:
        parse_action("<|step_into|>extra")
    assert caught.value.offset == len("<|step_into|>")


# ---- property tests ---------------------------------------------------------------------------

_free_text = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\n"), max_size=30
).filter(lambda s: "<|" not in s and "|>" not in s)
_names = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,8}", fullmatch=True)
_LOCAL_KINDS = [k for k in StateKind if k.shows_locals]
_VALUE_KINDS = [k for k in StateKind if k.shows_value]
_EXIT_KINDS = [k for k in StateKind if k.is_exit]


@st.composite
def states(draw: st.DrawFn, allow_exit: bool = False) -> State:
    pool = _LOCAL_KINDS + _VALUE_KINDS + (_EXIT_KINDS if allow_exit else [])
    kind = draw(st.sampled_from(pool))
    if kind.is_exit:
        return State(kind=kind)
    src = draw(_free_text)
    if kind.shows_value:
        return State(kind=kind, src=src, value=draw(_free_text))
    diff = kind not in (StateKind.CALL, StateKind.INV_CALL) and draw(st.booleans())
    values = st.one_of(st.none(), _free_text) if diff else _free_text
    return State(
        kind=kind, src=src, locals=draw(st.dictionaries(_names, values, max_size=4)), diff=diff
    )


@st.composite
def actions(draw: st.DrawFn) -> Action:
    kind = draw(st.sampled_from(list(ActionKind)))
    if kind is ActionKind.BREAKPOINT:
        return Action(kind=kind, target=draw(_free_text))
    return Action(kind=kind)


@st.composite
def trajectories(draw: st.DrawFn) -> Trajectory:
    body = draw(st.lists(states(), min_size=0, max_size=5))
    last = draw(states(allow_exit=True))
    all_states = (*body, last)
    code = draw(st.text(max_size=60).filter(lambda s: "<|" not in s and "|>" not in s))
    return Trajectory(
        code=code,
        states=all_states,
        actions=tuple(draw(actions()) for _ in range(len(all_states) - 1)),
    )


@settings(max_examples=300)
@given(states(allow_exit=True))
def test_state_round_trip(state: State) -> None:
    assert parse_state(encode_state(state)) == state


@settings(max_examples=300)
@given(trajectories())
def test_trajectory_round_trip(trajectory: Trajectory) -> None:
    assert parse_trajectory(encode(trajectory)) == trajectory


def test_every_special_token_is_distinct_and_well_formed() -> None:
    assert len(set(ALL_SPECIAL_TOKENS)) == len(ALL_SPECIAL_TOKENS)
    for token in ALL_SPECIAL_TOKENS:
        assert token.startswith("<|") and token.endswith("|>")


def test_package_exports_are_the_objects_even_after_submodules_were_imported() -> None:
    import importlib
    import types

    import neural_debugger.protocol as protocol

    for module in ("encoding", "language", "parse", "tokens", "source_map"):
        importlib.import_module(f"neural_debugger.protocol.{module}")
    for name in protocol.__all__:
        assert not isinstance(getattr(protocol, name), types.ModuleType), name


@settings(max_examples=150, deadline=None)
@given(trajectories(), actions())
def test_prompts_parse_back_to_their_history_and_action(
    trajectory: Trajectory, action: Action
) -> None:
    if trajectory.states[-1].kind.is_exit:
        return
    prompt = encode_prompt(trajectory.code, trajectory.states, [*trajectory.actions, action])
    parsed, asked = parse_prompt(prompt)
    assert (parsed.states, parsed.actions, asked) == (trajectory.states, trajectory.actions, action)
    assert parsed.code == trajectory.code
    with pytest.raises(ParseError):
        parse_prompt(prompt.removesuffix("<|frame_sep|>"))
