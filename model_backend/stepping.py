"""Where a debugger request stops: debugpy's stepping rules, applied to a walk over events.

A debug session's backend answers one language action at a time; a person asks for ``next``,
``stepIn``, ``stepOut`` or ``continue``. This module turns the one into the other so that every
stop is the one debugpy (pydevd, ``justMyCode``, Python 3.11) shows for the same request. It
walks the run one event at a time (the ``step_into`` action: the next call, line, return or
exception event, anywhere) and decides after each event whether the request ends there. The
oracle's events are the real run's, so its stops are exactly debugpy's; a model's are predicted,
and its stops are debugpy's whenever its predictions are right.

The rules, each observed on debugpy (``evaluation/scenarios/seen``; ``S`` is the frame the
request started in, the *stop frame*; a frame is "own" when it runs the program's file):

==================  ==============================================================================
event               the request stops there when
==================  ==============================================================================
line, on a          any request: a verified breakpoint on that line whose condition holds and
breakpoint          whose hit count is reached (the hit is counted), reason ``breakpoint``; a
                    log point writes its message and the walk goes on. Lambdas, comprehensions
                    and later loop iterations on the line each hit it.
line                ``stepIn``: in any own frame. ``next``: in ``S`` only. ``stepOut`` and
                    ``continue``: never (besides breakpoints). Reason ``step``.
return of ``S``     ``stepOut``: stops in the caller, on the line of the call (the call is done,
(not a yield)       its assignment is not). ``next``: does not stop; from here on the request
                    is a ``stepIn`` (the caller's next line, or the caller's caller when the
                    caller returns at once).
return, other       ``stepIn`` (or a ``next``/``stepOut`` turned into one): stops in the caller, on
(not a yield)       the call's line, unless that is where the ``stepIn`` began. Never from the
                    top frame (nothing own to return to: the walk goes on to the end).
yield               never: a generator pausing is not a return (a ``return`` event on a line
                    without a return instruction of its code, as pydevd tells them apart); a
                    ``next`` in a generator goes on when it resumes.
exception           filter ``raised``: where it is raised (not again as it passes through
                    callers), reason ``exception``. No filter: never (``next`` on a raising
                    line goes on to the ``except`` line, or through ``finally`` to the caller).
end with an error   filter ``uncaught``: one stop at the raise point of the exception that ended
                    the run (its frames and locals), reason ``exception``; the next request
                    ends the run. ``userUnhandled`` never stops: every traced frame is own code.
end                 the run is over (``exited``).
==================  ==============================================================================

Return values (debugpy's ``showReturnValue``, on by default in VS Code): a return (not a yield)
is written into the caller's ``(return) NAME`` entries, shown among the caller's Locals until the
caller returns, when the request walking past it is ``stepIn`` (any own caller), ``next`` (the
callee of ``S``; after ``S`` returns, like ``stepIn``) or ``stepOut`` (the return of ``S``);
``continue`` writes none. ``NAME`` is the code's name, ``Class.name`` when looking it up on the
class of the frame's first variable finds this function (pydevd's ``get_func_name``; read from
the values' texts, :mod:`.return_names`); entries sort before the plain names.

A stop in the caller after a return is a *view* of the return event: the caller's frames, its
line, its locals (as last seen, updated from its next event for the names its line does not
change itself), and its return values. ``stepBack`` returns to the previous stop shown;
``reverseContinue`` to the latest earlier line event, of the events walked, on a breakpoint
that holds (or the first stop).

``continue`` walks every event with the oracle; with a model it keeps the jumps of
:func:`.session.resume` (a walk costs one prediction per event), and each stop it reaches is
judged by the rules above; a jump that lands where the request began or an earlier jump landed
is taken back, and the request walks up to ``WALK_ON`` events before it jumps again. A jump
writes no event between where it starts and where it lands, so no exception shows on the way:
with the ``raised`` filter a model's continue first walks up to ``SEARCH_WALK`` events, and a
jump that ends the run with an error under ``uncaught`` is taken back once and walked the same
way, so the stop is at the raise, as debugpy's is. A model's
``next`` or ``stepOut`` walk that is past half its budget finishes each callee of the stop frame
with one ``step_return``: it has lost its way there; past three quarters, it is taken back and
answered by one ``step_over`` or ``step_return``.
"""

from __future__ import annotations

import ast
import dis
import types
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, replace
from typing import Literal

from neural_debugger.protocol import Action, ActionKind, State, StateKind
from neural_debugger.tracer.program import ENTRY_FILE

from .backend import BackendError, DecodeOptions
from .branches import Head, heads, outside_its_loop, unbound_builtins
from .module_constants import first_line
from .return_names import ReturnNames
from .session import DebugSession, Stop, finish, resume

Request = Literal["next", "stepIn", "stepOut", "continue"]
Mode = Literal["next", "stepIn", "stepOut", "continue"]
Decide = Callable[[Stop], tuple[bool, str | None]]
Log = Callable[[str], Awaitable[None]]

MAX_EVENTS = 20_000  # events one request may walk (the tracer records at most 10,000)
MAX_PREDICTED = 200  # ... when each event is a model's prediction
PEEK = 4  # events looked ahead for the caller's locals after a return
WALK_ON = 32  # events a model's continue walks where its jump came back, before jumping again
# events a model's continue walks to find where an exception is raised (a jump writes no event
# between its start and where it lands)
SEARCH_WALK = 64
_COMPREHENSIONS = frozenset({"<listcomp>", "<setcomp>", "<dictcomp>", "<genexpr>"})
_GENERATOR = 0x20 | 0x80  # CO_GENERATOR | CO_COROUTINE
_STAR_ARGS = 0x04 | 0x08  # CO_VARARGS | CO_VARKEYWORDS
_RETURN_OPS = frozenset({"RETURN_VALUE", "RETURN_CONST"})


@dataclass(frozen=True)
class CodeFacts:
    """What the rules need to know of one code object of the program."""

    name: str
    first: int
    last: int
    generator: bool
    return_lines: frozenset[int]
    shown_name: str  # the name of its ``(return)`` entries, as the code writes it
    first_var: str = ""  # the variable whose value's class names them (:mod:`.return_names`)
    first_is_parameter: bool = False  # ... bound from the call on


def code_facts(source: str, filename: str) -> list[CodeFacts]:
    """Every code object of the program, with its return lines and ``(return)`` name."""
    try:
        top = compile(source, filename, "exec", dont_inherit=True)
    except SyntaxError:
        return []
    found: list[CodeFacts] = []
    properties = _property_getters(source)
    todo = [top]
    while todo:
        code = todo.pop()
        todo.extend(c for c in code.co_consts if isinstance(c, types.CodeType))
        lines = [n for _, _, n in code.co_lines() if n is not None]
        returns = frozenset(
            i.positions.lineno
            for i in dis.get_instructions(code)
            if i.opname in _RETURN_OPS and i.positions is not None and i.positions.lineno
        )
        shown = code.co_name
        parts = code.co_qualname.split(".")
        first_arg = code.co_varnames[0] if code.co_argcount and code.co_varnames else ""
        method = (code.co_name, code.co_firstlineno) not in properties
        if method and first_arg in ("self", "cls") and len(parts) >= 2 and parts[-2] != "<locals>":
            shown = f"{parts[-2]}.{code.co_name}"
        found.append(
            CodeFacts(
                name=code.co_name,
                first=code.co_firstlineno,
                last=max(lines, default=code.co_firstlineno),
                generator=bool(code.co_flags & _GENERATOR),
                return_lines=returns,
                shown_name=shown,
                first_var=code.co_varnames[0] if code.co_varnames else "",
                first_is_parameter=bool(
                    code.co_argcount or code.co_kwonlyargcount or code.co_flags & _STAR_ARGS
                ),
            )
        )
    return found


def _property_getters(source: str) -> set[tuple[str, int]]:
    """Functions made into properties, by name and first line: pydevd names their returns
    without the class (the class attribute is the property, not the function)."""
    found: set[tuple[str, int]] = set()
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        for decorator in node.decorator_list:
            name = decorator.id if isinstance(decorator, ast.Name) else ""
            attr = decorator.attr if isinstance(decorator, ast.Attribute) else ""
            if name in ("property", "cached_property") or attr in ("setter", "getter", "deleter"):
                found.add((node.name, first_line(node)))
    return found


@dataclass
class StepState:
    """What the rules keep across requests, per event of the session's history.

    ``returns[k]`` maps a frame depth to that frame's ``(return)`` entries after event ``k``;
    ``shown`` the events at which a request stopped, in order (the stop shown at an event,
    when it is not the event itself, is the session's ``views[k]``).
    """

    returns: list[dict[int, dict[str, str]]] = field(default_factory=list)
    parked: list[dict[tuple[int, str], dict[str, str]]] = field(default_factory=list)
    shown: list[int] = field(default_factory=list)
    uncaught: int | None = None  # the event an uncaught-exception stop was shown at

    def trim(self, count: int) -> None:
        """Forget what belongs to events past the first ``count`` (after steps back)."""
        del self.returns[count:]
        del self.parked[count:]
        while self.shown and self.shown[-1] >= count:
            self.shown.pop()
        if self.uncaught is not None and self.uncaught >= count:
            self.uncaught = None


class Stepper:
    """debugpy's stops for one session (see the module's table)."""

    def __init__(self, session: DebugSession, exact_continue: bool) -> None:
        self.session = session
        self.exact_continue = exact_continue
        self.max_events = MAX_EVENTS if exact_continue else MAX_PREDICTED
        self.state = StepState()
        self._facts = code_facts(session.program.source, session.program.path)
        self._loops, self._builtins = _loop_heads(session.program.source)
        self._names = ReturnNames(session.program.source)
        self._own = {session.program.path, ENTRY_FILE}
        self._sync()

    # ---- what is shown -----------------------------------------------------------------------

    @property
    def current(self) -> Stop:
        """The stop shown now: the session's last event, or the view of it."""
        self._sync()
        return self.session.current

    def _sync(self) -> None:
        stops = self.session.stops
        self.state.trim(len(stops))
        while len(self.state.returns) < len(stops):
            k = len(self.state.returns)
            before = self.state.returns[k - 1] if k else {}
            parked = dict(self.state.parked[k - 1]) if k else {}
            stop = stops[k]
            after = _fresh_frame(before, stop)
            key = self.key(stop)
            if key is not None and stop.state.kind is StateKind.RETURN and self.generator(stop):
                parked[key] = dict(before.get(stop.depth, {}))  # a generator keeps its entries
            elif key is not None and stop.state.kind is StateKind.CALL and key in parked:
                after[stop.depth] = parked.pop(key)  # ... when it resumes
            self.state.returns.append(after)
            self.state.parked.append(parked)

    # ---- facts about events ------------------------------------------------------------------

    def _code(self, stop: Stop) -> CodeFacts | None:
        if not stop.frames or stop.line is None:
            return None
        name = stop.frames[-1].name
        line = stop.line
        fits = [c for c in self._facts if c.name == name and c.first <= line <= c.last]
        return min(fits, key=lambda c: c.last - c.first, default=None)

    def generator(self, stop: Stop) -> bool:
        code = self._code(stop)
        return code is not None and code.generator

    def is_yield(self, stop: Stop) -> bool:
        """A return event that only pauses a generator."""
        code = self._code(stop)
        return code is not None and code.generator and stop.line not in code.return_lines

    def shown_name(self, k: int) -> str:
        """The ``(return)`` name of return event ``k``, as debugpy writes it."""
        stop = self.session.stops[k]
        code = self._code(stop)
        if code is None:
            return stop.frames[-1].name if stop.frames else "?"
        first = self.last_locals(k, stop.depth).get(code.first_var) if code.first_var else None
        return self._names.name(
            code.name, code.first, code.shown_name, first, code.first_is_parameter
        )

    def own(self, stop: Stop, outer: int = 0) -> bool:
        """Whether frame ``outer`` levels out of the innermost runs the program's file (or the
        entry call's wrapper, as debugpy counts the script that makes the entry call)."""
        frames = stop.frames
        if len(frames) <= outer:
            return False
        return frames[-1 - outer].file in self._own

    @staticmethod
    def key(stop: Stop, outer: int = 0) -> tuple[int, str] | None:
        """A frame, ``outer`` levels out of the innermost: its depth and name."""
        if len(stop.frames) <= outer:
            return None
        return stop.depth - outer, stop.frames[-1 - outer].name

    def just_raised(self, k: int) -> bool:
        """Whether the exception event ``k`` is where the exception was raised, not a caller
        it passes through (which follows its callee's return at once)."""
        stops = self.session.stops
        before = stops[k - 1] if k > 0 else None
        return not (
            before is not None
            and before.state.kind is StateKind.RETURN
            and before.depth == stops[k].depth + 1
        )

    def last_locals(self, k: int, depth: int) -> dict[str, str]:
        """The locals of the frame at ``depth`` as last seen up to event ``k``."""
        for i in range(k, -1, -1):
            stop = self.session.stops[i]
            if stop.depth < depth:
                break
            if stop.depth == depth and stop.locals is not None:
                return dict(stop.locals)
        return {}

    def _returns_of(self, k: int, depth: int) -> tuple[tuple[str, str], ...]:
        entries = self.state.returns[k].get(depth, {})
        return tuple(sorted((f"(return) {n}", v) for n, v in entries.items()))

    # ---- views ---------------------------------------------------------------------------------

    def _show(self, k: int, reason: str, view: Stop | None = None) -> Stop:
        stop = view if view is not None else self.session.stops[k]
        if view is None and stop.state.kind is StateKind.LINE:
            stop = replace(stop, returns=self._returns_of(k, stop.depth), reason=reason)
            view = stop
        elif view is not None:
            stop = view = replace(view, reason=reason)
        else:
            stop = replace(stop, reason=reason)
            view = stop
        self.session.views[k] = view
        self.state.shown.append(k)
        return stop

    async def _caller_view(self, k: int, options: DecodeOptions | None) -> Stop:
        """The return event ``k`` shown as debugpy shows it: in the caller, on the call's line.

        The caller's locals are those last seen in it, updated from the caller's next event (a
        look ahead of at most :data:`PEEK` events, taken back) for every name the line does not
        assign: names bound since that no event showed (a comprehension's loop variable) and
        objects the callee changed in place.
        """
        stop = self.session.stops[k]
        frames = stop.frames[:-1]
        caller = frames[-1]
        depth = stop.depth - 1
        program = self.session.program
        source = program.wrapper_lines if caller.file == ENTRY_FILE else program.lines
        text = source[caller.line - 1] if caller.line and caller.line <= len(source) else ""
        locals_ = self.last_locals(k, depth)
        later = await self._peek(depth, options)
        if later:
            bound = set() if caller.name in _COMPREHENSIONS else _assigned(text)
            locals_.update({n: v for n, v in later.items() if n not in bound})
        return replace(
            stop,
            state=State(kind=StateKind.LINE, src=text, locals=locals_),
            locals=locals_,
            file=caller.file,
            line=caller.line,
            depth=depth,
            frames=frames,
            returns=self._returns_of(k, depth),
        )

    async def _peek(self, depth: int, options: DecodeOptions | None) -> dict[str, str]:
        """The locals of the next event at ``depth`` (within :data:`PEEK` events, and before
        that frame returns), taken back."""
        session = self.session
        start = len(session.stops)
        found: dict[str, str] = {}
        try:
            for _ in range(PEEK):
                stop = await session.step(Action(kind=ActionKind.STEP_INTO), options)
                if stop.exited or stop.depth < depth:
                    break
                # the caller returned (a generator's pause resumes in it): what comes next at
                # its depth is another frame's
                ended = stop.state.kind is StateKind.RETURN and not self.generator(stop)
                if stop.depth == depth and ended:
                    break
                if stop.depth == depth and stop.locals is not None:
                    found = dict(stop.locals)
                    break
        except BackendError:
            pass
        finally:
            session.back_to(start)
        return found

    def _exception_view(self, k: int) -> Stop:
        stop = self.session.stops[k]
        return replace(stop, locals=self.last_locals(k, stop.depth))

    # ---- requests ------------------------------------------------------------------------------

    async def entry(self, options: DecodeOptions | None = None) -> Stop:
        """stopOnEntry: the program's first line (debugpy does not show the module's call)."""
        self._sync()
        if self.session.current.state.kind is StateKind.LINE and self.own(self.session.current):
            return self._show(len(self.session.stops) - 1, "entry")
        for _ in range(self.max_events):
            stop = await self.session.step(Action(kind=ActionKind.STEP_INTO), options)
            self._sync()
            k = len(self.session.stops) - 1
            if stop.exited:
                return stop
            if stop.state.kind is StateKind.LINE and self.own(stop):
                return self._show(k, "entry")
        raise BackendError(f"no line of the program within {self.max_events} events")

    async def request(
        self,
        request: Request,
        decide: Decide,
        filters: set[str],
        log: Log | None = None,
        options: DecodeOptions | None = None,
    ) -> Stop:
        """Walk from the stop shown now to where ``request`` stops (or the end)."""
        session = self.session
        if session.finished:
            raise BackendError("the program has exited; no action can follow")
        self._sync()
        if self.state.uncaught is not None and self.state.uncaught == len(session.stops) - 1:
            stop = await session.step(Action(kind=ActionKind.CONTINUE), options)  # run ends
            self._sync()
            return stop
        start = len(session.stops)
        try:
            if request == "continue" and not self.exact_continue:
                return await self._jump(decide, filters, log, options)
            reached = await self._events(request, decide, filters, log, options, self.max_events)
        except BaseException:  # a failed or cancelled prediction: nothing half-recorded
            self._take_back(start)
            raise
        if reached is None:
            self._take_back(start)
            raise BackendError(f"the request did not stop within {self.max_events} events")
        return reached

    async def _events(
        self,
        request: Request,
        decide: Decide,
        filters: set[str],
        log: Log | None,
        options: DecodeOptions | None,
        budget: int,
    ) -> Stop | None:
        """Walk event by event, each judged by the rules, to where ``request`` stops; ``None``
        when ``budget`` events pass first (the walk stays where it got to)."""
        session = self.session
        start = self.current
        mode: Mode = request
        frame = self.key(start)
        initial = (frame, start.line) if request == "stepIn" else None
        # a step out nothing on the way can stop: the session's own (steps, then one jump)
        finish_at_once = request == "stepOut" and self._may_step_out_at_once(filters)
        out_at_once = False
        begun = len(session.stops)
        for walked in range(budget):
            jump = self._give_up_walking(request, mode, walked, begun)
            event = session.event
            inside = event.state.kind in (StateKind.CALL, StateKind.LINE)
            lost = not self.exact_continue and walked >= self.max_events // 2
            if lost and inside and event.depth > start.depth and mode in ("next", "stepOut"):
                # a model's walk this long has lost its way in a callee of the stop frame S (a
                # predicted loop or recursion that never ends): each callee is finished at
                # once, even where a breakpoint could be, since a request that never stops is
                # worse than a missed breakpoint. Shorter walks step through callees: finishing
                # every callee at once cost a stepping-check scenario (its return mispredicted)
                out_at_once = True
            walk = ActionKind.STEP_RETURN if out_at_once else ActionKind.STEP_INTO
            walk = jump or walk
            out_at_once = False
            if finish_at_once:
                stop = await finish(session, options)
                finish_at_once = False
            else:
                stop = await session.step(Action(kind=walk), options)
            self._sync()
            k = len(session.stops) - 1
            kind = stop.state.kind
            if stop.exited:
                if kind is StateKind.EXIT_ERROR and "uncaught" in filters:
                    return self._uncaught(k)
                return stop
            if kind is StateKind.LINE:
                if stop.file == session.program.path:
                    stops_here, message = decide(stop)
                    if message is not None and log is not None:
                        await log(message)
                    if stops_here:
                        return self._show(k, "breakpoint")
                if mode == "stepIn" and self.own(stop):
                    return self._show(k, "step")
                if mode == "next" and self.key(stop) == frame:
                    return self._show(k, "step")
            elif kind is StateKind.EXCEPTION:
                if "raised" in filters and self.just_raised(k):
                    return self._show(k, "exception", self._exception_view(k))
            elif kind is StateKind.RETURN and not self.is_yield(stop):
                ours = self.key(stop) == frame
                caller_own = self.own(stop, 1)
                before = mode
                if ours and mode in ("next", "stepOut"):
                    mode, frame, initial = "stepIn", None, None  # pydevd: step into from here
                record = {
                    "stepIn": caller_own,
                    "next": self.key(stop, 1) == frame,
                    "stepOut": ours,
                    "continue": False,
                }[mode]
                if record and caller_own:
                    entries = self.state.returns[k].setdefault(stop.depth - 1, {})
                    entries[self.shown_name(k)] = stop.state.value or "None"
                caller = (self.key(stop, 1), stop.frames[-2].line if caller_own else None)
                if caller_own and (
                    (before == "stepIn" and caller != initial) or (before == "stepOut" and ours)
                ):
                    return self._show(k, "step", await self._caller_view(k, options))
        return None

    def _take_back(self, count: int) -> None:
        """Step the session back until its history holds its first ``count`` events."""
        self.session.back_to(count)
        self._sync()

    def _give_up_walking(
        self, request: Request, mode: Mode, walked: int, begun: int
    ) -> ActionKind | None:
        """A model's ``next`` or ``stepOut`` that has walked three quarters of its budget in
        the stop frame's callees, finishing each at once, still has not stopped: they keep
        calling (``sum(f(x) for x in range(1000))``, or a predicted loop that never ends).
        The walk is taken back, and the language's own jump from where it began answers
        (``step_over``, ``step_return``), without the callees' breakpoints and ``(return)``
        values; None while the walk goes on."""
        if self.exact_continue or mode != request or request not in ("next", "stepOut"):
            return None
        if walked != self.max_events * 3 // 4:
            return None
        self._take_back(begun)
        return ActionKind.STEP_OVER if request == "next" else ActionKind.STEP_RETURN

    def _may_step_out_at_once(self, filters: set[str]) -> bool:
        """Whether a model's ``stepOut`` may go to the frame's return as the session steps out
        (:func:`.session.finish`: up to ``return_steps`` steps into, then one ``step_return``)
        instead of walking every event up to it under these rules.

        The events passed are ones no rule would stop on: no breakpoint is set (so none can
        hold, nor a log point write), no ``raised`` filter stops on an exception, and a
        ``stepOut`` records no ``(return)`` entries of the callees it passes. It starts from a
        line or call event, whose frame's return is what ``step_return`` predicts (a caller's
        view stands on a return event, an exception's view on an exception event: neither).
        The oracle walks every event: it is exact and cheap."""
        last = self.session.event.state.kind
        return (
            not self.exact_continue
            and not self._breakpoint_lines
            and "raised" not in filters
            and last in (StateKind.LINE, StateKind.CALL)
        )

    def _raised_since(self, since: int, k: int) -> int | None:
        """The latest event before ``k``, from ``since`` on, where an exception was raised."""
        stops = self.session.stops
        return next(
            (
                i
                for i in range(k - 1, max(since, 1) - 1, -1)
                if stops[i].state.kind is StateKind.EXCEPTION and self.just_raised(i)
            ),
            None,
        )

    def _uncaught(self, k: int, since: int = 1) -> Stop:
        """After an error exit: back to where the exception that ended the run was raised (an
        event from ``since`` on: a jump's landing, not a raise it skipped past)."""
        session = self.session
        raised = self._raised_since(since, k)
        if raised is None:
            return session.stops[k]
        self._take_back(raised + 1)
        self.state.uncaught = raised
        return self._show(raised, "exception", self._exception_view(raised))

    async def _jump(
        self, decide: Decide, filters: set[str], log: Log | None, options: DecodeOptions | None
    ) -> Stop:
        """A model's continue: the jumps of :func:`resume`, each landing judged by ``decide``.

        A jump that lands where the request began or an earlier jump landed is taken back: the
        model has no other next hit to write from there (a breakpoint in a recursion, its
        condition false on the one hit the model writes again and again); so is one whose
        ``for`` targets hold no item of the loop's iterable (a turn after the last, which the
        model writes with ``i = 3`` for ``range(3)``: :meth:`_off_the_loop`). From there the
        request walks up to :data:`WALK_ON` single events under the rules (:meth:`_events`),
        then jumps again from where the walk got to; at most :data:`MAX_PREDICTED`
        predictions in all. Where an exception can stop it (the ``raised`` filter; an error
        exit under ``uncaught`` with no raise written since the jump began) single events
        find it first: up to :data:`SEARCH_WALK` of them.
        """
        session = self.session
        lines = set(self._breakpoint_lines)
        seen = {_place(self.current)}
        begun = len(session.stops)
        searched = False  # whether single events looked for the raise that ended the run
        if "raised" in filters:
            walked = await self._events("continue", decide, filters, log, options, SEARCH_WALK)
            if walked is not None:
                return walked
        while len(session.stops) - begun < MAX_PREDICTED:
            before = len(session.stops)
            stop = await resume(session, lines, options)
            self._sync()
            k = len(session.stops) - 1
            place = _place(stop)
            if not stop.exited and (place in seen or self._off_the_loop(stop)):
                self._take_back(before)
                walked = await self._events("continue", decide, filters, log, options, WALK_ON)
                if walked is not None:
                    return walked
                seen.add(_place(self.current))
                continue
            seen.add(place)
            if stop.exited:
                error = stop.state.kind is StateKind.EXIT_ERROR and "uncaught" in filters
                if error and not searched and self._raised_since(before, k) is None:
                    searched = True
                    self._take_back(before)
                    walked = await self._events(
                        "continue", decide, filters, log, options, SEARCH_WALK
                    )
                    if walked is not None:
                        return walked
                    continue
                return self._uncaught(k, before) if error else stop
            if stop.state.kind is StateKind.LINE and stop.file == self.session.program.path:
                stops_here, message = decide(stop)
                if message is not None and log is not None:
                    await log(message)
                if stops_here:
                    return self._show(k, "breakpoint")
            elif stop.line not in lines:
                return self._show(k, "step")
        raise BackendError(f"no breakpoint stopped within {MAX_PREDICTED} predictions")

    def _off_the_loop(self, stop: Stop) -> bool:
        """Whether a jump's landing in the program shows a ``for``'s targets holding no item of
        its iterable: a turn after the loop's last (:func:`.branches.outside_its_loop`)."""
        if stop.file != self.session.program.path or stop.line is None or stop.locals is None:
            return False
        return outside_its_loop(self._loops, stop.line, stop.locals, self._builtins)

    _breakpoint_lines: frozenset[int] = frozenset()

    def set_breakpoint_lines(self, lines: set[int]) -> None:
        """The lines a model's continue jumps to (its walk needs no list)."""
        self._breakpoint_lines = frozenset(lines)

    # ---- backwards -----------------------------------------------------------------------------

    def step_back(self) -> Stop:
        """Back to the stop shown before this one (nothing is predicted)."""
        self._sync()
        earlier = [k for k in self.state.shown if k < len(self.session.stops) - 1]
        if not earlier:
            raise BackendError("already at the first stop")
        target = earlier[-1]
        self._take_back(target + 1)
        return self.current

    def reverse_continue(self, holds: Callable[[Stop], bool]) -> Stop:
        """Back to the latest earlier line event on a breakpoint that holds (or the first)."""
        self._sync()
        stops = self.session.stops
        if len(stops) == 1:
            raise BackendError("already at the first stop")
        target = next(
            (
                i
                for i in range(len(stops) - 2, 0, -1)
                if stops[i].state.kind is StateKind.LINE and holds(stops[i])
            ),
            self.state.shown[0] if self.state.shown else 0,
        )
        self._take_back(target + 1)
        if target not in self.session.views and stops[target].state.kind is StateKind.LINE:
            return self._show(target, "breakpoint")
        if not self.state.shown or self.state.shown[-1] != target:
            self.state.shown.append(target)
        return self.current


def _loop_heads(source: str) -> tuple[dict[int, Head], frozenset[str]]:
    """The program's branch heads and the builtins it leaves unbound (none where it does not
    parse)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return {}, frozenset()
    return heads(tree), unbound_builtins(tree)


def _place(stop: Stop) -> tuple[object, ...]:
    """Where a stop stands and what it shows: two stops alike in this are one place."""
    locals_ = tuple(sorted((stop.locals or {}).items()))
    return (stop.state.kind, stop.depth, stop.frames, stop.line, locals_, stop.state.value)


def _assigned(text: str) -> set[str]:
    """The names a statement line changes itself, outside its comprehensions: its targets,
    the subscripted or attributed names it stores into, and the names whose methods it calls
    (``values.append(...)``), which may run after the call that returned. A compound
    statement's header (``for x in f():``, ``class Box:``) binds its targets or its name."""
    tree = None
    for written in (text.strip(), text.strip() + " pass"):
        try:
            tree = ast.parse(written)
            break
        except SyntaxError:
            continue
    if tree is None:
        return set()
    inner: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.comprehension):
            inner.update(id(n) for n in ast.walk(node.target))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            names.add(node.name)  # bound once its class body (or its defaults) has run
        elif (
            isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store) and id(node) not in inner
        ):
            names.add(node.id)
        elif isinstance(node, ast.Subscript | ast.Attribute) and isinstance(node.ctx, ast.Store):
            base = node.value
            if isinstance(base, ast.Name):
                names.add(base.id)
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and isinstance(node.func.value, ast.Name)
        ):
            names.add(node.func.value.id)
    return names


def _fresh_frame(before: dict[int, dict[str, str]], stop: Stop) -> dict[int, dict[str, str]]:
    """The ``(return)`` entries after ``stop``: frames deeper than it are gone; a call starts
    its frame with none."""
    if stop.exited:
        return {}
    kept = {d: dict(v) for d, v in before.items() if d <= stop.depth}
    if stop.state.kind is StateKind.CALL:
        kept.pop(stop.depth, None)
    return kept
