"""Diagnostics: why something cannot be predicted, where the user can fix it.

A syntax error (at its position) stops every prediction of the document; an annotation that is not
a call, or whose prediction failed (the backend's message), is marked on the annotation. A run
that merely did not return in time is not a problem of the code: its lens says so instead.
"""

from __future__ import annotations

from lsprotocol import types

from .predict import DocumentPrediction

SOURCE = "ndb"


def diagnostics(prediction: DocumentPrediction) -> list[types.Diagnostic]:
    """The document's diagnostics; ranges in code points (the server converts them)."""
    analysis = prediction.analysis
    found = []
    problem = analysis.syntax_error
    if problem is not None:
        line = problem.line - 1
        text = analysis.lines[line] if line < len(analysis.lines) else ""
        end = max(len(text), problem.column + 1)
        found.append(
            _diagnostic(
                line,
                problem.column,
                end,
                f"syntax error: {problem.message}; nothing is predicted until it is fixed",
                types.DiagnosticSeverity.Error,
            )
        )
    for annotation, run in zip(analysis.annotations, prediction.runs, strict=True):
        if annotation.problem is not None:
            reason = annotation.problem
        elif run is not None and run.error is not None:
            reason = run.error
        else:
            continue
        found.append(
            _diagnostic(
                annotation.line - 1,
                annotation.start,
                annotation.end,
                f"ndb: cannot predict {annotation.entry or 'this annotation'}: {reason}",
                types.DiagnosticSeverity.Warning,
            )
        )
    return found


def _diagnostic(
    line: int, start: int, end: int, message: str, severity: types.DiagnosticSeverity
) -> types.Diagnostic:
    return types.Diagnostic(
        range=types.Range(
            start=types.Position(line=line, character=start),
            end=types.Position(line=line, character=end),
        ),
        message=message,
        severity=severity,
        source=SOURCE,
    )
