"""Repository-level traces: real test suites run under a tracer, one sampled call made the entry.

Why: the paper trains on repository test runs as well as on single functions, with the entry of
a trajectory being one call sampled from the calls that happen on the stack while a test runs.
The inputs a test suite passes are written by the module's own authors to hit edge cases (empty
sequences, separators at the ends, Windows drive letters, NaN-free floats, ...), which neither
the program generator nor the hand-written argument generators of :mod:`.stdlib` produce.

How: each test module of CPython's ``test`` package listed in :data:`SUITES` is run with
``unittest`` in a sandboxed subprocess (no stdin, ``PYTHONHASHSEED=0``, an address-space limit, a
fresh temporary working folder, a hard timeout, ``test.support`` resources switched off and
``random`` reseeded before every test). A ``sys.settrace`` hook sees every call into a top-level
function of the module under test, at any stack depth, and keeps it when its arguments can be
written back as Python literals that compare equal to the originals; with each kept call it
stores the locals exactly as the project's tracer renders them at that call event. A training
program is then one sampled call: the function's source assembled with everything it needs (the
same assembly as :mod:`.stdlib`), entered as ``function(ARGS)``; the program is kept only if the
traced entry call shows the same call state the test run showed (so the trajectory's first
state in the function is what really happened inside the test) and it runs within the usual
bounds. Every harvested function whose normal form matches a CruxEval function is dropped.
"""

from __future__ import annotations

import ast
import contextlib
import functools
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any

from neural_debugger.tracer.events import ExitKind
from neural_debugger.tracer.program import load_program
from neural_debugger.tracer.record import record

from .base import TrainingProgram
from .cruxeval_filter import CruxEvalFilter, functions_of
from .stdlib import Unresolvable, _definitions, _literal, assemble
from .validate import RECORD_LIMITS, check_program


@dataclass(frozen=True)
class Suite:
    """A test module, the module it tests, and why running it is safe and deterministic."""

    test: str  # importable name of the unittest module
    module: str  # the pure-Python module whose top-level functions are sampled
    reason: str
    skip_classes: tuple[str, ...] = ()  # TestCase classes left out (subprocesses, the clock)


# The allow-list. Every suite is pure computation on in-memory values; the few that touch the
# file system do so under the child's own temporary working folder, which is removed afterwards.
SUITES: tuple[Suite, ...] = (
    Suite("test.test_bisect", "bisect", "list searches on literals; no I/O, clock or randomness"),
    Suite("test.test_heapq", "heapq", "heap operations; its random inputs use the reseeded RNG"),
    Suite("test.test_fnmatch", "fnmatch", "pattern translation and matching on strings"),
    Suite("test.test_colorsys", "colorsys", "float colour conversions; no state"),
    Suite(
        "test.test_statistics",
        "statistics",
        "averages and spreads of literal data; random inputs use the reseeded RNG",
    ),
    Suite("test.test_shlex", "shlex", "shell-style splitting and quoting of strings"),
    Suite(
        "test.test_posixpath",
        "posixpath",
        "path arithmetic; its few file-system tests run in the child's temporary folder",
    ),
    Suite(
        "test.test_ntpath",
        "ntpath",
        "Windows path arithmetic on strings; file-system tests run in the temporary folder",
        skip_classes=("NtCommonTest", "PathLikeTests"),
    ),
    Suite("test.test_textwrap", "textwrap", "wrapping and indenting literal text"),
    Suite("test.test_html", "html", "escaping and unescaping strings"),
    Suite(
        "test.test_calendar",
        "calendar",
        "date arithmetic on given years and months",
        skip_classes=("CommandLineTestCase", "TestSubClassingCase", "LocaleCalendarTestCase"),
    ),
    Suite("test.test_difflib", "difflib", "sequence comparison of literal lines"),
    Suite("test.test_urlparse", "urllib.parse", "URL parsing and quoting; no network access"),
    Suite("test.test_string", "string", "capwords and templates on strings"),
    Suite("test.test_base64", "base64", "encodings of literal bytes", skip_classes=("TestMain",)),
    Suite("test.test_getopt", "getopt", "command-line option parsing of literal argument lists"),
    Suite("test.test_stringprep", "stringprep", "Unicode table lookups"),
    Suite("test.test_tomllib", "tomllib._parser", "TOML parsing of strings and bundled files"),
    Suite("test.test_json", "json.encoder", "JSON encoding of literal values"),
    Suite("test.test_json", "json.decoder", "JSON decoding of literal strings"),
    Suite("test.test_operator", "operator", "the pure-Python operator functions on literals"),
    Suite("test.test_copy", "copy", "copies of in-memory values"),
    Suite("test.test_quopri", "quopri", "quoted-printable coding of literal bytes"),
    Suite("test.test_ipaddress", "ipaddress", "address arithmetic on literal addresses"),
    Suite(
        "test.test_glob", "glob", "pattern helpers; file-system tests run in the temporary folder"
    ),
)

HARVEST_TIMEOUT_S = 240.0  # one test module, wall clock, in the child
TEST_TIMEOUT_S = 10.0  # one test: stopped by the hook after this long
MAX_CALLS_PER_TEST = 400  # calls kept per test (the rest are counted)
MAX_ENTRY_CHARS = 400  # longer argument lists make unreadably long entries
MEMORY_BYTES = 2 * 1024**3


@dataclass(frozen=True)
class HarvestedCall:
    """One call into the module under test, seen while a test ran."""

    function: str
    entry: str  # ``function(ARGS)`` with literal arguments
    locals: dict[str, str]  # the call state's locals as the project's tracer renders them
    depth: int  # Python frames below the call on the stack when it happened


@dataclass
class Harvest:
    """What one suite yielded: calls per test id, and tallies of what was left out."""

    suite: Suite
    tests: dict[str, list[HarvestedCall]] = field(default_factory=dict)
    counts: Counter[str] = field(default_factory=Counter)


# ---------------------------------------------------------------------- the child (sandboxed)


def _top_level_functions(module_name: str) -> tuple[frozenset[str], dict[str, int]]:
    """The names code objects give the module's file, and its top-level functions (name → first
    line). Frozen modules (``posixpath``, ``ntpath``) name their file ``<frozen NAME>``."""
    module = __import__(module_name, fromlist=["_"])
    file = str(Path(module.__file__).resolve())
    files = frozenset({file, module.__file__, f"<frozen {module_name}>"})
    tree = ast.parse(Path(file).read_text(encoding="utf-8"))
    found = {
        name: min([node.lineno, *(d.lineno for d in node.decorator_list)])
        for name, node in _definitions(tree).items()
        if isinstance(node, ast.FunctionDef)
    }
    return files, found


def _literal_of(value: object) -> str | None:
    """Source that evaluates to an equal value of the same type, or None."""
    if isinstance(value, str | bytes | list | tuple | dict | set | frozenset) and (
        len(value) > MAX_ENTRY_CHARS
    ):
        return None  # too long for an entry anyway: skip the costly round trip
    text = _literal(value)
    if text is None or len(text) > MAX_ENTRY_CHARS:
        return None
    try:
        back = eval(text, {"__builtins__": {"frozenset": frozenset, "set": set}})
    except Exception:
        return None
    if type(back) is not type(value) or back != value or repr(back) != repr(value):
        return None
    return text


def _entry_for(frame: FrameType) -> str | None:
    """``name(ARGS)`` reproducing the call of ``frame`` from its arguments, or None."""
    code = frame.f_code
    names = code.co_varnames
    f_locals = frame.f_locals
    positional = code.co_argcount
    kwonly = code.co_kwonlyargcount
    parts: list[str] = []
    for name in names[:positional]:
        text = _literal_of(f_locals[name])
        if text is None:
            return None
        parts.append(text)
    index = positional + kwonly
    if code.co_flags & 0x04:  # *args
        star = f_locals[names[index]]
        index += 1
        for item in star:
            text = _literal_of(item)
            if text is None:
                return None
            parts.append(text)
    for name in names[positional : positional + kwonly]:
        text = _literal_of(f_locals[name])
        if text is None:
            return None
        parts.append(f"{name}={text}")
    if code.co_flags & 0x08:  # **kwargs
        for key, value in f_locals[names[index]].items():
            text = _literal_of(value)
            if text is None or not isinstance(key, str) or not key.isidentifier():
                return None
            parts.append(f"{key}={text}")
    entry = f"{code.co_name}({', '.join(parts)})"
    return entry if len(entry) <= MAX_ENTRY_CHARS and "\n" not in entry else None


class _TestTimeout(BaseException):
    """Ends a test that runs too long (a BaseException, so ``except Exception`` misses it)."""


class _Hook:
    """The trace hook: keeps the calls of the module's top-level functions."""

    def __init__(self, files: frozenset[str], functions: dict[str, int]) -> None:
        from neural_debugger.tracer.values import render_locals

        self.render_locals = render_locals
        self.files = files
        self.functions = functions
        self.calls: list[HarvestedCall] = []
        self.counts: Counter[str] = Counter()
        self.deadline = 0.0

    def __call__(self, frame: FrameType, event: str, arg: object) -> None:
        if time.monotonic() > self.deadline:
            sys.settrace(None)
            raise _TestTimeout
        code = frame.f_code
        if code.co_filename not in self.files or self.functions.get(code.co_name) is None:
            return None
        if code.co_qualname != code.co_name or code.co_firstlineno != self.functions[code.co_name]:
            return None  # a nested function or another definition with the same name
        self.counts["calls seen"] += 1
        if len(self.calls) >= MAX_CALLS_PER_TEST:
            self.counts["calls over the per-test cap"] += 1
            return None
        try:
            entry = _entry_for(frame)
        except Exception:
            entry = None
        if entry is None:
            self.counts["calls with non-literal arguments"] += 1
            return None
        depth, caller = 0, frame.f_back
        while caller is not None:
            depth += 1
            caller = caller.f_back
        shown = self.render_locals(frame.f_locals, module_level=False)
        self.calls.append(HarvestedCall(code.co_name, entry, shown, depth))
        return None


def _tests_of(suite: Suite) -> list[Any]:
    import unittest

    loaded = unittest.defaultTestLoader.loadTestsFromName(suite.test)
    out: list[Any] = []

    def flatten(item: Any) -> None:
        if isinstance(item, unittest.TestSuite):
            for sub in item:
                flatten(sub)
        else:
            out.append(item)

    flatten(loaded)
    kept = [t for t in out if type(t).__name__ not in suite.skip_classes]
    return sorted(kept, key=lambda t: t.id())


def child_main(suite_index: int, out_path: str) -> None:
    """Run one suite's tests with the hook; write one JSON line per test, then an end line."""
    import unittest

    with contextlib.suppress(ValueError, OSError):
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY_BYTES, MEMORY_BYTES))
    suite = SUITES[suite_index]
    import test.support

    test.support.use_resources = []  # no network, no cpu-heavy or GUI resources
    test.support.verbose = False
    files, functions = _top_level_functions(suite.module)
    out = open(out_path, "w", encoding="utf-8")  # noqa: SIM115 - closed below
    devnull = open(os.devnull, "w")  # noqa: SIM115 - the process exits right after
    sys.stdout = sys.stderr = devnull
    totals: Counter[str] = Counter()
    for case in _tests_of(suite):
        hook = _Hook(files, functions)
        random.seed(0)
        result = unittest.TestResult()
        hook.deadline = time.monotonic() + TEST_TIMEOUT_S
        sys.settrace(hook)
        try:
            case.run(result)
        except _TestTimeout:
            hook.counts["tests stopped by the timeout"] += 1
        finally:
            sys.settrace(None)
        totals.update(hook.counts)
        totals["tests run"] += 1
        record_ = {
            "test": case.id(),
            "calls": [vars(c) for c in hook.calls],
        }
        out.write(json.dumps(record_, ensure_ascii=False) + "\n")
        out.flush()
    out.write(json.dumps({"end": dict(totals)}) + "\n")
    out.close()


# ---------------------------------------------------------------------- the parent


def _child_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    env["PYTHONHASHSEED"] = "0"
    env["PYTHONIOENCODING"] = "utf-8"
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def harvest(suite_index: int, timeout_s: float = HARVEST_TIMEOUT_S) -> Harvest:
    """Run ``SUITES[suite_index]`` in a sandboxed subprocess and read back its calls."""
    suite = SUITES[suite_index]
    result = Harvest(suite)
    with tempfile.TemporaryDirectory(prefix="ndb-harvest-") as tmp:
        out_path = Path(tmp, "calls.jsonl")
        work = Path(tmp, "cwd")
        work.mkdir()
        cmd = [sys.executable, "-m", __name__, str(suite_index), str(out_path)]
        proc = subprocess.Popen(
            cmd,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env=_child_env(),
            cwd=str(work),
            start_new_session=True,
        )
        try:
            proc.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            result.counts["suites killed by the timeout"] += 1
        if out_path.exists():
            with out_path.open(encoding="utf-8") as handle:
                for line in handle:
                    if not line.endswith("\n"):
                        break
                    data = json.loads(line)
                    if "end" in data:
                        result.counts.update(data["end"])
                        break
                    calls = [HarvestedCall(**c) for c in data["calls"]]
                    result.tests[data["test"]] = calls
    return result


# What a function may use of ``os``: constants and pure conversions, nothing that asks the OS.
_OS_PURE = frozenset(
    {"fspath", "sep", "altsep", "curdir", "pardir", "extsep", "pathsep", "linesep", "name"}
    | {"fsencode", "fsdecode", "PathLike", "path"}
)
_IMPURE_MODULES = frozenset(
    {"time", "random", "pwd", "grp", "socket", "subprocess", "locale", "tempfile", "shutil"}
    | {"threading", "uuid", "secrets", "select", "signal"}
)
_IMPURE_ATTRIBUTES = frozenset(
    {"now", "today", "utcnow", "monotonic", "perf_counter", "getpid", "urandom", "environ"}
    | {"exists", "lexists", "isdir", "isfile", "islink", "ismount", "getsize", "realpath"}
    | {"getmtime", "getatime", "getctime", "abspath", "expanduser", "expandvars", "samefile"}
    | {"relpath", "scandir", "listdir", "stat", "lstat", "getcwd", "getcwdb"}
)
_IMPURE_NAMES = frozenset({"open", "id", "input", "__import__", "globals", "vars", "hash"})


def impurity(source: str) -> str | None:
    """What makes the function depend on more than its arguments (the OS, the clock, object
    addresses, hash order), or None. Such functions are dropped: a trace must be reproducible."""
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            names = [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            names += [a.name for a in node.names] if isinstance(node, ast.Import) else []
            for name in names:
                if name.split(".")[0] in _IMPURE_MODULES:
                    return f"imports {name}"
        elif (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id == "os"
            and node.attr not in _OS_PURE
        ):
            return f"uses os.{node.attr}"
        elif isinstance(node, ast.Attribute) and node.attr in _IMPURE_ATTRIBUTES:
            return f"uses .{node.attr}"
        elif isinstance(node, ast.Name) and node.id in _IMPURE_NAMES:
            return f"uses {node.id}"
    return None


@dataclass(frozen=True)
class RepoFunction:
    """A function of a suite's module, assembled into a self-contained program source."""

    module: str
    name: str
    source: str


@functools.cache
def assembled(module: str, name: str) -> str | None:
    """The program source for ``module.name``, or None when it cannot stand alone."""
    try:
        return assemble(module, name)
    except (Unresolvable, SyntaxError, KeyError, ImportError):
        return None


@dataclass(frozen=True)
class RepoCandidate:
    """A sampled call: the program to trace and the call state the test run showed."""

    program: TrainingProgram
    function: str
    locals: dict[str, str]
    depth: int


@dataclass
class RepoPool:
    """Per test, the distinct usable calls, in a fixed order; and what was left out."""

    tests: list[tuple[str, Suite, list[HarvestedCall]]] = field(default_factory=list)
    counts: Counter[str] = field(default_factory=Counter)
    functions: set[str] = field(default_factory=set)


def build_pool(harvests: Iterable[Harvest], crux: CruxEvalFilter | None) -> RepoPool:
    """Keep calls to functions that assemble and match no CruxEval function; dedupe per test."""
    pool = RepoPool()
    crux_dropped: set[str] = set()
    unresolvable: set[str] = set()
    impure: set[str] = set()
    for item in harvests:
        pool.counts.update(item.counts)
        for test_id, calls in item.tests.items():
            seen: set[str] = set()
            kept: list[HarvestedCall] = []
            for call in calls:
                origin = f"{item.suite.module}.{call.function}"
                source = assembled(item.suite.module, call.function)
                if source is None:
                    unresolvable.add(origin)
                    continue
                if impurity(source) is not None:
                    impure.add(origin)
                    continue
                if crux is not None and any(
                    form in crux.normal_forms for form in functions_of(source)
                ):
                    crux_dropped.add(origin)
                    continue
                if call.entry in seen:
                    continue
                seen.add(call.entry)
                kept.append(call)
                pool.functions.add(origin)
            if kept:
                pool.tests.append((test_id, item.suite, kept))
    pool.counts["functions kept"] = len(pool.functions)
    pool.counts["functions that cannot stand alone"] = len(unresolvable)
    pool.counts["functions that use the OS, clock or addresses"] = len(impure)
    pool.counts["functions dropped as CruxEval matches"] = len(crux_dropped)
    pool.counts["tests with usable calls"] = len(pool.tests)
    pool.counts["distinct calls"] = sum(len(calls) for _, _, calls in pool.tests)
    return pool


def sample_candidates(pool: RepoPool, seed: int, count: int) -> list[RepoCandidate]:
    """``count`` calls: tests in a seeded order (cycled), one call drawn from each visit.

    A test visited again draws among the calls it has not given yet, so calls repeat only once a
    test's calls are used up.
    """
    if not pool.tests:
        return []
    rng = random.Random(f"repo:{seed}")
    order = list(range(len(pool.tests)))
    rng.shuffle(order)
    given: dict[int, list[int]] = {}
    out: list[RepoCandidate] = []
    for j in range(count):
        t = order[j % len(order)]
        test_id, suite, calls = pool.tests[t]
        left = given.get(t)
        if not left:
            left = list(range(len(calls)))
            rng.shuffle(left)
            given[t] = left
        call = calls[left.pop()]
        source = assembled(suite.module, call.function)
        assert source is not None
        test_name = test_id.removeprefix("test.")
        program = TrainingProgram(
            source, call.entry, f"repo:{test_name}:{suite.module}.{call.function}"
        )
        out.append(RepoCandidate(program, call.function, call.locals, call.depth))
    return out


def check_candidate(candidate: RepoCandidate) -> str | None:
    """Why the candidate is not a usable program (None when it is).

    The program must run within the generator's bounds (normal or error exit) and its traced
    entry call must show exactly the locals the test run showed at that call.
    """
    program = candidate.program
    verdict = check_program(program.source, program.entry)
    if not verdict.ok and verdict.reason.startswith("exit error"):
        verdict = check_program(program.source, program.entry, expect_error=True)
    if not verdict.ok:
        return verdict.reason.split(":")[0]
    loaded = load_program("program.py", entry=program.entry, source=program.source)
    trace = record(loaded, RECORD_LIMITS)
    if trace.exit is ExitKind.NEVER:
        return "limit"
    first = next((ev for ev in trace.events if ev.kind == "call" and ev.depth == 1), None)
    if first is None or first.function != candidate.function:
        return "entry call not traced"
    if first.locals != candidate.locals:
        return "call state differs from the test run"
    return None


if __name__ == "__main__":
    child_main(int(sys.argv[1]), sys.argv[2])
    sys.stdout.flush()
    os._exit(0)
