"""Code lenses on each annotation: one to debug the call, one with its predicted outcome.

The first lens carries the command ``neuralDebugger.debugEntry`` with ``(uri, entry)``; the editor
extension implements it (a debug session of that call), so the server does not register it. The
second shows how the call ended (``→ returns [1, 2, 3] (62% sure)``) and runs nothing: an empty
command id makes editors show it as plain text.
"""

from __future__ import annotations

from lsprotocol import types

from neural_debugger.model_backend.confidence import sure_in_brackets

from .annotations import Annotation
from .observe import outcome
from .predict import DocumentPrediction, PredictedRun
from .show import cut

DEBUG_COMMAND = "neuralDebugger.debugEntry"
TEXT_ONLY = ""
OUTCOME_WIDTH = 60


def code_lenses(prediction: DocumentPrediction) -> list[types.CodeLens]:
    """The lenses of every annotation, in document order."""
    analysis = prediction.analysis
    lenses = []
    for annotation, run in zip(analysis.annotations, prediction.runs, strict=True):
        where = _range(annotation)
        if not annotation.valid:
            problem = cut(annotation.problem or "", OUTCOME_WIDTH)
            lenses.append(_text(where, f"ndb: cannot predict: {problem}"))
            continue
        if analysis.syntax_error is not None:
            line = analysis.syntax_error.line
            lenses.append(_text(where, f"ndb: cannot predict: syntax error on line {line}"))
            continue
        debug = types.Command(
            title=f"Neural debug {annotation.entry}",
            command=DEBUG_COMMAND,
            arguments=[prediction.uri, annotation.entry],
        )
        lenses.append(types.CodeLens(range=where, command=debug))
        if run is not None:
            lenses.append(_text(where, describe(run)))
    return lenses


def describe(run: PredictedRun) -> str:
    """How the run ended, in a lens's words."""
    ended = outcome(run)
    if ended.seen is not None:
        shown = f"{cut(ended.seen.value, OUTCOME_WIDTH)} {sure_in_brackets(ended.seen.sure)}"
        return f"→ {ended.kind} {shown.rstrip()}"
    if ended.kind == "exits":
        return f"→ the program ends ({ended.detail}) before the call returns"
    if ended.kind == "failed":
        return f"ndb: cannot predict: {cut(ended.detail, OUTCOME_WIDTH)}"
    return f"→ no return within {ended.detail}"


def _range(annotation: Annotation) -> types.Range:
    line = annotation.line - 1
    return types.Range(
        start=types.Position(line=line, character=annotation.start),
        end=types.Position(line=line, character=annotation.end),
    )


def _text(where: types.Range, title: str) -> types.CodeLens:
    return types.CodeLens(range=where, command=types.Command(title=title, command=TEXT_ONLY))
