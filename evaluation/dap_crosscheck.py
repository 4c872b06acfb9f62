"""Cross-check ``ndb dap`` against debugpy: the same DAP session, stop by stop, on the corpus.

The server's tests check it against its own expectations; this checks it against a real Python
debugger. For each program both adapters are driven over stdio by the same small client with the
same requests, and every stop is read the way an editor reads it (``stackTrace``, ``scopes``,
``variables``):

* (a) ``breakpoint``: a breakpoint on a line inside a function that the program executes (chosen
  from a real run), then ``configurationDone``: the first hit;
* (b) the breakpoint is cleared, then ``next``, ``stepIn`` and ``stepOut`` requests (a fixed
  sequence), each stop compared;
* (c) ``continue``: the breakpoint is set again and the next hit (or the end) compared;
* (d) ``exit``: the breakpoint is cleared and the program continued to its end; the exit codes
  are compared.

A stop is compared on its position (the innermost frame's line, or "exited"), the innermost
frame's function name, the frames (names and depth of the program's own frames), the lines of
the outer frames (when names and depth agree), and the variables of the innermost frame (names
to value texts; compared where the positions agree).

Mapping the two debuggers onto each other
-----------------------------------------
* Scripts are launched as they are by both.
* An entry call (``f(1, 2)``) runs, in ndb, after the module was executed under its own name
  (``__name__`` is the file's stem), through an ``<entry>`` wrapper frame. debugpy needs a
  script; writing "the program followed by the call" would run it as ``__main__`` and so also
  run its ``if __name__ == "__main__":`` block (30% of the corpus's entry programs have one).
  So debugpy runs a small runner script next to the program that imports it under its own name
  and then evaluates the call on one line. Both debuggers see the same program file; only
  frames in that file are compared, which leaves out ndb's ``<entry>`` frame and the runner's
  module frame. A stop in neither (after the entry function returned) is "outside".
* debugpy's special entries are normalised: ``special variables`` (dunder names, which ndb
  hides) is dropped; the other groups (``function variables``, ``class variables``,
  ``protected variables``) are expanded into plain names; modules at module level (hidden by
  ndb) and dunder names are dropped. Addresses (`` at 0x…``) are removed from debugpy's texts, as
  ndb's tracer removes them. A value that either side cut short (ndb's ``…<cut>`` after 160
  characters, debugpy's ``...`` in long collections) agrees when the shorter is a prefix of the
  longer. The model's ``  (62% sure)`` suffix is removed from ndb's values.
* The debuggee runs with ``PYTHONHASHSEED=0``, as ndb's tracer runs it, so set reprs agree.

Nothing is re-synchronised: ndb stops where debugpy stops (``model_backend/stepping.py``), so
each request is sent once to each side and the two stops compared. A position disagreement ends
the stepping of that program (the two runs are no longer at the same point), and the run goes
on to the ``exit`` scenario. (Older results files list re-synchronisations by kind, from when
ndb stopped on call, return and exception events; :data:`NOTES` keeps their explanations.)
The hand-written scenarios of ``evaluation/stepping_check.py`` check every stepping rule.

``python -m neural_debugger.evaluation.dap_crosscheck [--programs N] [--backend oracle|local]``
prints a table and writes ``evaluation/results/dap_crosscheck.json``. With ``--backend local``
the stops of ndb are the model's predictions, so the figures measure the model through the
server, not the server.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import random
import re
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio

from neural_debugger.model_backend.confidence import without_sureness
from neural_debugger.tracer.events import ExitKind
from neural_debugger.tracer.program import ProgramError, load_program
from neural_debugger.tracer.record import TracerFailure
from neural_debugger.tracer.run import trace
from neural_debugger.tracer.values import CUT_MARKER

from .corpus import CorpusProgram, corpus
from .dap_client import NDB_DAP, DapClient, DapError

RESULTS = Path(__file__).resolve().parent / "results" / "dap_crosscheck.json"
DEBUGPY = [sys.executable, "-m", "debugpy.adapter"]
STEPS = ("next", "next", "stepIn", "stepIn", "stepIn", "next", "stepOut", "next")
SCENARIOS = ("breakpoint", "next", "stepIn", "stepOut", "continue", "exit")
ASPECTS = ("function", "frames", "frame_lines", "variables")  # besides the position
MAX_EXTRA_STEPS = 12  # re-synchronising steps after one request, both sides together
RUNNER_NAME = "ndb_crosscheck_runner.py"
EXITED = "exited"
OUTSIDE = "outside"

_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]{6,}")  # as the tracer: 6 hex digits or more
_EVENT_KIND = re.compile(r"\b(call|return|exception) at line \d+")
_OBJECT = re.compile(r"<[\w.]+ object>")
_MODULE_CLASS = re.compile(r"<class '\w+\.([\w.<>]+)'>")
_COMPREHENSION = ("<listcomp>", "<setcomp>", "<dictcomp>", "<genexpr>")

NOTES: dict[str, str] = {
    "ndb_call_event": "ndb's stepIn into a function stops first at the call event, on the def "
    "line, with the arguments as locals; debugpy stops at the first line of the body. One more "
    "stepIn on ndb reaches the line debugpy shows.",
    "ndb_return_event": "ndb stops at a function's return event (on the line that returns, with "
    "a 'Return value' scope) before going back to the caller; debugpy does not stop there. One "
    "more step on ndb goes on to the caller.",
    "ndb_exception_event": "ndb stops where an exception is raised (and in each frame it passes "
    "through); debugpy, with no exception filters set, does not. One more step on ndb goes on "
    "to the handler, the caller or the end.",
    "debugpy_caller_after_return": "after stepIn or stepOut across a return (or an exception "
    "leaving a frame), debugpy stops on the caller's line once more (the call on it has "
    "finished); sys.settrace has no line event there, so ndb goes straight to the next event. "
    "One more step on debugpy goes on.",
    "debugpy_entry_runner": "after an entry function returns, debugpy stops in the runner "
    "script's module frame (outside the program); ndb's <entry> wrapper returns straight to the "
    "end. One more step on debugpy ends the run too.",
    "position": "the innermost frame's line differs and no rule above explains it; stepping "
    "stops for this program.",
    "breakpoint_verified": "one adapter verified the breakpoint and the other did not.",
    "generator": "a step from a yield: debugpy treats a yield as a pause and steps on to the "
    "generator's next resumption (or the caller), while for ndb, as for sys.settrace, a yield "
    "is a return and the resumption is a new call.",
    "next_after_return": "next across a return: ndb, like bdb (pdb), stops at the next event "
    "after the return wherever it is, so it enters a function the caller's line calls next "
    "(a __repr__ called by print, the second call of f(a) + f(b)); debugpy steps over it and "
    "stops in the caller.",
    "same_text_other_line": "ndb stands on another line with the same text as debugpy's (two "
    "`count = 0` lines, say). A stop carries its line's text only; ndb resolves it to the first "
    "such line after where it last saw the frame, and after a jump that is a stale line (line 1 "
    "of the module), so an earlier copy of the statement wins.",
    "exit_code": "both runs ended, with different exit codes.",
    "ended_early": "one side ended (exited) while the other stopped in the program.",
    "prediction_failed": "ndb reported a failed prediction (a 'pause' stop) instead of a stop.",
    "frames_depth": "the program's own frames differ in number. ndb's stack is inferred from the "
    "stops it has seen: after a breakpoint jump it does not know the frames between the module "
    "(or <entry>) and the breakpoint's function, and a later return then pops a frame too many.",
    "frame_name": "a frame of the same depth has another name: after a breakpoint jump ndb "
    "keeps the frames it last knew (the function it was stepping in) as the callers of the "
    "breakpoint's function.",
    "frame_named_after_definition": "a frame standing on a def or class statement (a function "
    "defined inside another, a class body's header at module level) is named after the function "
    "or class being defined rather than the function that runs the statement.",
    "comprehension_frame": "a comprehension's own frame (<listcomp>, <setcomp>, <dictcomp>, "
    "<genexpr>) is named after the function around it by ndb.",
    "locals_as_last_seen": "ndb has no variables for this stop (a return or exception stop, or "
    "a frame not seen since a jump) and shows the frame's variables as last seen, which differ "
    "from the real ones.",
    "frame_line": "an outer frame's line differs: after a jump ndb puts a caller on a line of "
    "its own that calls the function by name, and where there is none (a __repr__ called by "
    "print, a decorator's wrapper) leaves it where it last saw it (line 1 of the module); "
    "debugpy shows the line of the call.",
    "object_repr": "an instance of a class without its own __repr__: debugpy shows Python's "
    "<module.Class object>, ndb's tracer builds Class(attr=value, ...).",
    "class_repr": "a class object (alone or inside a value): debugpy shows "
    "<class 'module.Class'>, ndb <class 'Class'>.",
    "repr_failed": "the class's own __repr__ raised (typically in __init__, before the "
    "attributes it reads are set): ndb shows <repr failed: Error>, debugpy falls back to "
    "<module.Class object>.",
    "bound_method_repr": "a bound method: debugpy shows <bound method C.f of <...>>, ndb "
    "<bound method C.f>.",
    "missing_variable": "a variable debugpy shows is not among ndb's locals.",
    "extra_variable": "ndb shows a variable that debugpy does not.",
    "value": "the value texts differ otherwise.",
}


# ---- what a stop looks like -------------------------------------------------------------------


@dataclass(frozen=True)
class Snapshot:
    """One stop as an editor sees it, reduced to what both debuggers can be compared on.

    ``frames`` are the program's own frames, innermost first, as (name, line); ``kind`` is
    ``line`` for debugpy and ndb's event kind (``call``, ``return``, ``exception``) otherwise.
    """

    exited: bool
    exit_code: int | None = None
    kind: str = "line"
    reason: str = ""
    frames: tuple[tuple[str, int], ...] = ()
    top_is_user: bool = False
    variables: dict[str, str] | None = None
    current: bool = True  # the variables are the stop's own (not ndb's "as last seen")
    description: str = ""

    @property
    def position(self) -> str:
        """The innermost frame's line (``line 12``), ``exited`` or ``outside`` the program.

        The function's name is compared with the frames, so that a misnamed frame does not
        hide whether the two debuggers stand on the same line.
        """
        if self.exited:
            return EXITED
        if not self.top_is_user or not self.frames:
            return OUTSIDE
        return f"line {self.frames[0][1]}"

    def brief(self, variables: bool = True) -> dict[str, Any]:
        """A JSON-friendly form for examples in the report (``variables``: with them)."""
        if self.exited:
            return {"exited": True, "exit_code": self.exit_code}
        shown: dict[str, Any] = {
            "kind": self.kind,
            "reason": self.reason,
            "frames": [list(f) for f in self.frames],
        }
        if variables:
            shown["variables"] = self.variables
        return shown


@dataclass
class Pair:
    """One request's outcome on both sides, after re-synchronisation, and how they compare."""

    scenario: str
    ours: Snapshot
    theirs: Snapshot
    resyncs: list[str] = field(default_factory=list)
    position: bool = False
    function: bool | None = None
    frames: bool | None = None
    frame_lines: bool | None = None
    variables: bool | None = None
    kinds: list[str] = field(default_factory=list)
    normalised: list[str] = field(default_factory=list)
    examples: dict[str, dict[str, Any]] = field(default_factory=dict)


@dataclass
class ProgramResult:
    """Every pair of one program, or why it could not be run."""

    name: str
    entry: str | None
    line: int
    pairs: list[Pair] = field(default_factory=list)
    desynced: bool = False
    error: str | None = None
    seconds: float = 0.0


# ---- comparing ---------------------------------------------------------------------------------


def clean_value(text: str) -> str:
    """A value text without addresses and without ndb's confidence suffix."""
    return _ADDRESS.sub("", without_sureness(text))


def _truncated_agree(ours: str, theirs: str) -> bool:
    """Whether two texts agree once the part either side cut off is ignored."""
    a = ours[: -len(CUT_MARKER)] if ours.endswith(CUT_MARKER) else ours
    b = theirs
    if "..." in theirs and "..." not in ours:
        b = theirs[: theirs.index("...")]
    if a == ours and b == theirs:
        return False  # neither was cut
    shorter, longer = sorted((a, b), key=len)
    return longer.startswith(shorter)


def value_kind(ours: str, theirs: str) -> str | None:
    """None when the texts agree, else the kind of disagreement (a key of :data:`NOTES`)."""
    if ours == theirs:
        return None
    if _truncated_agree(ours, theirs):
        return "truncated"
    if ours.startswith("<repr failed"):
        return "repr_failed"
    if theirs.startswith("<bound method") and ours.startswith("<bound method"):
        return "bound_method_repr"
    if _OBJECT.search(theirs) and not _OBJECT.search(ours):
        return "object_repr"
    if _MODULE_CLASS.sub(r"<class '\1'>", theirs) == ours:
        return "class_repr"
    return "value"


def frame_kind(ours: Snapshot, theirs: Snapshot, lines: Sequence[str]) -> str:
    """The kind of a disagreement on frame names (same depth), a key of :data:`NOTES`."""
    for (name, line), (other, _) in zip(ours.frames, theirs.frames, strict=False):
        if name == other:
            continue
        if other in _COMPREHENSION:
            return "comprehension_frame"
        text = lines[line - 1] if 0 < line <= len(lines) else ""
        if re.match(rf"\s*(?:async\s+)?(?:def|class)\s+{re.escape(name)}\b", text):
            return "frame_named_after_definition"
    return "frame_name"


def _same_text(ours: Snapshot, theirs: Snapshot, lines: Sequence[str]) -> bool:
    """Whether the two innermost lines differ in number but hold the same statement text."""
    if not (ours.top_is_user and theirs.top_is_user and ours.frames and theirs.frames):
        return False
    a, b = ours.frames[0][1], theirs.frames[0][1]
    if not (0 < a <= len(lines) and 0 < b <= len(lines)) or a == b:
        return False
    return lines[a - 1].strip() == lines[b - 1].strip() != ""


def compare(
    ours: Snapshot, theirs: Snapshot, scenario: str = "", lines: Sequence[str] = ()
) -> Pair:
    """Compare one stop of ndb (``ours``) with debugpy's (``theirs``) on the program ``lines``."""
    pair = Pair(scenario, ours, theirs)

    def note(kind: str, example: dict[str, Any]) -> None:
        pair.kinds.append(kind)
        pair.examples.setdefault(kind, example)

    if ours.exited or theirs.exited:
        pair.position = ours.exited and theirs.exited
        if not pair.position:
            note("ended_early", {"ndb": ours.brief(), "debugpy": theirs.brief()})
        elif ours.exit_code != theirs.exit_code:
            note("exit_code", {"ndb": ours.exit_code, "debugpy": theirs.exit_code})
        return pair
    if ours.reason == "pause":
        note("prediction_failed", {"ndb": ours.description})
        return pair
    pair.position = ours.position == theirs.position
    if not pair.position:
        kind = "same_text_other_line" if _same_text(ours, theirs, lines) else "position"
        note(kind, {"ndb": list(ours.frames[:1]), "debugpy": list(theirs.frames[:1])})
    names_ours = [name for name, _ in ours.frames]
    names_theirs = [name for name, _ in theirs.frames]
    if ours.top_is_user and theirs.top_is_user:
        pair.function = names_ours[0] == names_theirs[0]
    pair.frames = names_ours == names_theirs
    if len(names_ours) != len(names_theirs):
        note("frames_depth", {"ndb": ours.frames, "debugpy": theirs.frames})
    elif not pair.frames:
        note(frame_kind(ours, theirs, lines), {"ndb": ours.frames, "debugpy": theirs.frames})
    if pair.frames:
        pair.frame_lines = list(ours.frames[1:]) == list(theirs.frames[1:])
        if not pair.frame_lines:
            note("frame_line", {"ndb": ours.frames, "debugpy": theirs.frames})
    if pair.position and ours.variables is not None and theirs.variables is not None:
        pair.variables = True
        if not ours.current and ours.variables != theirs.variables:
            pair.variables = False
            example = {"at": ours.frames[:1], "ndb": ours.variables, "debugpy": theirs.variables}
            note("locals_as_last_seen", example)
            return pair
        for name in sorted(set(ours.variables) | set(theirs.variables)):
            if name not in ours.variables:
                kind = "missing_variable"
            elif name not in theirs.variables:
                kind = "extra_variable"
            else:
                kind = value_kind(ours.variables[name], theirs.variables[name])
            if kind is None:
                continue
            if kind == "truncated":
                pair.normalised.append(kind)
                continue
            pair.variables = False
            note(
                kind,
                {
                    "at": list(ours.frames[:1]),
                    "name": name,
                    "ndb": ours.variables.get(name),
                    "debugpy": theirs.variables.get(name),
                },
            )
    return pair


# ---- the two debuggers ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Prepared:
    """A corpus program written to disk, with the breakpoint line chosen for it."""

    name: str
    path: Path  # the program's file, the same for both debuggers
    entry: str | None
    line: int
    script: Path  # what debugpy launches: the program itself, or the entry runner


def runner_source(program: Path, entry: str) -> str:
    """A script that runs ``entry`` the way ndb does: after importing the program by its name."""
    return (
        '"""Runs one entry call after importing the program under its own name."""\n'
        "import sys\n"
        f"sys.path.insert(0, {str(program.parent)!r})\n"
        f"import {program.stem} as program_module\n"
        "globals().update({k: v for k, v in vars(program_module).items() "
        "if not k.startswith('__')})\n"
        f"{entry}\n"
    )


class Side:
    """One debugger driven over DAP: launch with a breakpoint, act, read each stop."""

    label = ""

    def __init__(self, prepared: Prepared, timeout: float, workdir: Path) -> None:
        self.prepared = prepared
        self.timeout = timeout
        self.workdir = workdir
        self.dap: DapClient | None = None
        self.thread = 1
        self.last: Snapshot | None = None
        self.previous: Snapshot | None = None
        self.verified = False  # whether the adapter verified the breakpoint

    def command(self) -> list[str]:
        raise NotImplementedError

    def launch_arguments(self) -> dict[str, Any]:
        raise NotImplementedError

    async def start(self) -> Snapshot:
        """initialize, launch, the breakpoint, configurationDone: the first stop (or the end)."""
        log = self.workdir / f"{self.label}-stderr.txt"
        self.dap = await DapClient.spawn(self.command(), log, timeout=self.timeout)
        await self.dap.request(
            "initialize",
            clientID="ndb-crosscheck",
            adapterID=self.label,
            linesStartAt1=True,
            columnsStartAt1=True,
            pathFormat="path",
        )
        launch = await self.dap.send("launch", **self.launch_arguments())
        await self.dap.event("initialized")
        await self.set_breakpoints([self.prepared.line])
        await self.dap.request("setExceptionBreakpoints", filters=[])
        await self.dap.request("configurationDone")
        await self.dap.response(launch, "launch")  # debugpy answers launch only now
        return await self._stop()

    async def set_breakpoints(self, lines: Sequence[int]) -> None:
        """Replace the breakpoints of the program's file (nothing to do after the end)."""
        assert self.dap is not None
        if self.last is not None and self.last.exited:
            return
        made = await self.dap.request(
            "setBreakpoints",
            source={"path": str(self.prepared.path), "name": self.prepared.path.name},
            breakpoints=[{"line": n} for n in lines],
        )
        if lines:
            self.verified = all(bp.get("verified") for bp in made.get("breakpoints", []))

    async def act(self, command: str) -> Snapshot:
        """Send a stepping request (``next``, ``stepIn``, ``stepOut``, ``continue``)."""
        assert self.dap is not None and self.last is not None
        if self.last.exited:
            return self.last
        await self.dap.request(command, threadId=self.thread)
        return await self._stop()

    async def _stop(self) -> Snapshot:
        assert self.dap is not None
        message = await self.dap.event("stopped", "exited", "terminated")
        self.previous = self.last
        if message["event"] != "stopped":
            code = (message.get("body") or {}).get("exitCode")
            self.last = Snapshot(exited=True, exit_code=code)
            return self.last
        body = message.get("body") or {}
        self.thread = body.get("threadId", self.thread)
        self.last = await self._read_stop(body)
        return self.last

    async def _read_stop(self, body: dict[str, Any]) -> Snapshot:
        assert self.dap is not None
        shown = (await self.dap.request("stackTrace", threadId=self.thread))["stackFrames"]
        program = os.path.realpath(self.prepared.path)
        user = [
            f
            for f in shown
            if (f.get("source") or {}).get("path")
            and os.path.realpath(f["source"]["path"]) == program
        ]
        top_is_user = bool(shown) and bool(user) and shown[0] is user[0]
        variables, current = await self._locals(shown[0]["id"]) if top_is_user else (None, True)
        return Snapshot(
            exited=False,
            kind=self._kind(body),
            reason=str(body.get("reason", "")),
            frames=tuple((str(f["name"]), int(f["line"])) for f in user),
            top_is_user=top_is_user,
            variables=variables,
            current=current,
            description=str(body.get("description", "")),
        )

    def _kind(self, body: dict[str, Any]) -> str:
        return "line"

    async def _locals(self, frame_id: int) -> tuple[dict[str, str] | None, bool]:
        """The innermost frame's variables, and whether they are the stop's own."""
        raise NotImplementedError

    async def close(self) -> None:
        if self.dap is not None:
            await self.dap.close()


class DebugpySide(Side):
    """debugpy's adapter (``python -m debugpy.adapter``), the reference."""

    label = "debugpy"

    def command(self) -> list[str]:
        return DEBUGPY

    def launch_arguments(self) -> dict[str, Any]:
        env = {"PYTHONHASHSEED": "0", "PYTHONIOENCODING": "utf-8", "PYTHONDONTWRITEBYTECODE": "1"}
        return {
            "type": "python",
            "request": "launch",
            "name": "crosscheck",
            "program": str(self.prepared.script),
            "console": "internalConsole",
            "justMyCode": True,
            "stopOnEntry": False,
            "showReturnValue": True,  # as VS Code launches it; ndb shows (return) entries
            "subProcess": False,
            "python": [sys.executable],
            "cwd": str(self.prepared.path.parent),
            "env": env,
        }

    async def _locals(self, frame_id: int) -> tuple[dict[str, str] | None, bool]:
        assert self.dap is not None
        scopes = (await self.dap.request("scopes", frameId=frame_id))["scopes"]
        scope = next((s for s in scopes if s["name"] == "Locals"), None)
        if scope is None:
            return None, True
        found = await self.dap.request("variables", variablesReference=scope["variablesReference"])
        result: dict[str, str] = {}
        for variable in found["variables"]:
            name = variable["name"]
            group = name.endswith(" variables") and variable.get("variablesReference", 0) > 0
            if group and name == "special variables":
                continue
            if group:
                inner = await self.dap.request(
                    "variables", variablesReference=variable["variablesReference"]
                )
                entries = inner["variables"]
            else:
                entries = [variable]
            for entry in entries:
                text = clean_value(str(entry.get("value", "")))
                dunder = entry["name"].startswith("__") and entry["name"].endswith("__")
                if dunder or text.startswith("<module '"):
                    continue
                result[entry["name"]] = text
        return result, True


class NdbSide(Side):
    """``ndb dap``, with the oracle (a real run) or a model predicting every stop."""

    label = "ndb"

    def __init__(
        self,
        prepared: Prepared,
        timeout: float,
        workdir: Path,
        backend: str,
        breakpoint_steps: int | None = None,
    ) -> None:
        super().__init__(prepared, timeout, workdir)
        self.backend = backend
        self.breakpoint_steps = breakpoint_steps  # None: the backend's default

    def command(self) -> list[str]:
        return NDB_DAP

    def launch_arguments(self) -> dict[str, Any]:
        arguments: dict[str, Any] = {
            "program": str(self.prepared.path),
            "backend": self.backend,
            "stopOnEntry": False,
            "cwd": str(self.prepared.path.parent),
        }
        if self.prepared.entry is not None:
            arguments["entry"] = self.prepared.entry
        if self.breakpoint_steps is not None:
            arguments["breakpointSteps"] = self.breakpoint_steps
        return arguments

    def _kind(self, body: dict[str, Any]) -> str:
        if body.get("reason") == "pause":
            return "failed"
        found = _EVENT_KIND.search(str(body.get("description", "")))
        return found.group(1) if found else "line"

    async def _locals(self, frame_id: int) -> tuple[dict[str, str] | None, bool]:
        assert self.dap is not None
        scopes = (await self.dap.request("scopes", frameId=frame_id))["scopes"]
        scope = next((s for s in scopes if s["name"].startswith("Locals")), None)
        if scope is None:
            return None, True
        found = await self.dap.request("variables", variablesReference=scope["variablesReference"])
        values = {v["name"]: clean_value(str(v["value"])) for v in found["variables"]}
        return values, scope["name"] == "Locals"


# ---- one program -------------------------------------------------------------------------------


def _caller_after_return(previous: Snapshot | None, now: Snapshot) -> bool:
    """Whether debugpy's stop is a caller's line just after the frames above it returned.

    The caller is still on the line of the call, so its frames are the previous stop's outer
    frames, lines included.
    """
    if previous is None or previous.exited or now.exited or not now.frames:
        return False
    depth = len(now.frames)
    return len(previous.frames) > depth and now.frames == previous.frames[-depth:]


def _on_yield(stop: Snapshot, lines: Sequence[str]) -> bool:
    """Whether a stop is on a line with a ``yield`` (where the two debuggers step differently)."""
    line = stop.frames[0][1] if stop.frames and not stop.exited else 0
    return 0 < line <= len(lines) and re.search(r"\byield\b", lines[line - 1]) is not None


def _entered_after_return(resyncs: Sequence[str]) -> bool:
    """Whether ndb, going past a return, stopped next at a call (a function the caller's line
    calls after the return, such as a ``__repr__`` called by ``print``)."""
    if "ndb_return_event" not in resyncs:
        return False
    return "ndb_call_event" in resyncs[resyncs.index("ndb_return_event") :]


def _rename(pair: Pair, old: str, new: str) -> None:
    """Give a disagreement that a rule explains its own kind."""
    pair.kinds = [new if kind == old else kind for kind in pair.kinds]
    if old in pair.examples:
        pair.examples.setdefault(new, pair.examples.pop(old))


def _follow_up(command: str) -> str:
    """The request that takes one side past an extra stop made while doing ``command``."""
    return command if command in ("next", "continue") else "stepIn"


async def _synchronised(
    command: str, ours: NdbSide, theirs: DebugpySide
) -> tuple[Snapshot, Snapshot, tuple[str, ...]]:
    """``command`` on both sides, and nothing more: ndb follows debugpy's stepping rules
    (``model_backend/stepping.py``), so a stop one debugger makes and the other does not is a
    divergence, never re-synchronised. (The empty tuple keeps the results' ``resyncs`` field.)"""
    a = await ours.act(command)
    b = await theirs.act(command)
    return a, b, ()


async def run_program(
    prepared: Prepared,
    backend: str,
    timeout: float,
    workdir: Path,
    breakpoint_steps: int | None = None,
) -> ProgramResult:
    """Drive both debuggers through the scenarios on one program; every pair compared
    (``breakpoint_steps``: ndb's ``breakpointSteps`` launch attribute; None leaves it unset)."""
    result = ProgramResult(prepared.name, prepared.entry, prepared.line)
    ours = NdbSide(prepared, timeout, workdir, backend, breakpoint_steps)
    theirs = DebugpySide(prepared, timeout, workdir)
    began = time.monotonic()
    lines = prepared.path.read_text(encoding="utf-8").split("\n")

    def record(scenario: str, a: Snapshot, b: Snapshot, resyncs: Sequence[str] = ()) -> Pair:
        pair = compare(a, b, scenario, lines)
        pair.resyncs = list(resyncs)
        result.pairs.append(pair)
        return pair

    try:
        a, b = await ours.start(), await theirs.start()
        first = record("breakpoint", a, b)
        if ours.verified != theirs.verified:
            first.kinds.append("breakpoint_verified")
            example = {"line": prepared.line, "ndb": ours.verified, "debugpy": theirs.verified}
            first.examples.setdefault("breakpoint_verified", example)
        synced = first.position
        await ours.set_breakpoints([])
        await theirs.set_breakpoints([])
        for command in STEPS:
            if not synced or (a.exited and b.exited):
                break
            before = a
            a, b, resyncs = await _synchronised(command, ours, theirs)
            pair = record(command, a, b, resyncs)
            synced = pair.position
            for kind in ("position", "ended_early"):
                if not synced and _on_yield(before, lines):
                    _rename(pair, kind, "generator")
                elif not synced and _entered_after_return(resyncs):
                    _rename(pair, kind, "next_after_return")
        if synced and not (a.exited and b.exited):
            await ours.set_breakpoints([prepared.line])
            await theirs.set_breakpoints([prepared.line])
            a, b, resyncs = await _synchronised("continue", ours, theirs)
            record("continue", a, b, resyncs)
            await ours.set_breakpoints([])
            await theirs.set_breakpoints([])
        result.desynced = not synced
        for _ in range(MAX_EXTRA_STEPS):  # to the end; ndb may stop at an exception on the way
            if a.exited or a.kind == "failed":
                break
            a = await ours.act("continue")
        if not b.exited:
            b = await theirs.act("continue")
        record("exit", a, b)
    except (DapError, OSError) as err:
        result.error = f"{type(err).__name__}: {err}"
    finally:
        with anyio.CancelScope(shield=True):
            await ours.close()
            await theirs.close()
    result.seconds = round(time.monotonic() - began, 2)
    return result


# ---- choosing programs -------------------------------------------------------------------------


def skip_reason(program: CorpusProgram) -> str | None:
    """Why a program is left out (None: it is kept): stdin, threads."""
    if "input(" in program.source or "sys.stdin" in program.source:
        return "reads stdin"
    if "threading" in program.source or "Thread(" in program.source:
        return "uses threads"
    return None


def choose_line(program: CorpusProgram, path: Path, seed: int) -> int | None:
    """A line inside a function that a real run executes (None: the run cannot be used).

    Only lines that start a statement are chosen: ndb refuses breakpoints on the other lines of
    a statement (see the README), and the refusal would hide every other comparison.
    """
    try:
        loaded = load_program(path, program.entry)
        run = trace(loaded)
    except (ProgramError, TracerFailure):
        return None
    if run.exit is ExitKind.NEVER:
        return None
    real = os.path.realpath(path)
    tree = ast.parse(program.source)
    starts = {node.lineno for node in ast.walk(tree) if isinstance(node, ast.stmt)}
    lines = sorted(
        {
            e.line
            for e in run.events
            if e.kind == "line"
            and e.function != "<module>"
            and e.line in starts
            and os.path.realpath(e.file) == real
        }
    )
    if not lines:
        return None
    return random.Random(f"{seed}:{program.name}").choice(lines)


def prepare(
    programs: Sequence[CorpusProgram], count: int, seed: int, root: Path
) -> tuple[list[Prepared], dict[str, str]]:
    """Write the programs to ``root`` and keep ``count`` usable ones, a seeded sample.

    Returns the kept programs and, by name, why others were left out.
    """
    skipped: dict[str, str] = {}
    usable: list[CorpusProgram] = []
    for program in programs:
        reason = skip_reason(program)
        if reason is None:
            usable.append(program)
        else:
            skipped[program.name] = reason
    if count < len(usable):
        chosen = random.Random(f"crosscheck:{seed}").sample(range(len(usable)), count)
        picks = [usable[i] for i in sorted(chosen)]
    else:
        picks = usable
    kept: list[Prepared] = []
    for program in picks:
        folder = root / program.name
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{program.name}.py"
        path.write_text(program.source, encoding="utf-8")
        line = choose_line(program, path, seed)
        if line is None:
            skipped[program.name] = "no line inside a function is executed (or the run failed)"
            continue
        script = path
        if program.entry is not None:
            script = folder / RUNNER_NAME
            script.write_text(runner_source(path, program.entry), encoding="utf-8")
        kept.append(Prepared(program.name, path, program.entry, line, script))
    return kept, skipped


async def run_all(
    prepared: Sequence[Prepared],
    backend: str,
    timeout: float,
    jobs: int,
    root: Path,
    breakpoint_steps: int | None = None,
) -> list[ProgramResult]:
    """Run the programs, ``jobs`` at a time; results in the order of ``prepared``."""
    results: list[ProgramResult | None] = [None] * len(prepared)
    limiter = anyio.CapacityLimiter(max(1, jobs))

    async def one(index: int, item: Prepared) -> None:
        async with limiter:
            workdir = root / item.name
            results[index] = await run_program(item, backend, timeout, workdir, breakpoint_steps)
            done = results[index]
            assert done is not None
            status = done.error or ("desynced" if done.desynced else "ok")
            print(f"  {item.name}: {len(done.pairs)} stops, {status}", file=sys.stderr)

    async with anyio.create_task_group() as tasks:
        for index, item in enumerate(prepared):
            tasks.start_soon(one, index, item)
    return [r for r in results if r is not None]


# ---- the report --------------------------------------------------------------------------------


def _rate(part: int, whole: int) -> float | None:
    return round(part / whole, 4) if whole else None


def overall_agreement(report: dict[str, Any]) -> dict[str, Any]:
    """One rate for a results file: the share of compared stops at which ndb and debugpy agree
    on everything compared (line, function, frames, outer lines, variables), read off its
    details (a stop with no disagreement kind agreed), so older files give it too."""
    pairs = [pair for item in report.get("details") or [] for pair in item["pairs"]]
    agreed = sum(not pair.get("kinds") for pair in pairs)
    return {"stops": len(pairs), "agreed": agreed, "rate": _rate(agreed, len(pairs))}


def summarise(results: Sequence[ProgramResult], backend: str) -> dict[str, Any]:
    """Agreement counts and rates per scenario, and every disagreement kind with an example."""
    per: dict[str, Counter[str]] = {s: Counter() for s in (*SCENARIOS, "all")}
    kinds: Counter[str] = Counter()
    resyncs: Counter[str] = Counter()
    normalised: Counter[str] = Counter()
    examples: dict[str, dict[str, Any]] = {}
    for result in results:
        for pair in result.pairs:
            for scenario in (pair.scenario, "all"):
                counts = per[scenario]
                counts["stops"] += 1
                counts["position"] += pair.position
                for aspect in ASPECTS:
                    value = getattr(pair, aspect)
                    if value is not None:
                        counts[f"{aspect}_compared"] += 1
                        counts[aspect] += value
            kinds.update(pair.kinds)
            resyncs.update(pair.resyncs)
            normalised.update(pair.normalised)
            for kind, example in pair.examples.items():
                examples.setdefault(kind, {"program": result.name, "scenario": pair.scenario,
                                           **example})  # fmt: skip
    scenarios = {}
    for scenario, counts in per.items():
        row: dict[str, Any] = {"stops": counts["stops"], "position": counts["position"]}
        row["position_rate"] = _rate(counts["position"], counts["stops"])
        for aspect in ASPECTS:
            row[aspect] = counts[aspect]
            row[f"{aspect}_compared"] = counts[f"{aspect}_compared"]
            row[f"{aspect}_rate"] = _rate(counts[aspect], counts[f"{aspect}_compared"])
        scenarios[scenario] = row
    return {
        "backend": backend,
        "reference": "debugpy " + _debugpy_version(),
        "programs": len(results),
        "programs_failed": {r.name: r.error for r in results if r.error},
        "programs_desynced": [r.name for r in results if r.desynced],
        "stops": per["all"]["stops"],
        "agreement": {
            "stops": per["all"]["stops"],
            "agreed": sum(not pair.kinds for result in results for pair in result.pairs),
            "rate": _rate(
                sum(not pair.kinds for result in results for pair in result.pairs),
                per["all"]["stops"],
            ),
        },
        "scenarios": scenarios,
        "resyncs": {
            kind: {"count": n, "explanation": NOTES.get(kind, "")}
            for kind, n in resyncs.most_common()
        },
        "normalised_values": dict(normalised),
        "disagreements": {
            kind: {"count": n, "explanation": NOTES.get(kind, ""), "example": examples.get(kind)}
            for kind, n in kinds.most_common()
        },
    }


def _debugpy_version() -> str:
    try:
        import debugpy
    except ImportError:
        return "(not installed)"
    return str(debugpy.__version__)


def table(summary: dict[str, Any]) -> str:
    """The per-scenario figures as a plain-text table."""

    def cell(part: int, whole: int) -> str:
        return f"{part}/{whole} ({part / whole:.0%})" if whole else "-"

    header = f"{'scenario':<11} {'stops':>5}  {'position (line)':>15}"
    header += "".join(f" {aspect.replace('_', ' '):>15}" for aspect in ASPECTS)
    lines = [header, "-" * len(header)]
    for scenario, row in summary["scenarios"].items():
        if not row["stops"]:
            continue
        text = f"{scenario:<11} {row['stops']:>5}  {cell(row['position'], row['stops']):>15}"
        for aspect in ASPECTS:
            text += f" {cell(row[aspect], row[f'{aspect}_compared']):>15}"
        lines.append(text)
    lines.append("")
    lines.append("re-synchronisations (expected differences in stepping granularity):")
    for kind, item in summary["resyncs"].items():
        lines.append(f"  {kind:<28} {item['count']:>5}")
    lines.append("disagreements:")
    for kind, item in summary["disagreements"].items():
        example = json.dumps(item["example"], ensure_ascii=False)
        if len(example) > 160:
            example = example[:157] + "..."
        lines.append(f"  {kind:<28} {item['count']:>5}  e.g. {example}")
    return "\n".join(lines)


def crosscheck(
    count: int = 30,
    backend: str = "oracle",
    seed: int = 0,
    timeout: float = 60.0,
    jobs: int = 4,
    names: Sequence[str] | None = None,
    breakpoint_steps: int | None = None,
) -> tuple[dict[str, Any], list[ProgramResult]]:
    """Run the cross-check on ``count`` corpus programs (or the ones ``names``); the summary.
    ``breakpoint_steps``: how ndb continues to the breakpoint (``breakpointSteps``; None: the
    backend's default, steps with the oracle and one jump with a model)."""
    programs = corpus(240, seed)
    if names is not None:
        wanted = set(names)
        programs = [p for p in programs if p.name in wanted]
        count = len(programs)
    with tempfile.TemporaryDirectory(prefix="ndb-crosscheck-") as tmp:
        root = Path(tmp)
        prepared, skipped = prepare(programs, count, seed, root)
        results = anyio.run(run_all, prepared, backend, timeout, jobs, root, breakpoint_steps)
    summary = summarise(results, backend)
    summary["breakpoint_steps"] = breakpoint_steps
    summary["seed"] = seed
    summary["skipped"] = skipped
    summary["program_names"] = [r.name for r in results]
    return summary, results


def details(results: Sequence[ProgramResult]) -> list[dict[str, Any]]:
    """Every pair of every program, for the JSON file (to look a disagreement up).

    A pair that agrees in every respect is kept short (where it stood); one that does not keeps
    both stops, with their variables where those disagree.
    """
    out = []
    for result in results:
        item: dict[str, Any] = {
            "name": result.name,
            "entry": result.entry,
            "line": result.line,
            "desynced": result.desynced,
            "error": result.error,
            "seconds": result.seconds,
        }
        pairs = []
        for p in result.pairs:
            short: dict[str, Any] = {"scenario": p.scenario, "resyncs": p.resyncs}
            if not p.kinds:
                short["at"] = EXITED if p.ours.exited else [list(f) for f in p.ours.frames[:1]]
            else:
                short["kinds"] = p.kinds
                short["agree"] = {"position": p.position, **{a: getattr(p, a) for a in ASPECTS}}
                short["ndb"] = p.ours.brief(variables=p.variables is False)
                short["debugpy"] = p.theirs.brief(variables=p.variables is False)
            pairs.append(short)
        item["pairs"] = pairs
        out.append(item)
    return out


def report_json(summary: dict[str, Any], detail: list[dict[str, Any]]) -> str:
    """The summary indented for reading, then the details one program per line (kept small)."""
    head = json.dumps({**summary, "details": None}, indent=1, ensure_ascii=False)
    rows = ",\n  ".join(json.dumps(item, ensure_ascii=False) for item in detail)
    return head.replace('"details": null', f'"details": [\n  {rows}\n ]') + "\n"


def argv_of(args: argparse.Namespace) -> list[str]:
    """The options that made a run, as a command line would give them (for its results file)."""
    parts = ["--programs", str(args.programs), "--backend", args.backend, "--jobs", str(args.jobs)]
    if args.seed:
        parts += ["--seed", str(args.seed)]
    if args.breakpoint_steps is not None:
        parts += ["--breakpoint-steps", str(args.breakpoint_steps)]
    if args.out is not None:
        parts += ["--out", str(args.out)]
    return parts


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m neural_debugger.evaluation.dap_crosscheck",
        description="Drive ndb dap and debugpy through the same DAP session on corpus programs "
        "and compare every stop (position, frames, variables).",
    )
    parser.add_argument("--programs", type=int, default=30, help="how many corpus programs")
    parser.add_argument("--backend", choices=["oracle", "local"], default="oracle")
    parser.add_argument("--seed", type=int, default=0, help="corpus seed (and breakpoint choice)")
    parser.add_argument(
        "--timeout", type=float, default=None, help="seconds per DAP message (60, local: 300)"
    )
    parser.add_argument(
        "--jobs", type=int, default=min(4, os.cpu_count() or 1), help="programs run at once"
    )
    parser.add_argument(
        "--out", type=Path, default=None, help=f"default {RESULTS} (oracle), *_local.json (local)"
    )
    parser.add_argument(
        "--breakpoint-steps",
        type=int,
        default=None,
        metavar="N",
        help="steps into ndb takes toward the breakpoint before one jump (breakpointSteps; "
        "default: the backend's, 64 with the oracle, 0 with a model)",
    )
    args = parser.parse_args(argv)
    if args.breakpoint_steps is not None and args.breakpoint_steps < 0:
        parser.error("--breakpoint-steps must be at least 0")
    timeout = args.timeout or (60.0 if args.backend == "oracle" else 300.0)
    began = time.monotonic()
    summary, results = crosscheck(
        args.programs, args.backend, args.seed, timeout, args.jobs, None, args.breakpoint_steps
    )
    summary["seconds"] = round(time.monotonic() - began, 1)
    summary["command"] = " ".join(
        ["python -m neural_debugger.evaluation.dap_crosscheck", *argv_of(args)]
    )
    print(table(summary))
    out = args.out or (
        RESULTS if args.backend == "oracle" else RESULTS.with_stem(RESULTS.stem + "_local")
    )
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(report_json(summary, details(results)), encoding="utf-8")
    print(f"\nwritten to {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
