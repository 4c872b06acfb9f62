"""Benchmark: how fast the real tracer records, against plain execution of the same programs.

Three measurements in one run, so their ratios are comparable:

* corpus, in process: the 240 corpus programs run plainly and under :func:`tracer.record.record`
  (the path used for data generation); events per second and the slowdown;
* a steady loop: one longer program (insertion sort of 150 numbers), plain against traced, where
  tracing cost per event dominates;
* subprocess: :func:`tracer.run.trace` on a sample of corpus programs, the isolated path used by
  the CLI and the oracle backend, which adds interpreter start-up.

``python -m neural_debugger.evaluation.bench_tracer`` prints a table and writes
``evaluation/results/tracer_bench.json``.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import platform
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from neural_debugger.tracer.events import TraceLimits
from neural_debugger.tracer.program import ENTRY_FILE, Program, load_program
from neural_debugger.tracer.record import record
from neural_debugger.tracer.run import trace

from .corpus import corpus
from .runs import RESULTS

SORT_PROGRAM = """\
def insertion_sort(xs):
    out = list(xs)
    for i in range(1, len(out)):
        key = out[i]
        j = i - 1
        while j >= 0 and out[j] > key:
            out[j + 1] = out[j]
            j -= 1
        out[j + 1] = key
    return out


data = [(i * 7919) % 1000 for i in range(150)]
result = insertion_sort(data)
"""


def _plain_runner(program: Program) -> Callable[[], None]:
    code = compile(program.source, program.path, "exec")
    wrapper = compile(program.wrapper, ENTRY_FILE, "exec") if program.wrapper else None

    def run() -> None:
        module_globals: dict[str, Any] = {
            "__name__": program.module_name,
            "__builtins__": __builtins__,
        }
        with contextlib.suppress(BaseException):
            exec(code, module_globals)
            if wrapper is not None:
                namespace = dict(module_globals)
                exec(wrapper, namespace)
                namespace[program.wrapper_name]()

    return run


def _best_of(fn: Callable[[], object], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def bench_in_process(programs: list[Program], repeats: int) -> dict[str, Any]:
    plain = traced = 0.0
    events = 0
    sink = io.StringIO()
    limits = TraceLimits(max_events=100_000, max_seconds=60.0)
    for program in programs:
        runner = _plain_runner(program)
        with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
            plain += _best_of(runner, repeats)
        traced += _best_of(lambda p=program: record(p, limits), repeats)
        events += len(record(program, limits).events)
    return {
        "programs": len(programs),
        "events": events,
        "plain_s": plain,
        "traced_s": traced,
        "slowdown": traced / plain,
        "events_per_s": events / traced,
    }


def bench_subprocess(programs: list[Program]) -> dict[str, Any]:
    times = []
    events = 0
    for program in programs:
        start = time.perf_counter()
        result = trace(program)
        times.append(time.perf_counter() - start)
        events += len(result.events)
    return {
        "programs": len(programs),
        "events": events,
        "median_s_per_program": statistics.median(times),
        "total_s": sum(times),
        "events_per_s": events / sum(times),
    }


def run(repeats: int = 3, subprocess_sample: int = 20) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="ndb-bench-") as tmp:
        folder = Path(tmp)
        programs = []
        for item in corpus(240):
            path = folder / f"{item.name}.py"
            path.write_text(item.source, encoding="utf-8")
            programs.append(load_program(path, item.entry))
        sort_path = folder / "insertion_sort.py"
        sort_path.write_text(SORT_PROGRAM, encoding="utf-8")
        sort_program = load_program(sort_path)
        return {
            "machine": f"{platform.machine()}, {platform.python_implementation()} "
            f"{platform.python_version()}",
            "corpus_in_process": bench_in_process(programs, repeats),
            "steady_loop_in_process": bench_in_process([sort_program], repeats),
            "corpus_subprocess": bench_subprocess(programs[:subprocess_sample]),
        }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Benchmark the tracer against plain execution.")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--out", default=str(RESULTS / "tracer_bench.json"))
    args = parser.parse_args(argv)
    results = run(args.repeats)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    print(f"machine: {results['machine']}")
    for name in ("corpus_in_process", "steady_loop_in_process"):
        r = results[name]
        print(
            f"{name:24s} {r['events']:7d} events  plain {r['plain_s'] * 1e3:8.1f} ms  "
            f"traced {r['traced_s'] * 1e3:8.1f} ms  slowdown {r['slowdown']:6.1f}x  "
            f"{r['events_per_s']:9.0f} events/s"
        )
    r = results["corpus_subprocess"]
    print(
        f"{'corpus_subprocess':24s} {r['events']:7d} events  median "
        f"{r['median_s_per_program'] * 1e3:.0f} ms per program  {r['events_per_s']:.0f} events/s"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
