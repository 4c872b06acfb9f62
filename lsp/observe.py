"""Reading a predicted run from the code's side: what a statement bound, what a variable took,
what the call returned.

A line stop shows the frame *before* its line runs, so what a statement bound is seen at the next
stop of the same frame: the first later stop at the same depth (deeper stops are calls it made).
A stop at a smaller depth means the frame returned first, and nothing is seen. A confidence is
known where the model wrote the value (a state's diff lists the names that changed); a value
carried over unchanged has none.
"""

from __future__ import annotations

from dataclasses import dataclass

from neural_debugger.model_backend.session import Stop
from neural_debugger.protocol import StateKind
from neural_debugger.tracer.program import ENTRY_FILE

from .predict import PredictedRun
from .sites import Function, Site


@dataclass(frozen=True)
class Seen:
    """A value (repr text) a run showed, and how sure the backend was of it (None: not written)."""

    value: str
    sure: float | None


@dataclass(frozen=True)
class Outcome:
    """How the annotated call ended: ``returns``, ``raises``, ``exits`` (with an error, or never
    ended in the real run), ``unfinished`` (step budget spent) or ``failed`` (no prediction)."""

    kind: str
    seen: Seen | None = None
    detail: str = ""


def bound_at(run: PredictedRun, site: Site) -> dict[str, list[Seen]]:
    """For each name ``site`` binds, the value seen after each time the statement ran."""
    stops = run.stops
    found: dict[str, list[Seen]] = {name: [] for name in site.names}
    for index, stop in enumerate(stops):
        if stop.state.kind is not StateKind.LINE or stop.file != run.path or stop.line != site.line:
            continue
        after = _next_in_frame(stops, index)
        if after is None or after.locals is None:
            continue
        if site.body is not None and not (
            after.line is not None and site.line <= after.line <= site.body[1]
        ):
            continue  # the loop ended here: its target was not bound again
        for name in site.names:
            value = after.locals.get(name)
            if value is not None:
                found[name].append(Seen(value, after.confidence.values.get(name)))
    return {name: seen for name, seen in found.items() if seen}


def values_in(run: PredictedRun, function: Function, name: str) -> list[Seen]:
    """The values ``name`` takes while the run stands in ``function``, each change once."""
    taken: list[Seen] = []
    for stop in run.stops:
        if stop.locals is None or stop.file != run.path or stop.line is None:
            continue
        if not function.contains(stop.line) or name not in stop.locals:
            continue
        value = stop.locals[name]
        if not taken or taken[-1].value != value:
            taken.append(Seen(value, stop.confidence.values.get(name)))
    return taken


def outcome(run: PredictedRun) -> Outcome:
    """How the annotated call ended, judged by the entry wrapper's last event."""
    for index, stop in enumerate(run.stops):
        if stop.file != ENTRY_FILE or stop.state.value is None:
            continue
        sure = stop.confidence.value
        previous = run.stops[index - 1] if index else None
        if previous is not None and previous.state.kind is stop.state.kind:
            sure = _least(sure, previous.confidence.value)  # the callee's own return or raise
        seen = Seen(stop.state.value, sure)
        if stop.state.kind is StateKind.RETURN:
            return Outcome("returns", seen)
        if stop.state.kind is StateKind.EXCEPTION:
            return Outcome("raises", seen)
    last = run.stops[-1] if run.stops else None
    if last is not None and last.state.kind in (StateKind.EXIT_ERROR, StateKind.EXIT_NEVER):
        return Outcome("exits", detail=last.state.kind.value)
    if run.error is not None:
        return Outcome("failed", detail=run.error)
    return Outcome("unfinished", detail=f"{run.max_steps} predicted steps")


def _next_in_frame(stops: tuple[Stop, ...], index: int) -> Stop | None:
    depth = stops[index].depth
    for stop in stops[index + 1 :]:
        if stop.depth < depth or stop.exited:
            return None
        if stop.depth == depth:
            return stop
    return None


def _least(first: float | None, second: float | None) -> float | None:
    known = [p for p in (first, second) if p is not None]
    return min(known) if known else None
