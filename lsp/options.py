"""The server's settings: defaults from the command line, overridden by the client's
``initializationOptions`` (an editor extension sets them; no command line is needed)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

BACKENDS = ("local", "oracle")
DEFAULT_MAX_STEPS = 200
DEFAULT_DEBOUNCE = 0.5


class OptionsError(ValueError):
    """An initialization option has a wrong name, type or value; the message says which."""


@dataclass(frozen=True)
class Options:
    """How predictions are made.

    ``backend``: ``local`` (the embedded model, the default) or ``oracle`` (a real run; it executes
    the program, so only when asked for). ``model``: a model folder for ``local`` (default: the
    shipped one). ``max_steps``: predicted steps per annotation before giving up on its return.
    ``debounce``: seconds of quiet after an edit before predicting again.
    """

    backend: str = "local"
    model: Path | None = None
    max_steps: int = DEFAULT_MAX_STEPS
    debounce: float = DEFAULT_DEBOUNCE

    def __post_init__(self) -> None:
        if self.backend not in BACKENDS:
            raise OptionsError(
                f"unknown backend {self.backend!r}; choose one of {', '.join(BACKENDS)}"
            )
        if self.max_steps < 1:
            raise OptionsError(f"maxSteps must be at least 1, got {self.max_steps}")
        if self.debounce < 0:
            raise OptionsError(f"debounceSeconds must be 0 or more, got {self.debounce}")

    def updated(self, raw: object) -> Options:
        """These options with the client's ``initializationOptions`` applied (``None``: none).

        Keys: ``backend``, ``model``, ``maxSteps``, ``debounceSeconds``.
        """
        if raw is None:
            return self
        if not isinstance(raw, dict):
            raise OptionsError("initializationOptions must be an object")
        unknown = set(raw) - {"backend", "model", "maxSteps", "debounceSeconds"}
        if unknown:
            raise OptionsError(f"unknown initialization option(s): {', '.join(sorted(unknown))}")
        changes: dict[str, object] = {}
        if "backend" in raw:
            changes["backend"] = _text(raw, "backend")
        if raw.get("model") is not None:
            changes["model"] = Path(_text(raw, "model"))
        if "maxSteps" in raw:
            changes["max_steps"] = _whole(raw, "maxSteps")
        if "debounceSeconds" in raw:
            changes["debounce"] = _number(raw, "debounceSeconds")
        return replace(self, **changes)


def _text(raw: dict[str, object], key: str) -> str:
    value = raw[key]
    if not isinstance(value, str):
        raise OptionsError(f"initialization option {key} must be a string, got {value!r}")
    return value


def _whole(raw: dict[str, object], key: str) -> int:
    value = raw[key]
    if isinstance(value, bool) or not isinstance(value, int):
        raise OptionsError(f"initialization option {key} must be a whole number, got {value!r}")
    return value


def _number(raw: dict[str, object], key: str) -> float:
    value = raw[key]
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise OptionsError(f"initialization option {key} must be a number, got {value!r}")
    return float(value)
