"""Check the state-tree semantics against a real debugger: the standard library's ``bdb``.

For each program, trajectories are sampled on its forward tree; the same program is then run
under a ``bdb.Bdb`` driver that issues the same actions (``step_into`` = step, ``step_over`` =
next, ``step_return`` = return, ``breakpoint SRC`` = a breakpoint on every line with that text
and continue, ``continue`` = continue). At every stop the debugger's frame (event, file, line,
function, own-code stack depth, locals, value) must equal the node the tree's action leads to;
where the tree leads to the exit, the debugger must not stop again. Only the program's own code
is stepped through, as the tracer does.

Known divergences are classified, counted and explained in :data:`DIVERGENCE_NOTES`; anything
else is reported as ``unexplained``. ``python -m neural_debugger.evaluation.bdb_agreement``
prints the summary for the corpus and writes it as JSON.
"""

from __future__ import annotations

import argparse
import bdb
import contextlib
import io
import json
import linecache
import random
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any

from neural_debugger.protocol.tokens import ActionKind, StateKind
from neural_debugger.tracer.events import TraceLimits
from neural_debugger.tracer.program import ENTRY_FILE, Program, load_program
from neural_debugger.tracer.record import frame_line, record
from neural_debugger.tracer.sampler import PAPER, STEP_INTO, Policy, SampledTrajectory, sample
from neural_debugger.tracer.tree import StateTree
from neural_debugger.tracer.values import render_exception, render_locals, render_value

from .corpus import CorpusProgram, corpus
from .runs import RESULTS

_GENERATOR_FLAGS = (
    0x20 | 0x80 | 0x100 | 0x200
)  # generator, coroutine, iterable coroutine, async gen

STEP_OVER_ONLY = Policy("step_over", {ActionKind.STEP_OVER: 1.0}, {ActionKind.STEP_OVER: 1.0})
RETURNS = Policy(
    "step_return",
    {ActionKind.STEP_RETURN: 0.5, ActionKind.STEP_INTO: 0.5},
    {ActionKind.STEP_INTO: 1.0},
    mix=1.0,
)
BREAKPOINTS = Policy(
    "breakpoint",
    {ActionKind.BREAKPOINT: 0.4, ActionKind.STEP_INTO: 0.4, ActionKind.CONTINUE: 0.2},
    {ActionKind.STEP_INTO: 1.0},
    mix=1.0,
)
POLICY_SET: tuple[tuple[Policy, int], ...] = (
    (STEP_INTO, 1),
    (STEP_OVER_ONLY, 1),
    (RETURNS, 2),
    (BREAKPOINTS, 2),
    (PAPER, 2),
)

DIVERGENCE_NOTES: dict[str, str] = {
    "generator": "bdb treats a generator's yield as a pause, not a return: with next or return "
    "it ignores the generator's return (yield) and call (resume) events and stops at the "
    "generator's next line after it resumes, or in the caller; it also does not stop in a "
    "generator resumed only to be closed when it is garbage-collected. The tree, like "
    "sys.settrace, treats each resumption as its own call and each yield as a return.",
    "breakpoint_event": "the language's breakpoint, as the paper defines it, stops at the first "
    "later state of any kind on the line: a call state for a breakpoint on a `def` line, or the "
    "return or exception state of the line the program stands on; bdb stops on line events "
    "only. The debug adapter re-issues the action when a predicted stop is not a line.",
}


@dataclass(frozen=True)
class Stop:
    kind: str
    file: str
    line: int
    function: str
    depth: int
    locals: dict[str, str]
    value: str | None


@dataclass
class Report:
    """Agreement counts per action, and the divergences found."""

    programs: int = 0
    trajectories: int = 0
    checked: Counter = field(default_factory=Counter)  # action -> targets compared
    agreed: Counter = field(default_factory=Counter)
    divergences: Counter = field(default_factory=Counter)  # category -> count
    examples: list[dict[str, Any]] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        total = sum(self.checked.values())
        return {
            "programs": self.programs,
            "trajectories": self.trajectories,
            "actions_checked": total,
            "actions_agreed": sum(self.agreed.values()),
            "agreement": sum(self.agreed.values()) / total if total else None,
            "per_action": {
                k: {"checked": self.checked[k], "agreed": self.agreed[k]} for k in self.checked
            },
            "divergences": dict(self.divergences),
            "divergence_notes": {k: DIVERGENCE_NOTES.get(k, "") for k in self.divergences},
            "examples": self.examples[:20],
        }


class _Diverged(Exception):
    pass


class _Driver(bdb.Bdb):
    """Replays one sampled trajectory's actions in bdb and records where it stops."""

    def __init__(self, program: Program, sampled: SampledTrajectory) -> None:
        super().__init__()
        self.program = program
        self.sampled = sampled
        self.own = {program.path, ENTRY_FILE}
        self.stops: list[Stop] = []
        self.frames: list[FrameType | None] = []

    # justMyCode: never stop in, or trace, code outside the program
    def stop_here(self, frame: FrameType) -> bool:
        return frame.f_code.co_filename in self.own and super().stop_here(frame)

    def break_here(self, frame: FrameType) -> bool:
        return frame.f_code.co_filename in self.own and super().break_here(frame)

    def user_call(self, frame: FrameType, argument_list: Any) -> None:
        # bdb calls this for every frame it traces; a debugger stops only where stop_here says
        if self.stop_here(frame):
            self._stopped(frame, "call", None)

    def user_line(self, frame: FrameType) -> None:
        self._stopped(frame, "line", None)

    def user_return(self, frame: FrameType, return_value: Any) -> None:
        self._stopped(frame, "return", render_value(return_value))

    def user_exception(self, frame: FrameType, exc_info: Any) -> None:
        exc = exc_info[1] if exc_info[1] is not None else exc_info[0]()
        self._stopped(frame, "exception", render_exception(exc))

    def _depth(self, frame: FrameType) -> int:
        depth = 0
        caller = frame.f_back
        while caller is not None:
            if caller.f_code.co_filename in self.own:
                depth += 1
            caller = caller.f_back
        return depth

    def _stopped(self, frame: FrameType, kind: str, value: str | None) -> None:
        code = frame.f_code
        self.stops.append(
            Stop(
                kind=kind,
                file=code.co_filename,
                line=frame_line(frame),
                function=code.co_qualname,
                depth=self._depth(frame),
                locals=render_locals(frame.f_locals, module_level=code.co_name == "<module>"),
                value=value,
            )
        )
        self.frames.append(frame)
        k = len(self.stops) - 1
        actions = self.sampled.trajectory.actions
        self.clear_all_breaks()
        if k >= len(actions):  # the tree expected the exit already
            raise _Diverged()
        action = actions[k]
        if action.kind is ActionKind.STEP_INTO:
            self.set_step()
        elif action.kind is ActionKind.STEP_OVER:
            self.set_next(frame)
        elif action.kind is ActionKind.STEP_RETURN:
            self.set_return(frame)
        elif action.kind is ActionKind.BREAKPOINT:
            for file, lines in (
                (self.program.path, self.program.lines),
                (ENTRY_FILE, self.program.wrapper_lines),
            ):
                for number, text in enumerate(lines, start=1):
                    if text == action.target:
                        self.set_break(file, number)
            self.set_continue()
        else:
            self.set_continue()


def _matches(stop: Stop, tree: StateTree, index: int) -> bool:
    node = tree.nodes[index]
    event = node.event
    if event is None:
        return False
    return (
        stop.kind == event.kind
        and stop.file == event.file
        and stop.line == event.line
        and stop.function == event.function
        and stop.depth == event.depth
        and stop.locals == event.locals
        and (stop.value == event.value if event.kind in ("return", "exception") else True)
    )


def _classify(driver: _Driver, sampled: SampledTrajectory, k: int) -> str:
    """Why the k-th action's target differs from where bdb stopped."""
    tree = sampled.tree
    action = sampled.trajectory.actions[k]
    start = tree.nodes[sampled.nodes[k]]
    target = tree.nodes[sampled.nodes[k + 1]]
    frames = [f for f in driver.frames[k : k + 2] if f is not None]
    if any(f.f_code.co_flags & _GENERATOR_FLAGS for f in frames) or any(
        n.event is not None and _is_generator_function(n.event.function, tree, n.index)
        for n in (start, target)
    ):
        return "generator"
    if action.kind is ActionKind.BREAKPOINT and target.kind is not StateKind.LINE:
        return "breakpoint_event"
    return "unexplained"


def _is_generator_function(function: str, tree: StateTree, index: int) -> bool:
    """Whether the frame of node ``index`` belongs to a generator (its events mention yield)."""
    node = tree.nodes[index]
    activation = node.event.activation if node.event else None
    for other in tree.nodes:
        ev = other.event
        if ev is not None and ev.function == function and "yield" in ev.src:
            return True
        if ev is not None and ev.activation == activation and "yield" in ev.src:
            return True
    return False


def check_trajectory(program: Program, sampled: SampledTrajectory, report: Report) -> None:
    """Replay one trajectory in bdb and count agreements per action."""
    driver = _Driver(program, sampled)
    code = compile(program.source, program.path, "exec")
    module_globals: dict[str, Any] = {
        "__name__": program.module_name,
        "__file__": program.path,
        "__builtins__": __builtins__,
    }
    if program.entry is None:

        def runner() -> None:
            exec(code, module_globals)

    else:
        exec(code, module_globals)
        namespace = dict(module_globals)
        exec(compile(program.wrapper or "", ENTRY_FILE, "exec"), namespace)
        main = namespace[program.wrapper_name]

        def runner() -> None:
            main()

    linecache.cache[ENTRY_FILE] = (0, None, [f"{x}\n" for x in program.wrapper_lines], ENTRY_FILE)
    sink = io.StringIO()
    with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
        try:
            driver.runcall(runner)
        except _Diverged:
            pass
        except BaseException:  # the program's own uncaught exception: the run is over
            pass
        finally:
            sys.settrace(None)
    report.trajectories += 1
    tree = sampled.tree
    actions = sampled.trajectory.actions
    stops = driver.stops
    # stop 0 is the start state; stop k+1 answers action k.
    if not stops or not _matches(stops[0], tree, sampled.nodes[0]):
        report.divergences["start"] += 1
        return
    for k, action in enumerate(actions):
        name = action.kind.value
        report.checked[name] += 1
        target = sampled.nodes[k + 1]
        if tree.nodes[target].kind.is_exit:
            ok = len(stops) == k + 1
        else:
            ok = len(stops) > k + 1 and _matches(stops[k + 1], tree, target)
        if ok:
            report.agreed[name] += 1
            continue
        category = _classify(driver, sampled, k)
        report.divergences[category] += 1
        if len(report.examples) < 200:
            got = stops[k + 1] if len(stops) > k + 1 else None
            expected = tree.nodes[target].event
            report.examples.append(
                {
                    "category": category,
                    "action": name,
                    "target": action.target,
                    "from": _describe_event(tree.nodes[sampled.nodes[k]].event),
                    "tree": _describe_event(expected) if expected else "exit",
                    "bdb": f"{got.kind} {got.function}:{got.line} depth {got.depth}"
                    if got
                    else "no stop (ran to the end)",
                }
            )
        return  # later stops no longer line up


def _describe_event(event: Any) -> str:
    if event is None:
        return "exit"
    return f"{event.kind} {event.function}:{event.line} depth {event.depth}"


def check_program(
    item: CorpusProgram,
    folder: Path,
    report: Report,
    max_states: int = 120,
    tree_type: type[StateTree] = StateTree,
) -> None:
    """Check every policy's trajectories of one program; ``tree_type`` lets a test swap in a
    deliberately wrong tree to see the check fail."""
    path = folder / f"{item.name}.py"
    path.write_text(item.source, encoding="utf-8")
    program = load_program(path, item.entry)
    linecache.checkcache(str(path))
    trace = record(program, TraceLimits(max_events=5_000, max_seconds=10.0))
    tree = tree_type.forward(program, trace)
    report.programs += 1
    for policy, seeds in POLICY_SET:
        for seed in range(seeds):
            sampled = sample(tree, policy, random.Random(seed), max_states=max_states)
            check_trajectory(program, sampled, report)


def run(n: int = 240, seed: int = 0, tree_type: type[StateTree] = StateTree) -> Report:
    report = Report()
    with tempfile.TemporaryDirectory(prefix="ndb-bdb-") as tmp:
        folder = Path(tmp).resolve()
        for item in corpus(n, seed):
            check_program(item, folder, report, tree_type=tree_type)
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--programs", type=int, default=240)
    parser.add_argument("--out", default=str(RESULTS / "bdb_agreement.json"))
    args = parser.parse_args(argv)
    report = run(args.programs)
    data = report.to_json()
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    print(json.dumps({k: v for k, v in data.items() if k != "examples"}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
