"""Every token of the neural debugger language, forward and inverse.

The paper ("Towards a Neural Debugger for Python") shows most spellings in its examples; the ones
it leaves open are chosen here and marked "ours":

* ``<|step_over|>``, ``<|continue|>``, ``<|inv_step_over|>``: action tokens, spelled like the
  paper's ``<|step_into|>`` / ``<|inv_step_into|>``.
* ``<|exception_sep|>`` (ours): an exception event; laid out like a return state, the value being
  the ``repr`` of the exception (``ValueError('bad')``).
* ``<|exit_error|>`` (ours): the program ended with an uncaught exception.
* ``<|exit_never|>`` (ours): the run never ended within the tracer's limits (runaway loop or
  recursion, too many events, too much time).
* ``<|inv_line_call_sep|>`` (ours): the inverse tree's duplicate of a line that made calls; its
  children are the callee states, so one can step back into or over the call.
* ``<|inv_exception_sep|>`` (ours): an exception event seen while stepping backwards.

Each token is a single special token of the tokenizer, so none of them may occur inside free
text (code, source lines, values); the encoder rejects text that contains one.
"""

from __future__ import annotations

from enum import StrEnum

BEGIN_OF_TEXT = "<|begin_of_text|>"
END_OF_TEXT = "<|end_of_text|>"
TRACE_CONTEXT_START = "<|trace_context_start|>"
FRAME_SEP = "<|frame_sep|>"
ACTION_SEP = "<|action_sep|>"
TRACE_END = "<|trace_end|>"
SRC_SEP = "<|src_sep|>"
ARG_SEP = "<|arg_sep|>"


class StateKind(StrEnum):
    """What a state is: a traced event, forward or inverse, or a terminal exit."""

    CALL = "call"
    LINE = "line"
    RETURN = "return"
    EXCEPTION = "exception"
    INV_CALL = "inv_call"
    INV_LINE = "inv_line"
    INV_LINE_CALL = "inv_line_call"
    INV_RETURN = "inv_return"
    INV_EXCEPTION = "inv_exception"
    EXIT_NORMAL = "exit_normal"
    EXIT_ERROR = "exit_error"
    EXIT_NEVER = "exit_never"
    INV_EXIT_ENTRY = "inv_exit_entry"

    @property
    def token(self) -> str:
        return STATE_TOKENS[self]

    @property
    def is_exit(self) -> bool:
        return self in EXIT_KINDS

    @property
    def is_inverse(self) -> bool:
        return self in INVERSE_STATE_KINDS

    @property
    def shows_locals(self) -> bool:
        """Call and line states carry a locals dict; return and exception states a value."""
        return self in LOCALS_KINDS

    @property
    def shows_value(self) -> bool:
        return self in VALUE_KINDS


class ActionKind(StrEnum):
    """A debugger action; the breakpoint action also carries a target source line."""

    STEP_INTO = "step_into"
    STEP_OVER = "step_over"
    STEP_RETURN = "step_return"
    BREAKPOINT = "breakpoint"
    CONTINUE = "continue"
    INV_STEP_INTO = "inv_step_into"
    INV_STEP_OVER = "inv_step_over"
    INV_STEP_CALL = "inv_step_call"

    @property
    def token(self) -> str:
        return ACTION_TOKENS[self]

    @property
    def is_inverse(self) -> bool:
        return self in INVERSE_ACTION_KINDS


STATE_TOKENS: dict[StateKind, str] = {
    StateKind.CALL: "<|call_sep|>",
    StateKind.LINE: "<|line_sep|>",
    StateKind.RETURN: "<|return_sep|>",
    StateKind.EXCEPTION: "<|exception_sep|>",
    StateKind.INV_CALL: "<|inv_call_sep|>",
    StateKind.INV_LINE: "<|inv_line_sep|>",
    StateKind.INV_LINE_CALL: "<|inv_line_call_sep|>",
    StateKind.INV_RETURN: "<|inv_return_sep|>",
    StateKind.INV_EXCEPTION: "<|inv_exception_sep|>",
    StateKind.EXIT_NORMAL: "<|exit_normal|>",
    StateKind.EXIT_ERROR: "<|exit_error|>",
    StateKind.EXIT_NEVER: "<|exit_never|>",
    StateKind.INV_EXIT_ENTRY: "<|inv_exit_entry|>",
}

ACTION_TOKENS: dict[ActionKind, str] = {kind: f"<|{kind.value}|>" for kind in ActionKind}

EXIT_KINDS = frozenset(
    {StateKind.EXIT_NORMAL, StateKind.EXIT_ERROR, StateKind.EXIT_NEVER, StateKind.INV_EXIT_ENTRY}
)
INVERSE_STATE_KINDS = frozenset(
    {
        StateKind.INV_CALL,
        StateKind.INV_LINE,
        StateKind.INV_LINE_CALL,
        StateKind.INV_RETURN,
        StateKind.INV_EXCEPTION,
        StateKind.INV_EXIT_ENTRY,
    }
)
LOCALS_KINDS = frozenset(
    {
        StateKind.CALL,
        StateKind.LINE,
        StateKind.INV_CALL,
        StateKind.INV_LINE,
        StateKind.INV_LINE_CALL,
    }
)
VALUE_KINDS = frozenset(
    {StateKind.RETURN, StateKind.EXCEPTION, StateKind.INV_RETURN, StateKind.INV_EXCEPTION}
)
INVERSE_ACTION_KINDS = frozenset(
    {ActionKind.INV_STEP_INTO, ActionKind.INV_STEP_OVER, ActionKind.INV_STEP_CALL}
)

# The forward event a state kind mirrors when stepping backwards.
INVERSE_OF: dict[StateKind, StateKind] = {
    StateKind.CALL: StateKind.INV_CALL,
    StateKind.LINE: StateKind.INV_LINE,
    StateKind.RETURN: StateKind.INV_RETURN,
    StateKind.EXCEPTION: StateKind.INV_EXCEPTION,
}

STRUCTURE_TOKENS: tuple[str, ...] = (
    BEGIN_OF_TEXT,
    END_OF_TEXT,
    TRACE_CONTEXT_START,
    FRAME_SEP,
    ACTION_SEP,
    TRACE_END,
    SRC_SEP,
    ARG_SEP,
)

# The full token set, in a fixed order (the tokenizer assigns ids in this order).
ALL_SPECIAL_TOKENS: tuple[str, ...] = (
    *STRUCTURE_TOKENS,
    *STATE_TOKENS.values(),
    *ACTION_TOKENS.values(),
)

# Marks a diff-encoded locals dict: only the variables that changed follow.
DIFF_MARKER_KEY = ".."
DIFF_MARKER_VALUE = ".."

TOKEN_TO_STATE_KIND: dict[str, StateKind] = {tok: kind for kind, tok in STATE_TOKENS.items()}
TOKEN_TO_ACTION_KIND: dict[str, ActionKind] = {tok: kind for kind, tok in ACTION_TOKENS.items()}


def find_special_token(text: str) -> str | None:
    """The first special token found inside ``text``, or None; free text must contain none."""
    if "<|" not in text:
        return None
    for token in ALL_SPECIAL_TOKENS:
        if token in text:
            return token
    return None
