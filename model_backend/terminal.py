"""``ndb debug``: a debug session in the terminal, every stop predicted by the model.

A scripted run (``--script step_into,step_over,...``) prints each stop: the action, the file and
line (resolved from the predicted source text), the source line, and the frame's locals.
``--compare`` also runs the program for real (the oracle) and marks every predicted value that
differs from reality; ``--backend oracle`` shows the real run alone. ``--json`` prints one JSON
object per stop.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from neural_debugger.protocol import Action, ActionKind
from neural_debugger.tracer.program import ProgramError, load_program
from neural_debugger.tracer.record import TracerFailure

from .session import DebugSession, ModelSession, OracleSession, PredictionError, Stop

DEFAULT_SCRIPT = "step_into,step_into,step_over,step_over,step_into,step_return,continue"


def add_parser(commands: argparse._SubParsersAction) -> None:
    p = commands.add_parser(
        "debug",
        help="debug a program with predicted stops (the program is never run)",
        description=__doc__.split("\n\n")[0],
    )
    p.add_argument("program", help="the Python file to debug")
    p.add_argument("--entry", metavar="CALL", help='debug one call, e.g. --entry "f([3, 1, 2])"')
    p.add_argument(
        "--backend",
        choices=["local", "oracle"],
        default="local",
        help="local: the embedded model (default); oracle: a real run",
    )
    p.add_argument("--model", type=Path, default=Path("models/ndb-small"), help="model folder")
    p.add_argument(
        "--script",
        default=DEFAULT_SCRIPT,
        help="comma-separated actions: step_into, step_over, step_return, continue, "
        "breakpoint:LINE (a line number of PROGRAM)",
    )
    p.add_argument(
        "--compare",
        action="store_true",
        help="also run the program for real and mark predictions that differ",
    )
    p.add_argument("--json", action="store_true", help="one JSON object per stop")
    p.set_defaults(run=run)


def parse_script(text: str, program_lines: tuple[str, ...]) -> list[Action]:
    actions = []
    for word in filter(None, (w.strip() for w in text.split(","))):
        if word.startswith("breakpoint:"):
            number = int(word.split(":", 1)[1])
            if not 1 <= number <= len(program_lines):
                raise ValueError(f"breakpoint line {number} is outside the program")
            actions.append(Action(kind=ActionKind.BREAKPOINT, target=program_lines[number - 1]))
        else:
            try:
                kind = ActionKind(word)
            except ValueError:
                raise ValueError(f"unknown action {word!r}") from None
            if kind.is_inverse or kind is ActionKind.BREAKPOINT:
                raise ValueError(f"{word} is not available in a forward session")
            actions.append(Action(kind=kind))
    return actions


def _show(index: int, action: Action | None, stop: Stop, truth: Stop | None, as_json: bool) -> str:
    state = stop.state
    differs: list[str] = []
    if truth is not None:
        if truth.state.kind != state.kind or truth.line != stop.line:
            differs.append("position")
        for name, value in (stop.locals or {}).items():
            if (truth.locals or {}).get(name) != value:
                differs.append(name)
        if state.value is not None and truth.state.value != state.value:
            differs.append("value")
    if as_json:
        return json.dumps(
            {
                "step": index,
                "action": action.kind.value if action else None,
                "event": state.kind.value,
                "file": stop.file,
                "line": stop.line,
                "src": state.src,
                "locals": stop.locals,
                "value": state.value,
                "depth": stop.depth,
                "differs_from_real_run": differs if truth is not None else None,
            }
        )
    name = "start" if action is None else action.kind.value
    if action is not None and action.target is not None:
        name += f" {action.target.strip()!r}"
    if state.kind.is_exit:
        return f"[{index}] {name} -> {state.kind.value}"
    where = f"{Path(stop.file).name}:{stop.line}" if stop.file else "?:?"
    lines = [
        f"[{index}] {name} -> {state.kind.value} at {where} (depth {stop.depth})",
        f"      {state.src}",
    ]
    if stop.locals is not None:
        shown = ", ".join(
            f"{k}={v}" + (" ✗" if k in differs else "") for k, v in stop.locals.items()
        )
        lines.append(f"      locals: {shown or '(none)'}")
    if state.value is not None:
        lines.append(
            f"      {state.kind.value} value: {state.value}" + (" ✗" if "value" in differs else "")
        )
    if truth is not None and differs:
        real = truth.state.value if truth.state.value is not None else truth.locals
        lines.append(f"      real run: {truth.state.kind.value} at line {truth.line}: {real}")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    try:
        program = load_program(args.program, args.entry)
        actions = parse_script(args.script, program.lines)
        session: DebugSession = (
            OracleSession(program)
            if args.backend == "oracle"
            else ModelSession(program, model_dir=args.model)
        )
        truth = OracleSession(program) if args.compare and args.backend != "oracle" else None
    except (ProgramError, TracerFailure, ValueError, FileNotFoundError) as err:
        print(f"ndb debug: error: {err}", file=sys.stderr)
        return 2
    print(_show(0, None, session.start(), truth.start() if truth else None, args.json))
    for index, action in enumerate(actions, start=1):
        if session.finished:
            break
        try:
            stop = session.step(action)
        except PredictionError as err:
            print(
                f"ndb debug: step {index}: {err}; the model wrote {err.text[:200]!r}",
                file=sys.stderr,
            )
            return 1
        real = truth.step(action) if truth is not None and not truth.finished else None
        print(_show(index, action, stop, real, args.json))
    return 0
