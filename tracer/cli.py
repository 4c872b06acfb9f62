"""``ndb trace``: run a program under the real tracer and print one trajectory in the language."""

from __future__ import annotations

import argparse
import random
import sys

from .events import ExitKind, TraceLimits
from .program import ProgramError
from .record import TracerFailure
from .run import trace_file
from .sampler import POLICIES, sample
from .tree import StateTree

DESCRIPTION = """\
Run PROGRAM for real under sys.settrace (in a subprocess: no stdin, PYTHONHASHSEED=0, bounded
time and memory), arrange its events in a state tree, walk the tree with an action policy and
print the trajectory exactly as the model reads it. Notes about how the run ended go to stderr.
"""


def add_parser(commands: argparse._SubParsersAction) -> None:
    p = commands.add_parser(
        "trace",
        help="print a real trajectory of a program in the debugger language",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("program", help="the Python file to run")
    p.add_argument(
        "--entry",
        metavar="CALL",
        help='trace one call instead of the whole script, e.g. --entry "f([1, 2])"; the module is '
        "loaded first (its __main__ block does not run) and the call is wrapped as "
        "def main(): return CALL",
    )
    p.add_argument(
        "--inverse",
        action="store_true",
        help="walk backwards: start at the entry function's return (or the script's end) and step "
        "back to its call with inverse actions",
    )
    p.add_argument(
        "--policy",
        choices=["paper", "step_into"],
        default="paper",
        help="paper: the paper's random mix of actions (default); step_into: step into every "
        "event, which replays the full trace",
    )
    p.add_argument("--seed", type=int, default=0, help="random seed of the policy (default 0)")
    p.add_argument(
        "--max-states",
        type=int,
        default=None,
        metavar="N",
        help="close the trajectory with continue (or inv_step_call) after N states",
    )
    p.add_argument(
        "--max-events",
        type=int,
        default=TraceLimits.max_events,
        metavar="N",
        help="stop the run after N events with the 'never' exit "
        f"(default {TraceLimits.max_events})",
    )
    p.add_argument(
        "--timeout",
        type=float,
        default=TraceLimits.max_seconds,
        metavar="SECONDS",
        help=f"stop the run after this long with the 'never' exit (default "
        f"{TraceLimits.max_seconds:g})",
    )
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    limits = TraceLimits(
        max_events=args.max_events,
        max_seconds=args.timeout,
        hard_timeout_s=args.timeout + 5.0,
    )
    try:
        program, trace = trace_file(args.program, args.entry, limits)
        if args.inverse:
            tree = StateTree.inverse_of(program, trace)
        else:
            tree = StateTree.forward(program, trace)
    except (ProgramError, TracerFailure, ValueError) as err:
        print(f"ndb trace: error: {err}", file=sys.stderr)
        return 2
    if not trace.events:
        print("ndb trace: error: the program ran no traced code", file=sys.stderr)
        return 2
    policy = POLICIES[(args.policy, args.inverse)]
    sampled = sample(tree, policy, random.Random(args.seed), max_states=args.max_states)
    from neural_debugger.protocol.encoding import encode

    sys.stdout.write(encode(sampled.trajectory) + "\n")
    if trace.exit is ExitKind.ERROR:
        print(f"ndb trace: note: the program raised {trace.exit_reason}", file=sys.stderr)
    elif trace.exit is ExitKind.NEVER:
        print(f"ndb trace: note: the run never finished: {trace.exit_reason}", file=sys.stderr)
    return 0
