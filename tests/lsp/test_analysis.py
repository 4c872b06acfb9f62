"""What the server reads from a document's text alone: annotations, binding statements, options."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from neural_debugger.lsp.analysis import analyze
from neural_debugger.lsp.annotations import find_annotations
from neural_debugger.lsp.options import Options, OptionsError
from neural_debugger.lsp.sites import Site, assignment_sites, functions, innermost


def test_annotations_are_comments_not_string_text() -> None:
    source = 'text = """\n# ndb: g(1)\n"""\nx = 1  # ndb:  f([1, 2])  \n'
    (found,) = find_annotations(source)
    assert (found.line, found.start, found.end, found.entry) == (4, 7, 26, "f([1, 2])")
    assert found.valid


def test_a_document_that_does_not_tokenize_keeps_its_whole_line_annotations() -> None:
    found = find_annotations('# ndb: f(1)\ns = "open\n    #ndb:f(\n')
    assert [(a.line, a.start, a.entry, a.valid) for a in found] == [
        (1, 0, "f(1)", True),
        (3, 4, "f(", False),
    ]
    assert analyze('# ndb: f(1)\ns = "open\n').syntax_error is not None


def test_binding_statements_and_the_names_they_change() -> None:
    source = (
        "def f(items):\n"
        "    a, (b, *c) = items\n"
        "    items[0] = a\n"
        "    self_count: int\n"
        "    total: int = 0\n"
        "    for k, v in enumerate(\n"
        "        items\n"
        "    ):\n"
        "        total += v\n"
        "    return total\n"
    )
    tree = ast.parse(source)
    assert assignment_sites(tree) == [
        Site(2, 2, ("a", "b", "c")),
        Site(3, 3, ("items",)),
        Site(5, 5, ("total",)),
        Site(6, 8, ("k", "v"), body=(9, 9)),
        Site(9, 9, ("total",)),
    ]
    outer, inner = functions(ast.parse("def f():\n    def g():\n        pass\n    return g\n"))
    assert (outer.name, inner.name) == ("f", "g")
    assert innermost([outer, inner], 3) == inner and innermost([outer, inner], 4) == outer
    assert innermost([outer, inner], 5) is None


def test_initialization_options_override_and_are_checked() -> None:
    options = Options().updated({"backend": "oracle", "maxSteps": 20, "model": "m"})
    assert options == Options(backend="oracle", max_steps=20, model=Path("m"))
    assert Options().updated(None) == Options()
    for bad, message in [
        ({"backend": "vllm"}, "unknown backend"),
        ({"maxSteps": "20"}, "whole number"),
        ({"maxSteps": 0}, "at least 1"),
        ({"debounceSeconds": True}, "must be a number"),
        ({"colour": "red"}, "unknown initialization option"),
        (["oracle"], "must be an object"),
    ]:
        with pytest.raises(OptionsError, match=message):
            Options().updated(bad)
