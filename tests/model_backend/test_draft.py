"""Prompt lookup drafts: the continuation of the latest earlier occurrence of the last tokens."""

from __future__ import annotations

import pytest

from neural_debugger.model_backend.draft import Drafter


def test_the_latest_occurrence_of_the_longest_suffix_is_continued() -> None:
    prompt = [1, 2, 3, 4, 5, 9, 2, 3, 7, 8, 6]
    drafter = Drafter(prompt, limit=3, ngram=2)
    assert drafter.propose([2, 3]) == [7, 8, 6]  # the later "2 3" wins
    assert drafter.propose([4]) == [5, 9, 2]  # one token when no pair matches
    assert drafter.propose([2, 3], limit=1) == [7]


def test_written_tokens_are_searched_and_continued_into() -> None:
    drafter = Drafter([5, 6, 7], limit=4, ngram=2)
    # "6 7" ends the prompt; its continuation is what was written after it
    assert drafter.propose([1, 2, 6, 7]) == [1, 2, 6, 7]
    assert drafter.propose([40, 41, 42, 41]) == [42, 41]  # found inside the written tokens
    assert drafter.propose([99]) == []  # never seen: no draft


def test_bad_limits_are_refused() -> None:
    with pytest.raises(ValueError, match="limit"):
        Drafter([1, 2], limit=0)
    assert Drafter([1, 2, 3], limit=2).propose([1], limit=0) == []
