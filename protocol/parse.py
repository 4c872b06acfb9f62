"""Parse the language back into typed objects; malformed text gets a precise error.

Model output is untrusted: :func:`parse_state` either returns a valid :class:`State` or raises
:class:`ParseError` naming the field that is wrong and the character offset where it went wrong.
"""

from __future__ import annotations

import json

from pydantic import ValidationError

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
    STATE_TOKENS,
    TOKEN_TO_ACTION_KIND,
    TRACE_CONTEXT_START,
    TRACE_END,
    ActionKind,
    StateKind,
    find_special_token,
)


class ParseError(ValueError):
    """Text that is not valid in the language: which field, at which offset, and why."""

    def __init__(self, field: str, offset: int, message: str) -> None:
        super().__init__(f"{field} at offset {offset}: {message}")
        self.field = field
        self.offset = offset
        self.message = message


def _expect(text: str, pos: int, literal: str, field: str) -> int:
    if not text.startswith(literal, pos):
        found = text[pos : pos + len(literal) + 8]
        raise ParseError(field, pos, f"expected {literal!r}, found {found!r}")
    return pos + len(literal)


def _parse_src(text: str, start: int, end: int) -> str:
    src = text[start:end]
    if "\n" in src:
        raise ParseError("src", start + src.index("\n"), "a source line cannot span lines")
    token = find_special_token(src)
    if token is not None:
        raise ParseError("src", start + src.index(token), f"unexpected {token} in source line")
    return src


def _parse_json(text: str, start: int, end: int, field: str) -> object:
    chunk = text[start:end]
    try:
        return json.loads(chunk, object_pairs_hook=_no_duplicate_keys)
    except json.JSONDecodeError as err:
        raise ParseError(field, start + err.pos, f"invalid JSON: {err.msg}") from None
    except _DuplicateKey as err:
        raise ParseError(field, start, f"variable {err.args[0]!r} is listed twice") from None


class _DuplicateKey(Exception):
    pass


def _no_duplicate_keys(pairs: list[tuple[str, object]]) -> dict[str, object]:
    result: dict[str, object] = {}
    for key, value in pairs:
        if key in result:
            raise _DuplicateKey(key)
        result[key] = value
    return result


def _parse_locals(text: str, start: int, end: int) -> tuple[Locals, bool]:
    obj = _parse_json(text, start, end, "locals")
    if not isinstance(obj, dict):
        raise ParseError("locals", start, f"expected a JSON object, got {type(obj).__name__}")
    diff = False
    items = list(obj.items())
    if items and items[0] == (DIFF_MARKER_KEY, DIFF_MARKER_VALUE):
        diff = True
        items = items[1:]
    result: Locals = {}
    for name, value in items:
        if name == DIFF_MARKER_KEY:
            raise ParseError("locals", start, 'the diff marker ".." must come first')
        if value is None and not diff:
            raise ParseError("locals", start, f"{name!r} is null outside a diff")
        if value is not None and not isinstance(value, str):
            raise ParseError(
                "locals", start, f"the value of {name!r} must be a repr string, not {value!r}"
            )
        result[name] = value
    return result, diff


def _parse_value(text: str, start: int, end: int) -> str:
    obj = _parse_json(text, start, end, "value")
    if not isinstance(obj, str):
        raise ParseError("value", start, f"expected a JSON string, got {type(obj).__name__}")
    return obj


def _state_kind_at(text: str, pos: int) -> StateKind:
    for kind, token in STATE_TOKENS.items():
        if text.startswith(token, pos):
            return kind
    raise ParseError("kind", pos, f"expected a state token, found {text[pos : pos + 24]!r}")


def parse_state(text: str, offset: int = 0) -> State:
    """Parse one state (as the model writes it, a single trailing newline allowed).

    ``offset`` is added to every error position, for states cut out of a longer text.
    """
    try:
        return _parse_state(text)
    except ParseError as err:
        if offset:
            raise ParseError(err.field, err.offset + offset, err.message) from None
        raise


def _parse_state(text: str) -> State:
    body = text[:-1] if text.endswith("\n") else text
    kind = _state_kind_at(body, 0)
    pos = len(kind.token)
    if kind.is_exit:
        if pos != len(body):
            raise ParseError("kind", pos, f"an exit state is the token alone, found {body[pos:]!r}")
        return State(kind=kind)
    pos = _expect(body, pos, "\n", "layout")
    if kind is StateKind.LINE:
        pos = _expect(body, pos, ARG_SEP, "layout")
        src_at = body.find(SRC_SEP, pos)
        if src_at < 0:
            raise ParseError("src", len(body), f"missing {SRC_SEP} after the locals")
        locals_, diff = _parse_locals(body, pos, src_at)
        src = _parse_src(body, src_at + len(SRC_SEP), len(body))
        return _build(kind, src=src, locals=locals_, diff=diff)
    pos = _expect(body, pos, SRC_SEP, "layout")
    arg_at = body.find("\n" + ARG_SEP, pos)
    if arg_at < 0:
        raise ParseError(
            "value" if kind.shows_value else "locals", len(body), "missing \\n" + ARG_SEP
        )
    src = _parse_src(body, pos, arg_at)
    payload_at = arg_at + 1 + len(ARG_SEP)
    if kind.shows_locals:
        locals_, diff = _parse_locals(body, payload_at, len(body))
        return _build(kind, src=src, locals=locals_, diff=diff)
    return _build(kind, src=src, value=_parse_value(body, payload_at, len(body)))


def _build(kind: StateKind, **fields: object) -> State:
    try:
        return State(kind=kind, **fields)
    except ValidationError as err:
        first = err.errors()[0]
        raise ParseError("state", 0, str(first.get("msg", err))) from None


def parse_action(text: str, offset: int = 0) -> Action:
    """Parse one action: its token, and for a breakpoint the target source line after it."""
    for token, kind in TOKEN_TO_ACTION_KIND.items():
        if text.startswith(token):
            rest = text[len(token) :]
            if kind is ActionKind.BREAKPOINT:
                return Action(kind=kind, target=_parse_src(text, len(token), len(text)))
            if rest:
                raise ParseError("action", offset + len(token), f"unexpected text {rest[:20]!r}")
            return Action(kind=kind)
    raise ParseError("action", offset, f"expected an action token, found {text[:24]!r}")


def parse_trajectory(text: str) -> Trajectory:
    """Parse a whole trajectory (complete, or a prefix ending after a state)."""
    pos = _expect(text, 0, BEGIN_OF_TEXT + TRACE_CONTEXT_START, "header")
    first_frame = text.find("\n" + FRAME_SEP, pos)
    if first_frame < 0:
        raise ParseError("code", pos, f"no {FRAME_SEP} after the code context")
    code = text[pos:first_frame]
    pos = first_frame + 1
    states: list[State] = []
    actions: list[Action] = []
    while True:
        pos = _expect(text, pos, FRAME_SEP, "layout")
        kind = _state_kind_at(text, pos)
        if kind.is_exit:
            states.append(parse_state(kind.token, pos))
            pos = _expect(text, pos + len(kind.token), TRACE_END + END_OF_TEXT, "layout")
            if pos != len(text):
                raise ParseError("layout", pos, "text after the end of the trajectory")
            break
        end = text.find("\n" + ACTION_SEP, pos)
        if end < 0:
            tail = text[pos:]
            states.append(parse_state(tail, pos))
            break
        states.append(parse_state(text[pos:end], pos))
        pos = end + 1 + len(ACTION_SEP)
        step_end = text.find("\n\n" + FRAME_SEP, pos)
        if step_end < 0:
            raise ParseError("action", pos, "an action must be followed by \\n\\n" + FRAME_SEP)
        actions.append(parse_action(text[pos:step_end], pos))
        pos = step_end + 2
    try:
        return Trajectory(code=code, states=tuple(states), actions=tuple(actions))
    except ValidationError as err:
        raise ParseError("trajectory", 0, str(err.errors()[0].get("msg", err))) from None


def parse_prompt(text: str) -> tuple[Trajectory, Action]:
    """Parse a prediction prompt (as :func:`encode_prompt` writes it): the trajectory so far and
    the action whose next state is asked for."""
    body = text.removesuffix(FRAME_SEP)
    if body == text or not body.endswith("\n\n"):
        raise ParseError(
            "layout", len(text), f"a prompt ends with an action, \\n\\n and {FRAME_SEP}"
        )
    at = body.rfind("\n" + ACTION_SEP)
    if at < 0:
        raise ParseError("action", len(body), "a prompt needs an action to predict from")
    action = parse_action(body[at + 1 + len(ACTION_SEP) : -2], at + 1 + len(ACTION_SEP))
    return parse_trajectory(body[:at]), action
