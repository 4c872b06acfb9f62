"""Hover on a variable inside a function the predicted run passed through: the values it takes.

The first few values, in the order the run gave them (each change once), with how sure the
backend was, then a line that says where they come from: the model's predictions, not a run.
"""

from __future__ import annotations

import io
import keyword
import tokenize

from lsprotocol import types

from neural_debugger.model_backend.confidence import sure_in_brackets

from .observe import values_in
from .predict import DocumentPrediction
from .show import cut, provenance
from .sites import innermost

SHOWN = 5  # values listed before "…"
VALUE_WIDTH = 60


def hover(prediction: DocumentPrediction, line: int, column: int) -> types.Hover | None:
    """The hover for 0-based ``line`` and code-point ``column``; None off a predicted variable.

    The range in the answer is in code points too; the server converts it for the client.
    """
    analysis = prediction.analysis
    token = _name_at(analysis.source, line + 1, column)
    function = innermost(analysis.functions, line + 1)
    if token is None or function is None:
        return None
    name, start, end = token
    for run in prediction.runs:
        if run is None:
            continue
        taken = values_in(run, function, name)
        if not taken:
            continue
        rows = [
            f"- `{cut(seen.value, VALUE_WIDTH)}` {sure_in_brackets(seen.sure)}".rstrip()
            for seen in taken
        ]
        if len(rows) > SHOWN:
            rows = [*rows[:SHOWN], f"- … ({len(taken)} values in all)"]
        text = "\n".join(
            [
                f"**{name}** in `{function.name}`, values in order:",
                "",
                *rows,
                "",
                f"*{provenance(prediction.backend, run.entry)}*",
            ]
        )
        return types.Hover(
            contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=text),
            range=types.Range(
                start=types.Position(line=line, character=start),
                end=types.Position(line=line, character=end),
            ),
        )
    return None


def _name_at(source: str, line: int, column: int) -> tuple[str, int, int] | None:
    """The identifier token covering ``column`` on 1-based ``line``: (name, start, end)."""
    try:
        for token in tokenize.generate_tokens(io.StringIO(source).readline):
            if token.start[0] > line:
                return None
            if (
                token.type == tokenize.NAME
                and token.start[0] == line
                and token.start[1] <= column <= token.end[1]
                and not keyword.iskeyword(token.string)
            ):
                return token.string, token.start[1], token.end[1]
    except (tokenize.TokenError, SyntaxError):
        return None
    return None
