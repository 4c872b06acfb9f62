"""What a function's uses say about its parameters' kinds: read on small cases, checked on real
runs, and as the decoding rule weighs it where a call state's parameter starts."""

from __future__ import annotations

import ast
from collections.abc import Callable
from pathlib import Path

import torch

from neural_debugger.model_backend.choosing import shortlist
from neural_debugger.model_backend.flow import Expected, LineFlow
from neural_debugger.model_backend.grammar import INVERSE_KINDS, SourceLines, StateWriter
from neural_debugger.model_backend.parameter_uses import UNUSED_SHARE, parameter_kinds
from neural_debugger.model_backend.repr_syntax import is_whole
from neural_debugger.model_backend.tokenizer import load_tokenizer
from neural_debugger.model_backend.value_shapes import FIRSTS
from neural_debugger.model_backend.vocab import Vocab
from neural_debugger.paths import default_model_dir
from neural_debugger.protocol import StateKind
from neural_debugger.tracer.program import Program
from neural_debugger.tracer.record import record
from neural_debugger.tracer.values import CUT_MARKER
from neural_debugger.training.data import TRACE_LIMITS
from neural_debugger.training.programs import generate_programs, package_programs
from neural_debugger.training.programs.drills import drill_programs
from neural_debugger.training.programs.everyday import everyday_programs

Walk = Callable[..., StateWriter]  # the ``walk`` fixture (conftest.py)

VOCAB = Vocab(load_tokenizer(Path(default_model_dir())))
TEXT = frozenset({"str", "bytes"})
ITERABLE = frozenset({"str", "bytes", "list", "tuple", "dict", "set"})


def _kinds(code: str) -> dict[str, frozenset[str]]:
    """The kinds of the parameters of the code's first function."""
    tree = ast.parse(code)
    first = next(n for n in tree.body if isinstance(n, ast.FunctionDef))
    return parameter_kinds(tree).get(first.lineno, {})


def test_uses_say_what_a_parameter_is() -> None:
    code = """def f(text, d, n, xs, s1, width, pairs, fill=' ', spare=None):
    words = text.split()
    for key, value in d.items():
        n = n - 1
    total = sum(xs) + len(xs[1:])
    if text.endswith(s1):
        total += 1
    padded = text.center(width, fill)
    merged = {**pairs}
    return spare, words, total, padded, merged
"""
    kinds = _kinds(code)
    assert kinds["text"] == TEXT  # split, endswith, center: a string's or bytes' methods
    assert kinds["d"] == {"dict"}
    assert kinds["xs"] == {"str", "bytes", "list", "tuple"}  # summed, sized and sliced
    assert kinds["s1"] == TEXT | {"tuple"}  # what ``endswith`` takes
    assert kinds["width"] == {"int", "bool"}
    assert kinds["fill"] == TEXT  # what ``center`` takes (the default, a str, among them)
    assert kinds["pairs"] == {"dict"}
    assert kinds["n"] == {"int", "float", "bool"}  # ``n - 1`` reads it before it is rebound
    assert "spare" not in kinds  # never used


def test_reads_before_a_rebinding_say_what_the_argument_was() -> None:
    code = """def f(text, num, tokens, d, xs, k):
    tokens = tokens.split()
    for i in '123':
        num = num.replace(i, '')
    while len(xs) > 0 and d.get(k):
        xs = xs[1:]
    return text, num, tokens
"""
    kinds = _kinds(code)
    assert kinds["tokens"] == TEXT  # the value read before the name is bound again
    assert kinds["num"] == TEXT  # the loop's first pass reads the argument
    assert kinds["xs"] == ITERABLE  # sized in the loop's test, then sliced in its body: rebound
    assert kinds["d"] == {"dict"}  # ``get`` in the test's second operand: dicts only
    assert "text" not in kinds and "k" not in kinds
    after = "def f(x, y):\n    for x in y:\n        x.upper()\n    return x.items()\n"
    assert _kinds(after) == {"y": ITERABLE}  # bound by the loop before its body reads it
    tested = "def f(x):\n    if x:\n        x = x.split()\n    return x\n"
    assert _kinds(tested) == {}  # the branch tests it: the read says nothing
    caught = (
        "def f(x):\n    try:\n        x = x.split()\n    except AttributeError:\n        pass\n"
    )
    assert _kinds(caught) == {}


def test_uses_that_may_not_run_or_may_mean_another_type_say_nothing() -> None:
    branch = "def f(x, y):\n    if x:\n        return x.upper()\n    return y and y.items()\n"
    assert _kinds(branch) == {}  # tested first: may be None or empty
    caught = "def f(x):\n    try:\n        return x.upper()\n    except TypeError:\n        pass\n"
    assert _kinds(caught) == {}
    tested = "def f(x):\n    if isinstance(x, str):\n        pass\n    return x.upper()\n"
    assert _kinds(tested) == {}
    own = "class Box:\n    def upper(self):\n        return 1\n\ndef f(x):\n    return x.upper()\n"
    assert _kinds(own) == {}  # a class of the code has the method
    assert _kinds("import numpy\n\ndef f(x):\n    return x.upper()\n") == {}
    moduled = "import re\n\ndef f(x):\n    return re.split(',', x)\n"
    assert _kinds(moduled) == {}  # a module's function, not a string's method
    unknown_default = "def f(x=DEFAULT):\n    return x.upper()\n"
    assert _kinds(unknown_default) == {}
    method = "class A:\n    def f(self, k):\n        return self.items(), k.items()\n"
    tree = ast.parse(method)
    assert parameter_kinds(tree) == {2: {"k": frozenset({"dict"})}}  # ``self`` is the object


def test_real_arguments_are_of_the_kinds_their_uses_admit() -> None:
    """Every traced call of generated, package, drill and everyday programs passes each
    parameter a value that starts the way a kind its uses admit starts (what
    :data:`UNUSED_SHARE` rests on, measured here again on other programs)."""
    checked = 0
    outside: list[tuple[str, str, str]] = []
    programs = (
        generate_programs(8, 40)
        + package_programs(8, 30)[0]
        + drill_programs(8, 30)[0]
        + everyday_programs(8, 30)[0]
    )
    for index, candidate in enumerate(programs):
        program = Program(path=f"p{index}.py", source=candidate.source, entry=candidate.entry)
        events = record(program, TRACE_LIMITS).events
        lines = program.context.split("\n")
        likely = LineFlow(program.context).likely_by_call_text(lines)
        for event in events:
            for name, kinds in likely.get(event.src, {}).items() if event.kind == "call" else ():
                value = event.locals.get(name)
                if value is None:
                    continue
                checked += 1
                if not value or not any(value[0] in FIRSTS[k] for k in kinds):
                    outside.append((event.src, name, value))
                elif not value.endswith(CUT_MARKER) and not is_whole(value, kinds):
                    outside.append((event.src, name, value))  # a set for a dict, a float for an int
    assert checked > 250
    assert len(outside) <= UNUSED_SHARE * checked, outside


def _call_writer(walk: Walk, code: str, expected: Expected) -> StateWriter:
    """A writer of an inverse step's call state of ``code``'s first line, past the colon
    after the name of its first parameter."""
    lines = code.split("\n")
    source = SourceLines(lines, VOCAB)
    writer = StateWriter(VOCAB, source, INVERSE_KINDS, expected)
    writer.advance(VOCAB.special_id[StateKind.INV_CALL.token])
    walk(writer, source, lines[0], "object")
    name = code[code.index("(") + 1 : code.index(")")].split(",")[0]
    for byte in f'{{"{name}":'.encode():
        writer.advance(VOCAB.id_of_bytes[bytes([byte])])
    return writer


def test_the_decoder_takes_a_kind_the_uses_admit(walk: Walk) -> None:
    """The model all but sure of a string for the ``d`` of ``d.items()``: the decoder still
    writes a dict, as a token that writes the space, the quote and the value's first byte
    at once, or as the value's first byte; the grammar itself allows either."""
    code = "def f(d):\n    return list(d.items())\n"
    expected = Expected(call_likely=LineFlow(code).likely_by_call_text(code.split("\n")))
    assert expected.call_likely == {"def f(d):": {"d": frozenset({"dict"})}}
    writer = _call_writer(walk, code, expected)
    logits = torch.full((VOCAB.size,), -30.0)
    quoted, braced = VOCAB.id_of_bytes[b" \"'"], VOCAB.id_of_bytes[b' "{']
    logits[quoted], logits[braced] = 12.0, 1.0
    assert writer.accepts(quoted)  # not the grammar's rule
    assert int(shortlist(logits, writer, 1)[0]) == braced
    # without the uses, the model's choice stands
    plain = _call_writer(walk, code, Expected())
    assert int(shortlist(logits, plain, 1)[0]) == quoted
    # after the opening quote, the same choice on the value's first byte
    for byte in b' "':
        writer.advance(VOCAB.id_of_bytes[bytes([byte])])
    logits[VOCAB.id_of_bytes[b"'"]], logits[VOCAB.id_of_bytes[b"{"]] = 12.0, 1.0
    assert VOCAB.bytes_of[int(shortlist(logits, writer, 1)[0])][:1] == b"{"  # type: ignore[index]
