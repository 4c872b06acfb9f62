"""Drafted tokens: a guess at what comes next, checked by the model in the same forward pass.

Why: at the size of the shipped model a forward pass over ten tokens costs little more than one
over a single token (the weights are read once, and the fixed cost of a call dominates), so a
decoder that appends a few likely tokens to each forward pass gets the model's logits after each
of them for free, and wherever the model then chooses exactly the drafted token, the next choice
needs no forward pass of its own. A draft never changes what is decoded: the decoder chooses every
token from the logits computed after the tokens before it, as without a draft, and keeps a drafted
token only where it is the one chosen (greedy or sampled, the same token is chosen).

The guess is prompt lookup: the tokens that followed the latest earlier occurrence of the last
few tokens. A trace repeats itself: the same variable names, the JSON layout around them, values
a step did not change, source lines shown before; so a state is mostly a copy of earlier text.
"""

from __future__ import annotations

from collections.abc import Sequence

DRAFT_TOKENS = 3  # tokens drafted per forward pass at most (more cost more than they save)
NGRAM = 3  # the longest suffix looked up; shorter ones are tried when it is not found


class Drafter:
    """Prompt lookup over a fixed prompt and the tokens written after it.

    The prompt's n-grams are indexed once (a prompt is up to a window long and is asked about
    many times per state); the written tokens are few and searched directly.
    """

    def __init__(
        self, prompt: Sequence[int], limit: int = DRAFT_TOKENS, ngram: int = NGRAM
    ) -> None:
        if limit < 1 or ngram < 1:
            raise ValueError("a draft needs limit >= 1 and ngram >= 1")
        self.prompt = list(prompt)
        self.limit = limit
        self.ngram = ngram
        # n -> n-gram -> the position after its latest occurrence in the prompt
        self._index: dict[int, dict[tuple[int, ...], int]] = {}
        for n in range(1, ngram + 1):
            table: dict[tuple[int, ...], int] = {}
            for end in range(n, len(self.prompt)):  # a match at the very end has no follower
                table[tuple(self.prompt[end - n : end])] = end
            self._index[n] = table

    def propose(self, written: Sequence[int], limit: int | None = None) -> list[int]:
        """Up to ``limit`` tokens likely to follow ``prompt + written`` (empty: no guess)."""
        limit = self.limit if limit is None else min(limit, self.limit)
        if limit <= 0:
            return []
        total = len(self.prompt) + len(written)
        for n in range(min(self.ngram, total - 1), 0, -1):
            key = tuple(self._at(written, i) for i in range(total - n, total))
            end = self._latest_in_written(written, key)
            if end is None:
                end = self._index[n].get(key)
            if end is not None:
                stop = min(end + limit, total)
                return [self._at(written, i) for i in range(end, stop)]
        return []

    def _at(self, written: Sequence[int], i: int) -> int:
        return self.prompt[i] if i < len(self.prompt) else written[i - len(self.prompt)]

    def _latest_in_written(self, written: Sequence[int], key: tuple[int, ...]) -> int | None:
        """The position after the latest earlier occurrence of ``key`` ending inside
        ``written`` (an occurrence may start in the prompt)."""
        n = len(key)
        total = len(self.prompt) + len(written)
        for end in range(total - 1, max(len(self.prompt), n) - 1, -1):
            if all(self._at(written, end - n + j) == key[j] for j in range(n)):
                return end
        return None
