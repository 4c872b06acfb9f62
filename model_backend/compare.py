"""A predicted session against reality: the same actions replayed on a real run (the oracle).

Used by ``ndb debug --compare`` (a ✗ beside each wrong value) and by the DAP server's
``compareWithRealRun`` request (the editor marks each line where a prediction went wrong). The
real twin takes exactly the actions the predicted session took, so stop ``i`` of one is compared
with stop ``i`` of the other. Edits and jumps (``set_value``, ``goto``) are counterfactuals that
the real run never took: stops after the first one are still compared, but reported as such.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .backend import BackendError, Engine
from .session import DebugSession, Stop


def differences(stop: Stop, truth: Stop | None) -> list[str]:
    """What a predicted stop gets wrong against the real run's stop for the same action:
    ``"position"`` (event or line), the names of wrong locals, ``"value"`` (return value or
    exception)."""
    if truth is None:
        return []
    wrong: list[str] = []
    if truth.state.kind != stop.state.kind or truth.line != stop.line:
        wrong.append("position")
    for name, value in (stop.locals or {}).items():
        if (truth.locals or {}).get(name) != value:
            wrong.append(name)
    if stop.state.value is not None and truth.state.value != stop.state.value:
        wrong.append("value")
    return wrong


async def follow(truth: DebugSession, session: DebugSession) -> None:
    """Bring the real twin to the same history of actions as ``session`` (the oracle never
    guesses, so its stops are reality). It stops early where the real run ends."""
    while len(truth.stops) > 1 and (
        len(truth.actions) > len(session.actions)
        or truth.actions != session.actions[: len(truth.actions)]
    ):
        truth.step_back()
    for action in session.actions[len(truth.actions) :]:
        if truth.finished:
            break
        try:
            await truth.step(action)
        except BackendError:
            break


@dataclass(frozen=True)
class Divergence:
    """One thing a predicted stop got wrong. ``line`` is where the prediction stood (the line to
    mark), ``real_line`` where the real run stood after the same actions."""

    step: int  # index of the stop in the session; 0 is the first stop
    action: str | None
    kind: str  # "position", "variable" or "value"
    file: str | None
    line: int | None
    real_line: int | None
    name: str | None = None
    predicted: str | None = None
    real: str | None = None
    counterfactual: bool = False  # after an edit or a jump the real run never made

    @property
    def message(self) -> str:
        """One sentence for a person, e.g. for a diagnostic on ``line``."""
        after = f" after {self.action.replace('_', ' ')}" if self.action else " at the start"
        if self.kind == "position":
            text = f"predicted {self.predicted}; the real run was at {self.real}"
        elif self.kind == "variable":
            real = f"no {self.name}" if self.real is None else self.real
            text = f"predicted {self.name} = {self.predicted}; the real run had {real}"
        else:
            text = f"predicted {self.name} {self.predicted}; the real run gave {self.real}"
        note = " (after an edit the real run never made)" if self.counterfactual else ""
        return f"Stop {self.step}{after}: {text}{note}"


@dataclass(frozen=True)
class Comparison:
    """The outcome of a comparison: every divergence, and how many stops were compared."""

    stops: int  # stops of the predicted session
    compared: int  # those with a real twin (the real run may end sooner)
    divergences: tuple[Divergence, ...]

    @property
    def wrong_stops(self) -> int:
        return len({d.step for d in self.divergences})

    @property
    def first(self) -> Divergence | None:
        return self.divergences[0] if self.divergences else None


def _where(stop: Stop) -> str:
    kind = stop.state.kind.value.replace("_", " ")
    if stop.line is None:
        return kind
    return f"line {stop.line}" if kind == "line" else f"{kind} at line {stop.line}"


def _edited(stop: Stop) -> bool:
    """An edited value or a jump: the stop is not what its prediction said."""
    return stop.prediction is not None and stop.prediction.state != stop.state


def diverged(session: DebugSession, truth: DebugSession) -> Comparison:
    """Stop by stop, what ``session`` predicted that ``truth`` (already followed) did not do."""
    found: list[Divergence] = []
    counterfactual = False
    compared = min(len(session.stops), len(truth.stops))
    for index in range(compared):
        stop, real = session.stops[index], truth.stops[index]
        counterfactual = counterfactual or _edited(stop)
        action = stop.action.kind.value if stop.action is not None else None
        base: dict[str, Any] = {
            "step": index,
            "action": action,
            "file": stop.file,
            "line": stop.line,
            "real_line": real.line,
            "counterfactual": counterfactual,
        }
        for wrong in differences(stop, real):
            if wrong == "position":
                found.append(
                    Divergence(kind="position", predicted=_where(stop), real=_where(real), **base)
                )
            elif wrong == "value":
                label = "returns" if stop.state.kind.value.endswith("return") else "raises"
                found.append(
                    Divergence(
                        kind="value",
                        name=label,
                        predicted=stop.state.value,
                        real=real.state.value,
                        **base,
                    )
                )
            else:
                found.append(
                    Divergence(
                        kind="variable",
                        name=wrong,
                        predicted=(stop.locals or {}).get(wrong),
                        real=(real.locals or {}).get(wrong),
                        **base,
                    )
                )
    return Comparison(stops=len(session.stops), compared=compared, divergences=tuple(found))


async def compare_with_real_run(session: DebugSession, oracle: Engine) -> Comparison:
    """Run the program for real (``oracle``), replay ``session``'s actions on it, and list where
    the predictions diverged. This EXECUTES the program: callers ask the user first."""
    truth = await DebugSession.open(session.program, oracle, inverse=session.inverse)
    try:
        await follow(truth, session)
        return diverged(session, truth)
    finally:
        await truth.backend.aclose()
