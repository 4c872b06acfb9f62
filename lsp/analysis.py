"""Everything the server reads from a document's text alone, before anything is predicted."""

from __future__ import annotations

import ast
from dataclasses import dataclass

from neural_debugger.tracer.program import split_lines

from .annotations import Annotation, find_annotations
from .sites import Function, Site, assignment_sites, functions


@dataclass(frozen=True)
class SyntaxProblem:
    """Why the document does not compile, and where (1-based line, 0-based code-point column)."""

    line: int
    column: int
    message: str


@dataclass(frozen=True)
class Analysis:
    """A document's annotations, binding statements and functions, or its syntax error.

    A document with a syntax error has no sites and no functions (nothing can be predicted);
    its annotations are still found, so the editor can say why they show nothing.
    """

    source: str
    lines: tuple[str, ...]
    annotations: tuple[Annotation, ...]
    sites: tuple[Site, ...] = ()
    functions: tuple[Function, ...] = ()
    syntax_error: SyntaxProblem | None = None


def analyze(source: str) -> Analysis:
    """Read ``source``: its syntax error, if any, else its binding statements and functions."""
    lines = tuple(split_lines(source))
    annotations = tuple(find_annotations(source))
    try:
        compile(source, "<document>", "exec", dont_inherit=True)  # what loading it would check
        tree = ast.parse(source)
    except SyntaxError as err:
        problem = SyntaxProblem(err.lineno or 1, max((err.offset or 1) - 1, 0), err.msg)
        return Analysis(source, lines, annotations, syntax_error=problem)
    except ValueError as err:  # source with NUL bytes
        return Analysis(source, lines, annotations, syntax_error=SyntaxProblem(1, 0, str(err)))
    return Analysis(
        source, lines, annotations, tuple(assignment_sites(tree)), tuple(functions(tree))
    )
