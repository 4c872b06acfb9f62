"""Stops and frames as the tools return them, with values rendered by the DAP server's code.

The Variables view's rendering (:class:`~neural_debugger.server.variables.Inspector`) is reused
as it is, so an agent reads exactly what an editor shows: the same value texts, the same
"as last seen" locals for outer frames, the same confidence of unchanged values carried from
the stop that predicted them, and values the agent set count as certain.
"""

from __future__ import annotations

from neural_debugger.model_backend.session import DebugSession, Stop
from neural_debugger.protocol import ActionKind, StateKind
from neural_debugger.server.messages import VariablesArguments
from neural_debugger.server.variables import InspectError, Inspector

from .schema import FrameInfo, StackInfo, StopInfo
from .sessions import LiveSession

EXCEPTIONS = (StateKind.EXCEPTION, StateKind.INV_EXCEPTION)


def frame_values(
    inspector: Inspector, frame: int
) -> tuple[dict[str, str], dict[str, float], int | None]:
    """A frame's variables (0 = innermost) as the Variables view shows them, how sure each is,
    and the stop they were seen at (None: the frame's values were never seen)."""
    try:
        found = inspector.frame_locals(frame)
    except InspectError:
        return {}, {}, None
    if found is None:
        return {}, {}, None
    scope = next(s for s in inspector.scopes(frame) if s.presentation_hint == "locals")
    shown = inspector.variables(
        VariablesArguments.model_validate({"variablesReference": scope.variables_reference})
    )
    values = {v.name: v.value for v in shown}
    confidence = {}
    for name in found.variables:
        p, _ = inspector.confidence(found.index, name)
        if p is not None:
            confidence[name] = round(p, 4)
    return values, confidence, found.index


def stop_info(live: LiveSession, reason: str) -> StopInfo:
    """The current stop of a session."""
    session, inspector = live.session, live.inspector
    inspector.moved()  # handles from an earlier stop mean nothing now
    stop: Stop = session.current
    values: dict[str, str] = {}
    confidence: dict[str, float] = {}
    if not stop.exited:
        values, confidence, _ = frame_values(inspector, 0)
    valued = None if stop.exited else inspector.valued_stop() or _stepped_out_of(session)
    returned = valued is not None and valued.state.kind not in EXCEPTIONS
    return StopInfo(
        session_id=live.id,
        step=len(session.stops) - 1,
        reason="exited" if stop.exited else reason,
        event=stop.state.kind.value,
        file=stop.file,
        line=stop.line,
        source=stop.state.src,
        frame=stop.frames[-1].name if stop.frames else None,
        depth=stop.depth,
        locals=values,
        confidence=confidence,
        event_confidence=round(stop.confidence.event, 4),
        return_value=(
            stop.returns[-1][1]  # shown in the caller after a return, as debugpy does
            if stop.returns
            else valued.state.value
            if returned and valued is not None
            else None
        ),
        exception=stop.state.value if stop.state.kind in EXCEPTIONS else None,
        exited=stop.exited,
        predicted=live.predicted,
    )


def stack_info(live: LiveSession) -> StackInfo:
    """Every frame of the current stop, innermost first, with its variables."""
    session, inspector = live.session, live.inspector
    inspector.moved()
    frames = session.current.frames
    result = []
    for index in range(len(frames)):
        frame = frames[-1 - index]
        values, confidence, seen = frame_values(inspector, index)
        result.append(
            FrameInfo(
                index=index,
                name=frame.name,
                file=frame.file,
                line=frame.line,
                locals=values,
                confidence=confidence,
                seen_at_step=seen,
            )
        )
    return StackInfo(session_id=live.id, step=len(session.stops) - 1, frames=result)


def _stepped_out_of(session: DebugSession) -> Stop | None:
    """The callee's return a step out just left (step_return, then step_into to the caller)."""
    stops = session.stops
    current = stops[-1]
    stepped = current.action is not None and current.action.kind is ActionKind.STEP_INTO
    if stepped and len(stops) > 1 and stops[-2].state.kind is StateKind.RETURN:
        return stops[-2]
    return None
