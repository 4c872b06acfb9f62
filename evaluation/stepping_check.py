"""Stop by stop against debugpy on small scenarios, with no re-synchronising.

Each scenario is a script under ``evaluation/scenarios/<set>/`` whose first comment lines say
how to drive it; breakpoints are marked on their own lines:

* ``# actions: stepIn next stepOut continue`` the requests sent, in order, after the first stop;
  afterwards ``continue`` is sent until the program ends (at most :data:`MAX_CONTINUES` times);
* ``# exceptions: raised uncaught userUnhandled`` the exception filters (none by default);
* ``# stopOnEntry`` the first stop is the program's first line rather than a breakpoint;
* ``# BP`` at the end of a line: a breakpoint there; ``# BP if n == 3`` with a condition,
  ``# BP hit >= 2`` with a hit count, ``# BP log text {x}`` a log point.

Both adapters (``ndb dap`` with the chosen backend, and debugpy's adapter) are driven over stdio
by the same client (:class:`~.dap_client.DapClient`) with the same requests, and every
stop is read as an editor reads it. The two sequences are compared in order, stop ``k`` with stop
``k``: a step that stops elsewhere is a divergence, and nothing is re-synchronised afterwards. A
stop agrees when the stop reason, the innermost line, the program's frames (names and lines,
innermost first, so the depth too) and the innermost frame's Locals (names and value texts,
``(return)`` entries included) are equal; a value text that differs only by how the tracer
renders an object without its own ``__repr__`` (:data:`RENDERING`: ``Box(w=3)`` where debugpy
writes ``<__main__.Box object at 0x...>``) is counted apart, not as a divergence, since that
rendering is the model's language. The report gives, per scenario, the stops compared,
the stops equal and the first divergence; each set (``seen``: the scenarios the stepping rules
were written from, ``unseen``: kept apart until the rules were done) is summed separately.

``python -m neural_debugger.evaluation.stepping_check [--backend oracle|local] [--set seen]``
prints one line per scenario and writes ``evaluation/results/stepping_check_<backend>.json``.
"""

from __future__ import annotations

import argparse
import json
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

from .dap_client import DapClient, DapError
from .dap_crosscheck import (
    DebugpySide,
    NdbSide,
    Prepared,
    Side,
    Snapshot,
    compare,
)

SCENARIOS = Path(__file__).resolve().parent / "scenarios"
RESULTS = Path(__file__).resolve().parent / "results"
SETS = ("seen", "unseen")
ACTIONS = ("next", "stepIn", "stepOut", "continue")
FILTERS = ("raised", "uncaught", "userUnhandled")
MAX_CONTINUES = 20
# value texts that differ by how the tracer renders them (the model's language), not by where
# the debugger stopped: counted apart (see NOTES in dap_crosscheck), not as divergences
RENDERING = frozenset({"object_repr", "class_repr", "bound_method_repr", "repr_failed"})
# what makes two stops stand in different places (the stop sequence), values aside
PLACE = frozenset({"position", "same_text_other_line", "frames_depth", "frames", "frame_name",
                   "comprehension_frame", "frame_named_after_definition", "frame_line", "reason",
                   "ended_early", "exit_code", "prediction_failed", "variables",
                   "ndb_has_no_stop", "debugpy_has_no_stop"})  # fmt: skip
_MARK = re.compile(r"#\s*BP\b\s*(.*)$")


@dataclass(frozen=True)
class MarkedBreakpoint:
    """A breakpoint as a scenario marks it, and as DAP's ``SourceBreakpoint`` sends it."""

    line: int
    condition: str | None = None
    hit_condition: str | None = None
    log_message: str | None = None

    def dap(self) -> dict[str, Any]:
        made: dict[str, Any] = {"line": self.line}
        if self.condition:
            made["condition"] = self.condition
        if self.hit_condition:
            made["hitCondition"] = self.hit_condition
        if self.log_message:
            made["logMessage"] = self.log_message
        return made


@dataclass(frozen=True)
class Scenario:
    """One program and how to drive it."""

    name: str
    path: Path
    actions: tuple[str, ...]
    breakpoints: tuple[MarkedBreakpoint, ...]
    filters: tuple[str, ...] = ()
    stop_on_entry: bool = False


def _marked(line: int, text: str) -> MarkedBreakpoint:
    rest = text.strip()
    if rest.startswith("if "):
        return MarkedBreakpoint(line, condition=rest[3:].strip())
    if rest.startswith("hit "):
        return MarkedBreakpoint(line, hit_condition=rest[4:].strip())
    if rest.startswith("log "):
        return MarkedBreakpoint(line, log_message=rest[4:].strip())
    if rest:
        raise ValueError(f"line {line}: unknown breakpoint mark {text!r}")
    return MarkedBreakpoint(line)


def load_scenario(path: Path) -> Scenario:
    """A scenario from its file; a malformed header is a :class:`ValueError` naming the file."""
    lines = path.read_text(encoding="utf-8").split("\n")
    actions: tuple[str, ...] = ()
    filters: tuple[str, ...] = ()
    entry = False
    for text in lines:
        if not text.startswith("#"):
            break
        head = text[1:].strip()
        if head.startswith("actions:"):
            actions = tuple(head.split(":", 1)[1].split())
        elif head.startswith("exceptions:"):
            filters = tuple(head.split(":", 1)[1].replace(",", " ").split())
        elif head == "stopOnEntry":
            entry = True
    wrong = [a for a in actions if a not in ACTIONS] + [f for f in filters if f not in FILTERS]
    if wrong:
        raise ValueError(f"{path.name}: unknown actions or filters {wrong}")
    marks = []
    for number, text in enumerate(lines, 1):
        if text.startswith("#"):
            continue
        found = _MARK.search(text)
        if found is not None:
            marks.append(_marked(number, found.group(1)))
    if not marks and not entry:
        raise ValueError(f"{path.name}: no breakpoint and no stopOnEntry: nothing would stop")
    return Scenario(path.stem, path, actions, tuple(marks), filters, entry)


def scenarios(which: str) -> list[Scenario]:
    """The scenarios of one set, by name."""
    folder = SCENARIOS / which
    if not folder.is_dir():
        raise ValueError(f"no scenario set {which!r} (the sets are {', '.join(SETS)})")
    return [load_scenario(p) for p in sorted(folder.glob("*.py"))]


# ---- driving one adapter --------------------------------------------------------------------


class _ScenarioStart:
    """How a scenario starts an adapter: its breakpoints (with conditions, hit counts, log
    messages), its exception filters and stopOnEntry; mixed into both sides."""

    scenario: Scenario

    async def start(self) -> Snapshot:
        side: Side = self  # type: ignore[assignment]
        log = side.workdir / f"{side.label}-stderr.txt"
        side.dap = dap = await DapClient.spawn(side.command(), log, timeout=side.timeout)
        await dap.request(
            "initialize",
            clientID="ndb-stepping-check",
            adapterID=side.label,
            linesStartAt1=True,
            columnsStartAt1=True,
            pathFormat="path",
        )
        launch = await dap.send("launch", **side.launch_arguments())
        await dap.event("initialized")
        source = {"path": str(self.scenario.path), "name": self.scenario.path.name}
        marks = [bp.dap() for bp in self.scenario.breakpoints]
        await dap.request("setBreakpoints", source=source, breakpoints=marks)
        await dap.request("setExceptionBreakpoints", filters=list(self.scenario.filters))
        await dap.request("configurationDone")
        await dap.response(launch, "launch")
        return await side._stop()


class ScenarioDebugpy(_ScenarioStart, DebugpySide):
    def __init__(self, scenario: Scenario, prepared: Prepared, timeout: float, workdir: Path):
        super().__init__(prepared, timeout, workdir)
        self.scenario = scenario

    def launch_arguments(self) -> dict[str, Any]:
        arguments = super().launch_arguments()
        arguments["stopOnEntry"] = self.scenario.stop_on_entry
        arguments["showReturnValue"] = True  # as VS Code launches it
        return arguments


class ScenarioNdb(_ScenarioStart, NdbSide):
    def __init__(
        self, scenario: Scenario, prepared: Prepared, timeout: float, workdir: Path, backend: str
    ):
        super().__init__(prepared, timeout, workdir, backend)
        self.scenario = scenario

    def launch_arguments(self) -> dict[str, Any]:
        arguments = super().launch_arguments()
        arguments["stopOnEntry"] = self.scenario.stop_on_entry
        return arguments


async def drive(side: Side, scenario: Scenario) -> tuple[list[tuple[str, Snapshot]], str | None]:
    """Every stop of one adapter on a scenario, with the request that led to it; an error text
    if the adapter failed on the way (the stops so far are kept)."""
    stops: list[tuple[str, Snapshot]] = []
    try:
        stops.append(("start", await side.start()))
        requests = [*scenario.actions, *["continue"] * MAX_CONTINUES]
        for command in requests:
            if stops[-1][1].exited:
                break
            stops.append((command, await side.act(command)))
    except (DapError, OSError) as err:
        return stops, f"{type(err).__name__}: {err}"
    finally:
        with anyio.CancelScope(shield=True):
            await side.close()
    return stops, None


# ---- comparing ----------------------------------------------------------------------------


@dataclass
class Outcome:
    """One scenario's two stop sequences and how far they agree."""

    name: str
    ours: list[tuple[str, Snapshot]] = field(default_factory=list)
    theirs: list[tuple[str, Snapshot]] = field(default_factory=list)
    equal: int = 0
    compared: int = 0
    rendering: int = 0  # stops (before the first divergence) whose only difference is RENDERING
    first_divergence: dict[str, Any] | None = None
    # the same, for where the stops stand only (reason, line, frames), values aside: a model's
    # stop sequence, whatever it predicts for the values
    places_equal: int = 0
    first_place_divergence: dict[str, Any] | None = None
    error: str | None = None

    @property
    def agrees(self) -> bool:
        return self.error is None and self.first_divergence is None


def differences(ours: Snapshot, theirs: Snapshot, lines: Sequence[str]) -> list[str]:
    """What differs between two stops (empty: they are equal)."""
    pair = compare(ours, theirs, "", lines)
    kinds = list(pair.kinds)
    if not ours.exited and not theirs.exited:
        if ours.reason != theirs.reason:
            kinds.append("reason")
        if ours.frames != theirs.frames and "frame_line" not in kinds:
            kinds.append("frames")
        if (ours.variables is None) != (theirs.variables is None):
            kinds.append("variables")
    return kinds


def judge(outcome: Outcome, lines: Sequence[str]) -> Outcome:
    """Compare stop ``k`` with stop ``k``; the first stop that differs is the divergence."""
    count = max(len(outcome.ours), len(outcome.theirs))
    for k in range(count):
        if k >= len(outcome.ours) or k >= len(outcome.theirs):
            side = "ndb" if k >= len(outcome.ours) else "debugpy"
            outcome.compared += 1
            missing = {"stop": k, "kinds": [f"{side}_has_no_stop"]}
            if outcome.first_divergence is None:
                outcome.first_divergence = missing
            if outcome.first_place_divergence is None:
                outcome.first_place_divergence = missing
            continue
        request, ours = outcome.ours[k]
        _, theirs = outcome.theirs[k]
        outcome.compared += 1
        kinds = differences(ours, theirs, lines)
        placed = [kind for kind in kinds if kind in PLACE]
        if outcome.first_place_divergence is None:
            if placed:
                outcome.first_place_divergence = {"stop": k, "request": request, "kinds": placed}
            else:
                outcome.places_equal += 1
        if not [kind for kind in kinds if kind not in RENDERING]:
            if outcome.first_divergence is None:
                outcome.equal += 1
                outcome.rendering += bool(kinds)
            continue
        if outcome.first_divergence is None:
            outcome.first_divergence = {
                "stop": k,
                "request": request,
                "kinds": kinds,
                "ndb": ours.brief(),
                "debugpy": theirs.brief(),
            }
    return outcome


async def run_scenario(scenario: Scenario, backend: str, timeout: float, root: Path) -> Outcome:
    """Drive both adapters through one scenario (one after the other) and compare."""
    workdir = root / scenario.name
    workdir.mkdir(parents=True, exist_ok=True)
    prepared = Prepared(scenario.name, scenario.path, None, 0, scenario.path)
    outcome = Outcome(scenario.name)
    theirs = ScenarioDebugpy(scenario, prepared, timeout, workdir)
    ours = ScenarioNdb(scenario, prepared, timeout, workdir, backend)
    outcome.theirs, error_theirs = await drive(theirs, scenario)
    outcome.ours, error_ours = await drive(ours, scenario)
    if error_theirs or error_ours:
        outcome.error = "; ".join(
            f"{who}: {e}" for who, e in (("debugpy", error_theirs), ("ndb", error_ours)) if e
        )
    lines = scenario.path.read_text(encoding="utf-8").split("\n")
    return judge(outcome, lines)


async def run_set(
    items: Sequence[Scenario], backend: str, timeout: float, jobs: int, root: Path
) -> list[Outcome]:
    results: list[Outcome | None] = [None] * len(items)
    limiter = anyio.CapacityLimiter(max(1, jobs))

    async def one(index: int, scenario: Scenario) -> None:
        async with limiter:
            results[index] = await run_scenario(scenario, backend, timeout, root)

    async with anyio.create_task_group() as tasks:
        for index, scenario in enumerate(items):
            tasks.start_soon(one, index, scenario)
    return [r for r in results if r is not None]


def check(
    which: str = "seen",
    backend: str = "oracle",
    timeout: float = 60.0,
    jobs: int = 2,
    names: Sequence[str] | None = None,
) -> list[Outcome]:
    """Run one scenario set (or the named scenarios of it) on both adapters."""
    items = scenarios(which)
    if names is not None:
        items = [s for s in items if s.name in set(names)]
    with tempfile.TemporaryDirectory(prefix="ndb-stepping-") as tmp:
        return anyio.run(run_set, items, backend, timeout, jobs, Path(tmp))


def rule_of(request: str, before: Snapshot | None, after: Snapshot) -> str:
    """Which stepping rule gave debugpy's stop ``after`` (reached from ``before``)."""
    if after.exited:
        return "end of the program"
    if after.reason in ("breakpoint", "exception", "entry"):
        return {"breakpoint": "breakpoint (with conditions, hit counts, log points)",
                "exception": "exception filter", "entry": "entry"}[after.reason]  # fmt: skip
    depth, was = len(after.frames), len(before.frames) if before and not before.exited else 0
    if depth < was:
        return f"{request}: return shown in the caller"
    if depth > was:
        return f"{request}: into a call"
    return f"{request}: next line of the frame"


def by_rule(outcomes: Sequence[Outcome], places: bool = False) -> dict[str, dict[str, int]]:
    """Stops compared and equal per rule, up to each scenario's first divergence (``places``:
    of where the stops stand, values aside)."""
    table: dict[str, Counter[str]] = {}
    for o in outcomes:
        first = o.first_place_divergence if places else o.first_divergence
        end = first["stop"] if first else len(o.theirs) - 1
        for k in range(min(end + 1, len(o.theirs))):
            request, after = o.theirs[k]
            before = o.theirs[k - 1][1] if k else None
            counts = table.setdefault(rule_of(request, before, after), Counter())
            counts["stops"] += 1
            counts["equal"] += k < end or first is None
    return {rule: dict(c) for rule, c in sorted(table.items())}


def summary(outcomes: Sequence[Outcome]) -> dict[str, Any]:
    """Stops equal out of stops compared, scenarios wholly equal, first-divergence kinds."""
    kinds: Counter[str] = Counter()
    requests: Counter[str] = Counter()
    for o in outcomes:
        if o.first_divergence is not None:
            kinds.update(o.first_divergence["kinds"])
            requests[o.first_divergence.get("request", "?")] += 1
    compared = sum(o.compared for o in outcomes)
    equal = sum(o.equal for o in outcomes)
    return {
        "scenarios": len(outcomes),
        "scenarios_equal": sum(o.agrees for o in outcomes),
        "stops_compared": compared,
        "stops_equal_before_first_divergence": equal,
        "rate": round(equal / compared, 4) if compared else None,
        "stops_equal_but_rendering": sum(o.rendering for o in outcomes),
        "first_divergence_kinds": dict(kinds.most_common()),
        "first_divergence_requests": dict(requests.most_common()),
        "errors": {o.name: o.error for o in outcomes if o.error},
        "by_rule": by_rule(outcomes),
        "places": {
            "note": "where the stops stand (reason, line, frames), values aside",
            "scenarios_equal": sum(o.first_place_divergence is None for o in outcomes),
            "stops_equal_before_first_divergence": sum(o.places_equal for o in outcomes),
            "by_rule": by_rule(outcomes, places=True),
        },
    }


def details(outcomes: Sequence[Outcome]) -> list[dict[str, Any]]:
    return [
        {
            "name": o.name,
            "stops": [len(o.ours), len(o.theirs)],
            "equal": o.equal,
            "compared": o.compared,
            "rendering": o.rendering,
            "first_divergence": o.first_divergence,
            "places_equal": o.places_equal,
            "first_place_divergence": o.first_place_divergence,
            "error": o.error,
        }
        for o in outcomes
    ]


def line_of(o: Outcome) -> str:
    if o.agrees:
        return f"{o.name:<45} {o.equal}/{o.compared} equal"
    where = o.first_divergence or {}
    text = f"{o.name:<45} {o.equal}/{o.compared} equal; first divergence at stop "
    text += (
        f"{where.get('stop')} ({where.get('request', '-')}): {', '.join(where.get('kinds', []))}"
    )
    if o.error:
        text += f"  [error: {o.error}]"
    return text


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m neural_debugger.evaluation.stepping_check",
        description="Drive ndb dap and debugpy through the same requests on the stepping "
        "scenarios and compare every stop in sequence (no re-synchronising).",
    )
    parser.add_argument("--backend", choices=["oracle", "local"], default="oracle")
    parser.add_argument("--set", dest="sets", action="append", choices=SETS)
    parser.add_argument("--name", dest="names", action="append", help="only these scenarios")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=None)
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--verbose", action="store_true", help="print every stop of both sides")
    args = parser.parse_args(argv)
    timeout = args.timeout or (60.0 if args.backend == "oracle" else 300.0)
    began = time.monotonic()
    report: dict[str, Any] = {"backend": args.backend}
    for which in args.sets or list(SETS):
        outcomes = check(which, args.backend, timeout, args.jobs, args.names)
        print(f"== {which}")
        for o in outcomes:
            print(line_of(o))
            if args.verbose:
                for (ra, a), (_, b) in zip(o.ours, o.theirs, strict=False):
                    print(f"   {ra:<9} ndb {a.brief()}\n             dbg {b.brief()}")
                longer = o.ours if len(o.ours) > len(o.theirs) else o.theirs
                for ra, a in longer[min(len(o.ours), len(o.theirs)) :]:
                    side = "ndb" if longer is o.ours else "dbg"
                    print(f"   {ra:<9} {side} {a.brief()}")
        report[which] = {"summary": summary(outcomes), "details": details(outcomes)}
        print(json.dumps(report[which]["summary"]))
    report["seconds"] = round(time.monotonic() - began, 1)
    report["command"] = "python -m neural_debugger.evaluation.stepping_check " + " ".join(
        argv if argv is not None else sys.argv[1:]
    )
    out = args.out or RESULTS / f"stepping_check_{args.backend}.json"
    if args.names is None:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
        print(f"written to {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
