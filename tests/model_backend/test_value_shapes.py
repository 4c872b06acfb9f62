"""What frames return, read from the code: checked on small cases and on real runs, and as the
grammar and the decoding rule apply it."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import torch

from neural_debugger.model_backend.choosing import shortlist
from neural_debugger.model_backend.flow import Expected, LineFlow, expect
from neural_debugger.model_backend.grammar import (
    FORWARD_KINDS,
    JsonCursor,
    SourceLines,
    StateWriter,
)
from neural_debugger.model_backend.tokenizer import load_tokenizer
from neural_debugger.model_backend.value_shapes import Shape
from neural_debugger.model_backend.vocab import Vocab
from neural_debugger.paths import default_model_dir
from neural_debugger.protocol import Action, ActionKind, State, StateKind
from neural_debugger.protocol.source_map import SourceMap
from neural_debugger.tracer.events import TraceEvent
from neural_debugger.tracer.program import Program
from neural_debugger.tracer.record import record
from neural_debugger.training.data import TRACE_LIMITS
from neural_debugger.training.programs import generate_programs, package_programs
from neural_debugger.training.programs.everyday import everyday_programs

Walk = Callable[..., StateWriter]  # the ``walk`` fixture (conftest.py)

VOCAB = Vocab(load_tokenizer(Path(default_model_dir())))
CODE = """import math


def is_even(n):
    if n % 2:
        return False
    return True


def shout(text, times):
    out = ''
    for c in text:
        out += c.upper()
    return f'{out}!' * times if times else out.lower()


def tally(xs):
    return len(xs) + xs.count(0)


def pick(flag):
    if flag:
        return [1]


def unknown(x):
    return x.upper()


def squares(n):
    return [i * i for i in range(n)]


def main():
    return is_even(3), shout('hi', 2), tally([0, 1]), pick(True), squares(2)
"""
LINES = CODE.split("\n")


def _shapes(code: str = CODE, entry: str | None = "def main():") -> dict[str, Shape]:
    return LineFlow(code).return_shapes(code.split("\n"), entry)


def test_what_a_function_returns_is_read_from_its_returns() -> None:
    shapes = _shapes()
    assert shapes["    return True"] == Shape(texts=frozenset({"True", "False"}))
    # ``text`` is passed a string by every call: its characters and their methods' results
    assert shapes["    return f'{out}!' * times if times else out.lower()"].kinds == {"str"}
    assert shapes["    return len(xs) + xs.count(0)"].kinds == {"int"}
    assert shapes["        return [1]"] == Shape(texts=frozenset({"None"}), types={"list"})
    assert "    return x.upper()" not in shapes  # a method of what no call of the code shows
    # a comprehension's frame and its function's share the line: both return lists
    assert shapes["    return [i * i for i in range(n)]"].kinds == {"list"}
    # ``main`` returns a tuple, the module ``None``; the import's line is the module's alone
    assert shapes["def main():"] == Shape(texts=frozenset({"None"}), types={"tuple"})
    assert shapes["import math"] == Shape(texts=frozenset({"None"}))


def test_parameters_are_known_only_from_the_code_s_calls() -> None:
    # the run's entry is called from outside: its parameters can be anything
    shapes = _shapes(entry="def shout(text, times):")
    assert "    return f'{out}!' * times if times else out.lower()" not in shapes
    assert "    return f'{out}!' * times if times else out.lower()" not in _shapes(entry=None)
    assert _shapes(entry=None)["    return True"].kinds == {"bool"}  # literals need no caller


def test_comparisons_of_classes_that_define_them_are_not_known() -> None:
    plain = "def f(a, b):\n    return a < b\n"
    assert _shapes(plain, None)["    return a < b"].kinds == {"bool"}
    defined = "class V:\n    def __lt__(self, o):\n        return 1\n" + plain
    assert "    return a < b" not in _shapes(defined, None)
    imported = "import numpy\n" + plain  # not of the standard library: anything
    assert "    return a < b" not in _shapes(imported, None)
    assert _shapes("import heapq\n" + plain, None)["    return a < b"].kinds == {"bool"}


def test_generators_recursion_and_rebinding_are_not_guessed() -> None:
    code = "\n".join(
        [
            "def gen(n):",
            "    yield n",
            "    return 1",
            "def fact(n):",
            "    return 1 if n < 2 else n * fact(n - 1)",
            "def grow(n):",
            "    x = 0",
            "    for _ in range(n):",
            "        x = [x]",
            "    return x",
            "def swap(a):",
            "    b, c = a, 'x'",
            "    return c",
        ]
    )
    shapes = _shapes(code, None)
    assert "    return 1" not in shapes  # a generator's return ends it: what it yields too
    assert "    return 1 if n < 2 else n * fact(n - 1)" not in shapes  # fact's own shape
    assert "    return x" not in shapes or shapes["    return x"].kinds == {"int", "list"}
    assert shapes["    return c"] == Shape(texts=frozenset({"'x'"}))  # one to one


def _runs(seed: int) -> Iterator[tuple[str, Program, LineFlow, str | None, list[TraceEvent]]]:
    """Generated, package and everyday programs run under the tracer: each one's origin,
    program, flow, entry text (the first event's) and events."""
    programs = generate_programs(seed, 40) + package_programs(seed, 15)[0]
    for index, candidate in enumerate(programs + everyday_programs(seed, 20)[0]):
        program = Program(path=f"p{index}.py", source=candidate.source, entry=candidate.entry)
        events = record(program, TRACE_LIMITS).events
        entry = events[0].src if events and events[0].kind == "call" else None
        yield candidate.origin, program, LineFlow(program.context), entry, events


def test_every_real_return_fits_the_shape_of_its_line() -> None:
    """Every return event's value fits what the code says its line can return (with
    ``None`` where an exception left the frame)."""
    checked = shaped = 0
    for origin, program, flow, entry, events in _runs(5):
        shapes = flow.return_shapes(program.context.split("\n"), entry)
        raised: set[int] = set()
        for event in events:
            if event.kind == "exception":
                raised.add(event.activation)
            if event.kind != "return":
                continue
            checked += 1
            shape = shapes.get(event.src)
            if shape is None:
                continue
            shaped += 1
            fits = shape.or_raised() if event.activation in raised else shape
            assert fits.allows(event.value), (origin, event.src, event.value, shape)
    assert checked > 500
    assert shaped > checked / 3


def test_every_real_variable_fits_the_shape_of_its_bindings() -> None:
    """At every line event of a plain function's own frame, each variable shows a value of
    a kind its bindings give."""
    checked = shaped = 0
    for origin, program, flow, entry, events in _runs(6):
        lines = program.context.split("\n")
        for event in events:
            if event.kind != "line":
                continue
            line = program.context_line(event.file, event.line)
            shapes = flow.variable_shapes([line], lines, entry)
            for name, value in event.locals.items():
                checked += 1
                if name in shapes:
                    shaped += 1
                    assert shapes[name].allows(value), (origin, line, name, value)
    assert checked > 5000
    assert shaped > checked / 10


def test_a_variable_is_known_from_all_its_bindings() -> None:
    flow = LineFlow(CODE)
    function = LINES.index("def shout(text, times):") + 1
    shapes = flow.variable_shapes([function + 3], LINES, "def main():")  # out += c.upper()
    assert shapes["out"].kinds == {"str"} and shapes["c"].kinds == {"str"}
    assert shapes["times"] == Shape(texts=frozenset({"2"}))
    # the entry's parameters are not the code's to know
    assert "text" not in flow.variable_shapes([function + 3], LINES, "def shout(text, times):")
    # a comprehension's frame shares the line with its function's: not one frame's variables
    squares = LINES.index("def squares(n):") + 2
    assert flow.variable_shapes([squares], LINES, "def main():") == {}


def test_the_grammar_writes_a_variable_only_as_its_kinds() -> None:
    shapes = {"n": Shape(types=frozenset({"int"})), "s": Shape(texts=frozenset({"'a'", "None"}))}

    def writes(text: str) -> bool:
        cursor = JsonCursor("object", shapes=shapes)
        return all(cursor.feed(b) for b in text.encode()) and cursor.done

    assert writes('{"n": "5", "s": "None", "x": "[1]"}') and writes('{"n": "-3", "s": "\'a\'"}')
    assert not writes('{"n": "\'5\'"}') and not writes('{"s": "\'b\'"}')
    assert not writes('{"s": "Non"}') and not writes('{"n": "[5]"}')


def test_a_frame_that_can_re_raise_is_known() -> None:
    code = "def f(x):\n    try:\n        return 1 / x\n    except KeyError:\n        return 0\n"
    assert {1, 3, 4, 5} <= LineFlow(code).reraising_lines
    assert LineFlow("def g(x):\n    return x\n").reraising_lines == frozenset()


def _return_writer(walk: Walk, expected: Expected, src: str) -> StateWriter:
    """A writer past a return state's source line ``src`` (its canonical tokens), at the
    value."""
    source = SourceLines(LINES, VOCAB)
    writer = StateWriter(VOCAB, source, FORWARD_KINDS, expected)
    writer.advance(VOCAB.special_id[StateKind.RETURN.token])
    return walk(writer, source, src, "string")


def _expected(action: ActionKind, last: str) -> Expected:
    """What the code fixes after ``action`` from ``last``, a line of ``is_even``."""
    source, flow = SourceMap(CODE), LineFlow(CODE)
    states = (
        State(kind=StateKind.CALL, src="def main():", locals={}),
        State(
            kind=StateKind.LINE,
            src="    return is_even(3), shout('hi', 2), tally([0, 1]), pick(True), squares(2)",
            locals={},
            diff=True,
        ),
        State(kind=StateKind.CALL, src="def is_even(n):", locals={"n": "3"}),
        State(kind=StateKind.LINE, src=last, locals={"n": "3"}),
    )
    return expect(flow, source, states, (), Action(kind=action))


def test_the_grammar_writes_only_values_of_the_kinds_the_code_returns(walk: Walk) -> None:
    stepped = _expected(ActionKind.STEP_INTO, "        return False")
    assert stepped.return_shapes["        return False"] == Shape(
        texts=frozenset({"True", "False"})
    )
    # a step out may pass an exception that leaves the frame: then it returns None
    jumped = _expected(ActionKind.STEP_RETURN, "    if n % 2:")
    assert jumped.return_shapes["    return True"].texts == {"True", "False", "None"}
    assert jumped.return_shapes["    return True"].raised
    for value, ok in [("False", True), ("True", True), ("None", True), ("'no'", False)]:
        state = State(kind=StateKind.RETURN, src="    return True", value=value)
        assert jumped.allows(state) is ok
    writer = _return_writer(walk, jumped, "    return True")
    writer.advance(VOCAB.id_of_bytes[b'"'])
    assert writer.accepts(VOCAB.id_of_bytes[b"F"]) and writer.accepts(VOCAB.id_of_bytes[b"None"])
    assert not writer.accepts(VOCAB.id_of_bytes[b"'"])  # no string
    assert not writer.accepts(VOCAB.id_of_bytes[b"["]) and not writer.accepts(
        VOCAB.id_of_bytes[b"1"]
    )


def test_a_kind_is_chosen_by_all_the_probability_the_model_gives_it(walk: Walk) -> None:
    """A list's first tokens share its probability; ``None`` (only an exception's, where
    ``pick`` is stepped out of) counts only the share such returns have, unless the model's
    own best token starts it. The best single allowed token is ``None``, the best kind a
    list."""
    src = "        return [1]"
    expected = Expected(return_shapes={src: Shape(types=frozenset({"list"})).or_raised()})
    writer = _return_writer(walk, expected, src)
    writer.advance(VOCAB.id_of_bytes[b'"'])
    logits = torch.full((VOCAB.size,), -30.0)
    lists = [i for i, b in enumerate(VOCAB.bytes_of) if b and b[:1] == b"["][:6]
    assert len(lists) >= 3
    logits[lists] = 1.0
    logits[VOCAB.id_of_bytes[b"None"]] = 2.0  # alone better than any one list token
    chosen = shortlist(logits, writer, 1)
    assert VOCAB.bytes_of[int(chosen[0])][:1] == b"["  # type: ignore[index]
    # the model's own best token by far: it may have read that the frame raises
    logits[VOCAB.id_of_bytes[b"None"]] = 9.0
    assert VOCAB.bytes_of[int(shortlist(logits, writer, 1)[0])] == b"None"
    # ... but not where it expected a kind the code rules out
    logits[VOCAB.id_of_bytes[b"'"]] = 12.0
    assert VOCAB.bytes_of[int(shortlist(logits, writer, 1)[0])][:1] == b"["  # type: ignore[index]
    logits[VOCAB.id_of_bytes[b"'"]] = -30.0
    logits[VOCAB.id_of_bytes[b"None"]] = 2.0
    # where the code returns ``None`` itself, it is one kind among others, taken as it is
    returning = Shape(texts=frozenset({"None"}), types=frozenset({"list"}))
    writer = _return_writer(walk, Expected(return_shapes={src: returning}), src)
    writer.advance(VOCAB.id_of_bytes[b'"'])
    logits[lists] = -1.0
    assert VOCAB.bytes_of[int(shortlist(logits, writer, 1)[0])] == b"None"
