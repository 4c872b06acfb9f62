"""Real code sources: installed packages with generated inputs, and calls sampled from test runs."""

from __future__ import annotations

import json
import threading
from collections import Counter
from concurrent.futures import Future
from pathlib import Path

import pytest

from neural_debugger.protocol import parse_trajectory
from neural_debugger.tracer.events import ExitKind
from neural_debugger.tracer.program import load_program
from neural_debugger.tracer.record import record
from neural_debugger.training.data import (
    CHUNK,
    REPO_SPARES,
    DataSpec,
    Job,
    _eager_jobs,
    _jobs,
    _work,
    parse_mix,
)
from neural_debugger.training.programs import package_programs
from neural_debugger.training.programs.cruxeval_filter import CruxEvalFilter
from neural_debugger.training.programs.packages import ALLOWED, catalog
from neural_debugger.training.programs.repo_tests import (
    SUITES,
    TEMPORARY_NAMES,
    Harvest,
    RepoCandidate,
    _child_env,
    _literal_of,
    assembled,
    build_pool,
    check_candidate,
    harvest,
    impurity,
    sample_candidates,
)
from neural_debugger.training.programs.validate import RECORD_LIMITS as LIMITS

BISECT = next(i for i, s in enumerate(SUITES) if s.module == "bisect")


@pytest.fixture(scope="module")
def bisect_harvest() -> Harvest:
    return harvest(BISECT)


# ---------------------------------------------------------------------- installed packages


def test_package_catalog_is_real_allow_listed_and_runs() -> None:
    functions = catalog()
    assert len(functions) >= 30
    packages = {f.spec.module.split(".")[0] for f in functions}
    assert len(packages) >= 8 and packages <= set(ALLOWED)
    assert all(ALLOWED[p] for p in packages)  # every package says why it is safe
    for function in functions:
        assert function.spec.origin.startswith("package:")
        assert f"def {function.spec.name}(" in function.source
        assert impurity(function.source) is None, function.spec.origin


def test_package_programs_are_deterministic_and_trace() -> None:
    programs, stats = package_programs(3, 8)
    assert programs == package_programs(3, 8)[0]
    assert stats["kept package"] == 8
    for program in programs:
        assert program.origin.startswith("package:") and program.entry is not None
        assert program.origin.rsplit(".", 1)[-1] in program.entry
        loaded = load_program("program.py", entry=program.entry, source=program.source)
        trace = record(loaded, LIMITS)
        assert trace.exit is ExitKind.NORMAL
        assert sum(ev.kind == "line" for ev in trace.events) >= 5


# ---------------------------------------------------------------------- test suites


def test_literals_round_trip_or_are_refused() -> None:
    assert _literal_of([1, (2, "a"), {"k": b"x"}]) == "[1, (2, 'a'), {'k': b'x'}]"
    assert _literal_of(float("nan")) is None  # no literal evaluates to it
    assert _literal_of(object()) is None
    assert _literal_of("x" * 10_000) is None  # too long for an entry


def test_impurity_spots_the_os_the_clock_and_addresses() -> None:
    assert impurity("import os\ndef f(p):\n    return os.lstat(p)\n") == "uses os.lstat"
    assert impurity("import time\ndef f():\n    return 1\n") == "imports time"
    assert impurity("def f(x):\n    return id(x)\n") == "uses id"
    assert impurity("import os\ndef f(p):\n    return os.fspath(p) + os.sep\n") is None
    normpath = assembled("posixpath", "normpath")
    assert normpath is not None and impurity(normpath) is None
    islink = assembled("posixpath", "islink")
    assert islink is not None and impurity(islink) is not None


def test_harvest_child_keeps_the_import_path_and_drops_start_up_switches(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # where the project is installed with `pip --target` (a lent GPU machine), the harvest
    # child finds it only through PYTHONPATH; a startup file or hash seed must not leak in
    monkeypatch.setenv("PYTHONPATH", "/opt/site")
    monkeypatch.setenv("PYTHONSTARTUP", "/tmp/startup.py")
    monkeypatch.setenv("PYTHONHASHSEED", "random")
    env = _child_env()
    assert env["PYTHONPATH"] == "/opt/site"
    assert "PYTHONSTARTUP" not in env and env["PYTHONHASHSEED"] == "0"


@pytest.mark.parametrize("module", ["posixpath", "glob"])
def test_harvest_leaves_out_calls_naming_its_own_temporary_files(module: str) -> None:
    # CPython's path and glob tests pass their temporary folder and `@test_PID_tmp` files
    # around; those names are random per run, so such calls are dropped and the harvest of
    # the suite is the same in two runs
    index = next(i for i, s in enumerate(SUITES) if s.module == module)
    first, second = harvest(index), harvest(index)
    assert first.counts[TEMPORARY_NAMES] > 100
    assert first.tests == second.tests
    calls = [c for calls in first.tests.values() for c in calls]
    assert len(calls) > 100
    shown = "".join(c.entry + c.state + c.exit + "".join(c.locals.values()) for c in calls)
    assert "ndb-harvest-" not in shown and "@test_" not in shown


def test_harvest_is_deterministic_and_sees_real_calls(bisect_harvest: Harvest) -> None:
    again = harvest(BISECT)
    assert again.tests == bisect_harvest.tests
    assert bisect_harvest.counts["tests run"] >= 20
    calls = [c for calls in bisect_harvest.tests.values() for c in calls]
    assert len(calls) >= 100
    assert {c.function for c in calls} >= {"bisect_left", "bisect_right", "insort_right"}
    for call in calls[:50]:
        assert call.entry.startswith(call.function + "(")
        assert call.depth > 5  # under unittest's and the test's own frames


def test_sampled_calls_happen_in_their_test_and_reproduce_its_state(
    bisect_harvest: Harvest,
) -> None:
    pool = build_pool([bisect_harvest], None)
    candidates = sample_candidates(pool, 0, 12)
    assert candidates == sample_candidates(pool, 0, 12)
    assert candidates != sample_candidates(pool, 1, 12)
    kept: list[RepoCandidate] = []
    for candidate in candidates:
        _, test_id, function = candidate.program.origin.split(":")
        harvested = bisect_harvest.tests["test." + test_id]
        assert any(c.entry == candidate.program.entry for c in harvested)  # it really happened
        assert function == f"bisect.{candidate.function}"
        if check_candidate(candidate) is None:
            kept.append(candidate)
            program = candidate.program
            trace = record(load_program("p.py", entry=program.entry, source=program.source))
            first = next(ev for ev in trace.events if ev.depth == 1)
            assert first.kind == "call" and first.locals == candidate.locals
    assert len(kept) >= 3
    good = kept[0]
    tampered = RepoCandidate(good.program, good.function, {"a": "'not it'"}, good.depth)
    assert check_candidate(tampered) == "call state differs from the test run"


def test_cruxeval_matching_functions_are_dropped(bisect_harvest: Harvest, tmp_path: Path) -> None:
    source = assembled("bisect", "bisect_left")
    assert source is not None
    fake = tmp_path / "crux.jsonl"
    body = source[source.index("def bisect_left(") :]
    renamed = "# from elsewhere\n" + body.replace("def bisect_left(", "def g(", 1)
    fake.write_text(json.dumps({"code": renamed}) + "\n")
    pool = build_pool([bisect_harvest], CruxEvalFilter(fake))
    # bisect_left, and insort_left whose program carries bisect_left as its helper
    assert pool.counts["functions dropped as CruxEval matches"] == 2
    assert not pool.functions & {"bisect.bisect_left", "bisect.insort_left"}
    assert all(c.function != "bisect_left" for _, _, calls in pool.tests for c in calls)
    assert "bisect.bisect_right" in pool.functions


# ---------------------------------------------------------------------- the data pipeline


def test_mix_parsing_and_counts() -> None:
    mix = parse_mix("generated=0.7,package=0.1,repo=0.2")
    spec = DataSpec(programs=101, seed=0, mix=mix)
    assert spec.counts() == {"generated": 71, "package": 10, "repo": 20}
    with pytest.raises(ValueError):
        parse_mix("generated=0.5,repo=0.2")
    with pytest.raises(ValueError):
        parse_mix("generated=0.5,other=0.5")
    jobs = _jobs(spec, spec.counts(), [], None, frozenset())
    assert Counter(j.kind for j in jobs) == {"generated": 2, "package": 1, "repo": 1}
    assert DataSpec(programs=10, seed=0).counts() == {"generated": 10}  # the old default
    firsts = sorted(j.first for j in jobs)
    assert firsts == sorted(set(firsts))  # program indices never collide


def test_repo_job_writes_parseable_trajectories(bisect_harvest: Harvest) -> None:
    pool = build_pool([bisect_harvest], None)
    spec = DataSpec(programs=4, seed=0, max_states=10)
    candidates = tuple(sample_candidates(pool, 0, 12))
    job = Job(spec, "repo", 0, 0, 4, None, frozenset(), candidates)
    records, stats = _work(job)
    assert (records, stats.to_json()) == (lambda r: (r[0], r[1].to_json()))(_work(job))
    assert stats.origins["repo"] == stats.programs >= 1
    assert stats.programs + sum(stats.rejected.values()) <= len(candidates)
    for rec in records:
        assert rec["origin"].startswith("repo:test_bisect.")
        assert parse_trajectory(rec["text"]).complete


def test_eager_jobs_start_without_the_harvest_and_are_the_same_jobs(
    bisect_harvest: Harvest,
) -> None:
    spec = DataSpec(programs=20 * CHUNK, seed=4, mix=parse_mix("generated=0.5,repo=0.5"))
    counts = spec.counts()
    candidates = sample_candidates(build_pool([bisect_harvest], None), 4, counts["repo"] * 3)
    usual = _jobs(spec, counts, candidates, None, frozenset())
    harvesting: Future = Future()
    slots = threading.Semaphore(3)
    extra: dict = {}
    stop = threading.Event()
    eager = _eager_jobs(spec, counts, harvesting, None, frozenset(), extra, slots, stop)
    early = [next(eager) for _ in range(3)]  # three slots: three jobs before any result is back
    assert [job.kind for job in early] == ["generated"] * 3  # no harvest needed for these
    grabbed: list[Job] = []
    feeder = threading.Thread(target=lambda: grabbed.append(next(eager)))
    feeder.start()
    feeder.join(0.5)
    assert feeder.is_alive() and not grabbed  # a fourth job waits for a result to come back
    slots.release()
    feeder.join(5)
    assert grabbed[0].kind == "generated"
    harvesting.set_result((candidates, {"suites": 1}))
    for _ in range(4):  # the four jobs out so far come back
        slots.release()
    rest = []
    for job in eager:
        rest.append(job)
        slots.release()
    assert extra["repo_harvest"] == {"suites": 1}
    eager_jobs = early + grabbed + rest
    key = lambda job: (job.kind, job.chunk, job.first, job.count, job.candidates)  # noqa: E731
    assert sorted(map(key, eager_jobs)) == sorted(map(key, usual))  # the same programs made
    assert len(next(j for j in rest if j.kind == "repo").candidates) == REPO_SPARES * CHUNK
    # once the calls are in, the origins interleave again instead of repo coming last
    kinds = [job.kind for job in rest]
    assert kinds.index("repo") < len(kinds) // 2


def test_eager_jobs_stop_handing_out_work_when_told() -> None:
    spec = DataSpec(programs=10 * CHUNK, seed=4, mix=parse_mix("generated=0.5,repo=0.5"))
    slots, stop = threading.Semaphore(1), threading.Event()
    eager = _eager_jobs(spec, spec.counts(), Future(), None, frozenset(), {}, slots, stop)
    assert next(eager).kind == "generated"
    stop.set()  # the pool is ending on an error; its feeder waits for a slot
    slots.release()
    assert list(eager) == []  # the feeder returns instead of waiting on the harvest
