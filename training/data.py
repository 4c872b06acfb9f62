"""Trajectory data: programs → real traces → sampled trajectories in the language → shards.

Work is split into chunks of programs, one generator seed per chunk, and spread over every core
with a process pool. Each program is filtered against CruxEval (dropped when any of its functions
matches one after normalisation), traced in the worker's own process (generated programs are
known to terminate; the tracer's event and time limits still apply), and sampled with the
paper's policy: forward trajectories from the start, inverse ones from the entry function's
return, mixed equally as in the paper. Shards are JSON lines, one trajectory each, with a
``stats.json`` beside them.
"""

from __future__ import annotations

import functools
import hashlib
import json
import multiprocessing as mp
import os
import random
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from neural_debugger.protocol.encoding import encode
from neural_debugger.tracer.events import ExitKind, TraceLimits
from neural_debugger.tracer.program import Program
from neural_debugger.tracer.record import TracerFailure, record
from neural_debugger.tracer.sampler import PAPER, PAPER_INVERSE, sample
from neural_debugger.tracer.tree import StateTree

from .programs import TrainingProgram, generate_programs
from .programs.cruxeval_filter import CruxEvalFilter
from .shards import ShardWriter, read_shards

TRACE_LIMITS = TraceLimits(max_events=2_000, max_seconds=2.0)
CHUNK = 50  # programs per generator seed


@dataclass(frozen=True)
class DataSpec:
    """What to generate: ``programs`` programs from seed ``seed``, trajectories per program."""

    programs: int
    seed: int
    forward_per_program: int = 2
    inverse_per_program: int = 2
    max_states: int = 24
    shard_size: int = 5_000


@dataclass
class DataStats:
    programs: int = 0
    dropped_cruxeval: int = 0
    dropped_seen: int = 0  # programs already in the data given as ``exclude``
    untraceable: int = 0
    trajectories: int = 0
    characters: int = 0
    states: int = 0
    events: int = 0
    exceptions: int = 0  # exception states shown in trajectories
    directions: Counter = field(default_factory=Counter)
    actions: Counter = field(default_factory=Counter)
    exits: Counter = field(default_factory=Counter)
    origins: Counter = field(default_factory=Counter)

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
def _cruxeval_filter(path: str) -> CruxEvalFilter:
    """One filter per worker process: normalising CruxEval's functions is done once."""
    return CruxEvalFilter(path)


def source_hash(source: str) -> str:
    """Identifies a program, so held-out data can leave out every program seen in training."""
    return hashlib.sha1(source.encode("utf-8")).hexdigest()


Job = tuple[DataSpec, int, int, str | None, frozenset[str]]


def _work(job: Job) -> tuple[list[dict[str, Any]], DataStats]:
    spec, chunk, count, cruxeval_path, exclude = job
    stats = DataStats()
    crux = _cruxeval_filter(cruxeval_path) if cruxeval_path else None
    rng = random.Random(spec.seed * 1_000_003 + chunk)
    programs = generate_programs(spec.seed * 1_000_003 + chunk, count)
    out: list[dict[str, Any]] = []
    for k, program in enumerate(programs):
        if crux is not None and crux.matches(program):
            stats.dropped_cruxeval += 1
            continue
        if exclude and source_hash(program.source) in exclude:
            stats.dropped_seen += 1
            continue
        try:
            records, events = program_trajectories(program, chunk * CHUNK + k, spec, rng)
        except (TracerFailure, ValueError, SyntaxError):
            stats.untraceable += 1
            continue
        stats.programs += 1
        stats.events += events
        stats.origins[program.origin.split(":")[0]] += 1
        for rec in records:
            stats.trajectories += 1
            stats.characters += len(rec["text"])
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
) -> DataStats:
    """Generate ``spec`` into ``out_dir`` (shards + stats.json) using ``workers`` processes;
    programs that appear in the shards of ``exclude`` (the training data) are left out."""
    seen = frozenset(rec["source_hash"] for rec in read_shards(exclude)) if exclude else frozenset()
    out_dir.mkdir(parents=True, exist_ok=True)
    for old in out_dir.glob("shard-*.jsonl"):
        old.unlink()
    jobs = []
    remaining, chunk = spec.programs, 0
    while remaining > 0:
        jobs.append((spec, chunk, min(CHUNK, remaining), cruxeval_path, seen))
        remaining -= CHUNK
        chunk += 1
    workers = workers or os.cpu_count() or 1
    total = DataStats()
    writer = ShardWriter(out_dir, spec.shard_size)
    if workers == 1:
        results: Iterator = map(_work, jobs)
        for records, stats in results:
            writer.write(records)
            total.add(stats)
    else:
        with mp.get_context("spawn").Pool(workers) as pool:
            for records, stats in pool.imap(_work, jobs):
                writer.write(records)
                total.add(stats)
    writer.close()
    (out_dir / "stats.json").write_text(json.dumps(total.to_json(), indent=2) + "\n")
    return total
