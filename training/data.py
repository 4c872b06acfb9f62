"""Trajectory data: programs → real traces → sampled trajectories in the language → shards.

Work is split into chunks of programs, one generator seed per chunk, and spread over every core
with a process pool. Each program is filtered against CruxEval (dropped when any of its functions
matches one after normalisation), traced in the worker's own process (generated programs are
known to terminate; the tracer's event and time limits still apply), and sampled with the
paper's policy: forward trajectories from the start, inverse ones from the entry function's
return, mixed equally as in the paper. Shards are JSON lines, one trajectory each, with a
``stats.json`` beside them.

Origins (``DataSpec.mix``): ``generated`` (the generator's functions and scripts plus
standard-library functions, :func:`.programs.generate_programs`), ``package`` (functions of
installed pure-Python packages called with generated inputs) and ``repo`` (repository level:
CPython's own test suites and the pytest suites shipped inside installed packages run under a
trace hook, one call sampled per program and made the entry). The repo harvest runs first, one
suite per process; its tallies go to ``stats.json`` under ``repo_harvest``. Sources that need
only a seed are registered in :data:`SEEDED_SOURCES` (``drills``: builtin drills,
``everyday``: everyday scripts). The shares come from ``training/mix.toml`` (:func:`load_mix`)
unless ``ndb data --mix`` overrides them.

Programs that contain a function of CruxEval, HumanEval or MBPP (whichever are on the machine,
:mod:`.programs.benchmark_filter`) are dropped and counted per benchmark.

``library``: public functions of pinned pure-Python packages and standard-library modules called
with their doctests' arguments and hypothesis draws (:mod:`.programs.libraries`); ``stats.json``
records the package versions, functions per package and held-out packages under ``library`` and
how its programs were made under ``library_programs``.
"""

from __future__ import annotations

import functools
import hashlib
import json
import multiprocessing as mp
import os
import platform
import random
import resource
import sys
import threading
import tomllib
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from neural_debugger.protocol.encoding import encode
from neural_debugger.tracer.events import ExitKind, TraceLimits
from neural_debugger.tracer.program import Program
from neural_debugger.tracer.record import TracerFailure, record
from neural_debugger.tracer.sampler import PAPER, PAPER_INVERSE, sample
from neural_debugger.tracer.tree import StateTree

from .programs import TrainingProgram, generate_programs, package_programs
from .programs.benchmark_filter import BenchmarkFilter
from .programs.drills import drill_programs
from .programs.everyday import everyday_programs
from .programs.libraries import library_programs, library_summary
from .programs.repo_tests import (
    SUITES,
    RepoCandidate,
    RepoPool,
    build_pool,
    check_candidate,
    harvest,
    sample_candidates,
)
from .programs.split import Side, function_on_side
from .shards import ShardWriter, read_shards

TRACE_LIMITS = TraceLimits(max_events=2_000, max_seconds=2.0)
CHUNK = 50  # programs per generator seed
# Sources that make ``count`` programs from a seed and a side of the split alone:
# name -> (seed offset, maker giving the programs and a tally of kept and rejected candidates).
# A new source of that kind is one entry here.
SourceMaker = Callable[[int, int, Side], tuple[list[TrainingProgram], Counter[str]]]
SEEDED_SOURCES: dict[str, tuple[int, SourceMaker]] = {
    "drills": (600_000, drill_programs),
    "everyday": (700_000, lambda seed, count, side: everyday_programs(seed, count)),
}
ORIGINS = ("generated", "package", "repo", "library", *SEEDED_SOURCES)
MIX_CONFIG = Path(__file__).with_name("mix.toml")  # the shares ``ndb data`` uses by default
_PACKAGE_SEED_OFFSET = 500_000  # package chunks draw seeds apart from generated chunks
_LIBRARY_SEED_OFFSET = 900_000
REPO_SPARES = 3  # sampled calls per wanted repo program: many calls run too few lines


def chunk_seed(seed: int, chunk: int) -> int:
    """The generator seed of chunk ``chunk`` of a data run with ``seed``: the same programs for
    the same pair, whatever the number of workers (``stream_overlap`` makes them again)."""
    return seed * 1_000_003 + chunk


def parse_mix(text: str) -> tuple[tuple[str, float], ...]:
    """``"generated=0.7,package=0.1,repo=0.2"`` → shares that sum to 1 (checked)."""
    shares: dict[str, float] = {}
    for part in text.split(","):
        name, _, value = part.partition("=")
        shares[name.strip()] = float(value)
    return checked_mix(shares)


def load_mix(path: Path = MIX_CONFIG) -> tuple[tuple[str, float], ...]:
    """The ``[shares]`` table of a TOML mix file (``training/mix.toml``), checked like
    :func:`parse_mix`."""
    try:
        table = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as err:
        raise ValueError(f"cannot read the mix file {path}: {err}") from err
    shares = table.get("shares")
    if not isinstance(shares, dict) or not shares:
        raise ValueError(f"{path} has no [shares] table")
    if not all(isinstance(v, int | float) for v in shares.values()):
        raise ValueError(f"{path}: every share must be a number")
    return checked_mix({k: float(v) for k, v in shares.items()})


def checked_mix(shares: dict[str, float]) -> tuple[tuple[str, float], ...]:
    """Shares of known origins, none negative, summing to 1, in :data:`ORIGINS` order."""
    for name, value in shares.items():
        if name not in ORIGINS:
            raise ValueError(f"unknown origin {name!r}; choose from {', '.join(ORIGINS)}")
        if value < 0:
            raise ValueError(f"negative share for {name}")
    total = sum(shares.values())
    if abs(total - 1.0) > 1e-6:
        raise ValueError(f"the shares sum to {total:g}, not 1")
    return tuple((name, shares[name]) for name in ORIGINS if name in shares)


@dataclass(frozen=True)
class DataSpec:
    """What to generate: ``programs`` programs from seed ``seed``, trajectories per program."""

    programs: int
    seed: int
    forward_per_program: int = 2
    inverse_per_program: int = 2
    max_states: int = 24
    shard_size: int = 5_000
    mix: tuple[tuple[str, float], ...] = (("generated", 1.0),)
    # which real functions may appear: the training or the held-out side of the function split
    # (:mod:`.programs.split`), or all of them
    functions: Side = "train"

    def counts(self) -> dict[str, int]:
        """Programs per origin; rounding leftovers go to ``generated``."""
        out = {name: round(share * self.programs) for name, share in self.mix}
        out["generated"] = self.programs - sum(v for k, v in out.items() if k != "generated")
        return out


# The Python whose tracing the model's language describes. Training data must all come from
# it: Python 3.12 inlines comprehensions (no ``<listcomp>`` frame) and ships other
# standard-library sources, so its trajectories would teach another language.
DATA_PYTHON = (3, 11)


def python_mismatch() -> str | None:
    """Why this interpreter may not make training data, or None."""
    if sys.version_info[:2] == DATA_PYTHON:
        return None
    want = ".".join(map(str, DATA_PYTHON))
    return (
        f"training data is made with Python {want} (the model's language is its tracing), "
        f"not {platform.python_version()}; on a lent GPU machine training/device_run.sh uses "
        "the Python that `make device-kit` packs"
    )


@dataclass
class DataStats:
    programs: int = 0
    dropped_cruxeval: int = 0
    dropped_benchmarks: Counter = field(default_factory=Counter)  # per benchmark matched
    dropped_seen: int = 0  # programs already in the data given as ``exclude``
    untraceable: int = 0
    plain_names: int = 0  # drills renamed to plain names (training/programs/plain_names.py)
    # candidates that failed a check: repo calls, drills and everyday scripts (redrawn)
    rejected: Counter = field(default_factory=Counter)
    dropped_cruxeval_origins: Counter = field(default_factory=Counter)
    trajectories: int = 0
    characters: int = 0
    states: int = 0
    events: int = 0
    exceptions: int = 0  # exception states shown in trajectories
    directions: Counter = field(default_factory=Counter)
    actions: Counter = field(default_factory=Counter)
    exits: Counter = field(default_factory=Counter)
    origins: Counter = field(default_factory=Counter)
    library_programs: Counter = field(default_factory=Counter)  # kept/rejected, per package
    origin_characters: Counter = field(default_factory=Counter)  # trajectory text per origin

    def add(self, other: DataStats) -> None:
        for name, value in vars(other).items():
            if isinstance(value, Counter):
                getattr(self, name).update(value)
            else:
                setattr(self, name, getattr(self, name) + value)

    def to_json(self) -> dict[str, Any]:
        per = max(self.trajectories, 1)
        return {
            **{k: (dict(v) if isinstance(v, Counter) else v) for k, v in vars(self).items()},
            # each source's share of the trajectory text: the token budget the mix really gives
            "character_shares": {
                k: round(v / max(self.characters, 1), 4) for k, v in self.origin_characters.items()
            },
            "per_trajectory": {
                "states": self.states / per,
                "characters": self.characters / per,
                "exceptions": self.exceptions / per,
                "actions": {k: v / per for k, v in self.actions.items()},
            },
        }


def program_trajectories(
    program: TrainingProgram, index: int, spec: DataSpec, rng: random.Random
) -> tuple[list[dict[str, Any]], int]:
    """Trace one program and sample its trajectories; returns records and its event count."""
    loaded = Program(path=f"program_{index}.py", source=program.source, entry=program.entry)
    trace = record(loaded, TRACE_LIMITS)
    if not trace.events:
        return [], 0
    records = []
    identity = source_hash(program.source)
    forward = StateTree.forward(loaded, trace)
    samples = [(forward, PAPER) for _ in range(spec.forward_per_program)]
    if trace.exit is not ExitKind.NEVER:
        inverse = StateTree.inverse_of(loaded, trace, forward=forward)
        samples += [(inverse, PAPER_INVERSE) for _ in range(spec.inverse_per_program)]
    for tree, policy in samples:
        trajectory = sample(tree, policy, rng, max_states=spec.max_states).trajectory
        records.append(
            {
                "text": encode(trajectory),
                "direction": "inverse" if tree.inverse else "forward",
                "origin": program.origin,
                "program": index,
                "source_hash": identity,
                "states": len(trajectory.states),
                "actions": Counter(a.kind.value for a in trajectory.actions),
                "exceptions": sum(s.kind.value.endswith("exception") for s in trajectory.states),
                "exit": trajectory.states[-1].kind.value,
            }
        )
    return records, len(trace.events)


@functools.cache
def _cruxeval_filter(path: str) -> BenchmarkFilter:
    """One filter per worker process: normalising the benchmarks' functions is done once.
    CruxEval from ``path``, HumanEval and MBPP where available."""
    return BenchmarkFilter.found(path)


def source_hash(source: str) -> str:
    """Identifies a program, so held-out data can leave out every program seen in training."""
    return hashlib.sha1(source.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class Job:
    """One chunk of work: ``count`` programs of one origin (repo: the sampled candidates)."""

    spec: DataSpec
    kind: str  # an entry of ORIGINS
    chunk: int  # the chunk's number within its origin: seeds the generator and the sampler
    first: int  # index of the chunk's first program in the whole data set
    count: int
    cruxeval_path: str | None
    exclude: frozenset[str]
    candidates: tuple[RepoCandidate, ...] = ()


def _programs(job: Job, stats: DataStats) -> list[TrainingProgram]:
    seed = chunk_seed(job.spec.seed, job.chunk)
    if job.kind == "generated":
        return generate_programs(seed, job.count, job.spec.functions)
    if job.kind == "package":
        return package_programs(seed + _PACKAGE_SEED_OFFSET, job.count, job.spec.functions)[0]
    if job.kind == "library":
        programs, tally = library_programs(
            seed + _LIBRARY_SEED_OFFSET, job.count, job.spec.functions
        )
        stats.library_programs.update(tally)
        return programs
    if job.kind in SEEDED_SOURCES:
        offset, make = SEEDED_SOURCES[job.kind]
        programs, tally = make(seed + offset, job.count, job.spec.functions)
        stats.rejected.update({k: v for k, v in tally.items() if not k.startswith("kept")})
        stats.plain_names += tally["kept plain names"]
        return programs
    kept = []
    for candidate in job.candidates:  # spares included: stop once the chunk is full
        if len(kept) == job.count:
            break
        reason = check_candidate(candidate)
        if reason is None:
            kept.append(candidate.program)
        else:
            stats.rejected[reason] += 1
    return kept


# A pool worker's address-space limit. Why: a worker that grows without bound (one program
# or chunk whose values explode) is killed by the kernel, and a multiprocessing pool that loses
# a worker never returns that worker's result: the whole data step would wait forever. Under
# this limit the runaway raises MemoryError inside the worker instead, and is counted.
WORKER_MEMORY_BYTES = 6 * 2**30


def _limit_worker_memory() -> None:
    """Pool initializer: the soft limit only, so the tracer's children may set their own."""
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard == resource.RLIM_INFINITY or hard > WORKER_MEMORY_BYTES:
        resource.setrlimit(resource.RLIMIT_AS, (WORKER_MEMORY_BYTES, hard))


def _work(job: Job) -> tuple[list[dict[str, Any]], DataStats]:
    spec, exclude = job.spec, job.exclude
    stats = DataStats()
    crux = _cruxeval_filter(job.cruxeval_path) if job.cruxeval_path else None
    offset = ORIGINS.index(job.kind) * 7_919
    rng = random.Random(chunk_seed(spec.seed, job.chunk) + offset)
    try:
        programs = _programs(job, stats)
    except MemoryError:
        print(
            f"ndb data: chunk {job.chunk} of {job.kind} ran out of memory; skipped", file=sys.stderr
        )
        stats.rejected[f"{job.kind}: chunk out of memory"] += 1
        return [], stats
    out: list[dict[str, Any]] = []
    for k, program in enumerate(programs):
        benchmark = crux.which(program) if crux is not None else None
        if benchmark is not None:
            stats.dropped_cruxeval += benchmark == "cruxeval"
            stats.dropped_benchmarks[benchmark] += 1
            stats.dropped_cruxeval_origins[program.origin.split(":")[0]] += 1
            continue
        if exclude and source_hash(program.source) in exclude:
            stats.dropped_seen += 1
            continue
        try:
            records, events = program_trajectories(program, job.first + k, spec, rng)
        except (TracerFailure, ValueError, SyntaxError):
            stats.untraceable += 1
            continue
        except MemoryError:
            print(f"ndb data: {program.origin} ran out of memory; skipped", file=sys.stderr)
            stats.untraceable += 1
            continue
        stats.programs += 1
        stats.events += events
        stats.origins[program.origin.split(":")[0]] += 1
        for rec in records:
            stats.trajectories += 1
            stats.characters += len(rec["text"])
            stats.origin_characters[job.kind] += len(rec["text"])
            stats.states += rec["states"]
            stats.exceptions += rec["exceptions"]
            stats.directions[rec["direction"]] += 1
            stats.actions.update(rec["actions"])
            stats.exits[rec["exit"]] += 1
        out.extend(records)
    return out, stats


def generate_data(
    spec: DataSpec,
    out_dir: Path,
    cruxeval_path: str | None,
    workers: int | None = None,
    exclude: Path | None = None,
    eager: bool = False,
) -> DataStats:
    """Generate ``spec`` into ``out_dir`` (shards + stats.json) using ``workers`` processes;
    programs that appear in the shards of ``exclude`` (the training data) are left out.

    ``eager``: for a trainer waiting on the first shard (``ndb train --stream``). Harvesting
    the repository calls takes the main process a minute or more before any program can be
    made; eagerly, the other origins' chunks start at once and the repository chunks join
    as soon as their calls are ready. The same programs are made, but which shard holds
    which depends on timing.
    """
    seen = frozenset(rec["source_hash"] for rec in read_shards(exclude)) if exclude else frozenset()
    out_dir.mkdir(parents=True, exist_ok=True)
    for old in [*out_dir.glob("shard-*.jsonl"), out_dir / "stats.json"]:
        old.unlink(missing_ok=True)
    workers = workers or os.cpu_count() or 1
    counts = spec.counts()
    extra: dict[str, Any] = {
        "mix": dict(spec.mix),
        "requested": counts,
        "functions": spec.functions,
        "python": platform.python_version(),
        "benchmarks": _cruxeval_filter(cruxeval_path).sizes() if cruxeval_path else {},
    }
    if counts.get("library", 0) > 0:
        extra["library"] = library_summary(spec.functions)
    harvesting: Future[tuple[list[RepoCandidate], dict[str, Any]]] | None = None
    slots: threading.Semaphore | None = None
    stop = threading.Event()  # eager jobs: hand out no more (the pool is ending)
    background = ThreadPoolExecutor(1) if eager and counts.get("repo", 0) > 0 else None
    if background is not None:
        harvesting = background.submit(
            _repo_candidates, spec, counts["repo"], cruxeval_path, workers
        )
        slots = threading.Semaphore(2 * workers)  # jobs handed out and not yet taken back
        jobs: Iterable[Job] = _eager_jobs(
            spec, counts, harvesting, cruxeval_path, seen, extra, slots, stop
        )
    else:
        candidates: list[RepoCandidate] = []
        if counts.get("repo", 0) > 0:
            candidates, extra["repo_harvest"] = _repo_candidates(
                spec, counts["repo"], cruxeval_path, workers
            )
        jobs = _jobs(spec, counts, candidates, cruxeval_path, seen)
    total = DataStats()
    writer = ShardWriter(out_dir, spec.shard_size)

    def take(results: Iterator) -> None:
        for records, stats in results:
            if slots is not None:
                slots.release()
            opened = writer.index
            writer.write(records)
            total.add(stats)
            if writer.index > opened:  # a shard was closed: tell a reader that trains on them
                _write_stats(out_dir, total, extra, complete_shards=writer.index - 1)

    def end_jobs() -> None:
        """Let a feeder waiting for a slot see ``stop``: a pool that ends on an error joins
        its feeder thread first."""
        stop.set()
        if slots is not None:
            slots.release()

    try:
        if workers == 1:
            take(map(_work, jobs))
        else:
            with mp.get_context("spawn").Pool(workers, _limit_worker_memory) as pool:
                try:
                    take(pool.imap(_work, jobs))
                finally:
                    end_jobs()
    finally:
        if background is not None:
            background.shutdown(wait=True)
    writer.close()
    _write_stats(out_dir, total, extra, complete_shards=writer.index, complete=True)
    return total


def _write_stats(
    out_dir: Path,
    total: DataStats,
    extra: dict[str, Any],
    complete_shards: int,
    complete: bool = False,
) -> None:
    """``stats.json``, replaced whole (never read half-written). While data is still being
    made it says so (``complete``: false) and how many shards are closed (``complete_shards``:
    shards ``0 .. complete_shards - 1``), so a trainer can take them as they land
    (``ndb train --stream``); its counts then cover every record written so far."""
    record = {**total.to_json(), **extra, "complete": complete, "complete_shards": complete_shards}
    partial = out_dir / "stats.json.part"
    partial.write_text(json.dumps(record, indent=2) + "\n")
    partial.replace(out_dir / "stats.json")


def _jobs(
    spec: DataSpec,
    counts: dict[str, int],
    candidates: list[RepoCandidate],
    cruxeval_path: str | None,
    seen: frozenset[str],
) -> list[Job]:
    """Chunks of every origin, interleaved so shards mix origins and cores stay busy."""
    per_kind: list[list[Job]] = []
    first = 0
    for kind in ORIGINS:
        remaining, chunk, jobs = counts.get(kind, 0), 0, []
        while remaining > 0:
            n = min(CHUNK, remaining)
            part = _repo_part(candidates, chunk, n) if kind == "repo" else ()
            jobs.append(Job(spec, kind, chunk, first, n, cruxeval_path, seen, part))
            first += n
            remaining -= n
            chunk += 1
        per_kind.append(jobs)
    out: list[Job] = []
    longest = max((len(jobs) for jobs in per_kind), default=0)
    for i in range(longest):
        out.extend(jobs[i] for jobs in per_kind if i < len(jobs))
    return out


def _eager_jobs(
    spec: DataSpec,
    counts: dict[str, int],
    harvesting: Future[tuple[list[RepoCandidate], dict[str, Any]]],
    cruxeval_path: str | None,
    seen: frozenset[str],
    extra: dict[str, Any],
    slots: threading.Semaphore,
    stop: threading.Event,
) -> Iterator[Job]:
    """The jobs of :func:`_jobs`, the other origins' first while the repository calls are
    harvested (``harvesting``), then the rest in their usual order with the calls filled in.

    The pool's feeder thread would draw every job at once; ``slots`` (released as results come
    back) keeps only a few in flight, so the usual mix of origins resumes once the harvest is
    done instead of after every other job. It waits on the harvest only when no other job is
    left, and hands out nothing once ``stop`` is set."""
    planned = _jobs(spec, counts, [], cruxeval_path, seen)  # same chunks, no candidates yet
    others = [job for job in planned if job.kind != "repo"]
    given = 0
    while given < len(others):
        slots.acquire()
        if stop.is_set():
            return
        if harvesting.done():
            slots.release()
            break
        yield others[given]
        given += 1
    candidates, extra["repo_harvest"] = harvesting.result()
    started = {id(job) for job in others[:given]}
    for job in planned:
        if job.kind == "repo":
            job = replace(job, candidates=_repo_part(candidates, job.chunk, job.count))
        elif id(job) in started:
            continue
        slots.acquire()
        if stop.is_set():
            return
        yield job


def _repo_part(candidates: list[RepoCandidate], chunk: int, count: int) -> tuple:
    """The sampled calls of one repository chunk: ``count`` programs' worth, spares included."""
    start = chunk * CHUNK * REPO_SPARES
    return tuple(candidates[start : start + count * REPO_SPARES])


def _repo_candidates(
    spec: DataSpec, count: int, cruxeval_path: str | None, workers: int
) -> tuple[list[RepoCandidate], dict[str, Any]]:
    """Run every test suite under the trace hook (one process per suite) and sample calls."""
    indices = list(range(len(SUITES)))
    if workers == 1:
        harvests = [harvest(i) for i in indices]
    else:
        with mp.get_context("spawn").Pool(workers) as pool:
            harvests = pool.map(harvest, indices, chunksize=1)
    crux = _cruxeval_filter(cruxeval_path) if cruxeval_path else None
    repo_pool = pool_on_side(build_pool(harvests, crux), spec.functions)
    summary: dict[str, Any] = dict(repo_pool.counts)
    summary["suites"] = {h.suite.test + ":" + h.suite.module: len(h.tests) for h in harvests}
    return sample_candidates(repo_pool, spec.seed, count * REPO_SPARES), summary


def pool_on_side(pool: RepoPool, side: Side) -> RepoPool:
    """The pool with only the calls of functions on ``side`` of the function split."""
    tests = []
    for test_id, suite, calls in pool.tests:
        kept = [c for c in calls if function_on_side(f"{suite.module}.{c.function}", side)]
        if kept:
            tests.append((test_id, suite, kept))
    functions = {f for f in pool.functions if function_on_side(f, side)}
    counts = pool.counts.copy()
    counts[f"functions on the {side} side"] = len(functions)
    return RepoPool(tests, counts, functions)
