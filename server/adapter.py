"""One client connection: DAP requests become runtime calls, stops become DAP events.

The adapter answers every request, in order, and never lets one end the connection: unknown
commands, invalid arguments, requests before a launch and runtime errors all get an error
response with a message for the user. Predictions (stepping, continuing) can take a while, so
they run as background tasks: the request is answered at once, the client keeps talking to the
server (to pause, for instance), and a ``stopped`` event (or ``exited`` and ``terminated``)
follows when the model has predicted the stop.

A predicted session has one thread. ``stepBack`` and ``reverseContinue`` walk the recorded
history (nothing is predicted); ``setVariable`` edits the current stop, a counterfactual that
later predictions are conditioned on.
"""

from __future__ import annotations

import sys
import traceback
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
from anyio.abc import TaskGroup
from pydantic import ValidationError

from neural_debugger.model_backend.backend import BackendError
from neural_debugger.model_backend.compare import compare_with_real_run
from neural_debugger.model_backend.confidence import sure
from neural_debugger.model_backend.session import DebugSession, Stop
from neural_debugger.model_backend.stepping import Request as StepRequest
from neural_debugger.model_backend.stepping import Stepper
from neural_debugger.protocol import Action, ActionKind, StateKind
from neural_debugger.tracer.program import ENTRY_FILE

from .breakpoints import (
    BreakpointTable,
    LineBreakpoint,
    reverse_to,
    same_file,
)
from .launch import EnginePool, LaunchError, describe_backend, open_session
from .messages import (
    EXCEPTION_FILTERS,
    Breakpoint,
    CancelArguments,
    Capabilities,
    DapModel,
    DisconnectArguments,
    EvaluateArguments,
    GotoArguments,
    GotoTargetsArguments,
    InitializeArguments,
    LaunchArguments,
    NoArguments,
    Request,
    RestartArguments,
    RestartFrameArguments,
    ScopesArguments,
    SetBreakpointsArguments,
    SetExceptionBreakpointsArguments,
    SetExpressionArguments,
    SetVariableArguments,
    Source,
    SourceArguments,
    StackFrame,
    StackTraceArguments,
    Thread,
    ThreadArguments,
    VariablesArguments,
    describe,
    error_response,
    event,
    response,
)
from .transport import MessageReader, MessageWriter, Received
from .variables import InspectError, Inspector

THREAD_ID = 1
ENTRY_REFERENCE = 1  # sourceReference of the <entry> wrapper, which has no file
EXCEPTION_KINDS = (StateKind.EXCEPTION, StateKind.INV_EXCEPTION)
EXIT_CODES = {StateKind.EXIT_ERROR: 1}
PROGRESS_AFTER_S = 0.3  # predictions longer than this show a progress notification
COMPARE_REQUEST = "compareWithRealRun"  # custom request: the session's actions on a real run

Body = dict[str, Any] | None
FollowUp = Callable[[], Awaitable[None]]


class RequestError(Exception):
    """A request that cannot be done; the message is for the user."""


@dataclass
class Running:
    """The prediction in flight: the request that started it and how to stop it."""

    seq: int
    scope: anyio.CancelScope
    quiet: bool = False  # stopped to restart or end: report nothing

    @property
    def progress_id(self) -> str:
        return f"prediction-{self.seq}"


class Adapter:
    """The server side of one DAP client: its launch, session, breakpoints and handles."""

    def __init__(self, reader: MessageReader, writer: MessageWriter, pool: EnginePool) -> None:
        self._reader = reader
        self._writer = writer
        self._pool = pool
        self._client = InitializeArguments()
        self._launch: LaunchArguments | None = None
        self._session: DebugSession | None = None
        self._stepper: Stepper | None = None  # debugpy's stepping rules, forward sessions
        self._inspector: Inspector | None = None
        self._breakpoints = BreakpointTable()
        self._configured = False
        self._running: Running | None = None
        self._terminated = False
        self._done = False
        self._tasks: TaskGroup | None = None
        self._request: Request | None = None
        self._after: list[FollowUp] = []
        self._changed: list[LineBreakpoint] = []  # re-verified by the last launch
        self._begun = False  # the first stop was shown or the first run started
        handlers: dict[str, tuple[type[DapModel], Callable[[Any], Awaitable[Body]]]] = {
            "initialize": (InitializeArguments, self._initialize),
            "launch": (LaunchArguments, self._launch_request),
            "attach": (NoArguments, self._attach),
            "restart": (RestartArguments, self._restart),
            "setBreakpoints": (SetBreakpointsArguments, self._set_breakpoints),
            "setExceptionBreakpoints": (SetExceptionBreakpointsArguments, self._set_exceptions),
            "configurationDone": (NoArguments, self._configuration_done),
            "threads": (NoArguments, self._threads),
            "stackTrace": (StackTraceArguments, self._stack_trace),
            "scopes": (ScopesArguments, self._scopes),
            "variables": (VariablesArguments, self._variables),
            "setVariable": (SetVariableArguments, self._set_variable),
            "setExpression": (SetExpressionArguments, self._set_expression),
            "evaluate": (EvaluateArguments, self._evaluate),
            "source": (SourceArguments, self._source),
            "exceptionInfo": (ThreadArguments, self._exception_info),
            "next": (ThreadArguments, self._next),
            "stepIn": (ThreadArguments, self._step_in),
            "stepOut": (ThreadArguments, self._step_out),
            "continue": (ThreadArguments, self._continue),
            "stepBack": (ThreadArguments, self._step_back),
            "restartFrame": (RestartFrameArguments, self._restart_frame),
            "gotoTargets": (GotoTargetsArguments, self._goto_targets),
            "goto": (GotoArguments, self._goto),
            "reverseContinue": (ThreadArguments, self._reverse_continue),
            "pause": (ThreadArguments, self._pause),
            "cancel": (CancelArguments, self._cancel),
            "terminate": (NoArguments, self._terminate),
            "disconnect": (DisconnectArguments, self._disconnect),
            COMPARE_REQUEST: (NoArguments, self._compare_with_real_run),
        }
        self._handlers = handlers

    # ---- the connection ------------------------------------------------------------------------

    async def serve(self) -> None:
        """Answer requests until the client disconnects or the stream ends."""
        try:
            async with anyio.create_task_group() as tasks:
                self._tasks = tasks
                while not self._done:
                    try:
                        received = await self._reader.receive()
                    except anyio.EndOfStream:
                        break
                    await self._dispatch(received)
                tasks.cancel_scope.cancel()
        finally:
            with anyio.CancelScope(shield=True):
                await self._close_session(busy=self._stop_running(quiet=True))
            # the adapter refers to itself (its handler table); let go of what is big at once
            self._session = self._inspector = None
            self._handlers = {}

    async def _send(self, message: dict[str, Any]) -> None:
        await self._writer.send(message)

    async def _output(self, text: str, category: str = "console") -> None:
        await self._send(event("output", {"category": category, "output": text + "\n"}))

    async def _dispatch(self, received: Received) -> None:
        if received.error is not None:
            text = f"malformed message: {received.error}"
            if received.seq is not None:
                await self._send(error_response(received.seq, received.command or "?", text))
            else:
                await self._output(f"ndb dap: {text} (ignored)", "stderr")
            return
        message = received.message or {}
        if message.get("type") in ("response", "event"):
            return  # this adapter sends no requests, so no client response is awaited
        try:
            request = Request.model_validate(message)
        except ValidationError as err:
            seq = message.get("seq")
            text = f"not a valid request: {describe(err)}"
            if isinstance(seq, int) and not isinstance(seq, bool):
                command = message.get("command")
                await self._send(error_response(seq, str(command or "?"), text))
            else:
                await self._output(f"ndb dap: {text} (ignored)", "stderr")
            return
        await self._handle(request)

    async def _handle(self, request: Request) -> None:
        self._request, self._after = request, []
        known = self._handlers.get(request.command)
        if known is None:
            await self._send(
                error_response(request.seq, request.command, f"unknown command {request.command!r}")
            )
            return
        model, handler = known
        try:
            body = await handler(model.model_validate(request.arguments or {}))
        except ValidationError as err:
            text = f"invalid arguments for {request.command}: {describe(err)}"
            await self._send(error_response(request.seq, request.command, text))
        except (RequestError, LaunchError, InspectError) as err:
            await self._send(error_response(request.seq, request.command, str(err)))
        except Exception as err:  # a bug must not end the session: report it and go on
            traceback.print_exc(file=sys.stderr)
            text = f"internal error in {request.command}: {type(err).__name__}: {err}"
            await self._send(error_response(request.seq, request.command, text))
        else:
            await self._send(response(request, body))
            for follow_up in self._after:
                try:
                    await follow_up()
                except Exception as err:  # a bug must not end the session: report it
                    traceback.print_exc(file=sys.stderr)
                    await self._output(f"ndb dap: internal error: {err}", "stderr")

    # ---- state checks --------------------------------------------------------------------------

    def _stopped(self, thread: int = THREAD_ID) -> tuple[DebugSession, Inspector]:
        """The session, when it is at a stop (launched, and no prediction running)."""
        if self._session is None or self._inspector is None:
            raise RequestError("no program is launched yet: send launch first")
        if thread != THREAD_ID:
            raise RequestError(f"no thread {thread}: a predicted run has one thread, {THREAD_ID}")
        if self._running is not None:
            raise RequestError("a prediction is in progress: wait for the stop, or pause")
        return self._session, self._inspector

    def _line(self, line: int | None) -> int:
        """A program line as the client counts lines (from 1, or from 0)."""
        return 0 if line is None else line - 1 + self._line_base

    @property
    def _line_base(self) -> int:
        return 1 if self._client.lines_start_at1 else 0

    # ---- starting, configuring, ending ----------------------------------------------------------

    async def _initialize(self, args: InitializeArguments) -> Body:
        self._client = args
        return Capabilities().dump()

    async def _attach(self, args: NoArguments) -> Body:
        raise RequestError("attach is not supported: nothing runs to attach to; use launch")

    async def _launch_request(self, args: LaunchArguments) -> Body:
        if self._session is not None:
            raise RequestError("a program is already launched: use restart")
        self._install(await open_session(args, self._pool), args)
        self._after.append(self._announce)
        self._after.append(lambda: self._send(event("initialized")))
        return None

    def _install(self, session: DebugSession, args: LaunchArguments) -> None:
        self._session, self._launch = session, args
        self._stepper = None if session.inverse else Stepper(session, args.backend == "oracle")
        self._inspector = Inspector(session)
        self._terminated = False
        self._begun = False
        self._changed = self._breakpoints.attach(session.program)

    async def _announce(self) -> None:
        """After a launch or restart: what produces the stops, and re-verified breakpoints.

        A launch then sends ``initialized``; a restart does not (the client keeps its
        configuration), and shows its first stop at once if configuration was done before.
        """
        assert self._session is not None and self._launch is not None
        await self._output(f"ndb: {describe_backend(self._launch)}")
        start = self._session.current.state
        if self._launch.inverse is not None and start.value != self._launch.inverse:
            await self._output(f"ndb: the oracle starts from the real return value {start.value}")
        for bp in self._changed:
            body = {"reason": "changed", "breakpoint": bp.as_dap(self._line_base).dump()}
            await self._send(event("breakpoint", body))

    async def _configuration_done(self, args: NoArguments) -> Body:
        self._configured = True
        if self._session is not None:
            self._after.append(self._begin)
        return None

    async def _begin(self) -> None:
        """Show the first stop (stopOnEntry, or any inverse session), else run to a breakpoint.

        Once per session: a second configurationDone does not start it again.
        """
        assert self._session is not None and self._launch is not None
        if self._begun:
            return
        self._begun = True
        if self._session.inverse:
            await self._report(self._session.current, "entry")
            return
        stepper = self._stepper
        assert stepper is not None
        if self._launch.stop_on_entry:  # debugpy's entry stop: the program's first line
            await self._start(stepper.entry, self._continued_reason)
            return
        await self._start(self._forward("continue"), self._continued_reason)

    async def _restart(self, args: RestartArguments) -> Body:
        launch = args.arguments or self._launch
        if launch is None:
            raise RequestError("nothing to restart: send launch first")
        await self._close_session(busy=self._stop_running(quiet=True))
        self._session = self._inspector = None
        self._install(await open_session(launch, self._pool), launch)
        self._after.append(self._announce)
        if self._configured:
            self._after.append(self._begin)
        return None

    async def _terminate(self, args: NoArguments) -> Body:
        self._stop_running(quiet=True)
        self._after.append(self._send_terminated)
        return None

    async def _send_terminated(self) -> None:
        if not self._terminated:
            self._terminated = True
            await self._send(event("terminated"))

    async def _disconnect(self, args: DisconnectArguments) -> Body:
        self._stop_running(quiet=True)
        self._done = True
        return None

    async def _close_session(self, busy: bool) -> None:
        """Release the session's backend, unless a stopped prediction may still be using it."""
        session = self._session
        if session is not None and not busy:
            try:
                await session.backend.aclose()
            except Exception:
                traceback.print_exc(file=sys.stderr)

    # ---- breakpoints and threads ---------------------------------------------------------------

    async def _set_breakpoints(self, args: SetBreakpointsArguments) -> Body:
        requested = args.requested()
        if args.source.path is None:
            made = [
                Breakpoint(id=0, verified=False, message="only the program's file has breakpoints")
                for _ in requested
            ]
        else:
            made = self._breakpoints.set(args.source.path, requested, self._line_base)
        return {"breakpoints": [bp.dump() for bp in made]}

    async def _set_exceptions(self, args: SetExceptionBreakpointsArguments) -> Body:
        known = {f["filter"] for f in EXCEPTION_FILTERS}
        self._breakpoints.filters = set(args.filters) & known
        made = [
            Breakpoint(id=0, verified=f in known, message=None if f in known else "unknown filter")
            for f in args.filters
        ]
        return {"breakpoints": [bp.dump() for bp in made]}

    async def _log_point(self, text: str) -> None:
        await self._output(text)

    async def _threads(self, args: NoArguments) -> Body:
        threads = [Thread(id=THREAD_ID, name="predicted run")] if self._session else []
        return {"threads": [t.dump() for t in threads]}

    # ---- looking at a stop -----------------------------------------------------------------------

    async def _stack_trace(self, args: StackTraceArguments) -> Body:
        session, _ = self._stopped(args.thread_id)
        frames = list(reversed(session.current.frames))  # innermost first, as DAP wants
        shown = []
        for index, frame in enumerate(frames):
            source, hint = None, None
            if frame.file == ENTRY_FILE:
                source = Source(
                    name=ENTRY_FILE,
                    source_reference=ENTRY_REFERENCE,
                    presentation_hint="deemphasize",
                )
                hint = "subtle"
            elif frame.file is not None:
                source = Source(name=Path(frame.file).name, path=frame.file)
            shown.append(
                StackFrame(
                    id=index + 1,
                    name=frame.name,
                    source=source,
                    line=self._line(frame.line),
                    column=1 if self._client.columns_start_at1 else 0,
                    presentation_hint=hint,
                )
            )
        end = args.start_frame + args.levels if args.levels else None
        return {
            "stackFrames": [f.dump() for f in shown[args.start_frame : end]],
            "totalFrames": len(shown),
        }

    async def _scopes(self, args: ScopesArguments) -> Body:
        _, inspector = self._stopped()
        return {"scopes": [s.dump() for s in inspector.scopes(args.frame_id - 1)]}

    async def _variables(self, args: VariablesArguments) -> Body:
        _, inspector = self._stopped()
        return {"variables": [v.dump() for v in inspector.variables(args)]}

    async def _set_variable(self, args: SetVariableArguments) -> Body:
        _, inspector = self._stopped()
        variable = inspector.set_variable(args.variables_reference, args.name, args.value)
        if self._client.supports_invalidated_event:
            body = {"areas": ["variables"], "threadId": THREAD_ID}
            self._after.append(lambda: self._send(event("invalidated", body)))
        return variable.model_dump(
            by_alias=True,
            exclude_none=True,
            include={"value", "type", "variables_reference", "indexed_variables"},
        )

    async def _set_expression(self, args: SetExpressionArguments) -> Body:
        """A watch expression edited: like setVariable, a counterfactual for later stops."""
        _, inspector = self._stopped()
        if args.frame_id not in (None, 1):
            raise RequestError("only the current stop's frame can be edited")
        variable = inspector.set_expression(args.expression, args.value)
        if self._client.supports_invalidated_event:
            body = {"areas": ["variables"], "threadId": THREAD_ID}
            self._after.append(lambda: self._send(event("invalidated", body)))
        return {"value": variable.value, "type": variable.type}

    async def _evaluate(self, args: EvaluateArguments) -> Body:
        _, inspector = self._stopped()
        frame = args.frame_id - 1 if args.frame_id else 0
        result = inspector.evaluate(args.expression, frame)
        body: dict[str, Any] = {"result": result.value, "type": result.type}
        body["variablesReference"] = result.variables_reference
        if result.indexed_variables:
            body["indexedVariables"] = result.indexed_variables
        return body

    async def _compare_with_real_run(self, args: NoArguments) -> Body:
        """Custom request: run the program for real, take this session's actions on it and say
        where the predictions diverged. The client asks the user first: this EXECUTES the
        program (the VS Code extension shows a modal confirmation)."""
        session, _ = self._stopped()
        if self._launch is not None and self._launch.backend == "oracle":
            raise RequestError("this session is the real run: there is nothing to compare")
        oracle = await self._pool.get("oracle", None, [])
        try:
            comparison = await compare_with_real_run(session, oracle)
        except BackendError as err:
            raise RequestError(f"the real run failed: {err}") from err
        divergences = [
            {
                "step": d.step,
                "action": d.action,
                "kind": d.kind,
                "path": d.file if d.file is not None and d.file != ENTRY_FILE else None,
                "line": self._line(d.line) if d.line is not None else None,
                "realLine": self._line(d.real_line) if d.real_line is not None else None,
                "name": d.name,
                "predicted": d.predicted,
                "real": d.real,
                "counterfactual": d.counterfactual,
                "message": d.message,
            }
            for d in comparison.divergences
        ]
        return {
            "stops": comparison.stops,
            "compared": comparison.compared,
            "wrongStops": comparison.wrong_stops,
            "divergences": divergences,
        }

    async def _source(self, args: SourceArguments) -> Body:
        if self._session is None:
            raise RequestError("no program is launched yet: send launch first")
        program = self._session.program
        reference = args.source_reference or (args.source and args.source.source_reference)
        if reference == ENTRY_REFERENCE and program.wrapper is not None:
            return {"content": program.wrapper + "\n", "mimeType": "text/x-python"}
        path = args.source.path if args.source else None
        if path is not None and same_file(path, program.path):
            return {"content": program.source, "mimeType": "text/x-python"}
        raise RequestError(f"no source for reference {reference}")

    async def _exception_info(self, args: ThreadArguments) -> Body:
        session, _ = self._stopped(args.thread_id)
        state = session.current.state
        if state.kind not in EXCEPTION_KINDS or state.value is None:
            raise RequestError("this stop is not an exception")
        return {
            "exceptionId": state.value.split("(", 1)[0].strip() or "exception",
            "description": f"{state.value} ({sure(session.current.confidence.overall)})",
            "breakMode": "always",
        }

    # ---- moving ----------------------------------------------------------------------------------

    def _step(self, thread: int, forward: ActionKind, inverse: ActionKind) -> None:
        """An inverse session's step: one inverse action."""
        session, _ = self._stopped(thread)
        if session.finished:
            raise RequestError("the program has exited: step back or restart")
        action = Action(kind=inverse if session.inverse else forward)
        self._after.append(lambda: self._start(lambda: session.step(action), self._stepped_reason))

    def _forward(self, request: StepRequest) -> Callable[[], Awaitable[Stop]]:
        """A forward request, walked by the stepping rules (debugpy's stops)."""
        stepper, table = self._stepper, self._breakpoints
        assert stepper is not None and self._session is not None
        program = self._session.program
        stepper.set_breakpoint_lines(set(table.active()))
        return lambda: stepper.request(
            request,
            lambda stop: table.decide(stop, program),
            table.filters,
            log=self._log_point,
        )

    def _walk(self, thread: int, request: StepRequest) -> None:
        session, _ = self._stopped(thread)
        if session.finished:
            raise RequestError("the program has exited: step back or restart")
        work = self._forward(request)
        reason = self._continued_reason if request == "continue" else self._stepped_reason
        self._after.append(lambda: self._start(work, reason))

    async def _next(self, args: ThreadArguments) -> Body:
        if self._stepper is None:
            self._step(args.thread_id, ActionKind.STEP_OVER, ActionKind.INV_STEP_OVER)
        else:
            self._walk(args.thread_id, "next")
        return None

    async def _step_in(self, args: ThreadArguments) -> Body:
        if self._stepper is None:
            self._step(args.thread_id, ActionKind.STEP_INTO, ActionKind.INV_STEP_INTO)
        else:
            self._walk(args.thread_id, "stepIn")
        return None

    async def _step_out(self, args: ThreadArguments) -> Body:
        """Out of the function: debugpy stops in the caller, on the line of the call."""
        if self._stepper is None:
            self._step(args.thread_id, ActionKind.STEP_RETURN, ActionKind.INV_STEP_CALL)
        else:
            self._walk(args.thread_id, "stepOut")
        return None

    async def _continue(self, args: ThreadArguments) -> Body:
        session, _ = self._stopped(args.thread_id)
        if session.inverse:  # backwards, "continue" jumps to the inputs of the call
            self._step(args.thread_id, ActionKind.INV_STEP_CALL, ActionKind.INV_STEP_CALL)
            return {"allThreadsContinued": True}
        self._walk(args.thread_id, "continue")
        return {"allThreadsContinued": True}

    async def _step_back(self, args: ThreadArguments) -> Body:
        """Back to the stop shown before (nothing is predicted)."""
        session, _ = self._stopped(args.thread_id)
        try:
            stop = session.step_back() if self._stepper is None else self._stepper.step_back()
        except BackendError as err:
            raise RequestError(str(err)) from None
        self._after.append(lambda: self._report(stop, "step"))
        return None

    async def _restart_frame(self, args: RestartFrameArguments) -> Body:
        """Back through the history to where the frame was entered (nothing is predicted)."""
        session, _ = self._stopped()
        frames = session.current.frames
        index = len(frames) - args.frame_id  # DAP frame ids count from the innermost, at 1
        try:
            stop = session.restart_frame(index)
        except BackendError as err:
            raise RequestError(str(err)) from None
        self._after.append(lambda: self._report(stop, "restart"))
        return None

    async def _goto_targets(self, args: GotoTargetsArguments) -> Body:
        session, _ = self._stopped()
        line = args.line - self._line_base + 1
        path = args.source.path
        same = path is not None and same_file(path, session.program.path)
        if not same or not session.goto_targets(line):
            return {"targets": []}
        label = f"Jump to line {line} (a counterfactual: later stops are predicted from there)"
        return {"targets": [{"id": line, "label": label, "line": self._line(line)}]}

    async def _goto(self, args: GotoArguments) -> Body:
        """Jump within the function, keeping the locals: like an edited value, the next stops
        are predicted from the new position."""
        session, _ = self._stopped(args.thread_id)
        try:
            stop = session.goto(args.target_id)
        except BackendError as err:
            raise RequestError(str(err)) from None
        self._after.append(lambda: self._report(stop, "goto"))
        return None

    async def _reverse_continue(self, args: ThreadArguments) -> Body:
        session, _ = self._stopped(args.thread_id)
        table, program = self._breakpoints, session.program
        try:
            if self._stepper is None:
                stop = reverse_to(session, table)
            else:
                stop = self._stepper.reverse_continue(lambda s: table.hit(s, program) is not False)
        except BackendError as err:
            raise RequestError(str(err)) from None
        reason = self._continued_reason(stop)
        self._after.append(lambda: self._report(stop, reason))
        return None

    async def _pause(self, args: ThreadArguments) -> Body:
        self._stop_running(quiet=False)
        return None

    async def _cancel(self, args: CancelArguments) -> Body:
        running = self._running
        if running is not None and (
            args.request_id == running.seq or args.progress_id == running.progress_id
        ):
            self._stop_running(quiet=False)
        return None

    def _stop_running(self, quiet: bool) -> bool:
        """Cancel the prediction in flight (if any); whether there was one."""
        running = self._running
        if running is None:
            return False
        running.quiet = running.quiet or quiet
        running.scope.cancel()
        if quiet:
            self._running = None
        return True

    async def _start(
        self, work: Callable[[], Awaitable[Stop]], reason: Callable[[Stop], str]
    ) -> None:
        """Run a prediction in the background; its stop (or failure) is reported when done."""
        assert self._tasks is not None and self._session is not None
        session = self._session
        seq = self._request.seq if self._request is not None else 0
        running = Running(seq, anyio.CancelScope())
        self._running = running

        async def predict() -> None:
            outcome: Stop | str | None = None
            announced = anyio.Event()
            with running.scope:
                async with anyio.create_task_group() as progress:
                    progress.start_soon(self._announce_progress, running, announced)
                    try:
                        outcome = await work()
                    except BackendError as err:
                        outcome = str(err)
                    except Exception as err:  # a bug must not end the session
                        traceback.print_exc(file=sys.stderr)
                        outcome = f"internal error: {type(err).__name__}: {err}"
                    progress.cancel_scope.cancel()
            if announced.is_set():
                await self._send(event("progressEnd", {"progressId": running.progress_id}))
            if self._running is running:
                self._running = None
            if running.quiet:
                return
            if outcome is None:
                await self._report(session.current, "pause", "paused: the prediction was stopped")
            elif isinstance(outcome, str):
                await self._output(f"ndb: the prediction failed: {outcome}", "stderr")
                await self._report(session.current, "pause", f"prediction failed: {outcome}")
            else:
                await self._report(outcome, reason(outcome))

        self._tasks.start_soon(predict)

    async def _announce_progress(self, running: Running, announced: anyio.Event) -> None:
        """A prediction that takes a while shows as progress the user can cancel."""
        if not self._client.supports_progress_reporting:
            return
        await anyio.sleep(PROGRESS_AFTER_S)
        body = {
            "progressId": running.progress_id,
            "title": "Predicting the next stop",
            "message": "the model is writing the next state",
            "requestId": running.seq,
            "cancellable": True,
        }
        announced.set()
        await self._send(event("progressStart", body))

    def _stepped_reason(self, stop: Stop) -> str:
        if stop.reason is not None:
            return stop.reason
        return "exception" if stop.state.kind in EXCEPTION_KINDS else "step"

    def _continued_reason(self, stop: Stop) -> str:
        assert self._session is not None
        if stop.reason is not None:
            return stop.reason
        if stop.state.kind in EXCEPTION_KINDS:
            return "exception"
        if self._breakpoints.on_breakpoint(stop, self._session.program):
            return "breakpoint"
        return "step"

    # ---- reporting a stop ------------------------------------------------------------------------

    async def _report(self, stop: Stop, reason: str, description: str | None = None) -> None:
        """Tell the client where the session stands: ``stopped``, or ``exited`` at the end."""
        assert self._session is not None and self._inspector is not None
        self._inspector.moved()
        real = self._launch is not None and self._launch.backend == "oracle"
        how_sure = sure(stop.confidence.overall)
        if stop.exited:
            how = "the real run ended" if real else f"predicted end ({how_sure})"
            await self._output(f"ndb: {how}: {stop.state.kind.value}")
            await self._send(event("exited", {"exitCode": EXIT_CODES.get(stop.state.kind, 0)}))
            await self._send_terminated()
            return
        body: dict[str, Any] = {
            "reason": reason,
            "threadId": THREAD_ID,
            "allThreadsStopped": True,
            "description": description or self._describe(stop, reason, real),
        }
        condition = self._breakpoints.hit(stop, self._session.program)
        if isinstance(condition, str):
            body["text"] = condition
        elif stop.state.kind in EXCEPTION_KINDS:
            body["text"] = stop.state.value
        ids = self._breakpoints.ids_at(stop, self._session.program)
        if reason == "breakpoint" and ids:
            body["hitBreakpointIds"] = ids
        await self._send(event("stopped", body))

    def _describe(self, stop: Stop, reason: str, real: bool) -> str:
        what = {"breakpoint": "breakpoint hit", "entry": "entry"}.get(reason, reason)
        kind = stop.state.kind
        event_name = kind.value.removeprefix("inv_").replace("_", " ")
        where = f"line {stop.line}" if event_name == "line" else f"{event_name} at line {stop.line}"
        if kind.is_inverse:
            where += ", backwards"
        if real:
            return f"{what.capitalize()} (real run): {where}"
        return f"Predicted {what}: {where} ({sure(stop.confidence.overall)})"
