"""``ndb debug``: a debug session in the terminal, every stop predicted (the program never runs).

Interactive (pdb-like commands, ``help`` lists them) or scripted (``--script``). Each stop shows
file:line, the source line, the locals and how sure the model is (values under 50% are marked
``?``). ``--compare`` also runs the program for real (the oracle) and marks every predicted value
that differs from reality with ``✗``; ``--backend oracle`` shows the real run alone. ``--json``
prints one JSON object per stop. ``--inverse VALUE`` starts from the entry call returning VALUE
and walks backwards to the inputs that produce it.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import anyio

from neural_debugger.protocol import Action, ActionKind
from neural_debugger.tracer.program import ProgramError
from neural_debugger.tracer.record import TracerFailure

from .api import add_engine_arguments, decode_options, open_session
from .backend import BackendError
from .compare import differences, follow
from .confidence import percent, sure_in_brackets, unsure_mark
from .engines import BACKENDS, make_engine
from .session import (
    BREAKPOINT_STEPS,
    RETURN_STEPS,
    DebugSession,
    Stop,
    finish,
    parse_action,
    resume,
    reverse_resume,
)

DEFAULT_SCRIPT = "step_into,step_into,step_over,step_over,step_into,step_return,continue"

HELP = """commands (a forward session):
  s, step        step into              n, next       step over
  r, return      step out (to the return, value shown)
  c, continue    run to the next breakpoint (or the end)
  b N, break N   breakpoint on line N   cl N          clear it      b   list breakpoints
  back, sb       step back              rc            reverse continue (back to a breakpoint)
  p NAME         print a variable       set NAME VALUE  edit a variable (a counterfactual)
  l, list        source around the line w, where      the predicted call stack
  h, help        this text              q, quit
an inverse session (--inverse VALUE): s / n step backwards into / over calls, c jumps to the
inputs of the call (inv_step_call); back and rc go forward again through the history."""

_FORWARD = {
    "s": ActionKind.STEP_INTO,
    "step": ActionKind.STEP_INTO,
    "n": ActionKind.STEP_OVER,
    "next": ActionKind.STEP_OVER,
    "r": ActionKind.STEP_RETURN,
    "return": ActionKind.STEP_RETURN,
}
_INVERSE = {
    "s": ActionKind.INV_STEP_INTO,
    "step": ActionKind.INV_STEP_INTO,
    "n": ActionKind.INV_STEP_OVER,
    "next": ActionKind.INV_STEP_OVER,
    "r": ActionKind.INV_STEP_CALL,
    "return": ActionKind.INV_STEP_CALL,
    "c": ActionKind.INV_STEP_CALL,
    "continue": ActionKind.INV_STEP_CALL,
}


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = commands.add_parser(
        "debug",
        help="debug a program with predicted stops (the program is never run)",
        description=__doc__.split("\n\n")[0],
    )
    p.add_argument("program", help="the Python file to debug")
    p.add_argument("--entry", metavar="CALL", help='debug one call, e.g. --entry "f([3, 1, 2])"')
    add_engine_arguments(
        p,
        BACKENDS,
        "local: the embedded model (default); vllm: vLLM servers; oracle: a real run",
    )
    p.add_argument(
        "--vllm-url", action="append", default=[], metavar="URL", help="a vLLM server (repeat)"
    )
    p.add_argument("--break", dest="breaks", action="append", type=int, default=[], metavar="LINE")
    p.add_argument(
        "--script",
        help="comma-separated actions instead of a prompt: step_into, step_over, step_return, "
        "continue (to the next --break), step_back, breakpoint:LINE, set:NAME=VALUE, and "
        f"inv_step_into, inv_step_over, inv_step_call with --inverse (e.g. {DEFAULT_SCRIPT})",
    )
    p.add_argument("--inverse", metavar="VALUE", help="start from --entry returning VALUE")
    p.add_argument("--compare", action="store_true", help="also run for real; mark differences")
    p.add_argument("--json", action="store_true", help="one JSON object per stop")
    p.add_argument("--temperature", type=float, default=0.0, help="0: greedy (default)")
    p.add_argument("--samples", type=int, default=1, help="k samples, majority vote")
    p.add_argument(
        "--check",
        type=int,
        default=1,
        help="steps back: keep the best of K candidates, checked by running the model forwards",
    )
    p.add_argument("--seed", type=int)
    p.add_argument("--max-tokens", type=int, default=512, help="token budget per state")
    p.add_argument(
        "--breakpoint-steps",
        type=int,
        default=None,
        metavar="N",
        help="continue to one --break: up to N steps into, then one jump "
        f"(0: jump at once; default {BREAKPOINT_STEPS} with --backend oracle, else 0)",
    )
    p.add_argument(
        "--return-steps",
        type=int,
        default=None,
        metavar="N",
        help="step_return: up to N steps into toward the frame's return, then one jump "
        f"(0: jump at once; default 0 with --backend oracle, else {RETURN_STEPS})",
    )
    p.set_defaults(run=run)


# ---- showing a stop ------------------------------------------------------------------


def as_json(index: int, stop: Stop, truth: Stop | None, steps: int = 1) -> str:
    state, confidence = stop.state, stop.confidence
    return json.dumps(
        {
            "step": index,
            "action": stop.action.kind.value if stop.action else None,
            "steps": steps,
            "event": state.kind.value,
            "file": stop.file,
            "line": stop.line,
            "src": state.src,
            "locals": stop.locals,
            "value": state.value,
            "depth": stop.depth,
            "frames": [f.name for f in stop.frames],
            "confidence": {
                "event": round(confidence.event, 4),
                "src": None if confidence.src is None else round(confidence.src, 4),
                "values": {k: round(v, 4) for k, v in confidence.values.items()},
                "value": None if confidence.value is None else round(confidence.value, 4),
            },
            "votes": stop.prediction.votes if stop.prediction else None,
            "differs_from_real_run": differences(stop, truth) if truth is not None else None,
        },
        ensure_ascii=False,
    )


def as_text(index: int, stop: Stop, truth: Stop | None, request: str | None = None) -> str:
    """One stop as the terminal prints it; ``request`` names what was asked when the stop took
    more than one action (a continue or step out walked by steps into)."""
    state, confidence = stop.state, stop.confidence
    wrong = differences(stop, truth)
    name = "start" if stop.action is None else stop.action.kind.value
    if stop.action is not None and stop.action.target is not None:
        name += f" {stop.action.target.strip()!r}"
    if request is not None:
        name = f"{request} ({name})"
    event_sure = percent(confidence.event)
    if state.kind.is_exit:
        return f"[{index}] {name} -> {state.kind.value} (event {event_sure})"
    where = f"{Path(stop.file).name}:{stop.line}" if stop.file else "?:?"
    mark = " ✗" if "position" in wrong else ""
    src_sure = "" if confidence.src is None else f", line {percent(confidence.src)}"
    lines = [
        f"[{index}] {name} -> {state.kind.value} at {where}{mark} (depth {stop.depth}; "
        f"event {event_sure}{src_sure})",
        f"      {state.src}",
    ]

    def shown(key: str, value: str, p: float | None) -> str:
        flag = " ✗" if key in wrong else ""
        return f"{key}={value}{unsure_mark(p)}{flag}"

    if stop.locals is not None:
        items = [shown(k, v, confidence.values.get(k)) for k, v in stop.locals.items()]
        lines.append(f"      locals: {', '.join(items) or '(none)'}")
    if state.value is not None:
        lines.append(
            f"      {state.kind.value} value: {shown('', state.value, confidence.value)[1:]}"
        )
    if stop.prediction is not None and stop.prediction.votes is not None:
        won, drawn = stop.prediction.votes
        lines.append(f"      votes: {won}/{drawn}")
    if truth is not None and wrong:
        real = truth.state.value if truth.state.value is not None else truth.locals
        lines.append(f"      real run: {truth.state.kind.value} at line {truth.line}: {real}")
    return "\n".join(lines)


# ---- driving a session ---------------------------------------------------------------


class Frontend:
    """One terminal session: the predicted session, its real twin for --compare, breakpoints."""

    def __init__(self, session: DebugSession, truth: DebugSession | None, args: argparse.Namespace):
        self.session = session
        self.truth = truth
        self.args = args
        self.breakpoints: set[int] = set(args.breaks)
        self.errors = 0

    def show(self, request: str | None = None, steps: int = 1) -> None:
        stop = self.session.current
        truth = self.truth.current if self.truth is not None else None
        index = len(self.session.stops) - 1
        if self.args.json:
            print(as_json(index, stop, truth, steps))
        else:
            walked = f"{request}, {steps} actions" if request is not None and steps > 1 else None
            print(as_text(index, stop, truth, walked))

    def fail(self, message: str) -> None:
        self.errors += 1
        print(f"ndb debug: {message}", file=sys.stderr)

    async def act(self, action: Action | None, back: str | None = None) -> None:
        """Take a forward/inverse action (or ``back``: "step" / "reverse"), then show the stop."""
        before = len(self.session.stops)
        try:
            if back == "step":
                self.session.step_back()
            elif back == "reverse":
                reverse_resume(self.session, self.breakpoints)
            elif action is None:
                await resume(self.session, self.breakpoints)
            elif action.kind is ActionKind.STEP_RETURN:
                await finish(self.session)
            else:
                await self.session.step(action)
        except BackendError as err:
            self.fail(str(err))
            return
        if self.truth is not None:
            await follow(self.truth, self.session)
        request = "continue" if action is None else action.kind.value
        self.show(None if back else request, max(len(self.session.stops) - before, 0))

    def edit(self, name: str, value: str) -> None:
        try:
            self.session.set_value(name, value)
        except BackendError as err:
            self.fail(str(err))
            return
        self.show()

    async def command(self, line: str) -> bool:
        """One interactive command; False ends the session."""
        words = line.split()
        if not words:
            return True
        head, rest = words[0], words[1:]
        table = _INVERSE if self.session.inverse else _FORWARD
        if head in ("q", "quit", "exit"):
            return False
        if head in ("h", "help", "?"):
            print(HELP)
        elif head in table:
            await self.act(Action(kind=table[head]))
        elif head in ("c", "continue", "cont"):
            await self.act(None)
        elif head in ("back", "sb"):
            await self.act(None, back="step")
        elif head == "rc":
            await self.act(None, back="reverse")
        elif head in ("b", "break"):
            self._break(rest, add=True)
        elif head in ("cl", "clear"):
            self._break(rest, add=False)
        elif head in ("p", "print"):
            self._print(rest)
        elif head == "set" and len(rest) >= 2:
            self.edit(rest[0], " ".join(rest[1:]))
        elif head in ("l", "list"):
            self._list()
        elif head in ("w", "where", "bt"):
            for depth, frame in enumerate(self.session.current.frames):
                print(f"  #{depth} {frame.name} at {frame.file}:{frame.line}")
        else:
            print(f"unknown command {line.strip()!r}; type help")
        return True

    def _break(self, rest: list[str], add: bool) -> None:
        if not rest:
            print("breakpoints:", ", ".join(map(str, sorted(self.breakpoints))) or "(none)")
            return
        lines = self.session.program.lines
        for word in rest:
            if not word.isdigit() or not 1 <= int(word) <= len(lines):
                print(f"no line {word} in the program ({len(lines)} lines)")
            elif add and not lines[int(word) - 1].strip():
                print(f"line {word} is blank; choose a statement")
            elif add:
                self.breakpoints.add(int(word))
            else:
                self.breakpoints.discard(int(word))

    def _print(self, rest: list[str]) -> None:
        stop = self.session.current
        for name in rest:
            if stop.locals is not None and name in stop.locals:
                p = stop.confidence.values.get(name)
                print(f"{name} = {stop.locals[name]}" + (f"  {sure_in_brackets(p)}" if p else ""))
            else:
                print(f"{name} is not a variable of this stop")

    def _list(self) -> None:
        stop = self.session.current
        if stop.line is None or stop.file != self.session.program.path:
            print("(no source line for this stop)")
            return
        lines = self.session.program.lines
        for number in range(max(1, stop.line - 4), min(len(lines), stop.line + 4) + 1):
            marker = "->" if number == stop.line else "B " if number in self.breakpoints else "  "
            print(f"{number:4} {marker} {lines[number - 1]}")

    async def script(self, text: str) -> None:
        for word in filter(None, (w.strip() for w in text.split(","))):
            if self.session.finished and word not in ("step_back",):
                break
            if word == "step_back":
                await self.act(None, back="step")
            elif word == "continue" and not self.session.inverse:
                await self.act(None)
            elif word.startswith("set:") and "=" in word:
                name, value = word[4:].split("=", 1)
                self.edit(name, value)
            else:
                await self.act(parse_action(word, self.session.program.lines))

    async def interact(self) -> None:
        print("neural debug session: every stop is a prediction. Type help for commands.")
        while True:
            try:
                line = await anyio.to_thread.run_sync(input, "(ndb) ")
            except EOFError:
                print()
                return
            if not await self.command(line):
                return


def _check_script(text: str, lines: tuple[str, ...]) -> None:
    for word in filter(None, (w.strip() for w in text.split(","))):
        if word in ("step_back", "continue") or word.startswith("set:"):
            if word.startswith("set:") and "=" not in word:
                raise ValueError(f"write set:NAME=VALUE, got {word!r}")
            continue
        parse_action(word, lines)


async def main(args: argparse.Namespace) -> int:
    try:
        if args.check > 1 and args.backend != "local":
            raise ValueError("--check (steps back checked forwards) needs --backend local")
        for flag, steps in (("breakpoint", args.breakpoint_steps), ("return", args.return_steps)):
            if steps is not None and steps < 0:
                raise ValueError(f"--{flag}-steps must be 0 (one jump) or more")
        opened = await open_session(
            args.program,
            entry=args.entry,
            breakpoints=args.breaks,
            backend=args.backend,
            model=args.model,
            vllm_urls=args.vllm_url,
            inverse=args.inverse,
            options=decode_options(args),
            breakpoint_steps=args.breakpoint_steps,
            return_steps=args.return_steps,
        )
        session = opened.session
        if args.script:
            _check_script(args.script, session.program.lines)
        truth = None
        if args.compare and args.backend != "oracle":
            truth = await DebugSession.open(
                session.program, make_engine("oracle"), inverse=session.inverse
            )
    except (ProgramError, TracerFailure, ValueError, FileNotFoundError, BackendError) as err:
        print(f"ndb debug: error: {err}", file=sys.stderr)
        return 2
    frontend = Frontend(session, truth, args)
    frontend.show()
    if args.script:
        await frontend.script(args.script)
    else:
        await frontend.interact()
    return 1 if frontend.errors else 0


def run(args: argparse.Namespace) -> int:
    return anyio.run(main, args)
