"""A debug session: a program, the actions taken so far, and the stops they led to.

Two kinds of session answer the same :meth:`DebugSession.step`: :class:`ModelSession` asks the
model to predict each stop (it never runs the program) and :class:`OracleSession` looks the stop
up in a real run (it executes the program, so it is only ever chosen explicitly). Both return
:class:`Stop` objects, located in the source by the protocol's ``LineTracker`` and with
diff-encoded locals turned back into full locals.

This is a first cut: the model session re-encodes the whole prompt at each step and decodes
greedily with only the source-line constraint; the backend issue adds KV-cache sessions, the
full constrained decoding, confidences, sampling and vLLM.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from neural_debugger.protocol import (
    Action,
    ParseError,
    State,
    StateKind,
    encode_prompt,
    parse_state,
)
from neural_debugger.protocol.source_map import LineTracker, SourceMap
from neural_debugger.tracer.events import TraceLimits
from neural_debugger.tracer.program import Program
from neural_debugger.tracer.run import trace
from neural_debugger.tracer.tree import StateTree

from .generate import greedy_state


class PredictionError(RuntimeError):
    """The model wrote something that is not a state; ``text`` is what it wrote."""

    def __init__(self, message: str, text: str) -> None:
        super().__init__(message)
        self.text = text


@dataclass(frozen=True)
class Stop:
    """Where the debugger stands after an action, as a person sees it."""

    state: State
    locals: dict[str, str] | None  # full locals (diffs applied); None for return/exception/exit
    file: str | None
    line: int | None
    depth: int


def first_state(program: Program) -> State:
    """The state before any action, known without running: the top frame's call, no locals."""
    if program.entry is not None:
        return State(kind=StateKind.CALL, src=program.wrapper_lines[0], locals={})
    return State(kind=StateKind.CALL, src=program.lines[0] if program.lines else "", locals={})


@dataclass
class DebugSession:
    program: Program
    states: list[State] = field(default_factory=list)
    actions: list[Action] = field(default_factory=list)
    stops: list[Stop] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._tracker = LineTracker(SourceMap(self.program.context))
        self._full_locals: dict[str, str] = {}

    @property
    def finished(self) -> bool:
        return bool(self.states) and self.states[-1].kind.is_exit

    def start(self) -> Stop:
        return self._record(self._first(), None)

    def step(self, action: Action) -> Stop:
        if not self.states:
            raise RuntimeError("start the session first")
        if self.finished:
            raise RuntimeError("the program has exited; no action can follow")
        state = self._next(action)
        return self._record(state, action)

    def _record(self, state: State, action: Action | None) -> Stop:
        self.states.append(state)
        if action is not None:
            self.actions.append(action)
        located = self._tracker.locate(state, action)
        full: dict[str, str] | None = None
        if state.locals is not None:
            merged = dict(self._full_locals) if state.diff else {}
            for name, value in state.locals.items():
                if value is None:
                    merged.pop(name, None)
                else:
                    merged[name] = value
            self._full_locals = merged
            full = merged
        file, line = (None, None)
        if located.line is not None:
            file, line = self.program.location(located.line)
        stop = Stop(state=state, locals=full, file=file, line=line, depth=located.depth)
        self.stops.append(stop)
        return stop

    def _first(self) -> State:
        raise NotImplementedError

    def _next(self, action: Action) -> State:
        raise NotImplementedError


@dataclass
class OracleSession(DebugSession):
    """Stops looked up in a real run of the program (executes it, in a sandboxed subprocess)."""

    limits: TraceLimits = field(default_factory=TraceLimits)

    def __post_init__(self) -> None:
        super().__post_init__()
        self.run = trace(self.program, self.limits)
        self.tree = StateTree.forward(self.program, self.run)
        self._node = 0

    def _first(self) -> State:
        return self.tree.state(0)

    def _next(self, action: Action) -> State:
        target = self.tree.next(self._node, action)
        state = self.tree.state(target, self._node, action)
        self._node = target
        return state


@dataclass
class ModelSession(DebugSession):
    """Stops predicted by the model; the program is never run."""

    model_dir: Path = Path("models/ndb-small")
    max_new_tokens: int = 256

    def __post_init__(self) -> None:
        super().__post_init__()
        from neural_debugger.training.model import load_pretrained
        from neural_debugger.training.tokenizer import load_tokenizer

        self.model = load_pretrained(self.model_dir)
        self.tokenizer = load_tokenizer(self.model_dir)

    def _first(self) -> State:
        return first_state(self.program)

    def _next(self, action: Action) -> State:
        prompt = encode_prompt(self.program.context, self.states, [*self.actions, action])
        lines = self.program.context.split("\n")
        text = greedy_state(self.model, self.tokenizer, prompt, self.max_new_tokens, lines)
        try:
            return parse_state(text)
        except ParseError as err:
            raise PredictionError(f"the model's prediction does not parse: {err}", text) from None
