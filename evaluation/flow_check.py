"""Whether real trajectories keep to what the decoder's grammar fixes from the code.

Constrained decoding only helps if its rules never rule out the truth: :func:`expect` (the
lines a frame can reach next, the variables it can show, the variables a step cannot change)
must allow every state the tracer recorded. This replays trajectory shards (held-out sets,
training data) state by state, asks :func:`expect` what the history and the action fix, and
counts per action the states it constrains, those whose diff it narrows with
:meth:`LineFlow.unchanged`, those for which it rules a kind of event out (no line of the frame
can follow, or come before, the one it stands on), those in a module frame whose constants it
fixes (:mod:`neural_debugger.model_backend.module_constants`), those whose whole locals must
show variables every path to their line binds, those whose variable or return value is the
value a call just returned or a line copied or appended, those a line that only returns a
variable or a literal returns (:mod:`neural_debugger.model_backend.handed_back`),
those whose parameters the literals a plain function is called with fix
(:mod:`neural_debugger.model_backend.passed_arguments`), those showing a function the frame's
own ``def`` or ``lambda`` bound (:meth:`LineFlow.defined_at`), those after a line that surely
calls the program's code (only a call or an exception can come), those from a line the frame
cannot return from before another line fires (:meth:`LineFlow.returning`), breakpoint jumps to
a line's first hit in the run whose variables the paths that have not run the line yet narrow
(:func:`neural_debugger.model_backend.flow.first_hit`), returns whose value's kinds the code
fixes (:mod:`neural_debugger.model_backend.value_shapes`) and line states showing a variable
whose kinds it fixes, steps from an ``if``, ``while`` or ``for`` head whose way the values the
state shows fix (:mod:`neural_debugger.model_backend.branches`), steps from a line whose
effects they fix (what it binds or returns, :mod:`neural_debugger.model_backend.computed`),
and any real state it would forbid (with the first examples).

``python -m neural_debugger.evaluation.flow_check DIR [DIR ...] [--per-folder N] [--out F]``
prints a table and writes ``evaluation/results/flow_check.json``.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from collections.abc import Sequence
from itertools import islice
from pathlib import Path

from neural_debugger.model_backend.flow import (
    CALL_KINDS,
    Expected,
    LineFlow,
    branch_lines,
    computed_effects,
    entry_text,
    expect,
    first_hit,
    in_the_lines_frame,
    kept_parameters,
)
from neural_debugger.protocol import ActionKind, StateKind, parse_trajectory, standalone
from neural_debugger.protocol.source_map import SourceMap
from neural_debugger.training.shards import read_shards

RESULTS = Path(__file__).resolve().parent / "results" / "flow_check.json"
EXAMPLES = 10  # forbidden real states kept in the results, per run
COLUMNS = (
    "states",
    "constrained",
    "narrowed",
    "ruled_out",
    "module",
    "required",
    "handed_back",
    "copied",
    "returns",
    "run_over",
    "own_return",
    "calls_first",
    "line_first",
    "enters",
    "callers_go_on",
    "caller_returns",
    "passed",
    "defined",
    "first_hit",
    "return_kinds",
    "variable_kinds",
    "branches",
    "computed",
    "forbidden",
)


def check_folder(folder: Path, limit: int | None, counts: dict[str, Counter], bad: list) -> int:
    """Replay up to ``limit`` trajectories of ``folder`` into ``counts`` (per action: the
    :data:`COLUMNS`); return how many were read."""
    read = 0
    for record in islice(read_shards(folder), limit):
        read += 1
        trajectory = parse_trajectory(record["text"])
        source, flow = SourceMap(trajectory.code), LineFlow(trajectory.code)
        states, actions = trajectory.states, trajectory.actions
        for k in range(1, len(states)):
            action = actions[k - 1]
            expected = expect(flow, source, states[:k], actions[: k - 1], action)
            tally = counts.setdefault(action.kind.value, Counter())
            tally["states"] += 1
            tally["constrained"] += expected != Expected()
            tally["narrowed"] += bool(expected.unchanged)
            # a kind of event ruled out (the run's end aside: a step ends it only from a return)
            lines = expected.lines.items()
            tally["ruled_out"] += any(not texts for kind, texts in lines if not kind.is_exit)
            constants = flow.module_constants.values
            tally["module"] += any(name in constants for name in expected.fixed)
            # parameters whose values the calls of a plain function fix: at its call, and in
            # its frame where it keeps them
            kept = kept_parameters(flow, source, expected, entry_text(states[:k]))
            passed = states[k].kind in CALL_KINDS and expected.call_fixed.get(states[k].src or "")
            tally["passed"] += bool(kept) or bool(passed)
            # a value a call returned, fixed in the caller (``y = f(x)``, ``return f(x)``), or
            # one a line copies (``x = y``, ``total = 0``) or appends (``out.append(x)``)
            texts = expected.lines.get(StateKind.LINE) or ()
            defined = flow.defined_at(n for text in texts for n in source.by_text.get(text, []))
            others = {**constants, **kept, **defined}
            handed = any(name not in others for name in expected.fixed)
            returned = states[k - 1].kind is StateKind.RETURN
            tally["handed_back"] += (handed or expected.returned is not None) and returned
            # a line that only returns a variable or a literal: its return, with that value
            tally["returns"] += expected.returned is not None and not returned
            tally["copied"] += handed and not returned
            # after the module frame's return, only the run's end
            ruled = {kind for kind, texts in lines if not texts}
            over = {StateKind.CALL, StateKind.LINE, StateKind.RETURN, StateKind.EXCEPTION} <= ruled
            tally["run_over"] += over
            # a step out of a line or a call: its frame's return, on a line of its code
            out = action.kind is ActionKind.STEP_RETURN
            tally["own_return"] += out and bool(expected.lines.get(StateKind.RETURN))
            # a line that surely calls code of the program: a call (or an exception) comes next
            tally["calls_first"] += not over and {StateKind.LINE, StateKind.RETURN} <= ruled
            # a line from which the frame cannot return before another line fires
            lined = bool(expected.lines.get(StateKind.LINE))
            tally["line_first"] += not over and lined and StateKind.RETURN in ruled
            # ... and nothing can raise before that call: only the call comes next
            into = action.kind is ActionKind.STEP_INTO
            entering = StateKind.EXCEPTION in ruled and StateKind.CALL not in ruled
            tally["enters"] += into and not over and entering
            # a function's return (not the top frame's): its caller goes on, the run cannot end
            tally["callers_go_on"] += returned and StateKind.EXIT_NORMAL in ruled
            # after a return, a step shows the caller's return or exception only on the
            # call's line
            stepped = action.kind in (ActionKind.STEP_INTO, ActionKind.STEP_OVER)
            tally["caller_returns"] += returned and stepped and StateKind.RETURN in expected.lines
            # a function a frame's own ``def`` or ``lambda`` bound, where the state shows it
            shown = (states[k].locals or {}) if states[k].kind is StateKind.LINE else {}
            tally["defined"] += any(name in shown for name in defined)
            # a breakpoint's first hit in the run: only what paths that have not run its line
            # before bind (not yet a loop's variable, nor what the loop's body binds)
            target = action.target if action.kind is ActionKind.BREAKPOINT else None
            if target is not None:
                targets = source.by_text.get(target, [])
                hit = first_hit(flow, states[:k], actions[: k - 1], target, targets)
                narrower = hit and flow.names_first_at(targets) != flow.names_at(targets)
                tally["first_hit"] += narrower
            # a return whose value's kinds the code fixes (value_shapes)
            src = states[k].src or ""
            tally["return_kinds"] += states[k].kind is StateKind.RETURN and (
                src in expected.return_shapes
            )
            # a line state showing a variable whose value's kinds the code fixes
            shown_line = states[k].locals if states[k].kind is StateKind.LINE else None
            tally["variable_kinds"] += any(name in expected.shapes for name in shown_line or ())
            # a step from an ``if``, ``while`` or ``for`` head whose way the values shown fix
            last = states[k - 1]
            mine = stepped and in_the_lines_frame(flow, source, states[:k], actions[: k - 1])
            if mine and last.kind is StateKind.LINE:
                here = source.by_text.get(last.src or "", [])
                before = standalone(states[:k], k - 1).locals or {}
                way = branch_lines(flow, source, states[:k], actions[: k - 1], here, before)
                tally["branches"] += way is not None
                # a line whose effects the values shown fix (what it binds or returns)
                tally["computed"] += computed_effects(flow, here, before) is not None
            # whole locals that must show some variables (bound on every path to the line)
            whole = states[k].kind in CALL_KINDS or expected.diff is False
            must = expected.required | expected.call_required.get(states[k].src or "", set())
            tally["required"] += whole and bool(must)
            if not expected.allows(states[k]):
                tally["forbidden"] += 1
                if len(bad) < EXAMPLES:
                    bad.append(
                        {
                            "folder": str(folder),
                            "origin": record.get("origin"),
                            "action": action.kind.value,
                            "from": states[k - 1].src,
                            "state": states[k].model_dump(mode="json", exclude_none=True),
                        }
                    )
    return read


def _row(tally: Counter) -> dict[str, int]:
    return {key: tally[key] for key in COLUMNS}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m neural_debugger.evaluation.flow_check",
        description="Replay trajectory shards and count real states the grammar would forbid.",
    )
    parser.add_argument("folders", nargs="+", type=Path, help="folders of trajectory shards")
    parser.add_argument("--per-folder", type=int, default=None, help="trajectories per folder")
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    counts: dict[str, Counter] = {}
    bad: list[dict] = []
    read = {
        str(folder): check_folder(folder, args.per_folder, counts, bad) for folder in args.folders
    }
    total = sum(counts.values(), Counter())
    print(f"{'action':16}" + "".join(f" {column:>11}" for column in COLUMNS))
    for action, tally in [*sorted(counts.items()), ("all", total)]:
        print(f"{action:16}" + "".join(f" {tally[column]:11}" for column in COLUMNS))
    command = "python -m neural_debugger.evaluation.flow_check " + " ".join(
        str(folder) for folder in args.folders
    )
    command += f" --per-folder {args.per_folder}" if args.per_folder else ""
    results = {
        "trajectories": read,
        "actions": {action: _row(tally) for action, tally in sorted(counts.items())},
        "all": _row(total),
        "forbidden_examples": bad,
        "command": command + (f" --out {args.out}" if args.out != RESULTS else ""),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"\nwritten to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
