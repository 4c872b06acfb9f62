"""Benchmark: the DAP server as an editor sees it, alone and under many clients.

The step latencies of :mod:`.bench_backend` are the model's alone; an editor also pays for the
server (framing, validation, the event loop) and for the three requests it sends after every
stop to show it. So everything here goes through a real ``ndb dap --port 0`` process over TCP:

* latency: one client on the embedded model (``local`` backend) steps through each example
  program; a step is timed from sending ``next`` (or ``stepIn``) to having the new stop's
  variables (the ``stopped`` event, then ``stackTrace``, ``scopes`` and ``variables``), the
  measure the debugpy figures below were taken with. The round trip of a cheap request
  (``threads``) is timed too, for scale;
* load: many clients at once on one server, each a scripted session on the oracle backend, then
  the same on the local backend, each with its own entry arguments. Reported: the wall time,
  step latency under load, the server's peak resident memory (``VmHWM``), and cross-talk
  checks: every oracle stop must show its own session's values exactly, no stop of any session
  may show another session's list, and a few local sessions are run again alone afterwards and
  compared stop by stop (greedy decoding is deterministic per session, so any difference means
  one session's prediction was affected by another's).

The figures depend on the machine and on what else runs on it; ``machine`` in the results
records the CPU count and the load average before and after.

``python -m neural_debugger.evaluation.bench_server [--steps N] [--sessions M] [--out PATH]``
prints a table and writes ``evaluation/results/server_bench.json``.

``--against-debugpy`` measures only ``next`` to the new stop's variables against debugpy, both in
the same run: one DAP client (:mod:`.dap_client`, as the cross-check drives both
adapters over stdio with the same requests) stops both at a breakpoint inside each example's
function, clears it, then alternates one ``next`` on each adapter, each timed from sending
``next`` to having the stop's variables (``stackTrace``, ``scopes``, ``variables``). ``ndb`` runs
as configured by the environment (``NDB_QUANTIZE``, ``NDB_THREADS``) on ``--model``; each
``--ndb-env NAME=VALUE`` adds one more ndb adapter with those settings to the same alternation.
Each adapter's medians of every request's round trip and of the wait for the stop say where a
``next`` spends its time. It writes ``evaluation/results/next_vs_debugpy.json``.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import itertools
import json
import os
import platform
import random
import statistics
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio

from neural_debugger.model_backend.confidence import without_sureness
from neural_debugger.paths import REPOSITORY

from .dap_client import DapClient, DapError, connected, tcp_server
from .timing import percentile

# debugpy on this machine kind, for scale: `next` to the new stop's variables (the same
# measure as here), and one request's round trip.
DEBUGPY_STEP_MS = 176.0
DEBUGPY_ROUND_TRIP_MS = 44.0

BUBBLE = REPOSITORY / "examples" / "bubble_sort.py"
RUNNING = REPOSITORY / "examples" / "running_total.py"
PROGRAMS = [(BUBBLE, "bubble_sort([5, 2, 9, 1])"), (RUNNING, "running_total([3, 1, 2, 7])")]
ACTIONS = ["next", "next", "next", "stepIn"]  # mostly next, some stepIn, as an editor user does
ENTER = ["stepIn", "stepIn"]  # from the entry stop, through the <entry> wrapper into the function
WAIT = 120.0  # seconds any one message may take, under load included
START_WAIT = 60.0  # seconds for the server to say which port it listens on
SERVER_RESULTS = REPOSITORY / "evaluation" / "results" / "server_bench.json"
ALONE_CHECKS = 5  # local sessions re-run alone after the load, to compare their stops


def summary(values: list[float]) -> dict[str, float | int]:
    if not values:
        return {"count": 0}
    return {
        "count": len(values),
        "median": statistics.median(values),
        "p95": percentile(values, 0.95),
        "max": max(values),
    }


# ---- the server process ------------------------------------------------------------------------


@dataclass
class Server:
    """An ``ndb dap --port 0`` process, the port it reported and where its stderr goes."""

    process: subprocess.Popen[bytes]
    port: int
    log: Path

    def memory_kb(self) -> dict[str, int]:
        """Resident memory now (VmRSS) and at its peak since the process started (VmHWM)."""
        found: dict[str, int] = {}
        for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            key, _, value = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                found[key] = int(value.split()[0])
        return found

    def alive(self) -> bool:
        return self.process.poll() is None


@contextlib.contextmanager
def server() -> Iterator[Server]:
    """Start the server, wait for its port, and always stop it (terminate, then kill)."""
    with tempfile.TemporaryDirectory(prefix="ndb-bench-") as folder:
        log = Path(folder) / "stderr.txt"
        with tcp_server(log, wait=START_WAIT) as (process, port):
            yield Server(process, port, log)


# ---- a session as an editor opens it ------------------------------------------------------------


async def launch(client: DapClient, arguments: dict[str, Any]) -> None:
    """initialize, launch, configurationDone, and the first stop (stopOnEntry)."""
    await client.request("initialize", adapterID="ndb", linesStartAt1=True)
    await client.request("launch", stopOnEntry=True, **arguments)
    await client.event("initialized")
    await client.request("configurationDone")
    await client.event("stopped")


async def restart(client: DapClient, arguments: dict[str, Any]) -> None:
    await client.request("restart", arguments={"stopOnEntry": True, **arguments})
    await client.event("stopped")


# ---- one step ------------------------------------------------------------------------------------


@dataclass
class Step:
    """One timed step and what it showed: the innermost frame's line and its locals."""

    action: str
    ms: float
    exited: bool = False
    reason: str = ""
    line: int | None = None
    values: dict[str, str] = field(default_factory=dict)


async def step(client: DapClient, action: str) -> Step:
    """Send one step and fetch what an editor shows next; the time covers all of it."""
    start = time.perf_counter()
    await client.request(action, threadId=1)
    found = await client.event("stopped", "exited")
    if found["event"] == "exited":
        return Step(action, (time.perf_counter() - start) * 1000, exited=True)
    frames = (await client.request("stackTrace", threadId=1))["stackFrames"]
    values: dict[str, str] = {}
    if frames:
        scopes = (await client.request("scopes", frameId=frames[0]["id"]))["scopes"]
        shown = next((s for s in scopes if s["name"].startswith("Locals")), None)
        if shown is not None:
            found_vars = await client.request(
                "variables", variablesReference=shown["variablesReference"]
            )
            values = {v["name"]: without_sureness(v["value"]) for v in found_vars["variables"]}
    ms = (time.perf_counter() - start) * 1000
    line = frames[0]["line"] if frames else None
    return Step(action, ms, reason=found["body"]["reason"], line=line, values=values)


def script() -> Iterator[str]:
    """The steps of a session from its entry stop: into the function, then as in ACTIONS."""
    return itertools.chain(ENTER, itertools.cycle(ACTIONS))


async def drain_exit(client: DapClient) -> None:
    await client.event("terminated")


# ---- latency -------------------------------------------------------------------------------------


async def latency(port: int, steps: int) -> dict[str, Any]:
    """One client on the local backend: ``steps`` timed steps per example program."""
    rows: list[dict[str, Any]] = []
    first_step_ms: list[float] = []
    round_trips: list[float] = []
    for program, entry in PROGRAMS:  # a connection (an editor window) per program
        async with connected(port, timeout=WAIT) as client:
            arguments = {"program": str(program), "entry": entry, "backend": "local"}
            await launch(client, arguments)
            actions = script()
            warm = await step(client, next(actions))  # the first prediction warms the engine up
            first_step_ms.append(warm.ms)
            for _ in range(steps):
                if warm.exited:  # the model ended the run: start again, keep counting
                    await drain_exit(client)
                    await restart(client, arguments)
                    actions = script()
                action = next(actions)
                warm = done = await step(client, action)
                rows.append({"program": program.name, "action": action, "ms": done.ms,
                             "exited": done.exited, "reason": done.reason,
                             "variables": len(done.values)})  # fmt: skip
            for _ in range(30):
                start = time.perf_counter()
                await client.request("threads")
                round_trips.append((time.perf_counter() - start) * 1000)
            await client.request("disconnect")
    stops = [r["ms"] for r in rows if not r["exited"]]
    return {
        "step_ms": summary(stops),
        "step_ms_by_action": {
            a: summary([r["ms"] for r in rows if r["action"] == a and not r["exited"]])
            for a in sorted(set(ACTIONS))
        },
        "exits": sum(r["exited"] for r in rows),
        "first_step_ms": first_step_ms,
        "round_trip_ms": summary(round_trips),
        "debugpy_for_scale": {"step_ms": DEBUGPY_STEP_MS, "round_trip_ms": DEBUGPY_ROUND_TRIP_MS},
        "rows": rows,
    }


# ---- load ----------------------------------------------------------------------------------------


def entries(sessions: int, seed: int = 7) -> list[list[int]]:
    """A different list for every session: no two share a multiset, so a sorted list or a
    partly sorted one still tells whose it is."""
    rng = random.Random(seed)
    choices = rng.sample(list(itertools.combinations(range(1, 40), 4)), sessions)
    lists = []
    for chosen in choices:
        items = list(chosen)
        while items == sorted(items):
            rng.shuffle(items)
        lists.append(items)
    return lists


@dataclass
class SessionLog:
    """What one load session saw, per backend."""

    index: int
    items: list[int]
    steps: dict[str, list[Step]] = field(default_factory=lambda: {"oracle": [], "local": []})
    error: str | None = None


async def scripted(port: int, index: int, items: list[int], steps: int) -> SessionLog:
    """One client: oracle session then local session on its own list, ``steps`` steps each."""
    log = SessionLog(index, items)
    try:
        async with connected(port, timeout=WAIT) as client:
            for backend in ("oracle", "local"):
                arguments = {"program": str(BUBBLE), "entry": f"bubble_sort({items})",
                             "backend": backend}  # fmt: skip
                if backend == "oracle":
                    await launch(client, arguments)
                else:
                    await restart(client, arguments)
                for action in itertools.islice(script(), steps):
                    done = await step(client, action)
                    log.steps[backend].append(done)
                    if done.exited:
                        await drain_exit(client)
                        break
            await client.request("disconnect")
    except (DapError, TimeoutError, OSError, anyio.BrokenResourceError,
            anyio.EndOfStream) as err:  # fmt: skip
        log.error = f"{type(err).__name__}: {err}"
    return log


def cross_talk(logs: list[SessionLog]) -> dict[str, int]:
    """Stops that show another session's list (never allowed), and oracle stops whose own
    values are wrong (the oracle runs the program: its values are exact)."""
    owners: dict[str, int] = {}
    for log in logs:
        owners[repr(log.items)] = log.index
        owners[repr(sorted(log.items))] = log.index
    foreign = own_checked = own_wrong = 0
    for log in logs:
        for backend, taken in log.steps.items():
            for done in taken:
                for value in done.values.values():
                    owner = owners.get(value)
                    foreign += owner is not None and owner != log.index
                if backend == "oracle" and "items" in done.values:
                    own_checked += 1
                    own_wrong += done.values["items"] != repr(log.items)
                if backend == "oracle" and "result" in done.values:
                    own_checked += 1  # bubble_sort's working copy: a permutation of its items
                    own_wrong += sorted(_numbers(done.values["result"])) != sorted(log.items)
    return {"foreign_values": foreign, "own_values_checked": own_checked,
            "own_values_wrong": own_wrong}  # fmt: skip


def _numbers(text: str) -> list[int]:
    try:
        value = json.loads(text)
    except ValueError:
        return []
    return value if isinstance(value, list) else []


def _backend_summary(logs: list[SessionLog], backend: str) -> dict[str, Any]:
    taken = [s for log in logs for s in log.steps[backend]]
    return {
        "step_ms": summary([s.ms for s in taken if not s.exited]),
        "steps": len(taken),
        "exits": sum(s.exited for s in taken),
    }


async def load(srv: Server, sessions: int, steps: int) -> dict[str, Any]:
    """``sessions`` clients at once, then a few local sessions again alone for comparison."""
    lists = entries(sessions)
    idle = srv.memory_kb()
    done = [SessionLog(i, items) for i, items in enumerate(lists)]

    async def one(i: int) -> None:
        done[i] = await scripted(srv.port, i, lists[i], steps)

    start = time.perf_counter()
    async with anyio.create_task_group() as tasks:
        for i in range(sessions):
            tasks.start_soon(one, i)
    wall = time.perf_counter() - start
    after = srv.memory_kb()
    again = range(min(ALONE_CHECKS, sessions))
    alone = [await scripted(srv.port, i, lists[i], steps) for i in again]

    def stops(log: SessionLog) -> list[tuple[int | None, dict[str, str], bool]]:
        return [(s.line, s.values, s.exited) for s in log.steps["local"]]

    same = sum(stops(a) == stops(done[a.index]) for a in alone if a.error is None)
    async with connected(srv.port, timeout=WAIT) as probe:  # the server still serves after the load
        await probe.request("initialize", adapterID="ndb")
    return {
        "sessions": sessions,
        "steps_per_backend": steps,
        "wall_s": wall,
        "completed": sum(log.error is None for log in done),
        "errors": [f"session {log.index}: {log.error}" for log in done if log.error],
        "oracle": _backend_summary(done, "oracle"),
        "local": _backend_summary(done, "local"),
        "cross_talk": cross_talk(done),
        "local_same_as_alone": {"checked": len(alone), "identical": same},
        "server_memory_mb": {
            "rss_before": idle.get("VmRSS", 0) / 1024,
            "rss_after": after.get("VmRSS", 0) / 1024,
            "peak": after.get("VmHWM", 0) / 1024,
        },
        "server_alive": srv.alive(),
    }


# ---- the run -------------------------------------------------------------------------------------


def machine() -> dict[str, Any]:
    return {
        "platform": f"{platform.machine()}, {platform.python_implementation()} "
        f"{platform.python_version()}",
        "cpus": os.cpu_count(),
        "load_average": list(os.getloadavg()),
    }


def run(steps: int, sessions: int, load_steps: int) -> dict[str, Any]:
    result: dict[str, Any] = {"machine_before": machine()}
    with server() as srv:
        result["latency"] = anyio.run(latency, srv.port, steps)
        result["latency"]["server_peak_rss_mb"] = srv.memory_kb().get("VmHWM", 0) / 1024
    with server() as srv:  # a fresh server, so its peak memory is the load's
        result["load"] = anyio.run(load, srv, sessions, load_steps)
    result["machine_after"] = machine()
    return result


def format_table(result: dict[str, Any]) -> str:
    lat, load_ = result["latency"], result["load"]
    step_, trip = lat["step_ms"], lat["round_trip_ms"]
    talk, alone = load_["cross_talk"], load_["local_same_as_alone"]
    memory = load_["server_memory_mb"]
    cpus, avg = result["machine_before"]["cpus"], result["machine_before"]["load_average"][0]

    def row(name: str, s: dict[str, Any]) -> str:
        if not s.get("count"):
            return f"  {name:<34} no stops"
        return (f"  {name:<34} median {s['median']:7.1f} ms   p95 {s['p95']:7.1f} ms   "
                f"({s['count']} stops)")  # fmt: skip

    lines = [
        f"DAP server over TCP ({cpus} CPUs, load average {avg:.1f} at the start)",
        "latency, one client, local backend (step = request to the new stop's variables):",
        row("step", step_),
        *(row(f"  {a}", s) for a, s in lat["step_ms_by_action"].items()),
        f"  {'round trip (threads)':<34} median {trip['median']:7.1f} ms   p95 "
        f"{trip['p95']:7.1f} ms",
        f"  {'debugpy for scale':<34} step {DEBUGPY_STEP_MS:.0f} ms, round trip "
        f"{DEBUGPY_ROUND_TRIP_MS:.0f} ms",
        f"  runs ended by the model: {lat['exits']}; first step (warm-up): "
        + ", ".join(f"{ms:.0f} ms" for ms in lat["first_step_ms"]),
        f"load: {load_['sessions']} clients at once on one server, {load_['steps_per_backend']} "
        f"steps per backend each; {load_['completed']} completed in {load_['wall_s']:.1f} s",
        row("oracle step under load", load_["oracle"]["step_ms"]),
        row("local step under load", load_["local"]["step_ms"]),
        f"  cross-talk: {talk['foreign_values']} values from another session; oracle values "
        f"wrong {talk['own_values_wrong']}/{talk['own_values_checked']}; local sessions "
        f"identical to a run alone {alone['identical']}/{alone['checked']}",
        f"  server memory: {memory['rss_before']:.0f} MB before, peak {memory['peak']:.0f} MB; "
        f"alive after: {load_['server_alive']}",
    ]
    lines += [f"  error: {e}" for e in load_["errors"][:5]]
    return "\n".join(lines)


# ---- next against debugpy, in one run ------------------------------------------------------------


def _breakpoint_line(path: Path) -> int:
    """The first statement inside the program's first loop (a ``next`` from it stays busy)."""
    tree = ast.parse(path.read_text())
    loop = next(n for n in ast.walk(tree) if isinstance(n, ast.For))
    return loop.body[0].lineno


@contextlib.contextmanager
def _environment(extra: dict[str, str]) -> Iterator[None]:
    """``extra`` in the environment while an adapter process starts (it inherits it)."""
    saved = {k: os.environ.get(k) for k in extra}
    os.environ.update(extra)
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


async def against_debugpy(
    steps: int, model: Path | None, root: Path, variants: list[dict[str, str]]
) -> dict[str, Any]:
    """``next`` to the stop's variables on ndb (once per environment in ``variants``, the
    first the one compared) and on debugpy, one adapter after the other, ``steps`` per adapter
    and program (a run that ends is started again)."""
    from .dap_crosscheck import DebugpySide, NdbSide, Prepared, runner_source

    class ModelSide(NdbSide):
        def launch_arguments(self) -> dict[str, Any]:
            arguments = super().launch_arguments()
            if model is not None:
                arguments["model"] = str(model)
            return arguments

    def label(extra: dict[str, str]) -> str:
        return " ".join(["ndb", *(f"{k}={v}" for k, v in extra.items())])

    names = [label(extra) for extra in variants]
    environments = {**dict(zip(names, variants, strict=True)), "debugpy": {}}
    timings: dict[str, list[float]] = {name: [] for name in environments}
    first: dict[str, list[float]] = {name: [] for name in environments}
    phases: dict[str, dict[str, list[float]]] = {name: {} for name in environments}
    for path, entry in PROGRAMS:
        folder = root / path.stem
        folder.mkdir(parents=True, exist_ok=True)
        script = folder / "runner.py"
        script.write_text(runner_source(path, entry))
        prepared = Prepared(path.stem, path, entry, _breakpoint_line(path), script)
        sides: dict[str, Any] = {
            name: ModelSide(prepared, WAIT, folder / str(i), "local")
            for i, name in enumerate(names)
        }
        sides["debugpy"] = DebugpySide(prepared, WAIT, folder)
        for side in sides.values():
            side.workdir.mkdir(parents=True, exist_ok=True)
        try:
            for name, side in sides.items():
                start = time.perf_counter()
                with _environment(environments[name]):
                    await side.start()
                first[name].append((time.perf_counter() - start) * 1000)
                await side.set_breakpoints([])
            for _ in range(steps):
                for name, side in sides.items():
                    if side.last is not None and side.last.exited:
                        await side.close()
                        side.last = None
                        with _environment(environments[name]):
                            await side.start()
                        await side.set_breakpoints([])
                    _time_messages(side, phases[name])
                    start = time.perf_counter()
                    await side.act("next")
                    timings[name].append((time.perf_counter() - start) * 1000)
                    side.dap.timed = None  # (restarts and setup are not timed)
        finally:
            for side in sides.values():
                await side.close()
    found = {name: summary(values) for name, values in timings.items()}
    debugpy = found["debugpy"]["median"]
    return {
        "programs": [str(p.relative_to(REPOSITORY)) for p, _ in PROGRAMS],
        "model": str(model) if model else "the shipped model",
        "environment": {k: v for k, v in os.environ.items() if k.startswith("NDB_")},
        "next_ms": found,
        "ratio_of_medians": {n: found[n]["median"] / debugpy for n in names},
        "launch_to_first_stop_ms": first,
        "phases_median_ms": {
            name: {what: statistics.median(values) for what, values in found_phases.items()}
            for name, found_phases in phases.items()
        },
    }


def _time_messages(side: Any, phases: dict[str, list[float]]) -> None:
    """Time each request's round trip and each wait for an event during the next ``act``
    (where a ``next`` spends its time: the adapter's work until the stop, or the requests
    that show it). The side's connection is wrapped once; ``timed`` is where it records."""
    dap = side.dap
    dap.timed = phases
    if getattr(dap, "wrapped_for_timing", False):
        return
    request, event = dap.request, dap.event

    def record(what: str, start: float) -> None:
        if dap.timed is not None:
            dap.timed.setdefault(what, []).append((time.perf_counter() - start) * 1000)

    async def timed_request(command: str, **arguments: Any) -> dict[str, Any]:
        start = time.perf_counter()
        try:
            return await request(command, **arguments)
        finally:
            record(command, start)

    async def timed_event(*names: str) -> dict[str, Any]:
        start = time.perf_counter()
        try:
            return await event(*names)
        finally:
            record("wait for " + "/".join(names), start)

    dap.request, dap.event = timed_request, timed_event
    dap.wrapped_for_timing = True


def format_against(result: dict[str, Any]) -> str:
    lines = [
        f"next to the stop's variables against debugpy, one run ({result['model']}; "
        f"{result['machine']['cpus']} CPUs, load average "
        f"{result['machine']['load_average'][0]:.1f} at the start)"
    ]
    for name, found in result["next_ms"].items():
        ratio = result["ratio_of_medians"].get(name)
        lines.append(
            f"  {name:<28} median {found['median']:7.1f} ms  p95 {found['p95']:7.1f} ms  "
            f"({found['count']} steps)" + (f"  ratio {ratio:.2f}" if ratio else "")
        )
        phases = result.get("phases_median_ms", {}).get(name, {})
        lines.append(
            "    medians: " + ", ".join(f"{what} {ms:.1f} ms" for what, ms in phases.items())
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=30, help="timed steps per example program")
    parser.add_argument(
        "--against-debugpy",
        action="store_true",
        help="only next to the stop's variables, ndb against debugpy in the same run",
    )
    parser.add_argument("--model", type=Path, default=None, help="with --against-debugpy")
    parser.add_argument(
        "--ndb-env",
        action="append",
        default=[],
        metavar="NAME=VALUE[,NAME=VALUE]",
        help="with --against-debugpy: one more ndb adapter in the same run, with these "
        "environment settings (e.g. NDB_QUANTIZE=int8); repeatable",
    )
    parser.add_argument("--sessions", type=int, default=50, help="clients at once in the load")
    parser.add_argument("--load-steps", type=int, default=6, help="steps per backend per client")
    parser.add_argument("--out", type=Path, default=SERVER_RESULTS)
    args = parser.parse_args()
    if args.against_debugpy:
        with tempfile.TemporaryDirectory(prefix="ndb-bench-") as folder:
            result = {"machine": machine()}
            variants = [{}] + [
                dict(pair.split("=", 1) for pair in text.split(",")) for text in args.ndb_env
            ]
            result.update(
                anyio.run(against_debugpy, args.steps, args.model, Path(folder), variants)
            )
        result["machine_after"] = machine()
        result["command"] = (
            "python -m neural_debugger.evaluation.bench_server --against-debugpy "
            f"--steps {args.steps}"
            + (f" --model {args.model}" if args.model else "")
            + "".join(f" --ndb-env {text}" for text in args.ndb_env)
        )
        print(format_against(result))
        if args.out == SERVER_RESULTS:
            args.out = SERVER_RESULTS.with_name("next_vs_debugpy.json")
    else:
        result = run(args.steps, args.sessions, args.load_steps)
        # the embedded engine's model ($NDB_MODEL, else the shipped one) and how to run it again
        result["model"] = os.environ.get("NDB_MODEL", "the shipped model")
        result["command"] = (
            "python -m neural_debugger.evaluation.bench_server "
            f"--steps {args.steps} --sessions {args.sessions} --load-steps {args.load_steps}"
        )
        print(format_table(result))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
