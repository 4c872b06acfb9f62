"""The one decoding rule both engines follow: forced tokens are forced, otherwise the best token
the grammar accepts is chosen (or one drawn among the best it accepts).

The embedded engine (:mod:`.local`) calls :func:`choose` on each row of logits it computes; the
vLLM logits processor (:mod:`.vllm_grammar`) calls :func:`shortlist` inside the server and masks
every other token, so vLLM's own greedy choice or draw picks among exactly the same tokens. Under
greedy decoding both therefore write the same state on the same weights, token for token.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator

import torch

from .backend import DecodeOptions, PredictionError
from .grammar import StateWriter

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
    first = min(len(row), max(FIRST_LOOK, 2 * wanted))
    # the best few first: the model's choice is nearly always among them (ranking the whole
    # vocabulary costs more than the grammar's checks); then the rest, in the same order
    ranked = torch.topk(row, first).indices.tolist()
    for token in itertools.chain(ranked, _rest(row, ranked)):
        if writer.accepts(token):
            found.append(token)
            if len(found) == wanted:
                break
    if not found:  # cannot happen: every byte is a token, and some byte always fits
        raise PredictionError("no token fits the grammar here")
    return torch.tensor(found, device=logits.device)


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
