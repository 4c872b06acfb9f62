"""What several of the model backend's tests share."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from neural_debugger.model_backend.grammar import SourceLines, StateWriter

Walk = Callable[[StateWriter, SourceLines, str, str], StateWriter]


def _walk(writer: StateWriter, source: SourceLines, src: str, part: str) -> StateWriter:
    """``writer`` after the tokens the grammar forces and the canonical tokens of the source
    line ``src``, up to the first ``part`` (``"string"``: a value; ``"object"``: locals)."""
    written = 0
    while writer.part != part:
        forced = writer.forced()
        in_src = writer.part == "src"
        if forced is not None:
            writer.take_forced(forced)
            written += len(forced.ids) if in_src else 0
        else:
            writer.advance(source.canonical(src.encode())[written])
            written += 1
    return writer


@pytest.fixture
def walk() -> Walk:
    """:func:`_walk`: a writer to the part after a state's source line."""
    return _walk
