"""The one interface every backend implements, and what a prediction carries.

A backend (:class:`Engine`) opens an :class:`EngineSession` per debug session; the session is
asked, again and again, for the state that one more action leads to, given the trajectory so far
(:class:`History`). The history is passed whole each time, so a session may be stepped back,
edited (a counterfactual value) or branched freely: an engine that keeps a cache (the embedded
engine's KV cache, vLLM's prefix cache) reuses whatever prefix the new history shares with the
last one, and recomputes only the rest.

Three engines implement it: ``local`` (the embedded torch model, the default), ``vllm`` (a vLLM
server, for GPUs and scale) and ``oracle`` (the real tracer; it executes the program, so it is
never chosen implicitly).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

from neural_debugger.protocol import Action, ParseError, State, parse_state
from neural_debugger.tracer.program import Program


class BackendError(RuntimeError):
    """A prediction could not be made; the message says why, in words for the user.

    The session that raised it stays usable: the same or another action may be asked again.
    """


class PredictionError(BackendError):
    """The backend wrote something that is not a state; ``text`` is what it wrote."""

    def __init__(self, message: str, text: str = "") -> None:
        super().__init__(message)
        self.text = text


class BudgetExceeded(PredictionError):
    """The state grew past the per-step token budget before it was complete."""


class ContextTooLong(BackendError):
    """The program (or one state) does not fit the model's context window."""


class BackendUnavailable(BackendError):
    """The backend cannot be reached or answered with something unusable (e.g. vLLM is down)."""


class ModelFolderError(BackendError):
    """The model folder is missing, incomplete, corrupt, or its parts do not belong together."""


@dataclass(frozen=True)
class DecodeOptions:
    """How to decode one state.

    ``temperature`` 0 is greedy (deterministic). ``samples`` > 1 draws that many states (at
    ``temperature``, 1.0 when left at 0) and returns the most frequent one: the majority vote the
    paper suggests for long jumps (continue, breakpoints, inverse calls). ``max_new_tokens`` is a
    hard budget per state; ``seed`` makes sampling repeatable.

    ``check`` > 1, for a step back (inverse actions): decode the greedy state and ``check`` - 1
    samples (at ``temperature``, 1.0 when left at 0) and keep the one the forward model best
    leads back from (:mod:`.forward_check`); engines without the model's scores ignore it.
    """

    temperature: float = 0.0
    top_p: float = 1.0
    top_k: int = 64
    samples: int = 1
    seed: int | None = None
    max_new_tokens: int = 512
    check: int = 1

    def __post_init__(self) -> None:
        if self.temperature < 0 or not 0 < self.top_p <= 1 or self.top_k < 1:
            raise ValueError("temperature >= 0, 0 < top_p <= 1 and top_k >= 1 are required")
        if self.samples < 1 or self.max_new_tokens < 1 or self.check < 1:
            raise ValueError("samples, max_new_tokens and check must be at least 1")

    @property
    def greedy(self) -> bool:
        return self.temperature == 0 and self.samples == 1

    @property
    def sampling_temperature(self) -> float:
        return self.temperature if self.temperature > 0 else 1.0


@dataclass(frozen=True)
class Confidence:
    """How sure the backend was, as probabilities in [0, 1].

    ``event``: of the state's kind; ``src``: of the source line (the product over the tokens the
    model chose; the rest of a line, once only one line of the program fits, is not a choice);
    ``values``: of each variable's value text (or ``None`` for an unbound marker); ``value``: of
    a return value or exception. The oracle is sure of everything (1.0).
    """

    event: float = 1.0
    src: float | None = None
    values: dict[str, float] = field(default_factory=dict)
    value: float | None = None

    @property
    def overall(self) -> float:
        parts = [self.event, self.src, self.value, *self.values.values()]
        return min(p for p in parts if p is not None)

    @classmethod
    def certain(cls, state: State) -> Confidence:
        return cls(
            event=1.0,
            src=None if state.src is None else 1.0,
            values={name: 1.0 for name in state.locals or {}},
            value=None if state.value is None else 1.0,
        )

    @classmethod
    def from_logprobs(cls, state: State, logprobs: dict[object, float]) -> Confidence:
        """From log-probabilities summed per part: ``"event"``, ``"src"``, ``"value"`` and
        ``("var", name)``; a part no token was chosen for (all forced) is certain."""

        def p(key: object) -> float:
            return math.exp(logprobs.get(key, 0.0))

        return cls(
            event=p("event"),
            src=None if state.src is None else p("src"),
            values={name: p(("var", name)) for name in state.locals or {}},
            value=None if state.value is None else p("value"),
        )


@dataclass(frozen=True)
class Prediction:
    """The next state, parsed, with how it was made.

    ``votes`` is (votes for this state, samples drawn) under majority vote, else ``None``.
    ``generated`` counts tokens the model chose, ``forced`` tokens the constraints fixed (they cost
    no decoding step), ``model_calls`` the forward passes spent. ``logprob`` is the summed
    log-probability of the chosen tokens, where the engine has it; ``checked`` is (distinct
    candidates the forward model scored, candidates drawn) when a step back was checked.
    """

    state: State
    confidence: Confidence
    text: str
    generated: int = 0
    forced: int = 0
    model_calls: int = 0
    votes: tuple[int, int] | None = None
    logprob: float | None = None
    checked: tuple[int, int] | None = None


@dataclass(frozen=True)
class History:
    """A trajectory so far: the code context, the states shown, and the actions between them.

    ``actions`` has one entry fewer than ``states``; :meth:`EngineSession.predict` is asked for
    the state that one more action leads to from ``states[-1]``.
    """

    code: str
    states: tuple[State, ...]
    actions: tuple[Action, ...]

    def __post_init__(self) -> None:
        if not self.states or len(self.actions) != len(self.states) - 1:
            raise ValueError("a history has at least one state and one action between states")

    @property
    def inverse(self) -> bool:
        return self.states[0].kind.is_inverse


class EngineSession(Protocol):
    """One debug session's connection to a backend (holds its cache, if any)."""

    async def predict(
        self, history: History, action: Action, options: DecodeOptions
    ) -> Prediction: ...

    async def aclose(self) -> None: ...


class Engine(Protocol):
    """A backend: opens sessions over programs."""

    name: str

    async def open(self, program: Program, *, inverse: bool = False) -> EngineSession:
        """A session over ``program``: forward (code context with the entry wrapper) or inverse."""
        ...

    async def aclose(self) -> None: ...


def majority(predictions: Sequence[Prediction]) -> Prediction:
    """The most frequent state among samples (ties: the first drawn), with its vote count.

    Its confidence is that of the first sample that wrote the winning state.
    """
    counts: dict[str, int] = {}
    first: dict[str, Prediction] = {}
    for p in predictions:
        key = p.state.model_dump_json()
        counts[key] = counts.get(key, 0) + 1
        first.setdefault(key, p)
    best = max(counts, key=lambda k: counts[k])  # max keeps the first of equal counts
    winner = first[best]
    return Prediction(
        state=winner.state,
        confidence=winner.confidence,
        text=winner.text,
        generated=sum(p.generated for p in predictions),
        forced=sum(p.forced for p in predictions),
        model_calls=sum(p.model_calls for p in predictions),
        votes=(counts[best], len(predictions)),
    )


def budget_exceeded(budget: int, text: str) -> BudgetExceeded:
    """The error for a state still incomplete after ``budget`` tokens (``text``: so far)."""
    return BudgetExceeded(
        f"the predicted state passed the budget of {budget} tokens before it was complete", text
    )


def written_prediction(
    text: str, logprobs: dict[object, float], generated: int, forced: int, model_calls: int
) -> Prediction:
    """A decoded state as a :class:`Prediction` (the grammar makes it parse; if it did not,
    the error says so with the text)."""
    try:
        state = parse_state(text)
    except ParseError as err:
        raise PredictionError(f"the prediction does not parse: {err}", text) from None
    return Prediction(
        state=state,
        confidence=Confidence.from_logprobs(state, logprobs),
        text=text,
        generated=generated,
        forced=forced,
        model_calls=model_calls,
        logprob=sum(logprobs.values()),
    )
