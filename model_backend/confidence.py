"""How sure the model was, as every frontend writes it: ``62%``, ``62% sure``, ``(62% sure)``.

The DAP server, the terminal debugger, the language server and the MCP server all show the
backend's probabilities; they read them the same way from here, so a value the editor calls
``>99% sure`` is never ``100%`` in the terminal. A prediction is never shown as certain unless it
is: over 99% (below 1) it reads ``>99%``; under 1% it reads ``<1%``.
"""

from __future__ import annotations

import re

UNSURE = 0.5  # below this a value is marked with "?" (the terminal, the editor's hints)
_SUFFIX = re.compile(r"\s+\((?:<1%|>99%|\d{1,3}%) sure\)$")


def percent(p: float) -> str:
    """A probability as people read it: ``62%``, ``<1%``, ``>99%``, ``100%`` (only when 1)."""
    if p < 0.01:
        return "<1%"
    if 0.99 < p < 1:
        return ">99%"
    return f"{p:.0%}"


def sure(p: float) -> str:
    """``62% sure``."""
    return f"{percent(p)} sure"


def sure_in_brackets(p: float | None) -> str:
    """``(62% sure)``, or nothing when no confidence was written for the value."""
    return "" if p is None else f"({sure(p)})"


def unsure(p: float | None) -> bool:
    """Whether a value is shown marked as a guess (a known confidence under :data:`UNSURE`)."""
    return p is not None and p < UNSURE


def unsure_mark(p: float | None) -> str:
    """``?`` after a value the model is unsure of, else nothing."""
    return "?" if unsure(p) else ""


def without_sureness(text: str) -> str:
    """A value text without a ``  (62% sure)`` suffix copied along with it (and without the
    spaces around it): what a user typed back, or a value compared with another debugger's."""
    return _SUFFIX.sub("", text.strip())
