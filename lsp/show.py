"""How values and confidences read in the editor: short, and marked where the model is unsure."""

from __future__ import annotations

from .observe import Seen

UNSURE = 0.5  # below this the value is marked with "?", as `ndb debug` does
VALUE_WIDTH = 24  # a hint's value is cut to this many characters
HINT_WIDTH = 60  # a whole hint


def cut(text: str, width: int) -> str:
    """``text`` on one line and at most ``width`` characters, "…" marking a cut."""
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def percent(sure: float) -> str:
    return f"{round(100 * sure)}%"


def unsure(seen: Seen) -> bool:
    return seen.sure is not None and seen.sure < UNSURE


def short_value(seen: Seen) -> str:
    """The value cut to a hint's width, with ``?`` when the model is unsure of it."""
    return cut(seen.value, VALUE_WIDTH) + ("?" if unsure(seen) else "")


def sureness(seen: Seen) -> str:
    """``(62% sure)``, or nothing when the backend wrote no confidence for this value."""
    return "" if seen.sure is None else f"({percent(seen.sure)} sure)"


def provenance(backend: str, entry: str) -> str:
    """Where the values come from, in one line: a prediction, or (oracle) a real run."""
    if backend == "oracle":
        return f"From a real run of `{entry}` (the oracle backend ran the program)."
    return f"Predicted by the model for `{entry}`; these are predictions, not a real run."
