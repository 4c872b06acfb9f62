"""Predicted inputs: inverse execution draws calls, the forward model checks each one.

From the function returning the wanted output, the inverse model jumps to the inputs of the
call (``inv_step_call``): the greedy jump first, then samples for more candidates. Each
candidate is then run forwards through the model (into the call, over its lines to its
return, since a chain of steps is surer than one jump), so an
agent sees which candidates the model itself believes return the output. Nothing is executed.
"""

from __future__ import annotations

from pathlib import Path

from neural_debugger.model_backend.api import EnginePool, SessionError, open_session
from neural_debugger.model_backend.backend import BackendError, DecodeOptions
from neural_debugger.model_backend.session import DebugSession, Stop
from neural_debugger.protocol import Action, ActionKind, StateKind
from neural_debugger.server.values import rebuild_or_none

from .schema import Candidate

MAX_FORWARD_STEPS = 64  # predicted steps over the candidate call's lines before giving up


def same_value(a: str, b: str) -> bool:
    """Whether two repr texts stand for the same value (literals compared as values)."""
    ok_a, value_a = rebuild_or_none(a)
    ok_b, value_b = rebuild_or_none(b)
    if ok_a and ok_b:
        try:
            return bool(value_a == value_b) and type(value_a) is type(value_b)
        except (TypeError, ValueError, RecursionError):
            return False
    return a.strip() == b.strip()


def candidate_of(function: str, stop: Stop) -> Candidate | None:
    """The call an inverse stop at the function's inputs stands for (None: not such a stop)."""
    if stop.state.kind is not StateKind.INV_CALL or stop.locals is None:
        return None
    arguments = dict(stop.locals)
    shown = ", ".join(f"{name}={value}" for name, value in arguments.items())
    sure = [stop.confidence.values.get(name, 1.0) for name in arguments]
    return Candidate(
        call=f"{function}({shown})",
        arguments=arguments,
        confidence=min(sure, default=stop.confidence.event),
    )


async def draw_candidates(session: DebugSession, function: str, count: int) -> list[Candidate]:
    """Up to ``count`` distinct calls from an inverse session at the function's return: the
    greedy jump to the inputs first, then samples (a sample that fails is no candidate)."""
    found: dict[str, Candidate] = {}
    for draw in range(count):
        options = DecodeOptions() if draw == 0 else DecodeOptions(temperature=1.0, seed=draw)
        try:
            stop = await session.step(Action(kind=ActionKind.INV_STEP_CALL), options)
        except BackendError:
            continue
        candidate = candidate_of(function, stop)
        session.step_back()
        if candidate is not None and candidate.call not in found:
            found[candidate.call] = candidate
    return list(found.values())


async def forward_output(
    program: Path, call: str, engines: EnginePool, model: Path | None
) -> str | None:
    """What the model predicts ``call`` returns, stepping into it and over its lines to its
    return (None: the call cannot be debugged, or no return was predicted within
    :data:`MAX_FORWARD_STEPS` steps)."""
    try:
        opened = await open_session(program, entry=call, model=model, engines=engines)
    except SessionError:
        return None
    session = opened.session
    try:
        stop = session.current
        for _ in range(2):  # the entry wrapper's line, then the call
            stop = await session.step(Action(kind=ActionKind.STEP_INTO))
        if stop.state.kind is not StateKind.CALL or stop.depth != 1:
            return None
        for _ in range(MAX_FORWARD_STEPS):  # line by line: surer than one jump to the return
            stop = await session.step(Action(kind=ActionKind.STEP_OVER))
            if stop.exited or stop.depth < 1:
                return None
            if stop.state.kind is StateKind.RETURN and stop.depth == 1:
                return stop.state.value
        return None
    except BackendError:
        return None
    finally:
        await session.backend.aclose()


def ranked(candidates: list[Candidate]) -> list[Candidate]:
    """Candidates the forward check confirms first; within each group the greedy draw, then
    the surer ones."""
    first, rest = candidates[0], sorted(candidates[1:], key=lambda c: -c.confidence)
    return sorted([first, *rest], key=lambda c: not c.confirmed)
