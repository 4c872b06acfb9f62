"""How values read in the editor: short, and marked where the model is unsure.

Confidences read as everywhere else: :mod:`neural_debugger.model_backend.confidence`.
"""

from __future__ import annotations

from neural_debugger.model_backend.confidence import unsure_mark

from .observe import Seen

VALUE_WIDTH = 24  # a hint's value is cut to this many characters
HINT_WIDTH = 60  # a whole hint


def cut(text: str, width: int) -> str:
    """``text`` on one line and at most ``width`` characters, "…" marking a cut."""
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def short_value(seen: Seen) -> str:
    """The value cut to a hint's width, with ``?`` when the model is unsure of it."""
    return cut(seen.value, VALUE_WIDTH) + unsure_mark(seen.sure)


def provenance(backend: str, entry: str) -> str:
    """Where the values come from, in one line: a prediction, or (oracle) a real run."""
    if backend == "oracle":
        return f"From a real run of `{entry}` (the oracle backend ran the program)."
    return f"Predicted by the model for `{entry}`; these are predictions, not a real run."
