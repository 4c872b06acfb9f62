"""Checking a step back with the forward model: which earlier state best explains the later one.

Going backwards is one-to-many and the model is much less sure of it than of going forwards (on
held-out programs it steps forwards right about nine times in ten, backwards about two in
three). But every candidate for the earlier state ``c`` can be run forwards by the same model:
how likely is the state the user stands on, ``s``, after one forward action from ``c``? Drawing
a few candidates and keeping the one with the highest

    log P(c | later states, inverse action) + log P(s | c, forward action)

is Bayes' rule with the inverse model as the prior: a candidate that the forward model does
not lead back to ``s`` loses. Nothing is executed; both terms come from the model.

:func:`forward_view` turns an inverse transition into the forward one it mirrors (or says there
is none to check), :class:`ForwardScorer` computes ``log P(s | c, action)`` with the model.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from neural_debugger.protocol import Action, ActionKind, State, StateKind
from neural_debugger.protocol.encoding import encode_frame, encode_header, encode_step
from neural_debugger.protocol.language import Locals
from neural_debugger.protocol.tokens import ACTION_SEP, FRAME_SEP, INVERSE_OF

from .decoding_llama import DecodingLlama
from .llama import LlamaForCausalLM
from .vocab import Vocab

FORWARD_OF: dict[StateKind, StateKind] = {
    **{inverse: forward for forward, inverse in INVERSE_OF.items()},
    StateKind.INV_LINE_CALL: StateKind.LINE,  # the line before its calls ran: a line event
}


@dataclass(frozen=True)
class ForwardStep:
    """An inverse transition seen forwards: ``earlier --action--> later``, as the forward
    language writes it (``later`` a diff against ``earlier`` where the language makes it one)."""

    earlier: State
    action: Action
    later: State


def forward_view(candidate: State, later: State, inverse: ActionKind) -> ForwardStep | None:
    """The forward step that the inverse step ``later --inverse--> candidate`` undoes.

    ``later`` is the state the user stands on, with its full locals; ``candidate`` is a predicted
    earlier state as the inverse language writes it (a line's locals may be a diff against
    ``later``). ``None`` where no single forward action leads from ``candidate`` to ``later``:

    * ``later`` is an ``inv_line_call`` (the line before its calls): in time, what follows the
      callee's return is the next line, not this copy of the line;
    * an exit on either side;
    * ``inv_step_call`` to anything but the return of the same call (a line may run many times
      between the call and ``later``, so no one action names it).
    """
    if candidate.kind.is_exit or later.kind.is_exit or later.kind is StateKind.INV_LINE_CALL:
        return None
    if inverse is ActionKind.INV_STEP_CALL:
        if candidate.kind is not StateKind.INV_CALL or later.kind is not StateKind.INV_RETURN:
            return None
        forward = ActionKind.STEP_RETURN
    elif inverse in (ActionKind.INV_STEP_INTO, ActionKind.INV_STEP_OVER):
        # A line that made calls steps over them to ``later``, and an inverse step over mirrors
        # a forward one; but a callee's call state is reached from its caller's line stepping in.
        over = inverse is ActionKind.INV_STEP_OVER or candidate.kind is StateKind.INV_LINE_CALL
        into = not over or later.kind is StateKind.INV_CALL
        forward = ActionKind.STEP_INTO if into else ActionKind.STEP_OVER
    else:
        return None
    earlier = _forward_state(candidate, _full_locals(candidate, later))
    return ForwardStep(earlier, Action(kind=forward), _after(earlier, later))


def _full_locals(candidate: State, later: State) -> Locals | None:
    """The candidate's whole locals: a diff applies to the later state's (``None``: unbound)."""
    if candidate.locals is None:
        return None
    if not candidate.diff:
        return dict(candidate.locals)
    full = dict(later.locals or {})
    for name, value in candidate.locals.items():
        if value is None:
            full.pop(name, None)
        else:
            full[name] = value
    return full


def _forward_state(state: State, locals_: Locals | None) -> State:
    kind = FORWARD_OF[state.kind]
    if kind.shows_locals:
        return State(kind=kind, src=state.src, locals=locals_ or {})
    return State(kind=kind, src=state.src, value=state.value)


def _after(earlier: State, later: State) -> State:
    """``later`` written forwards right after ``earlier``: a line right after a line or call
    of the same frame lists only what changed (``None``: no longer bound), as the tracer
    writes it; everything else is whole."""
    state = _forward_state(later, later.locals)
    if state.kind is not StateKind.LINE or earlier.locals is None:
        return state
    before = earlier.locals
    now = state.locals or {}
    diff: Locals = {name: value for name, value in now.items() if before.get(name) != value}
    diff.update({name: None for name in before if name not in now})
    return State(kind=StateKind.LINE, src=state.src, locals=diff, diff=True)


class ForwardScorer:
    """``log P(later | earlier, action)`` under the model, for one code context.

    The code header is fed once into a cache of its own; each step is then fed after it and
    rolled back, so the session's own cache is never touched.
    """

    def __init__(
        self, model: LlamaForCausalLM | DecodingLlama, vocab: Vocab, code: str, window: int
    ) -> None:
        self.model = model
        self.vocab = vocab
        self.window = window
        self.header = vocab.encode(encode_header(code))
        self.cache = model.new_cache(window)
        self.end = vocab.special_id[ACTION_SEP]
        self.frame_sep = vocab.special_id[FRAME_SEP]
        self.calls = 0

    @torch.no_grad()
    def logprob(self, step: ForwardStep) -> float | None:
        """The summed log-probability of ``step.later``'s tokens (and the separator that closes
        it); ``None`` when the step does not fit the window after the code."""
        device = next(self.model.parameters()).device
        context = self.vocab.encode(encode_frame(step.earlier) + encode_step(step.action))
        target = [*self.vocab.encode(encode_frame(step.later)), self.end]
        assert target[0] == self.frame_sep
        if len(self.header) + len(context) + len(target) > self.window:
            return None
        if self.cache.length == 0:
            self.model(torch.tensor([self.header], device=device), self.cache, last_only=True)
            self.calls += 1
        self.cache.truncate(len(self.header))
        fed = torch.tensor([context + target[:-1]], device=device)
        logits = self.model(fed, self.cache)[0, len(context) :].float()
        self.calls += 1
        wanted = torch.tensor(target[1:], device=logits.device)
        picked = torch.log_softmax(logits, -1).gather(1, wanted[:, None])
        return float(picked.sum())
