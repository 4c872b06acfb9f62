"""What the tools return: typed results, so clients get a JSON schema and structured output.

Values are repr texts exactly as the DAP server's Variables view shows them (an unsure value
carries ``  (62% sure)``); ``confidence`` holds the same probabilities as numbers.
"""

from __future__ import annotations

from pydantic import BaseModel, Field


class StopInfo(BaseModel):
    """Where a session stands: the stop an action led to."""

    session_id: str
    step: int = Field(description="index of this stop in the session's history; 0 is the start")
    reason: str = Field(
        description="why it stopped: entry, step, breakpoint, exception, exited, back, edit"
    )
    event: str = Field(description="the state's kind: call, line, return, exception, exit_...")
    file: str | None = Field(description="the file of the stop; '<entry>' is the entry wrapper")
    line: int | None
    source: str | None = Field(description="the source line of the stop")
    frame: str | None = Field(description="the innermost frame's function name")
    depth: int = Field(description="call depth; 0 is the outermost frame")
    locals: dict[str, str] = Field(
        description="the innermost frame's variables, values as the DAP server shows them"
    )
    confidence: dict[str, float] = Field(
        description="how sure the prediction is of each variable (1.0: certain or set by you)"
    )
    event_confidence: float = Field(description="how sure the prediction is of the event")
    return_value: str | None = Field(
        None, description="the value just returned (at a return stop or right after one)"
    )
    exception: str | None = Field(None, description="the exception raised at this stop")
    exited: bool = Field(description="the program has ended; only back/reverse_continue follow")
    predicted: bool = Field(description="false for the oracle backend: a real run")


class FrameInfo(BaseModel):
    """One frame of the call stack, innermost first."""

    index: int = Field(description="0 is the innermost frame")
    name: str
    file: str | None
    line: int | None
    locals: dict[str, str]
    confidence: dict[str, float]
    seen_at_step: int | None = Field(
        description="the stop whose values these are (outer frames: as last seen)"
    )


class StackInfo(BaseModel):
    session_id: str
    step: int
    frames: list[FrameInfo]


class BreakpointInfo(BaseModel):
    line: int
    condition: str | None = None


class BreakpointsSet(BaseModel):
    session_id: str
    breakpoints: list[BreakpointInfo]


class Evaluation(BaseModel):
    expression: str
    result: str = Field(description="the value, with how sure it is when it rests on predictions")
    type: str


class Candidate(BaseModel):
    """A call that the model predicts returns the asked-for output."""

    call: str = Field(description="the call, e.g. f(xs=[1, 2, 3])")
    arguments: dict[str, str]
    confidence: float = Field(description="the least sure of the argument values")
    forward_output: str | None = Field(
        None, description="what the model predicts this call returns, stepping forwards"
    )
    confirmed: bool = Field(
        False, description="the forward prediction returns the output asked for"
    )


class PredictedInputs(BaseModel):
    function: str
    output: str
    candidates: list[Candidate]


class DivergenceInfo(BaseModel):
    step: int
    action: str | None
    kind: str = Field(description="position, variable or value")
    line: int | None
    real_line: int | None
    name: str | None
    predicted: str | None
    real: str | None
    counterfactual: bool = Field(description="after an edit the real run never made")
    message: str


class ComparisonInfo(BaseModel):
    session_id: str
    stops: int
    compared: int = Field(description="stops with a real twin (the real run may end sooner)")
    wrong_stops: int
    first_divergence: DivergenceInfo | None
    divergences: list[DivergenceInfo]


class SessionEnded(BaseModel):
    session_id: str
    ended: bool
