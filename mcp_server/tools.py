"""The tools, as methods of one :class:`Debugger` per server: the stable interface for agents.

Each tool validates its input, runs under the session's lock and returns a typed result; every
failure an agent can cause (an unknown session, a bad action, a missing file, a syntax error, a
breakpoint off a statement, a refused expression, a real run not allowed) is raised as a
:class:`ToolError` with a message for the agent, and the server goes on serving. Nothing here
runs the program unless a tool is given ``allow_execution=True``.
"""

from __future__ import annotations

import sys
import traceback
from collections.abc import Awaitable, Callable
from functools import wraps
from pathlib import Path
from typing import Annotated, Any, Literal, ParamSpec, TypeVar

import anyio
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

from neural_debugger.model_backend.api import (
    EnginePool,
    SessionError,
    check_breakpoints,
    open_session,
)
from neural_debugger.model_backend.backend import BackendError
from neural_debugger.model_backend.compare import compare_with_real_run
from neural_debugger.model_backend.session import Stop, finish
from neural_debugger.protocol import Action, ActionKind, StateKind
from neural_debugger.server.breakpoints import BreakpointTable, continue_to, reverse_to
from neural_debugger.server.messages import SourceBreakpoint
from neural_debugger.server.variables import InspectError
from neural_debugger.tracer.program import Program

from .inputs import draw_candidates, forward_output, ranked, same_value
from .schema import (
    BreakpointInfo,
    BreakpointsSet,
    ComparisonInfo,
    DivergenceInfo,
    Evaluation,
    PredictedInputs,
    SessionEnded,
    StackInfo,
    StopInfo,
)
from .sessions import Limits, LiveSession, SessionLimitError, Sessions
from .stops import EXCEPTIONS, stack_info, stop_info

BACKENDS = {"model": "local", "oracle": "oracle"}  # tool names -> runtime engine names
MAX_CANDIDATES = 8
MAX_DIVERGENCES = 20  # divergences listed in full; the count covers them all

Backend = Literal["model", "oracle"]
StepAction = Literal["into", "over", "out", "continue", "back", "reverse_continue"]
SessionId = Annotated[str, Field(description="the id start_session returned")]

P = ParamSpec("P")
R = TypeVar("R")


def tool_errors(method: Callable[P, Awaitable[R]]) -> Callable[P, Awaitable[R]]:
    """Every failure becomes a :class:`ToolError`; a bug is reported too, with its type, and
    logged, so one bad call never ends the server."""

    @wraps(method)
    async def call(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return await method(*args, **kwargs)
        except ToolError:
            raise
        except (
            BackendError,
            InspectError,
            SessionError,
            SessionLimitError,
            ValueError,
            OSError,
        ) as err:
            raise ToolError(str(err)) from None
        except Exception as err:
            traceback.print_exc(file=sys.stderr)
            raise ToolError(f"internal error: {type(err).__name__}: {err}") from None

    return call


class Debugger:
    """The sessions of one server and the tools that drive them."""

    def __init__(self, limits: Limits | None = None, model: Path | None = None) -> None:
        self.sessions = Sessions(limits or Limits())
        self.model = model
        self.engines = EnginePool()

    async def aclose(self) -> None:
        for live in self.sessions.all():
            await live.session.backend.aclose()
        await self.engines.aclose()

    async def reap(self) -> int:
        """End the sessions idle past the limit; how many were ended."""
        expired = self.sessions.expire()
        for live in expired:
            await live.session.backend.aclose()
        return len(expired)

    async def reap_forever(self) -> None:
        """Reap idle sessions now and then, so an agent that went away frees what it held."""
        every = min(max(self.sessions.limits.idle_timeout_s / 4, 0.5), 30.0)
        while True:
            await anyio.sleep(every)
            await self.reap()

    async def _live(self, session_id: str) -> LiveSession:
        await self.reap()
        return self.sessions.get(session_id)

    def _check_size(self, program: str) -> None:
        path = Path(program).expanduser()
        if path.is_file() and path.stat().st_size > self.sessions.limits.max_program_bytes:
            raise ToolError(
                f"{program} has {path.stat().st_size} bytes; this server reads programs of at "
                f"most {self.sessions.limits.max_program_bytes} bytes"
            )

    # ---- sessions ---------------------------------------------------------------------------

    @tool_errors
    async def start_session(
        self,
        program: Annotated[str, Field(description="path of the Python file to debug")],
        entry: Annotated[
            str | None,
            Field(description='debug one call instead of the script, e.g. "f([3, 1, 2])"'),
        ] = None,
        breakpoints: Annotated[
            list[int], Field(description="line numbers to stop at on continue")
        ] = [],  # noqa: B006 (the SDK copies defaults into the schema; never mutated)
        backend: Annotated[
            Backend,
            Field(
                description="model: every stop predicted, nothing runs (default); oracle: a "
                "real traced run, refused unless allow_execution"
            ),
        ] = "model",
        allow_execution: Annotated[
            bool, Field(description="allow the oracle backend to run the program")
        ] = False,
    ) -> StopInfo:
        """Open a debug session on a program; returns its id and the first stop. The model
        backend never runs the program."""
        if backend == "oracle" and not allow_execution:
            raise ToolError(
                "the oracle backend runs the program for real; pass allow_execution=true to "
                "allow it, or use backend='model' (nothing runs)"
            )
        await self.reap()
        self.sessions.room()
        self._check_size(program)
        opened = await open_session(
            Path(program).expanduser(),
            entry=entry,
            breakpoints=breakpoints,
            backend=BACKENDS[backend],
            model=self.model if backend == "model" else None,
            engines=self.engines,
        )
        try:
            table = _table(opened.program, {line: None for line in opened.breakpoints})
            live = self.sessions.add(opened, table)  # the limit again: others may have opened
        except BaseException:
            await opened.session.backend.aclose()
            raise
        return stop_info(live, "entry")

    @tool_errors
    async def end_session(self, session_id: SessionId) -> SessionEnded:
        """End a session and free what it holds."""
        await self._live(session_id)
        live = self.sessions.remove(session_id)
        async with live.lock:
            await live.session.backend.aclose()
        return SessionEnded(session_id=session_id, ended=True)

    # ---- moving -------------------------------------------------------------------------------

    @tool_errors
    async def step(
        self,
        session_id: SessionId,
        action: Annotated[
            StepAction,
            Field(
                description="into / over / out (to the caller, the return value shown), "
                "continue (to the next breakpoint whose condition holds, or the end), back (one "
                "stop back through the history), reverse_continue (back to a breakpoint)"
            ),
        ],
    ) -> StopInfo:
        """Take one debugger action; returns the stop it leads to (predicted, never run)."""
        live = await self._live(session_id)
        async with live.lock:
            session, table = live.session, live.breakpoints
            if action == "back":
                session.step_back()
                return stop_info(live, "back")
            if action == "reverse_continue":
                stop = reverse_to(session, table)
                return stop_info(live, _reason(live, stop, on_breakpoint=True, otherwise="back"))
            if session.finished:
                raise ToolError("the program has exited: step back, or start a new session")
            if action == "continue":
                stop = await continue_to(session, table)
            elif action == "out":
                stop = await finish(session)
                if stop.state.kind is StateKind.RETURN and stop.depth > 0:
                    stop = await session.step(Action(kind=ActionKind.STEP_INTO))
            else:
                kind = ActionKind.STEP_INTO if action == "into" else ActionKind.STEP_OVER
                stop = await session.step(Action(kind=kind))
            return stop_info(live, _reason(live, stop, on_breakpoint=action == "continue"))

    @tool_errors
    async def set_breakpoints(
        self,
        session_id: SessionId,
        lines: Annotated[list[int], Field(description="all the breakpoint lines (replaces)")],
        conditions: Annotated[
            dict[int, str],
            Field(description="line -> condition over the predicted values, e.g. 'total > 10'"),
        ] = {},  # noqa: B006 (the SDK copies defaults into the schema; never mutated)
    ) -> BreakpointsSet:
        """Replace the session's breakpoints; a condition is checked at each hit over the
        predicted values (only the safe evaluator's expressions are accepted)."""
        live = await self._live(session_id)
        extra = sorted(set(conditions) - set(lines))
        if extra:
            raise ToolError(f"conditions for lines not in lines: {extra}")
        async with live.lock:
            program = live.session.program
            check_breakpoints(program, lines)
            table = _table(program, {line: conditions.get(line) for line in lines})
            live.breakpoints = table
            active = sorted(table.active().items())
            shown = [BreakpointInfo(line=line, condition=cond) for line, cond in active]
            return BreakpointsSet(session_id=live.id, breakpoints=shown)

    # ---- values --------------------------------------------------------------------------------

    @tool_errors
    async def stack(self, session_id: SessionId) -> StackInfo:
        """Every frame of the current stop, innermost first, with its variables (outer frames'
        values as last seen in them)."""
        live = await self._live(session_id)
        async with live.lock:
            return stack_info(live)

    @tool_errors
    async def evaluate(
        self,
        session_id: SessionId,
        expression: Annotated[
            str,
            Field(description="an expression over the stop's variables, e.g. 'total / len(xs)'"),
        ],
    ) -> Evaluation:
        """Evaluate an expression over the predicted values of the current stop with the safe
        evaluator: literals, operators, subscripts, reading methods and pure builtins only;
        nothing of the program runs."""
        live = await self._live(session_id)
        async with live.lock:
            live.inspector.moved()
            result = live.inspector.evaluate(expression, 0)
            return Evaluation(expression=expression, result=result.value, type=result.type or "")

    @tool_errors
    async def set_variable(
        self,
        session_id: SessionId,
        name: Annotated[str, Field(description="a variable of the current stop, or items[0]")],
        value: Annotated[str, Field(description="the new value as Python, e.g. '[1, 2]'")],
    ) -> StopInfo:
        """Edit a variable of the current stop (a what-if): the following predictions are made
        from the edited state."""
        live = await self._live(session_id)
        async with live.lock:
            live.inspector.moved()
            live.inspector.set_expression(name, value)
            return stop_info(live, "edit")

    # ---- beyond a debugger -------------------------------------------------------------------

    @tool_errors
    async def predict_inputs(
        self,
        program: Annotated[str, Field(description="path of the Python file")],
        function: Annotated[str, Field(description="name of a function of the program")],
        output: Annotated[str, Field(description="the return value wanted, as its repr")],
        count: Annotated[
            int, Field(ge=1, le=MAX_CANDIDATES, description="how many candidates to draw")
        ] = 3,
    ) -> PredictedInputs:
        """Inverse execution: calls of the function that the model predicts return `output`
        (the most likely and samples), each checked by predicting it forwards; confirmed
        candidates come first. Nothing runs."""
        if not function.isidentifier():
            raise ToolError(f"{function!r} is not a function name")
        if not output.strip() or "\n" in output:
            raise ToolError("give the output as one line of Python, e.g. [1, 2, 3]")
        self._check_size(program)
        path = Path(program).expanduser()
        opened = await open_session(
            path,
            entry=f"{function}()",
            inverse=output.strip(),
            model=self.model,
            engines=self.engines,
        )
        try:
            candidates = await draw_candidates(opened.session, function, count)
        finally:
            await opened.session.backend.aclose()
        if not candidates:
            raise ToolError(f"the model predicted no call of {function} that returns {output}")
        checked = []
        for candidate in candidates:
            returned = await forward_output(path, candidate.call, self.engines, self.model)
            confirmed = returned is not None and same_value(returned, output)
            checked.append(
                candidate.model_copy(update={"forward_output": returned, "confirmed": confirmed})
            )
        return PredictedInputs(function=function, output=output, candidates=ranked(checked))

    @tool_errors
    async def compare_with_real_run(
        self,
        session_id: SessionId,
        allow_execution: Annotated[
            bool, Field(description="must be true: this RUNS the program for real")
        ] = False,
    ) -> ComparisonInfo:
        """Run the program for real, take this session's actions on it and report where the
        predictions first diverged (and every divergence). Runs the program only when
        allow_execution is true."""
        live = await self._live(session_id)
        if not allow_execution:
            raise ToolError(
                "comparing runs the program for real; pass allow_execution=true to allow it"
            )
        if not live.predicted:
            raise ToolError("this session is the real run (oracle): there is nothing to compare")
        async with live.lock:
            oracle = await self.engines.get("oracle", None)
            try:
                comparison = await compare_with_real_run(live.session, oracle)
            except BackendError as err:
                raise ToolError(f"the real run failed: {err}") from None
        divergences = [
            DivergenceInfo.model_validate(d, from_attributes=True) for d in comparison.divergences
        ]
        return ComparisonInfo(
            session_id=live.id,
            stops=comparison.stops,
            compared=comparison.compared,
            wrong_stops=comparison.wrong_stops,
            first_divergence=divergences[0] if divergences else None,
            divergences=divergences[:MAX_DIVERGENCES],
        )

    def tools(self) -> list[Callable[..., Awaitable[Any]]]:
        """The tools in the order they are listed."""
        return [
            self.start_session,
            self.step,
            self.set_breakpoints,
            self.stack,
            self.evaluate,
            self.set_variable,
            self.predict_inputs,
            self.compare_with_real_run,
            self.end_session,
        ]


def _table(program: Program, lines: dict[int, str | None]) -> BreakpointTable:
    """A breakpoint table for ``program`` (lines already checked); a refused condition is an
    error naming the line."""
    table = BreakpointTable()
    asked = [SourceBreakpoint(line=line, condition=cond) for line, cond in lines.items()]
    table.attach(program)  # first: breakpoints set then are verified against the program
    made = table.set(program.path, asked, 1)
    refused = [f"line {bp.line}: {bp.message}" for bp in made if not bp.verified]
    if refused:
        raise ToolError("breakpoints refused: " + "; ".join(refused))
    return table


def _reason(live: LiveSession, stop: Stop, on_breakpoint: bool, otherwise: str = "step") -> str:
    """Why a stop was reached: an exception, a breakpoint (after a continue), else ``otherwise``."""
    if stop.state.kind in EXCEPTIONS:
        return "exception"
    if on_breakpoint and live.breakpoints.on_breakpoint(stop, live.session.program):
        return "breakpoint"
    return otherwise
