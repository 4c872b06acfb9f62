"""The one decoding rule both engines follow: forced tokens are forced, otherwise the best token
the grammar accepts is chosen (or one drawn among the best it accepts).

The embedded engine (:mod:`.local`) calls :func:`choose` on each row of logits it computes; the
vLLM logits processor (:mod:`.vllm_grammar`) calls :func:`shortlist` inside the server and masks
every other token, so vLLM's own greedy choice or draw picks among exactly the same tokens. Under
greedy decoding both therefore write the same state on the same weights, token for token.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Iterator

import torch

from .backend import DecodeOptions, PredictionError
from .grammar import StateWriter
from .parameter_uses import UNUSED_SHARE
from .value_shapes import RAISED_SHARE, Odds
from .vocab import Vocab

FIRST_LOOK = 16  # tokens ranked before the grammar is asked, in the common case


def _rest(row: torch.Tensor, seen: list[int]) -> Iterator[int]:
    """Token ids of ``row`` not in ``seen``, best first (ranked only if asked for)."""
    skip = set(seen)
    yield from (t for t in torch.argsort(row, descending=True).tolist() if t not in skip)


def shortlist(logits: torch.Tensor, writer: StateWriter, wanted: int) -> torch.Tensor:
    """The token ids that may be chosen after this row of ``logits`` (1-D, over the vocabulary
    or a padded one): the first forced token where the grammar fixes tokens; every allowed token
    where the grammar lists them (the event, a source line); elsewhere the ``wanted``
    best-ranked tokens the grammar accepts, best first."""
    forced = writer.forced()
    if forced is not None:
        return torch.tensor(forced.ids[:1], device=logits.device)
    allowed = writer.allowed_ids()
    if allowed is not None:
        return torch.tensor(sorted(allowed), device=logits.device)
    found: list[int] = []
    row = logits[: writer.vocab.size]
    other = _other_kinds(row, writer)
    first = min(len(row), max(FIRST_LOOK, 2 * wanted))
    # the best few first: the model's choice is nearly always among them (ranking the whole
    # vocabulary costs more than the grammar's checks); then the rest, in the same order
    ranked = torch.topk(row, first).indices.tolist()
    for token in itertools.chain(ranked, _rest(row, ranked)):
        if token in other:
            continue
        if writer.accepts(token):
            found.append(token)
            if len(found) == wanted:
                break
    if not found:  # cannot happen: every byte is a token, and some byte always fits
        raise PredictionError("no token fits the grammar here")
    return torch.tensor(found, device=logits.device)


def _other_kinds(row: torch.Tensor, writer: StateWriter) -> frozenset[int]:
    """Where a value of one of a few kinds starts (:meth:`StateWriter.value_kinds`): the tokens
    that would start another kind than the one the model gives the most probability in all
    (the sum over every token that starts it). A kind is one decision: a dict's first tokens
    share its probability among many (``{'``, ``{1``, ``{}``), ``None`` has one, and taking
    the best single token would choose ``None`` where the model, all told, expects a dict.

    A ``None`` only an exception gives (:attr:`.value_shapes.Odds.RAISED`) counts in full
    where the model's own best token starts it (the model may have read that the frame
    raises); else only :data:`.value_shapes.RAISED_SHARE` of the other kinds' total, how often
    that happens: where the model expected a kind the code rules out, its probability for
    ``None`` is mostly for a ``None`` returned, which the code rules out too. The kinds the
    code's use of a value does not admit (:attr:`.value_shapes.Odds.UNUSED`: a parameter's,
    :mod:`.parameter_uses`) count :data:`.parameter_uses.UNUSED_SHARE` of the admitted
    kinds' total, how often such a kind is passed all the same, whatever the model gives
    them: the small model is often all but sure of a kind the code cannot use (a string for
    the ``d`` of ``d.items()``), so its own probability says little there."""
    kinds = writer.value_kinds()
    if kinds is None:
        return frozenset()
    groups, lead = kinds
    starts = _kind_byte(writer.vocab, lead)
    probs = torch.softmax(row.float(), -1).cpu()
    masses = [float(probs[torch.isin(starts, torch.tensor(sorted(g)))].sum()) for g, _ in groups]
    weighed = [m for m, (_, odds) in zip(masses, groups, strict=True) if odds is Odds.MODEL]
    top = int(starts[int(row.argmax())])  # the first byte of the model's own best token
    for i, (group, odds) in enumerate(groups):
        if odds is Odds.RAISED and top not in group:
            masses[i] = RAISED_SHARE * sum(weighed)
        elif odds is Odds.UNUSED:
            masses[i] = UNUSED_SHARE * sum(weighed)
    best = groups[masses.index(max(masses))][0]
    others = torch.tensor(sorted(set().union(*(g for g, _ in groups)) - best))
    return frozenset(torch.nonzero(torch.isin(starts, others)).flatten().tolist())


@functools.lru_cache(maxsize=8)
def _kind_byte(vocab: Vocab, lead: bytes) -> torch.Tensor:
    """Each token's byte after ``lead`` (the space and quote after a name's colon, a quote, or
    nothing), -1 where it does not start with ``lead`` or has nothing after it."""
    found = []
    for piece in vocab.bytes_of:
        starts = piece is not None and piece.startswith(lead) and len(piece) > len(lead)
        found.append(piece[len(lead)] if starts else -1)  # type: ignore[index]
    return torch.tensor(found)


def wanted(options: DecodeOptions) -> int:
    """How many accepted tokens a choice looks at: the best one (greedy) or the top k."""
    return 1 if options.greedy else options.top_k


def choose(
    logits: torch.Tensor, writer: StateWriter, options: DecodeOptions, generator: torch.Generator
) -> int:
    """The token to take: the best one of :func:`shortlist` (greedy), or one drawn from it at
    the sampling temperature, within ``top_p`` of its probability."""
    candidates = shortlist(logits, writer, wanted(options))
    scores = logits[candidates]
    if options.greedy:
        return int(candidates[int(scores.argmax())])
    probs = torch.softmax(scores / options.sampling_temperature, -1).cpu()
    if options.top_p < 1:
        order = torch.argsort(probs, descending=True)
        keep = torch.cumsum(probs[order], 0) - probs[order] < options.top_p
        mask = torch.zeros_like(probs, dtype=torch.bool)
        mask[order[keep]] = True
        probs = torch.where(mask, probs, torch.zeros_like(probs))
    pick = int(torch.multinomial(probs, 1, generator=generator))
    return int(candidates[pick])
