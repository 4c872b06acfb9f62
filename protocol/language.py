"""Typed states, actions and trajectories: what the model reads and writes, nothing more.

A state carries exactly what the language serialises: its kind, the source line text, and either
the frame's locals (call and line states) or one value (return and exception states). File names,
line numbers and stack depth are not part of the language; the tracer keeps them beside each
state, and :mod:`neural_debugger.protocol.source_map` recovers them for predicted states.

Locals map a variable name to the ``repr`` text of its value. A *diff* (``diff=True``) lists only
the variables whose value differs from the state shown just before it in the trajectory; a
``None`` value in a diff means the variable is not bound in this state (ours: the paper leaves
deletions unmarked, which makes stepping backwards over an assignment show a stale variable).
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, model_validator

from .tokens import ActionKind, StateKind, find_special_token

Locals = dict[str, str | None]


def _check_free_text(field: str, text: str) -> None:
    if "\n" in text and field in ("src", "target"):
        raise ValueError(f"{field} must be one source line, got a newline in {text!r}")
    token = find_special_token(text)
    if token is not None:
        raise ValueError(f"{field} contains the special token {token}, which free text may not")


class State(BaseModel):
    """One debugger state as the language shows it."""

    model_config = ConfigDict(frozen=True)

    kind: StateKind
    src: str | None = None
    locals: Locals | None = None
    diff: bool = False
    value: str | None = None

    @model_validator(mode="after")
    def _fields_match_kind(self) -> State:
        kind = self.kind
        if kind.is_exit:
            if self.src is not None or self.locals is not None or self.value is not None:
                raise ValueError(f"an exit state ({kind}) carries no source, locals or value")
            return self
        if self.src is None:
            raise ValueError(f"a {kind} state needs its source line")
        _check_free_text("src", self.src)
        if kind.shows_locals:
            if self.locals is None or self.value is not None:
                raise ValueError(f"a {kind} state carries locals and no value")
            for name, text in self.locals.items():
                _check_free_text("locals", name)
                if text is None:
                    if not self.diff:
                        raise ValueError(f"unbound marker for {name!r} outside a diff")
                else:
                    _check_free_text("locals", text)
            if self.diff and kind in (StateKind.CALL, StateKind.INV_CALL):
                raise ValueError("call states always show their full locals")
        else:
            if self.value is None or self.locals is not None or self.diff:
                raise ValueError(f"a {kind} state carries a value and no locals")
            _check_free_text("value", self.value)
        return self

    @classmethod
    def exit(cls, kind: StateKind) -> State:
        return cls(kind=kind)


class Action(BaseModel):
    """One debugger action; ``target`` is the source line text of a breakpoint."""

    model_config = ConfigDict(frozen=True)

    kind: ActionKind
    target: str | None = None

    @model_validator(mode="after")
    def _target_only_for_breakpoints(self) -> Action:
        if self.kind is ActionKind.BREAKPOINT:
            if self.target is None:
                raise ValueError("a breakpoint action needs a target source line")
            _check_free_text("target", self.target)
        elif self.target is not None:
            raise ValueError(f"{self.kind} takes no target")
        return self


class Trajectory(BaseModel):
    """Code context, then states and actions alternating: ``states[i] --actions[i]--> states[i+1]``.

    A complete trajectory ends in an exit state and has one action fewer than states. A prefix
    (for prompting) may stop at any state.
    """

    model_config = ConfigDict(frozen=True)

    code: str
    states: tuple[State, ...]
    actions: tuple[Action, ...]

    @model_validator(mode="after")
    def _shape(self) -> Trajectory:
        token = find_special_token(self.code)
        if token is not None:
            raise ValueError(f"code contains the special token {token}")
        if not self.states:
            raise ValueError("a trajectory has at least one state")
        if len(self.actions) != len(self.states) - 1:
            raise ValueError(
                f"{len(self.states)} states need {len(self.states) - 1} actions, "
                f"got {len(self.actions)}"
            )
        for state in self.states[:-1]:
            if state.kind.is_exit:
                raise ValueError("an exit state can only be the last state")
        return self

    @property
    def complete(self) -> bool:
        return self.states[-1].kind.is_exit

    @property
    def inverse(self) -> bool:
        return self.states[0].kind.is_inverse


def standalone(states: tuple[State, ...], index: int) -> State:
    """``states[index]`` with its full locals, for a window of a trajectory that starts there.

    A long session's prompt drops its oldest states; its first kept state cannot be a diff
    against states no longer shown. Serving and training build such windows alike from this.
    """
    state = states[index]
    if not state.diff:
        return state
    full: dict[str, str | None] = {}
    for earlier in states[: index + 1]:
        if earlier.locals is None:
            continue
        if not earlier.diff:
            full = {}
        for name, value in earlier.locals.items():
            if value is None:
                full.pop(name, None)
            else:
                full[name] = value
    return State(kind=state.kind, src=state.src, locals=full, diff=False)


class Nesting:
    """Where steps into stand relative to the frame they started in, so a walk of single steps
    knows when that frame returns: the event ``step_return`` lands on.

    Each step into is the next event anywhere: a call enters a frame below, a return (a yield
    too) leaves the innermost one. An exception leaving a frame is followed by its return, so
    exceptions change nothing.
    """

    def __init__(self) -> None:
        self.below = 0  # frames entered below the starting one and not yet left

    def returned(self, state: State) -> bool:
        """Take the next step's state; whether it is the starting frame's return."""
        if state.kind is StateKind.CALL:
            self.below += 1
        elif state.kind is StateKind.RETURN:
            if self.below == 0:
                return True
            self.below -= 1
        return False
