"""``# ndb: CALL`` comments: the calls a document asks the server to predict.

Comments are found with :mod:`tokenize`, so the text ``# ndb:`` inside a string is not an
annotation. A document that does not tokenize (it is being typed) falls back to whole-line
comments, so its code lenses do not flicker away while the syntax is broken.
"""

from __future__ import annotations

import io
import re
import tokenize
from dataclasses import dataclass

from neural_debugger.tracer.program import ProgramError, check_entry, split_lines

MARK = re.compile(r"#\s*ndb:\s*(?P<entry>.*?)\s*$")
WHOLE_LINE_COMMENT = re.compile(r"^\s*(?P<comment>#.*)$")


@dataclass(frozen=True)
class Annotation:
    """One ``# ndb:`` comment: where it is and the call it names.

    ``line`` is 1-based; ``start`` and ``end`` are code-point columns of the comment, which the
    server turns into the client's position encoding.
    """

    line: int
    start: int
    end: int
    entry: str
    problem: str | None = None  # why the call cannot be predicted; None for a valid call

    @property
    def valid(self) -> bool:
        return self.problem is None


def find_annotations(source: str) -> list[Annotation]:
    """Every ``# ndb:`` comment of ``source``, in document order, each checked as a call."""
    found = []
    for line, start, text in _comments(source):
        mark = MARK.match(text)
        if mark is None:
            continue
        entry = mark.group("entry")
        found.append(Annotation(line, start, start + len(text), entry, _problem(entry)))
    return found


def _problem(entry: str) -> str | None:
    try:
        check_entry(entry)
    except ProgramError as err:
        return str(err)
    return None


def _comments(source: str) -> list[tuple[int, int, str]]:
    """``(line, column, text)`` of each comment."""
    try:
        return [
            (token.start[0], token.start[1], token.string)
            for token in tokenize.generate_tokens(io.StringIO(source).readline)
            if token.type == tokenize.COMMENT
        ]
    except (tokenize.TokenError, SyntaxError):
        found = []
        for number, text in enumerate(split_lines(source), start=1):
            whole = WHOLE_LINE_COMMENT.match(text)
            if whole is not None:
                found.append((number, whole.start("comment"), whole.group("comment")))
        return found
