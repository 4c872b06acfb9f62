"""Inlay hints: after each binding statement, the value the predicted run gave its names.

``total = 6`` for a statement that ran once; ``total = 6 (×3)`` for one that ran three times (the
last value; the tooltip lists them all); ``total = 6? (31%)`` where the model is less than 50%
sure. Hints come from the first annotation (in document order) whose run passed the statement.
"""

from __future__ import annotations

from collections.abc import Callable

from lsprotocol import types

from neural_debugger.model_backend.confidence import percent, sure_in_brackets, unsure

from .observe import Seen, bound_at
from .predict import DocumentPrediction
from .show import HINT_WIDTH, cut, provenance, short_value
from .sites import Site

TOOLTIP_VALUES = 10


def inlay_hints(
    prediction: DocumentPrediction, first: int, last: int, width: Callable[[str], int]
) -> list[types.InlayHint]:
    """Hints for binding statements ending on 0-based lines ``first``..``last``; ``width`` says
    how long a line is in the client's position units (the hint goes at its end)."""
    hints = []
    lines = prediction.analysis.lines
    for site in prediction.analysis.sites:
        line = site.end_line - 1
        if not first <= line <= last or line >= len(lines):
            continue
        found = _bound(prediction, site)
        if found is None:
            continue
        entry, bound = found
        label = ", ".join(_label(name, seen) for name, seen in bound.items())
        hints.append(
            types.InlayHint(
                position=types.Position(line=line, character=width(lines[line])),
                label=cut(label, HINT_WIDTH),
                padding_left=True,
                tooltip=types.MarkupContent(
                    kind=types.MarkupKind.Markdown, value=_tooltip(entry, bound, prediction)
                ),
            )
        )
    return hints


def _bound(prediction: DocumentPrediction, site: Site) -> tuple[str, dict[str, list[Seen]]] | None:
    for run in prediction.runs:
        if run is not None:
            bound = bound_at(run, site)
            if bound:
                return run.entry, bound
    return None


def _label(name: str, seen: list[Seen]) -> str:
    last = seen[-1]
    notes = [f"×{len(seen)}"] if len(seen) > 1 else []
    if last.sure is not None and unsure(last.sure):
        notes.append(percent(last.sure))
    return f"{name} = {short_value(last)}" + (f" ({', '.join(notes)})" if notes else "")


def _tooltip(entry: str, bound: dict[str, list[Seen]], prediction: DocumentPrediction) -> str:
    parts = []
    for name, seen in bound.items():
        listed = seen[:TOOLTIP_VALUES]
        shown = ", ".join(
            f"`{cut(s.value, 40)}` {sure_in_brackets(s.sure)}".strip() for s in listed
        )
        more = f", … ({len(seen)} in all)" if len(seen) > TOOLTIP_VALUES else ""
        parts.append(f"`{name}`: {shown}{more}")
    parts.append(f"*{provenance(prediction.backend, entry)}*")
    return "\n\n".join(parts)
