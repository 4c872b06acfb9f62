"""The state grammar: it accepts every state the encoder writes and only text that parses."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from neural_debugger.model_backend.grammar import (
    FORWARD_KINDS,
    INVERSE_KINDS,
    Before,
    JsonCursor,
    Names,
    SourceLines,
    StateWriter,
)
from neural_debugger.model_backend.tokenizer import load_tokenizer
from neural_debugger.model_backend.vocab import Vocab
from neural_debugger.paths import default_model_dir
from neural_debugger.protocol import State, StateKind, encode_state, parse_state
from neural_debugger.tracer.values import MAX_VARIABLES, render_value

VOCAB = Vocab(load_tokenizer(Path(default_model_dir())))
CODE = """def f(xs, name="é"):
    \"\"\"Adds up xs: words of a docstring are not variables.\"\"\"
    total = 0
    é = name.upper()  # nor are the words of a comment, or methods
    for x in xs:
        total += x
    for x in xs:
        print(x)
    return total
"""
LINES = [ln for ln in CODE.split("\n") if ln.strip()]


def feed(cursor: JsonCursor, text: str) -> bool:
    return all(cursor.feed(b) for b in text.encode())


@pytest.mark.parametrize(
    ("text", "ok"),
    [
        ('{"a": "1", "b": "[1, 2]"}', True),
        ("{}", True),
        ('{"..": "..", "a": null}', True),
        ('{"..": ".."}', True),
        ('{"a": "say \\"hi\\"\\n\\u00e9"}', True),
        ('{"a": null}', False),  # null only in a diff
        ('{"a": "1", "..": ".."}', False),  # the marker comes first
        ('{"..": "x"}', False),  # the marker's value is ".."
        ('{"..": "..."}', False),
        ('{"a": "1", "a": "2"}', False),  # no name twice
        ('{"a":"1"}', False),  # json.dumps layout only
        ('{"a": 1}', False),  # values are repr texts
        ('{"a": "\\q"}', False),  # a bad escape
        ('{"": "1"}', False),  # a name is never empty
        ('{"a": "1"} ', False),  # nothing after the object
    ],
)
def test_json_cursor_accepts_exactly_the_locals_layout(text: str, ok: bool) -> None:
    assert feed(JsonCursor("object"), text) is ok


def test_json_cursor_bounds_what_the_tracer_never_writes() -> None:
    longest = "é" * 160 + "…<cut>"  # the tracer's longest value: 166 characters
    assert feed(JsonCursor("object"), json.dumps({"a": longest}, ensure_ascii=False))
    quotes = "'" + '"' * 158 + "'"  # a str of double quotes, 160 characters
    assert feed(JsonCursor("object"), json.dumps({"a": quotes}))  # escapes count once
    assert not feed(JsonCursor("object"), json.dumps({"a": longest + "x"}, ensure_ascii=False))
    assert not feed(JsonCursor("string"), json.dumps("x" * 161))  # past 160: only the cut
    assert not feed(JsonCursor("string"), json.dumps('"' * 160 + "\n"))
    assert not feed(JsonCursor("string"), json.dumps("x" * 160 + "…<cur>", ensure_ascii=False))
    assert feed(JsonCursor("string"), json.dumps("x" * 12 + "…<cut>", ensure_ascii=False))
    most = {"..": "..", **{f"v{i}": "1" for i in range(64)}, "…": "+3 more variables"}
    assert feed(JsonCursor("object"), json.dumps(most, ensure_ascii=False))
    assert not feed(JsonCursor("object"), json.dumps({**most, "w": "1"}, ensure_ascii=False))


@pytest.mark.parametrize(
    ("data", "ok"),
    [
        (b'"caf\xc3\xa9 \xe2\x80\xa6 \xf0\x9f\x90\x8d"', True),  # é … and a 4-byte character
        (b'"a\x80"', False),  # a continuation byte that continues nothing
        (b'"\xc3\xa9\xa9"', False),  # one continuation byte too many
        (b'"\xe2\x80"', False),  # a character cut short by the closing quote
        (b'"\xc0\xaf"', False),  # an overlong form
        (b'"\xed\xa0\x80"', False),  # a surrogate
        (b'"\xf4\x90\x80\x80"', False),  # past U+10FFFF
    ],
)
def test_json_cursor_accepts_only_well_formed_utf8(data: bytes, ok: bool) -> None:
    cursor = JsonCursor("string")
    assert all(cursor.feed(b) for b in data) is ok


def test_a_value_that_runs_on_is_cut_where_the_tracer_cuts_it() -> None:
    """A decoder that would write "a" forever gets the tracer's cut value, not a runaway."""
    writer = StateWriter(VOCAB, SourceLines(LINES, VOCAB), FORWARD_KINDS)
    out: list[int] = []
    opened = encode_state(State(kind=StateKind.RETURN, src="    return total", value=""))[:-1]
    _follow(writer, opened, out)  # up to the value's opening quote
    endless = VOCAB.id_of_bytes[b"a"]
    for _ in range(400):
        if writer.done:
            break
        if writer.accepts(endless):
            token = endless
        else:  # past 160 characters: whatever the grammar allows, and closing last
            allowed = [t for t in range(VOCAB.size) if writer.accepts(t)]
            token = max(allowed, key=lambda t: VOCAB.raw([t]) != b'"')
        writer.advance(token)
        out.append(token)
    assert writer.done
    state = parse_state(VOCAB.text(out))
    assert state.kind is StateKind.RETURN and state.src == "    return total"
    assert state.value == "a" * 160 + "…<cut>"


def test_names_are_names_of_the_code_each_shown_once() -> None:
    names = Names(CODE)
    assert {b"xs", b"name", b"total", b"\xc3\xa9", b"f", b"print"} <= names.full
    for word in (b"Adds", b"docstring", b"comment", b"upper", b"methods"):
        assert word not in names.full, word
    assert feed(JsonCursor("object", names=names), '{"xs": "[1]", "total": "0", ".0": "<it>"}')
    assert not feed(JsonCursor("object", names=names), '{"xz": "1"}')  # not in the code
    assert not feed(JsonCursor("object", names=names), '{"tot": "1"}')  # only a prefix
    cursor = JsonCursor("object", names=names)
    assert feed(cursor, '{"total": "1", "x": "1", "')
    assert not feed(cursor.copy(), "tot")  # "total" again would be a dead end ...
    assert feed(cursor, 'xs": "2"}')  # ... but "xs" (after "x") is still free
    frame = names.within(frozenset({"xs", "total"}))  # one frame's variables
    assert frame.full == {b"xs", b"total", b".."}  # no "print", no ".0", no "…"
    assert not feed(JsonCursor("object", names=frame), '{"name": "1"}')
    assert b".0" in names.within(frozenset({".0", "x"})).full  # a comprehension's frame
    empty = names.within(frozenset())  # a call state of `def main():` has no variable
    assert not feed(JsonCursor("object", allow_diff=False, names=empty), '{"')  # no dead end
    assert feed(JsonCursor("object", allow_diff=False, names=empty), "{}")
    many = Names("\n".join(f"v{i} = {i}" for i in range(MAX_VARIABLES + 1)))
    crowded = many.within(frozenset(f"v{i}" for i in range(MAX_VARIABLES + 1)))
    assert "…".encode() in crowded.full  # more names than the tracer shows: "…" may close
    assert "…".encode() not in many.within(frozenset(f"v{i}" for i in range(MAX_VARIABLES))).full
    hidden = many.within(frozenset(f"v{i}" for i in range(MAX_VARIABLES + 1)), frozenset({"v3"}))
    assert b"v3" not in hidden.full and b"v4" in hidden.full  # one the step cannot change
    assert "…".encode() in hidden.full  # the frame still has more names than are shown
    frame = frozenset(f"v{i}" for i in range(MAX_VARIABLES + 1))
    for i in range(MAX_VARIABLES + 1):  # a long session hides ever other variables
        for j in range(i, MAX_VARIABLES + 1, 7):
            many.within(frame, frozenset({f"v{i}", f"v{j}"}))
    assert len(many._within) <= 256  # the oldest narrowed sets are forgotten
    assert b"v3" not in many.within(frame, frozenset({"v3"})).full  # and made again on need


def test_a_diff_shows_a_variable_only_with_another_value() -> None:
    cut = "a" * 160 + "…<cut>"
    before = Before({"n": "1", "s": "'é\\n'", "long": cut})

    def diff(text: str, against: Before = before) -> bool:
        return feed(JsonCursor("object", need_diff=True, before=against), text)

    assert diff('{"..": "..", "n": "2"}')
    assert not diff('{"..": "..", "n": "1"}')  # the value it had: no change to show
    assert diff('{"..": "..", "n": "12"}')  # ... which a longer value may start with
    assert not diff('{"..": "..", "s": "\'é\\\\n\'"}')  # compared as the language writes it
    assert diff(f'{{"..": "..", "long": "{cut}"}}')  # a cut value may stand for another
    assert diff('{"..": "..", "n": null}')  # unbound
    assert not diff('{"..": "..", "k": null}')  # k was never bound
    assert diff('{"..": "..", "k": null}', Before({"n": "1", "…": "+3 more variables"}))
    assert feed(JsonCursor("object", before=before), '{"n": "1"}')  # whole locals: any value
    # a value whose repr cannot go on (a closed bracket) is refused at its last byte where it is
    # the one it had: the closing quote would be refused next, a dead end
    listed = JsonCursor("object", need_diff=True, before=Before({"xs": "[1, 2]"}))
    assert feed(listed, '{"..": "..", "xs": "[1, 2')
    assert not listed.copy().feed(ord("]")) and feed(listed, ", 3]")


def test_json_cursor_refuses_a_diff_where_calls_need_full_locals() -> None:
    assert not feed(JsonCursor("object", allow_diff=False), '{"..": ".."}')
    for whole in ("{}", '{"a": "1"}', '{".": "1"}'):  # where a step needs a diff
        assert not feed(JsonCursor("object", need_diff=True), whole)
    assert feed(JsonCursor("object", need_diff=True), '{"..": "..", "a": "1"}')
    assert feed(JsonCursor("string"), json.dumps("ValueError('bad')"))
    assert not feed(JsonCursor("string"), '"a" ')


def _follow(writer: StateWriter, target: str, out: list[int] | None = None) -> str:
    """Drive the writer along ``target`` like a decoder would (forced tokens applied). With
    ``out``, stop where ``target`` ends (the tokens are left in ``out``)."""
    whole = out is None
    out = [] if out is None else out
    for _ in range(400):
        if writer.done:
            break
        forced = writer.forced()
        if forced is not None:
            writer.take_forced(forced)
            out += forced.ids
            continue
        data = target.encode()[len(VOCAB.raw(out)) :]
        if not data and not whole:
            return VOCAB.text(out)
        options = [i for t, i in VOCAB.special_id.items() if data.startswith(t.encode())]
        options += [
            VOCAB.id_of_bytes[data[:n]]
            for n in range(1, min(len(data), VOCAB.longest) + 1)
            if data[:n] in VOCAB.id_of_bytes
        ]
        fitting = [i for i in options if writer.accepts(i)]
        assert fitting, f"the grammar refuses {data[:30]!r} after {VOCAB.text(out)!r}"
        token = max(fitting, key=lambda i: len(VOCAB.raw([i])))
        writer.advance(token)
        out.append(token)
    assert writer.done
    return VOCAB.text(out)


_builtins = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8) | st.binary(),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.tuples(inner, inner)
        | st.dictionaries(st.text(max_size=3) | st.integers(), inner, max_size=3)
        | st.frozensets(st.integers(), max_size=3)
    ),
    max_leaves=6,
)
_text = _builtins.map(render_value)  # values as the tracer writes them


@st.composite
def program_states(draw: st.DrawFn) -> State:
    kind = draw(st.sampled_from([k for k in StateKind]))
    if kind.is_exit:
        return State(kind=kind)
    src = draw(st.sampled_from(LINES))
    if kind.shows_value:
        return State(kind=kind, src=src, value=draw(_text))
    diff = kind not in (StateKind.CALL, StateKind.INV_CALL) and draw(st.booleans())
    values = st.one_of(st.none(), _text) if diff else _text
    names = st.sampled_from(["xs", "name", "total", "x", "f", "print", ".0", "é"])
    locals_ = draw(st.dictionaries(names, values, max_size=4))
    return State(kind=kind, src=src, locals=locals_, diff=diff)


@settings(max_examples=150, deadline=None)
@given(program_states())
def test_every_encoded_state_of_the_program_is_writable(state: State) -> None:
    kinds = INVERSE_KINDS if state.kind.is_inverse else FORWARD_KINDS
    writer = StateWriter(VOCAB, SourceLines(CODE.split("\n"), VOCAB), kinds)
    target = encode_state(state) + ("\n" if state.kind is StateKind.LINE else "")
    text = _follow(writer, target)
    assert text == target
    assert parse_state(text) == state


def test_a_random_walk_through_the_grammar_always_parses() -> None:
    """Whatever a model chooses among the allowed tokens, the state parses."""
    rng = random.Random(7)
    structural = [VOCAB.id_of_bytes[c.encode()] for c in '"}, :nul']
    finished = 0
    for walk in range(120):
        kinds = INVERSE_KINDS if walk % 2 else FORWARD_KINDS
        writer = StateWriter(VOCAB, SourceLines(CODE.split("\n"), VOCAB), kinds)
        out: list[int] = []
        for _ in range(300):
            if writer.done:
                break
            forced = writer.forced()
            if forced is not None:
                writer.take_forced(forced)
                out += forced.ids
                continue
            allowed = writer.allowed_ids()
            if allowed is None:
                pool = structural if rng.random() < 0.5 else rng.sample(range(VOCAB.size), 300)
                allowed = {i for i in pool if writer.accepts(i)} or {
                    i for i in range(VOCAB.size) if writer.accepts(i)
                }
            token = rng.choice(sorted(allowed))
            writer.advance(token)
            out.append(token)
        if writer.done:
            finished += 1
            state = parse_state(VOCAB.text(out))
            assert state.kind.is_inverse == bool(walk % 2) or state.kind.is_exit
            assert state.src is None or state.src in LINES
    assert finished >= 60


def test_a_source_line_is_written_in_its_canonical_tokens_without_taking_any_back() -> None:
    """Only tokens of a line's canonical tokenisation are allowed; what every candidate line
    still shares is forced; nothing written is ever replaced (a server cannot take it back)."""
    source = SourceLines(CODE.split("\n"), VOCAB)
    line = b"        total += x"
    assert line in source.lines
    canonical = source.canonical(line)
    writer = StateWriter(VOCAB, source, INVERSE_KINDS)
    writer.advance(VOCAB.special_id[StateKind.INV_LINE.token])
    while writer.part != "src":
        writer.take_forced(writer.forced())  # type: ignore[arg-type]
    firsts = {source.canonical(ln)[0] for ln in source.lines}
    assert writer.forced() is None and writer.allowed_ids() == firsts
    # one space spells the start of every indented line, but no line starts with it
    assert not writer.accepts(VOCAB.id_of_bytes[b" "]) and VOCAB.id_of_bytes[b" "] not in firsts
    out: list[int] = []
    choices = 0
    while writer.part == "src":
        forced = writer.forced()
        if forced is not None:
            assert forced.ids == canonical[len(out) : len(out) + len(forced.ids)]
            writer.take_forced(forced)
            out += forced.ids
            continue
        allowed = writer.allowed_ids()
        assert allowed is not None and len(allowed) > 1 and canonical[len(out)] in allowed
        writer.advance(canonical[len(out)])
        out.append(canonical[len(out)])
        choices += 1
    assert out == canonical and VOCAB.text(out) == "        total += x\n"
    assert 1 <= choices < len(canonical)  # the tokens only this line has came forced
    assert writer._written == line  # the line, for what follows (its locals' names)
