"""A value ends only where its repr can: checked against the tracer's own values."""

from __future__ import annotations

import json
from collections import namedtuple
from dataclasses import dataclass
from fractions import Fraction

import pytest

from neural_debugger.model_backend.grammar import JsonCursor
from neural_debugger.model_backend.repr_syntax import ReprSyntax, is_whole
from neural_debugger.model_backend.value_shapes import Shape
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


@pytest.mark.parametrize(
    "text",
    ["{87.29, 3: 4}", "{1: 2, 3}", "{1, }", "{: 2}", "{1:}", "{1, 2: 3}", "{'a': 1, 'b'}"],
)
def test_a_brace_holds_set_elements_or_dict_entries(text: str) -> None:
    assert not is_whole(text)


@pytest.mark.parametrize(
    "text",
    [
        "[1 ]",  # a number goes on only with a separator or its closer
        "['a' 'b']",
        "{1123': 3}",
        "[1.5.5]",
        "[ 1]",  # Python's own spacing in a builtin container
        "[1,2]",
        "{1:2}",
        "[1,  2]",
        "(1+2)",  # a complex's second part ends with its j
        "1e5",  # an exponent has its sign
        "{74.0131e-1792140334: 31}",  # and two or three digits
        "1.2559953197716987295",  # no float has more than 17 significant digits
        "12345678901234567.5",  # nor a point after 16 digits
        "1e-1234",  # an exponent has three digits at most
        "007",  # no number has a leading zero
    ],
)
def test_a_container_reads_its_elements_as_python_writes_them(text: str) -> None:
    assert not is_whole(text)


def test_an_object_inside_a_container_keeps_its_own_spacing() -> None:
    assert is_whole("[Vec(1,2), Point(x=1, y='a'), <function f>, (1+2j), 1e-05]")
    assert is_whole("{'k': Vec(1 ,2)}")
    assert is_whole("(1,)") and is_whole("123456789012345678901234567890")


def test_a_number_written_with_another_layout_of_its_value_stands() -> None:
    """``8.50`` is ``8.5``: a greedy decoder that may not end there writes ``8.505``."""
    assert is_whole("8.50") and is_whole("1e-5") and is_whole("[1.0e-05, (1.0+2j)]")


@pytest.mark.parametrize(
    ("text", "kinds", "whole"),
    [
        ("{1, 2}", {"dict"}, False),  # a set where only a dict may stand
        ("{1: 2}", {"dict", "list"}, True),
        ("{}", {"set"}, False),  # an empty brace is a dict; an empty set is set()
        ("{1: 2}", {"set", "str"}, False),
        ("{1, 2}", {"set", "dict"}, True),  # both: the brace is not read for its kind
        ("3.5", {"int", "bool"}, False),  # a float where only an int may stand
        ("-35", {"int"}, True),
        ("-inf", {"int"}, False),
        ("35", {"float"}, False),
        ("1e-05", {"float"}, True),
        ("2j", {"float"}, False),
        ("35", {"int", "float"}, True),
    ],
)
def test_a_value_of_given_kinds_goes_on_as_one_of_them(
    text: str, kinds: set[str], whole: bool
) -> None:
    assert is_whole(text, frozenset(kinds)) is whole


def test_the_grammar_writes_a_dict_where_the_uses_want_one_and_a_brace_starts() -> None:
    """A call state's ``d`` of ``d.items()``: the decoder weighs kinds at ``{`` (a dict's and
    a set's first byte); from there the grammar keeps to the dict."""
    for value, ok in [("{74: 31}", True), ("{74, 31}", False), ("{}", True)]:
        data = json.dumps({"d": value}).encode()
        cursor = JsonCursor("object", likely={"d": frozenset({"dict"})})
        assert _feed(cursor, data) is ok, value
    shape = Shape(types=frozenset({"int"}))  # a return the code makes an int (``len(...)``)
    assert _feed(JsonCursor("string", shape=shape), b'"12"')
    assert not _feed(JsonCursor("string", shape=shape), b'"1.5"')


def test_a_json_escape_in_a_value_is_a_quote_or_a_backslash_the_repr_can_take() -> None:
    """No dead end: after ``{5`` in a dict's key a ``\\u`` escape could only end as a
    character the number cannot take, so its backslash is refused at once."""
    assert _feed(JsonCursor("string"), json.dumps("['it\\'s', \"a\"]").encode())
    assert not _feed(JsonCursor("string"), b'"{5\\')
    assert not _feed(JsonCursor("string"), b'"[\\u00e9')  # only \\" and \\\\ in a read value
    assert _feed(JsonCursor("string"), b'"caf\\u00e9"')  # a free text is not read
