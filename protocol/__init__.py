"""The neural debugger language: tokens, typed states and actions, encoding and parsing.

Pure Python (no torch): every other part of the system speaks through this package. Exports are
loaded on first use, so that the tracing subprocess, which needs only :mod:`.tokens`, does not
pay for importing pydantic.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

_EXPORTS = {
    "encode": "encoding",
    "encode_action": "encoding",
    "encode_frame": "encoding",
    "encode_header": "encoding",
    "encode_locals": "encoding",
    "encode_prompt": "encoding",
    "encode_state": "encoding",
    "encode_step": "encoding",
    "Action": "language",
    "Locals": "language",
    "Nesting": "language",
    "State": "language",
    "Trajectory": "language",
    "standalone": "language",
    "ParseError": "parse",
    "parse_action": "parse",
    "parse_prompt": "parse",
    "parse_state": "parse",
    "parse_trajectory": "parse",
    "ALL_SPECIAL_TOKENS": "tokens",
    "ActionKind": "tokens",
    "StateKind": "tokens",
}

__all__ = [
    "ALL_SPECIAL_TOKENS",
    "Action",
    "ActionKind",
    "Locals",
    "Nesting",
    "ParseError",
    "State",
    "StateKind",
    "Trajectory",
    "encode",
    "encode_action",
    "encode_frame",
    "encode_header",
    "encode_locals",
    "encode_prompt",
    "encode_state",
    "encode_step",
    "parse_action",
    "parse_prompt",
    "parse_state",
    "parse_trajectory",
    "standalone",
]

if TYPE_CHECKING:
    from .encoding import (
        encode,
        encode_action,
        encode_frame,
        encode_header,
        encode_locals,
        encode_prompt,
        encode_state,
        encode_step,
    )
    from .language import Action, Locals, Nesting, State, Trajectory, standalone
    from .parse import ParseError, parse_action, parse_state, parse_trajectory
    from .tokens import ALL_SPECIAL_TOKENS, ActionKind, StateKind


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value
