"""The ``library`` source: real library functions called as their authors and hypothesis call them.

Why: the model has to know what real Python code does (``str.count``, slicing, tuple unpacking,
``heapq`` invariants, ``more_itertools`` recipes), not what the program generator writes. Each
program here is one public function of a pinned pure-Python package or standard-library module
(:data:`.library_harvest.LIBRARIES`; the packages are pinned in the project's ``data`` extra),
copied with every helper it calls so the trace goes frame by frame into the library's own
helpers, and entered with

* a call from its doctests, as written by the library's authors (about half the programs), or
* arguments drawn by hypothesis from the function's argument shapes: the shapes of a doctest
  call's literals, else its annotations, else its parameter names (:mod:`.library_shapes`).
  The draw is seeded from the program's random stream, so programs are deterministic in
  ``(seed, count)``.

Every program is traced by :func:`.validate.check_program` before it is kept (5 to 400 lines,
bounded events, time and values). A call that runs too few lines (a one-line function) is
tried again mapped over up to three argument sets (``list(map(f, [a1, a2], [b1, b2]))``). A call
that ends in an exception is kept when a doctest shows that exception, and otherwise only now
and then (:data:`ERROR_SHARE`): real code raises, but most of a drawn argument's errors are
one-line type errors.

A package is drawn with a weight of the square root of its function count, then one of its
functions: pydash's hundred functions would otherwise crowd out ``textwrap``, and a module of
two functions would otherwise repeat them over and over.

Held out: whole packages (:data:`.split.HELDOUT_PACKAGES`, never trained on) and, within the
other packages, the usual share of functions by name hash (:mod:`.split`).
"""

from __future__ import annotations

import ast
import functools
import importlib.metadata as metadata
import math
import random
from collections import Counter
from typing import Any

from .base import TrainingProgram
from .library_harvest import LIBRARIES, LibraryFunction, LibraryHarvest, harvest_libraries
from .library_shapes import draw
from .split import HELDOUT_PACKAGES, Side, function_of, on_side
from .validate import MIN_LINES, check_program

__all__ = ["library_harvest", "library_programs", "library_summary"]

FUZZ_SHARE = 0.5  # programs whose arguments hypothesis draws; the rest are doctest calls
DRAWS = 6  # arguments hypothesis draws per try
ERROR_SHARE = 0.25  # of drawn calls that end in an exception: kept with this chance
MAX_ATTEMPTS = 60
MAX_CALLS_PER_ENTRY = 3


@functools.cache
def library_harvest(packages: tuple[str, ...] | None = None) -> LibraryHarvest:
    """The harvest of ``packages`` (all libraries by default), once per process."""
    return harvest_libraries(packages)


def package_of(origin: str) -> str:
    """The library a ``library:module.function`` origin belongs to (its top-level name)."""
    function = function_of(origin)
    if function is None:
        raise ValueError(f"{origin!r} is not a real-code origin")
    return function.split(".")[0]


def functions_on_side(harvest: LibraryHarvest, side: Side) -> list[LibraryFunction]:
    return [f for f in harvest.functions if on_side(f.origin, side)]


def library_programs(
    seed: int, count: int, side: Side = "all", packages: tuple[str, ...] | None = None
) -> tuple[list[TrainingProgram], Counter[str]]:
    """``count`` library programs, the same ones for the same ``(seed, count)``, with a tally of
    how they were made (``kept doctest``, ``kept fuzz``, ``package NAME``, ``rejected ...``)."""
    functions = functions_on_side(library_harvest(packages), side)
    if not functions:
        raise ValueError(f"no library function falls on the {side!r} side of the split")
    rng = random.Random(seed)
    stats: Counter[str] = Counter()
    return [_program(rng, functions, stats) for _ in range(count)], stats


def _program(
    rng: random.Random, functions: list[LibraryFunction], stats: Counter[str]
) -> TrainingProgram:
    by_package: dict[str, list[LibraryFunction]] = {}
    for f in functions:
        by_package.setdefault(f.package, []).append(f)
    packages = sorted(by_package)
    weights = [math.sqrt(len(by_package[p])) for p in packages]
    for _ in range(MAX_ATTEMPTS):
        package = rng.choices(packages, weights)[0]
        function = rng.choice(by_package[package])
        if function.templates and rng.random() < FUZZ_SHARE:
            how = "fuzz"
            template = rng.choice(function.templates)
            drawn = draw(template.items, rng.getrandbits(32), DRAWS)
            if not drawn:
                stats["rejected fuzz: nothing drawn"] += 1
                continue
            rng.shuffle(drawn)
            calls = [(args, template.wrap) for args in drawn]
            raises = False
        else:
            how = "doctest" if _from_doctest(function) else "checked"
            chosen = rng.sample(function.calls, len(function.calls))
            raises = chosen[0].raises
            calls = [(c.args, c.wrap) for c in chosen if not c.raises or c is chosen[0]]
        entry = _call(function.name, *calls[0])
        verdict = check_program(function.source, entry, expect_error=raises)
        several = _mapped(function.name, calls[:MAX_CALLS_PER_ENTRY])
        if not verdict.ok and _too_short(verdict.reason) and several and not raises:
            # a one-line function: mapped over a few arguments, as the stdlib source does
            entry, how = several, how + " (mapped)"
            verdict = check_program(function.source, entry)
        if (
            not verdict.ok
            and not raises
            and verdict.reason.startswith("exit error")
            and rng.random() < ERROR_SHARE
        ):
            verdict = check_program(function.source, entry, expect_error=True)
            raises = verdict.ok
        if verdict.ok:
            stats[f"kept {how}" + (" (error exit)" if raises else "")] += 1
            stats[f"package {function.package}"] += 1
            return TrainingProgram(function.source, entry, function.origin)
        stats[f"rejected {how}: {verdict.reason.split(':')[0]}"] += 1
    raise RuntimeError(f"no valid library program after {MAX_ATTEMPTS} tries")


def _call(name: str, args: list[str], wrap: str) -> str:
    call = f"{name}({', '.join(args)})"
    return f"{wrap}({call})" if wrap else call


def _mapped(name: str, calls: list[tuple[list[str], str]]) -> str | None:
    """``list(map(name, [a1, a2], [b1, b2]))`` for several calls of one function with the same
    number of positional arguments and no keywords or iterators, else None."""
    if len(calls) < 2 or any(wrap for _, wrap in calls):
        return None
    arities = {len(args) for args, _ in calls}
    if len(arities) != 1 or 0 in arities:
        return None
    if any(_keyword(a) for args, _ in calls for a in args):
        return None
    columns = zip(*(args for args, _ in calls), strict=True)
    return f"list(map({name}, {', '.join('[' + ', '.join(c) + ']' for c in columns)}))"


def _keyword(arg: str) -> bool:
    try:
        return bool(ast.parse(f"f({arg})", mode="eval").body.keywords)  # type: ignore[attr-defined]
    except SyntaxError:
        return True


def _too_short(reason: str) -> bool:
    """Whether a verdict rejected the run for running fewer lines than a program needs."""
    head = reason.split()
    return len(head) == 3 and head[0].isdigit() and int(head[0]) < MIN_LINES


def _from_doctest(function: LibraryFunction) -> bool:
    """Whether the function's fixed calls were written in its doctests (else: drawn and
    checked against the library at harvest time)."""
    return any(t.source == "doctest" for t in function.templates)


def library_summary(side: Side, packages: tuple[str, ...] | None = None) -> dict[str, Any]:
    """What ``stats.json`` records of the library source: versions, held-out packages, and
    functions per package on ``side`` (held-out packages listed apart), and why the others
    were left out."""
    harvest = library_harvest(packages)
    on = functions_on_side(harvest, side)
    per: Counter[str] = Counter(f.package for f in on)
    heldout = {p: per[p] for p in sorted(per) if p in HELDOUT_PACKAGES}
    return {
        "versions": harvest.versions,
        "hypothesis": metadata.version("hypothesis"),  # draws the fuzzed arguments
        "heldout_packages": sorted(p for p in HELDOUT_PACKAGES if p in LIBRARIES),
        "functions": {p: per[p] for p in sorted(per) if p not in HELDOUT_PACKAGES},
        "functions_heldout_packages": heldout,
        "functions_harvested": len(harvest.functions),
        "functions_on_side": len(on),
        "doctest_calls": sum(len(f.calls) for f in on if _from_doctest(f)),
        "left_out": dict(harvest.counts),
    }
