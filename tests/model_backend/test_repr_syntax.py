"""A value ends only where its repr can: checked against the tracer's own values."""

from __future__ import annotations

import json
from collections import namedtuple
from dataclasses import dataclass
from fractions import Fraction

import pytest

from neural_debugger.model_backend.grammar import JsonCursor
from neural_debugger.model_backend.repr_syntax import ReprSyntax, is_whole
from neural_debugger.tracer.program import Program
from neural_debugger.tracer.run import trace
from neural_debugger.tracer.values import CUT_MARKER, render_value


@dataclass
class Point:
    x: int
    y: int


class Quoted:
    def __repr__(self) -> str:
        return "Quoted('it''s', [1)"  # an odd repr: not read, as it starts with a letter


Pair = namedtuple("Pair", "a b")


def _cyclic() -> list[object]:
    items: list[object] = [1]
    items.append(items)
    return items


VALUES = [
    None,
    True,
    0,
    -17,
    10**30,
    1.5,
    -0.0,
    1e300,
    float("-inf"),
    float("nan"),
    2j,
    complex(-1, -2),
    "",
    "it's",
    'say "hi"',
    "both ' and \"",
    "back\\slash\n\ttab",
    "café ☕ 🐍",
    "<|special|>",
    b"",
    b"\x00bytes'",
    bytearray(b"ab"),
    [],
    [1, [2, (3, {"k": "v]"})]],
    (1,),
    (),
    {"a": [1, 2], 3: ("x", None)},
    {1, 2},
    set(),
    frozenset({3}),
    range(2, 9, 3),
    Quoted(),
    [Point(1, 2), Pair(1, "b"), Fraction(1, 3)],
    _cyclic(),
    ValueError("bad ]"),
    print,
    len,
]


@pytest.mark.parametrize("value", VALUES, ids=lambda v: type(v).__name__)
def test_every_value_the_tracer_renders_reads_as_whole(value: object) -> None:
    text = render_value(value)
    assert text.endswith(CUT_MARKER) or is_whole(text), text


def test_every_value_of_a_traced_program_reads_as_whole() -> None:
    source = (
        "def f(words):\n"
        "    counts = {}\n"
        "    for word in words:\n"
        "        counts[word] = counts.get(word, 0) + 1\n"
        "    pairs = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))\n"
        "    text = ', '.join(f'{w!r}={n}' for w, n in pairs)\n"
        "    return pairs, text, {w[::-1] for w in words}, words.count('a') / 3\n"
    )
    run = trace(Program(path="whole.py", source=source, entry="f(['a', \"it's\", 'a', 'b\\\\'])"))
    texts = [v for e in run.events for v in [*e.locals.values(), e.value] if v is not None]
    assert len(texts) > 20
    assert all(t.endswith(CUT_MARKER) or is_whole(t) for t in texts), texts


@pytest.mark.parametrize(
    "text",
    ["{'La'", "{5", "(0, '())", "{}'.", "[1, 2)", "'abc", "'a' + 'b'", "12a", "-", "1e", "b'x"],
)
def test_a_half_written_or_overrun_value_is_not_whole(text: str) -> None:
    assert not is_whole(text)


def test_an_odd_repr_inside_brackets_is_the_one_value_not_read_as_whole() -> None:
    """The limit the module states: inside brackets an object's own repr is read for
    brackets and quotes too, so one that leaves them open keeps its container open."""
    assert is_whole(render_value(Quoted()))
    assert not is_whole(render_value([Quoted()]))


def test_a_copy_reads_on_apart_from_its_original() -> None:
    syntax = ReprSyntax()
    assert all(syntax.feed(c) for c in "[1, (2")
    other = syntax.copy()
    assert other.feed(")") and other.feed("]") and other.ended()
    assert not syntax.ended() and not syntax.feed("]")  # the original still owes ")"


def _feed(cursor: JsonCursor, data: bytes) -> bool:
    return all(cursor.feed(b) for b in data)


@pytest.mark.parametrize(
    ("value", "ok"),
    [
        ("{'La': 3, 'Q': 1}", True),
        ("['it\\'s', \"a\\\"b\"]", True),
        ("{'La'", False),  # closed half-written
        ("{}'.", False),  # written on past its end
        ("Point(x=1", True),  # not a builtin's start: not read
    ],
)
def test_the_grammar_ends_a_value_only_where_its_repr_can(value: str, ok: bool) -> None:
    data = json.dumps({"x": value}, ensure_ascii=False).encode()
    assert _feed(JsonCursor("object"), data) is ok
    assert _feed(JsonCursor("string"), json.dumps(value, ensure_ascii=False).encode()) is ok


def test_a_value_the_code_fixes_is_written_as_it_is() -> None:
    """A fixed text is the code's own: the repr syntax does not read it a second time."""
    cursor = JsonCursor("object", fixed={b"x": b"[1"})
    assert _feed(cursor, b'{"x": "[1"}')
