"""Training programs for the neural debugger: generated code and real standard-library code.

Why: the model learns execution from traces of programs, so the programs decide what it can
learn. :func:`generate_programs` mixes three sources, each program checked by running it
under the project's tracer before it is kept:

* about 70% generated functions (``entry`` is a call such as ``count_words("a b")``),
* about 15% generated scripts (module-level code run as ``__main__``, ``entry`` is None),
* about 15% real pure-Python standard-library functions called with generated inputs.

More sources are mixed in by ``ndb data`` (see :mod:`..data` and ``training/mix.toml``):
:func:`package_programs` (functions of installed pure-Python packages, :mod:`.packages`),
repository-level programs sampled from test-suite runs (:mod:`.repo_tests`), builtin drills
(:mod:`.drills`) and everyday scripts (:mod:`.everyday`).

About 5% of the generated programs are meant to end with an uncaught exception; every other
program ends normally. Everything is deterministic in ``(seed, count)``: all randomness comes
from one ``random.Random(seed)``, so seed ranges can separate training from held-out data.
CruxEval (evaluation data) is never read here; ``cruxeval_filter`` drops any program that
contains a CruxEval function.
"""

from __future__ import annotations

import random
from collections import Counter

from .base import TrainingProgram
from .generator import generate_candidate
from .packages import catalog as package_catalog
from .split import Side, on_side
from .stdlib import StdlibFunction, catalog
from .validate import check_program

__all__ = ["TrainingProgram", "generate_programs", "package_programs"]

FUNCTION_SHARE = 0.70
SCRIPT_SHARE = 0.15  # the rest (about 15%) is standard-library code
ERROR_SHARE = 0.06  # of generated programs: meant to end with an uncaught exception
MAX_ATTEMPTS = 200


def generate_programs(seed: int, count: int, side: Side = "all") -> list[TrainingProgram]:
    """``count`` validated training programs, the same ones for the same ``(seed, count)``;
    ``side``: which standard-library functions may appear (see :mod:`.split`)."""
    return generate_with_stats(seed, count, side)[0]


def generate_with_stats(
    seed: int, count: int, side: Side = "all"
) -> tuple[list[TrainingProgram], Counter[str]]:
    """The programs and a tally of what was generated and why candidates were rejected."""
    rng = random.Random(seed)
    stats: Counter[str] = Counter()
    functions = functions_on_side(catalog(), side)
    programs = []
    for _ in range(count):
        r = rng.random()
        if r < FUNCTION_SHARE:
            program = _generated(rng, "function", stats)
        elif r < FUNCTION_SHARE + SCRIPT_SHARE:
            program = _generated(rng, "script", stats)
        else:
            program = _stdlib(rng, stats, functions)
        programs.append(program)
    return programs, stats


def _generated(rng: random.Random, kind: str, stats: Counter[str]) -> TrainingProgram:
    expect_error = rng.random() < ERROR_SHARE
    for _ in range(MAX_ATTEMPTS):
        try:
            candidate = generate_candidate(rng, kind, expect_error)
        except Exception as exc:  # a generator bug: count it and draw again
            stats[f"generator failed: {type(exc).__name__}"] += 1
            continue
        verdict = check_program(candidate.source, candidate.entry, expect_error=expect_error)
        if verdict.ok:
            stats[f"kept {kind}" + (" (error exit)" if expect_error else "")] += 1
            return TrainingProgram(candidate.source, candidate.entry, f"generated:{kind}")
        stats[f"rejected: {verdict.reason.split(':')[0]}"] += 1
    raise RuntimeError(f"no valid {kind} program after {MAX_ATTEMPTS} candidates")


def package_programs(
    seed: int, count: int, side: Side = "all"
) -> tuple[list[TrainingProgram], Counter[str]]:
    """``count`` programs from installed pure-Python packages (:mod:`.packages`), deterministic
    in ``(seed, count)``, with a tally of kept and rejected candidates; ``side``: which
    functions may appear (see :mod:`.split`)."""
    rng = random.Random(seed)
    stats: Counter[str] = Counter()
    functions = functions_on_side(package_catalog(), side)
    return [_stdlib(rng, stats, functions, "package") for _ in range(count)], stats


def functions_on_side(
    functions: tuple[StdlibFunction, ...], side: Side
) -> tuple[StdlibFunction, ...]:
    """The catalog entries that belong to ``side`` of the function split."""
    kept = tuple(f for f in functions if on_side(f.spec.origin, side))
    if not kept:
        raise ValueError(f"no catalog function falls on the {side!r} side of the split")
    return kept


def _stdlib(
    rng: random.Random,
    stats: Counter[str],
    functions: tuple[StdlibFunction, ...],
    kind: str = "stdlib",
) -> TrainingProgram:
    for _ in range(MAX_ATTEMPTS):
        function = rng.choice(functions)
        entry = function.entry(rng)
        verdict = check_program(function.source, entry)
        if verdict.ok:
            stats[f"kept {kind}"] += 1
            return TrainingProgram(function.source, entry, function.spec.origin)
        stats[f"rejected {kind}: {verdict.reason.split(':')[0]}"] += 1
    raise RuntimeError(f"no valid {kind} program after {MAX_ATTEMPTS} tries")
