"""A debug session: a program, the actions taken so far, and the stops they led to.

This is the runtime that frontends (the terminal, the DAP server) drive; it knows nothing of how
they talk to people. Each forward or inverse action asks the backend for the next state; the
session locates it in the source (the protocol's :class:`LineTracker`), turns diff-encoded locals
back into full locals, and keeps every stop, so that:

* ``step_back`` returns to the previous stop through the recorded history (no prediction);
* ``set_value`` edits a variable of the current stop: later predictions are conditioned on the
  edited state (a counterfactual), since the backend always sees the whole history;
* an *inverse* session starts from a function's return value and walks backwards with the
  inverse actions to the inputs that produced it.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from neural_debugger.protocol import Action, ActionKind, Nesting, State, StateKind
from neural_debugger.protocol.source_map import LineTracker, SourceMap
from neural_debugger.tracer.program import ENTRY_FILE, Program

from .backend import (
    BackendError,
    Confidence,
    DecodeOptions,
    Engine,
    EngineSession,
    History,
    Prediction,
    PredictionError,
)

# Steps into that a continue to one breakpoint takes before it jumps the rest of the way: the
# oracle's steps are exact, so it steps; a model's long chains of steps drift (README, "Continue:
# steps, then one jump"), so by default it jumps at once.
BREAKPOINT_STEPS = 64


def default_breakpoint_steps(backend: str) -> int:
    """The step budget of a continue when the user sets none, by backend name."""
    return BREAKPOINT_STEPS if backend == "oracle" else 0


# Steps into that a step out takes toward the frame's return before it jumps the rest of the
# way. On real code a model's steps are right more often than its one ``step_return``, which
# must write the value every iteration in between builds at once (docs/usage.md, "Step out:
# steps, then one jump"); the oracle's jump is exact, so it jumps.
RETURN_STEPS = 128


def default_return_steps(backend: str) -> int:
    """The step budget of a step out when the user sets none, by backend name."""
    return 0 if backend == "oracle" else RETURN_STEPS


@dataclass(frozen=True)
class Frame:
    """One frame of a stop's predicted call stack (innermost last)."""

    name: str
    file: str | None
    line: int | None


@dataclass(frozen=True)
class Stop:
    """Where the debugger stands after an action, as a person sees it."""

    state: State
    locals: dict[str, str] | None  # full locals (diffs applied); None for return/exception/exit
    file: str | None
    line: int | None
    depth: int
    frames: tuple[Frame, ...] = ()
    confidence: Confidence = field(default_factory=Confidence)
    action: Action | None = None
    prediction: Prediction | None = None
    # set on the stop a request showed (see :mod:`.stepping`): debugpy's ``(return) NAME``
    # entries of the frame, and why it stopped (``step``, ``breakpoint``, ``exception``...)
    returns: tuple[tuple[str, str], ...] = ()
    reason: str | None = None

    @property
    def exited(self) -> bool:
        return self.state.kind.is_exit


def first_state(program: Program) -> State:
    """The state before any action, known without running: the top frame's call, no locals."""
    if program.entry is not None:
        return State(kind=StateKind.CALL, src=program.wrapper_lines[0], locals={})
    return State(kind=StateKind.CALL, src=program.lines[0] if program.lines else "", locals={})


def inverse_first_state(program: Program, value: str) -> State:
    """An inverse session's start: the entry function returning ``value`` (a repr text).

    The source line is the function's last ``return`` line (its last line if it has none).
    """
    if program.entry is None:
        raise ValueError("an inverse session needs an entry call, e.g. --entry 'f(1, 2)'")
    name = _called_name(program.entry)
    code = program.function_context
    tree = ast.parse(code)
    func = next(
        (n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == name), None
    )
    if func is None:
        raise ValueError(f"no function named {name!r} in the program")
    returns = [n for n in ast.walk(func) if isinstance(n, ast.Return)]
    number = max(n.lineno for n in returns) if returns else func.end_lineno or func.lineno
    return State(kind=StateKind.INV_RETURN, src=code.split("\n")[number - 1], value=value)


def _called_name(entry: str) -> str:
    call = ast.parse(entry, mode="eval").body
    if not isinstance(call, ast.Call):
        raise ValueError(f"the entry {entry!r} is not a call")
    func = call.func
    return func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")


class DebugSession:
    """Stops produced by one backend session over one program."""

    def __init__(
        self,
        program: Program,
        backend: EngineSession,
        *,
        inverse: bool = False,
        first: State | None = None,
        options: DecodeOptions | None = None,
        breakpoint_steps: int = 0,
        return_steps: int = 0,
    ) -> None:
        if breakpoint_steps < 0:
            raise ValueError("breakpoint_steps must be 0 (one jump) or more")
        if return_steps < 0:
            raise ValueError("return_steps must be 0 (one jump) or more")
        self.program = program
        self.backend = backend
        self.inverse = inverse
        self.options = options or DecodeOptions()
        self.breakpoint_steps = breakpoint_steps
        self.return_steps = return_steps
        self.code = program.function_context if inverse else program.context
        self._source = SourceMap(self.code)
        self._tracker = LineTracker(self._source)
        self._trackers: list[LineTracker] = []  # the tracker as it stood before each stop
        self._full: list[dict[str, str]] = []  # full locals after each stop
        self.states: list[State] = []
        self.actions: list[Action] = []
        self.stops: list[Stop] = []
        # the stop shown at event k when it is not the event itself (a return shown in the
        # caller, as debugpy shows it); kept by :mod:`.stepping`, dropped with the event
        self.views: dict[int, Stop] = {}
        if first is None:
            oracle_first = getattr(backend, "first_state", None)
            if inverse and oracle_first is None:
                raise ValueError("an inverse session starts from a given return value")
            first = oracle_first() if oracle_first is not None else first_state(program)
        self._record(first, None, None)

    @classmethod
    async def open(
        cls,
        program: Program,
        engine: Engine,
        *,
        inverse: bool = False,
        first: State | None = None,
        options: DecodeOptions | None = None,
        breakpoint_steps: int = 0,
        return_steps: int = 0,
    ) -> DebugSession:
        backend = await engine.open(program, inverse=inverse)
        return cls(
            program,
            backend,
            inverse=inverse,
            first=first,
            options=options,
            breakpoint_steps=breakpoint_steps,
            return_steps=return_steps,
        )

    # ---- where we are ----------------------------------------------------------------

    @property
    def current(self) -> Stop:
        """The stop shown now: the last event, or the view a request made of it."""
        return self.views.get(len(self.stops) - 1, self.stops[-1])

    @property
    def event(self) -> Stop:
        """The last event of the history itself (what edits and jumps change)."""
        return self.stops[-1]

    @property
    def finished(self) -> bool:
        return self.current.exited

    @property
    def history(self) -> History:
        return History(self.code, tuple(self.states), tuple(self.actions))

    # ---- moving ----------------------------------------------------------------------

    async def step(self, action: Action, options: DecodeOptions | None = None) -> Stop:
        """Predict the stop ``action`` leads to. On an error nothing changes."""
        if self.finished:
            raise BackendError("the program has exited; no action can follow")
        if action.kind.is_inverse != self.inverse:
            direction = "an inverse" if self.inverse else "a forward"
            raise BackendError(f"{action.kind} is not available in {direction} session")
        prediction = await self.backend.predict(self.history, action, options or self.options)
        return self._record(prediction.state, action, prediction)

    def step_back(self) -> Stop:
        """Return to the previous stop (from the recorded history; nothing is predicted)."""
        if len(self.stops) == 1:
            raise BackendError("already at the first stop")
        self._drop_view()
        self.stops.pop()
        self.states.pop()
        self.actions.pop()
        self._full.pop()
        self._tracker = self._trackers.pop()
        return self.current

    def back_to(self, count: int) -> Stop:
        """Step back through the recorded history until it holds its first ``count`` stops
        (steps a walk took and did not keep)."""
        while len(self.stops) > count:
            self.step_back()
        return self.current

    def set_value(self, name: str, value: str) -> Stop:
        """Edit a variable of the current stop (``value`` is a repr text): a counterfactual.

        The current state is replaced by one with the edited locals, written as the stop was (a
        diff against the stop before, or the whole locals); every later prediction sees it.
        """
        stop = self.event
        if stop.locals is None:
            raise BackendError(f"a {stop.state.kind} stop has no variables to edit")
        if name not in stop.locals:
            raise BackendError(f"no variable {name!r} at this stop")
        edited = dict(stop.locals)
        edited[name] = value
        action, prediction = stop.action, stop.prediction
        self._drop_view()
        self.stops.pop()
        self.states.pop()
        self._full.pop()
        locals_: dict[str, str | None] = dict(edited)
        if stop.state.diff:  # written as the language writes this stop: a diff, as it was
            before = self._full[-1] if self._full else {}
            locals_ = {n: v for n, v in edited.items() if before.get(n) != v}
            locals_.update({n: None for n in before if n not in edited})
        state = State(
            kind=stop.state.kind, src=stop.state.src, locals=locals_, diff=stop.state.diff
        )
        self._tracker = self._trackers.pop()
        if action is not None:
            self.actions.pop()
        return self._record(state, action, prediction)

    def restart_frame(self, index: int) -> Stop:
        """Go back through the history to where frame ``index`` of the current stop (0 = the
        outermost) was entered: its call stop. Nothing is predicted."""
        frames = self.current.frames
        if not 0 <= index < len(frames):
            raise BackendError(f"no frame {index} at this stop")
        depth = index
        for back in range(len(self.stops) - 1, -1, -1):
            stop = self.stops[back]
            if stop.depth < depth:
                break  # left the frame: it was entered before the recorded history
            if stop.depth == depth and stop.state.kind is StateKind.CALL:
                return self.back_to(back + 1)
        raise BackendError("the frame's call is not in the recorded history")

    def goto_targets(self, line: int) -> bool:
        """Whether the current stop (a line stop) may jump to program ``line``: a statement of
        its own function."""
        stop = self.event
        lines = self.program.lines
        if self.inverse or stop.state.kind is not StateKind.LINE or stop.line is None:
            return False
        if stop.file != self.program.path or not 1 <= line <= len(lines):
            return False
        if not lines[line - 1].strip() or lines[line - 1].lstrip().startswith(("def ", "@", "#")):
            return False
        return self._source.scope_of(line) == self._source.scope_of(stop.line)

    def goto(self, line: int) -> Stop:
        """Jump to ``line`` of the current function with the current locals: a counterfactual,
        like an edited value; later stops are predicted from there."""
        if not self.goto_targets(line):
            raise BackendError(
                f"cannot jump to line {line}: only from a line stop to a statement of its function"
            )
        stop = self.event
        assert stop.locals is not None
        state = State(
            kind=StateKind.LINE, src=self.program.lines[line - 1], locals=dict(stop.locals)
        )
        action, prediction = stop.action, stop.prediction
        self._drop_view()
        self.stops.pop()
        self.states.pop()
        self._full.pop()
        self._tracker = self._trackers.pop()
        if action is not None:
            self.actions.pop()
        return self._record(state, action, prediction)

    # ---- bookkeeping -----------------------------------------------------------------

    def _drop_view(self) -> None:
        self.views.pop(len(self.stops) - 1, None)

    def _record(self, state: State, action: Action | None, prediction: Prediction | None) -> Stop:
        self._trackers.append(self._tracker.snapshot())
        self.states.append(state)
        if action is not None:
            self.actions.append(action)
        located = self._tracker.locate(state, action)
        full: dict[str, str] | None = None
        previous = self._full[-1] if self._full else {}
        if state.locals is not None:
            merged = dict(previous) if state.diff else {}
            for name, value in state.locals.items():
                if value is None:
                    merged.pop(name, None)
                else:
                    merged[name] = value
            full = merged
        self._full.append(full if full is not None else previous)
        file, line = self._where(located.line)
        called = state.kind in (StateKind.CALL, StateKind.INV_CALL)
        frames = self._frames(located.stack, located.named, called=called)
        confidence = Confidence.certain(state) if prediction is None else prediction.confidence
        stop = Stop(
            state=state,
            locals=full,
            file=file,
            line=line,
            depth=located.depth,
            frames=frames,
            confidence=confidence,
            action=action,
            prediction=prediction,
        )
        self.stops.append(stop)
        return stop

    def _where(self, context_line: int | None) -> tuple[str | None, int | None]:
        if context_line is None:
            return None, None
        if self.inverse:
            return str(self.program.path), context_line
        return self.program.location(context_line)

    def _frames(
        self, lines: tuple[int | None, ...], named: tuple[bool, ...], called: bool
    ) -> tuple[Frame, ...]:
        """Name the predicted stack's frames (outermost first) by the code they stand in.

        A call stop stands on its function's ``def`` line: that frame is the function's. A frame
        not opened on a ``def`` line that stands on the same line as the one below it was opened
        by that line without a call of a named function: a comprehension, generator expression
        or lambda (a recursive call on that line opened its frame on the ``def``).
        """
        frames = []
        for depth, number in enumerate(lines):
            file, line = self._where(number)
            innermost = depth == len(lines) - 1
            anonymous = depth < len(named) and not named[depth]
            if file == ENTRY_FILE:
                name = self.program.wrapper_name
            elif anonymous and number is not None and number == lines[depth - 1]:
                name = _anonymous(self.code.split("\n")[number - 1])
            else:
                name = self._scope_name(number, header=called and innermost)
            frames.append(Frame(name=name, file=file, line=line))
        return tuple(frames)

    def _scope_name(self, number: int | None, header: bool) -> str:
        if number is None:
            return "<module>"
        scope = self._source.scope_of(number)
        if header:  # a def line (or its decorators) belongs to the function it defines
            heads = [sc for sc in self._source.scopes if sc.start <= number <= sc.header]
            scope = heads[-1] if heads else scope
        return "<module>" if scope is None else scope.name


def _anonymous(text: str) -> str:
    """The name Python gives the frame a line opens without calling a named function."""
    if "lambda" in text:
        return "<lambda>"
    if "[" in text and " for " in text:
        return "<listcomp>"
    if "{" in text and " for " in text:
        return "<dictcomp>" if ":" in text.split("{", 1)[1] else "<setcomp>"
    return "<genexpr>"


def parse_action(word: str, program_lines: tuple[str, ...]) -> Action:
    """An action from its name (``step_over``) or ``breakpoint:LINE`` (a line of the program)."""
    if word.startswith("breakpoint:"):
        number_text = word.split(":", 1)[1]
        if not number_text.isdigit():
            raise ValueError(f"breakpoint needs a line number, got {number_text!r}")
        number = int(number_text)
        if not 1 <= number <= len(program_lines):
            raise ValueError(f"breakpoint line {number} is outside the program")
        if not program_lines[number - 1].strip():
            raise ValueError(f"line {number} is blank; put the breakpoint on a statement")
        return Action(kind=ActionKind.BREAKPOINT, target=program_lines[number - 1])
    try:
        kind = ActionKind(word)
    except ValueError:
        raise ValueError(f"unknown action {word!r}") from None
    if kind is ActionKind.BREAKPOINT:
        raise ValueError("write breakpoint:LINE")
    return Action(kind=kind)


async def resume(
    session: DebugSession,
    breakpoints: set[int],
    options: DecodeOptions | None = None,
    max_steps: int = 500,
) -> Stop:
    """Continue to the next breakpoint (program line numbers), or to the end without any.

    The session steps into, one predicted event at a time, until a stop lands on a breakpoint
    or the program ends: a chain of single steps is right more often than the language's one
    breakpoint jump, which must guess every iteration in between at once (README, "Continue:
    steps, then one jump"). With one breakpoint, after ``session.breakpoint_steps`` steps the
    rest is one jump, so a long loop costs no more predictions than that (0: jump at once);
    steps that end the program before the breakpoint are taken back and the jump answers. With
    several, the model cannot say which is hit first from separate jumps, so stepping goes on,
    to at most ``max_steps`` predictions.
    """
    if not breakpoints:
        return await session.step(Action(kind=ActionKind.CONTINUE), options)
    single = len(breakpoints) == 1
    start = len(session.stops)
    for _ in range(session.breakpoint_steps if single else max_steps):
        stop = await session.step(Action(kind=ActionKind.STEP_INTO), options)
        if stop.file == session.program.path and stop.line in breakpoints:
            return stop
        if stop.exited:
            if not single:
                return stop
            # steps that end the program short of the breakpoint went astray more often than
            # the jump, which the grammar holds to the breakpoint's line: it decides
            session.back_to(start)
            break
    if single:
        (number,) = breakpoints
        target = session.program.lines[number - 1]
        return await session.step(Action(kind=ActionKind.BREAKPOINT, target=target), options)
    raise BackendError(f"no breakpoint was reached within {max_steps} predicted steps")


async def finish(session: DebugSession, options: DecodeOptions | None = None) -> Stop:
    """Step out: to the return of the frame the session stands in (the language's
    ``step_return``), found by steps into where the session allows them.

    The session steps into, one predicted event at a time, until its frame returns: each step
    writes one event under the grammar's flow rules, where the one jump writes the value that
    every iteration in between builds at once. After ``session.return_steps`` steps without the
    return (0: at once), or when the steps end the program or a step cannot be written, the
    steps are taken back and one ``step_return`` answers. From a return, and in an inverse
    session, the action is the jump itself.
    """
    here = session.event.state.kind
    start = len(session.stops)
    steps = 0 if session.inverse or here is StateKind.RETURN else session.return_steps
    into, nesting = Action(kind=ActionKind.STEP_INTO), Nesting()
    try:
        for _ in range(steps):
            stop = await session.step(into, options)
            if nesting.returned(stop.state):
                return stop
            if stop.exited:
                break
    except PredictionError:
        pass  # a step the model could not write: the jump answers instead
    except BaseException:  # failed or cancelled: the session stays where it was
        session.back_to(start)
        raise
    session.back_to(start)
    return await session.step(Action(kind=ActionKind.STEP_RETURN), options)


def reverse_resume(session: DebugSession, breakpoints: set[int]) -> Stop:
    """Step back through the history to the previous stop on a breakpoint (or the first stop)."""
    session.step_back()
    while len(session.stops) > 1 and not (
        session.current.file == session.program.path and session.current.line in breakpoints
    ):
        session.step_back()
    return session.current
