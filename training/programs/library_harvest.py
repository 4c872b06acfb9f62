"""Harvest real library functions and the calls their authors wrote for them.

Why a sandboxed child: harvesting runs the libraries' own functions (the reference each copy is
checked against) on the arguments of their doctests and on drawn arguments. The functions are
allow-listed and their sources pass :func:`.repo_tests.impurity` before anything runs, but a
drawn argument may still send a function into a long loop or a large allocation; so the whole
harvest runs in a subprocess with no stdin, ``PYTHONHASHSEED=0``, a fresh temporary working
folder, an address-space limit, a one-second alarm per call and a hard timeout, and only JSON
comes back.

What is harvested, per function of the listed modules (every public top-level function whose
source is available): the source assembled with everything it needs (:func:`.stdlib.assemble`,
the same copy :mod:`.stdlib` and :mod:`.packages` use), the calls its doctests make (``>>>``
lines parsed with :mod:`ast`, arguments kept when they are literals, lambdas or pure builtin
calls, names bound by earlier doctest lines substituted), and templates of argument shapes for
type-driven fuzzing (:mod:`.library_shapes`: from each doctest call's literals, else from the
annotations or the parameter names). A call is kept only if the copy, run alone, ends as the
library's own function does on it (same value or same exception type); a function is kept only
if at least one of its calls returns normally there. Docstrings keep their prose but lose their
``>>>`` examples (:func:`without_examples`): they would show the answer of a doctest call.

Why copies and not the installed function: the project's tracer records only the program's own
file (:mod:`neural_debugger.tracer.record`, like a debugger's ``justMyCode``), so a program that
imported ``more_itertools.chunked`` would show one opaque step; the copy holds the function and
every helper it calls, so the trace goes into the library's helpers frame by frame.
"""

from __future__ import annotations

import ast
import builtins
import contextlib
import copy
import doctest
import importlib.metadata as metadata
import inspect
import io
import itertools
import json
import platform
import resource
import signal
import subprocess
import sys
import tempfile
import types
import typing
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from .library_shapes import Shape, argument_shape, draw, portable, signature_template
from .repo_tests import _child_env, impurity
from .stdlib import Unresolvable, _definitions, _module_namespace, assemble


@dataclass(frozen=True)
class Library:
    """A pure-Python package (or standard-library module) whose functions become programs."""

    distribution: str | None  # the pip distribution; None for the standard library
    modules: tuple[str, ...]
    reason: str  # why running its functions is safe and deterministic


_STDLIB_REASON = "standard-library pure functions of their arguments"
LIBRARIES: dict[str, Library] = {
    "more_itertools": Library(
        "more-itertools",
        ("more_itertools.more", "more_itertools.recipes"),
        "iterator recipes over plain containers; random_* recipes fail the impurity check",
    ),
    "toolz": Library(
        "toolz",
        ("toolz.itertoolz", "toolz.dicttoolz", "toolz.functoolz", "toolz.recipes"),
        "functional helpers over sequences and dicts; no I/O, no global state",
    ),
    "pydash": Library(
        "pydash",
        (
            "pydash.arrays",
            "pydash.strings",
            "pydash.collections",
            "pydash.objects",
            "pydash.predicates",
            "pydash.numerical",
        ),
        "list, string and dict utilities; utilities (ids, clock, random) left out",
    ),
    "boltons": Library(
        "boltons",
        ("boltons.strutils", "boltons.iterutils", "boltons.mathutils"),
        "string, iteration and math helpers; file, socket and time modules left out",
    ),
    "funcy": Library(
        "funcy",
        ("funcy.colls", "funcy.seqs", "funcy.strings", "funcy.funcs"),
        "collection and sequence helpers; caching and timing modules left out",
    ),
    "inflection": Library(
        "inflection", ("inflection",), "word inflection with regular expressions only"
    ),
    "humanize": Library(
        "humanize",
        ("humanize.number", "humanize.filesize", "humanize.lists"),
        "number and size formatting; the clock-reading time module is left out",
    ),
    **{
        name: Library(None, (module,), _STDLIB_REASON)
        for name, module in (
            ("textwrap", "textwrap"),
            ("string", "string"),
            ("heapq", "heapq"),
            ("bisect", "bisect"),
            ("statistics", "statistics"),
            ("colorsys", "colorsys"),
            ("calendar", "calendar"),
            ("difflib", "difflib"),
            ("fnmatch", "fnmatch"),
            ("shlex", "shlex"),
            ("html", "html"),
            ("posixpath", "posixpath"),
            ("ntpath", "ntpath"),
            ("base64", "base64"),
            ("urllib", "urllib.parse"),
            ("ipaddress", "ipaddress"),
        )
    },
}
PACKAGES = frozenset(name for name, lib in LIBRARIES.items() if lib.distribution)

HARVEST_TIMEOUT_S = 600.0
# Per call. The slowest kept call takes about 25 ms here (a first regex compile), so the alarm
# has a 40-fold margin: a loaded machine harvests the same functions, and every data worker,
# harvesting on its own, makes the same programs from the same seed.
CALL_SECONDS = 1.0
MEMORY_LIMIT = 3 * 2**30
MAX_CALLS = 12  # doctest calls kept per function
FUZZ_CHECKS = 4  # drawn calls checked against the library when a function has no doctest call
MAX_ITEMS_SHOWN = 200  # an iterator longer than this is taken for an infinite one


@dataclass(frozen=True)
class LibraryCall:
    args: list[str]  # source texts, keywords written as ``name=text``
    wrap: str  # "list" when the function returns an iterator, else ""
    raises: bool  # the call ends with an exception (in the library as in the copy)


@dataclass(frozen=True)
class Template:
    items: list[tuple[str, Shape]]  # (keyword or "", shape) per argument
    wrap: str
    source: str  # "doctest", "annotation" or "name"


@dataclass(frozen=True)
class LibraryFunction:
    package: str
    module: str
    name: str
    source: str
    calls: list[LibraryCall]
    templates: list[Template]

    @property
    def origin(self) -> str:
        return f"library:{self.module}.{self.name}"

    @staticmethod
    def from_json(data: dict[str, Any]) -> LibraryFunction:
        return LibraryFunction(
            data["package"],
            data["module"],
            data["name"],
            data["source"],
            [LibraryCall(**c) for c in data["calls"]],
            [
                Template([(k, s) for k, s in t["items"]], t["wrap"], t["source"])
                for t in data["templates"]
            ],
        )


@dataclass
class LibraryHarvest:
    functions: list[LibraryFunction] = field(default_factory=list)
    counts: Counter[str] = field(default_factory=Counter)  # why functions were left out
    versions: dict[str, str] = field(default_factory=dict)


def versions(packages: typing.Iterable[str]) -> dict[str, str]:
    """The installed version of each package (the Python version for standard-library ones);
    a clear error when one is not installed."""
    out, missing = {}, []
    for name in packages:
        lib = LIBRARIES[name]
        if lib.distribution is None:
            out[name] = f"python {platform.python_version()}"
            continue
        try:
            out[name] = metadata.version(lib.distribution)
        except metadata.PackageNotFoundError:
            missing.append(lib.distribution)
    if missing:
        raise RuntimeError(
            f"library packages not installed: {', '.join(missing)} "
            "(they are pinned in the project's data extra: pip install -e '.[data]')"
        )
    return out


# ---------------------------------------------------------------------- the child


class _Timeout(Exception):
    pass


def _alarm(signum: int, frame: types.FrameType | None) -> None:
    raise _Timeout


def _outcome(func: Any, args: list[str]) -> tuple[str, str, bool]:
    """(what the call shows, wrap, raised) for ``func(ARGS)``; raises ``_Reject`` when the call
    cannot be used (too slow, infinite, its value shows an address)."""
    env: dict[str, Any] = {"__builtins__": builtins}
    packed = f"(lambda *a, **k: (a, k))({', '.join(args)})"  # the arguments, evaluated once
    wrap = ""
    signal.setitimer(signal.ITIMER_REAL, CALL_SECONDS)
    try:
        positional, keywords = eval(compile(packed, "<call>", "eval"), env)
        shown_args = [*positional, *keywords.values()]  # shown after the call: mutations count
        result = func(*positional, **keywords)
        if isinstance(result, typing.Iterator):
            wrap = "list"
            result = list(itertools.islice(result, MAX_ITEMS_SHOWN + 1))
            if len(result) > MAX_ITEMS_SHOWN:
                raise _Reject("an endless iterator")
        shown = repr(result) + "|" + "|".join(repr(a) for a in shown_args if _mutable(a))
        raised = False
    except _Timeout:
        raise _Reject("too slow") from None
    except _Reject:
        raise
    except Exception as exc:
        shown, raised = f"raised {type(exc).__name__}", True
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
    if " at 0x" in shown or "<function" in shown:
        raise _Reject("its value shows an address")
    return shown, wrap, raised


def _mutable(value: object) -> bool:
    return isinstance(value, list | dict | bytearray | set)


class _Reject(Exception):
    pass


def doctest_calls(doc: str | None, name: str) -> list[list[ast.expr | ast.keyword]]:
    """Every call of ``name`` in the docstring's ``>>>`` examples whose arguments are portable
    (names bound by earlier examples substituted), as argument nodes."""
    if not doc:
        return []
    try:
        examples = doctest.DocTestParser().get_examples(doc)
    except ValueError:
        return []
    bound: dict[str, ast.expr] = {}
    out: list[list[ast.expr | ast.keyword]] = []
    for example in examples:
        try:
            tree = ast.parse(example.source)
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            callee = node.func
            called = callee.id if isinstance(callee, ast.Name) else getattr(callee, "attr", "")
            if called != name:
                continue
            if any(isinstance(a, ast.Starred) for a in node.args):
                continue
            if any(k.arg is None for k in node.keywords):
                continue
            args: list[ast.expr | ast.keyword] = [_substitute(a, bound) for a in node.args]
            args += [ast.keyword(k.arg, _substitute(k.value, bound)) for k in node.keywords]
            if all(portable(a.value if isinstance(a, ast.keyword) else a) for a in args):
                out.append(args)
        for stmt in tree.body:
            if (
                isinstance(stmt, ast.Assign)
                and len(stmt.targets) == 1
                and isinstance(stmt.targets[0], ast.Name)
            ):
                value = _substitute(stmt.value, bound)
                if portable(value):
                    bound[stmt.targets[0].id] = value
                else:
                    bound.pop(stmt.targets[0].id, None)
    return out


def _substitute(node: ast.expr, bound: dict[str, ast.expr]) -> ast.expr:
    class Swap(ast.NodeTransformer):
        def visit_Name(self, name: ast.Name) -> ast.AST:
            return bound.get(name.id, name)

    return Swap().visit(copy.deepcopy(node))  # type: ignore[no-any-return]


def _texts(args: list[ast.expr | ast.keyword]) -> list[str]:
    return [
        f"{a.arg}={ast.unparse(a.value)}" if isinstance(a, ast.keyword) else ast.unparse(a)
        for a in args
    ]


def without_examples(source: str) -> str:
    """The source with the ``>>>`` examples (and their shown output) cut out of every docstring.

    Why: half the programs are entered with a doctest call, and a docstring that still showed
    ``>>> median_low([1, 3, 5])`` followed by ``3`` would hand the model the value it is meant
    to work out by following the execution. The prose of the docstring stays."""
    tree = ast.parse(source)
    lines = source.splitlines()
    cut: set[int] = set()  # 0-based line numbers
    for node in ast.walk(tree):
        if not isinstance(node, ast.FunctionDef | ast.ClassDef | ast.AsyncFunctionDef):
            continue
        first = node.body[0] if node.body else None
        if not (
            isinstance(first, ast.Expr)
            and isinstance(first.value, ast.Constant)
            and isinstance(first.value.value, str)
            and first.end_lineno is not None
        ):
            continue
        inside = range(first.lineno, first.end_lineno - 1)  # lines strictly inside the quotes
        in_example = False
        for i in inside:
            stripped = lines[i].strip()
            if stripped.startswith(">>>"):
                in_example = True
            elif not stripped:
                in_example = False
            if in_example:
                cut.add(i)
        if cut.intersection(inside):
            cut |= _tidied(lines, inside, cut)
    if not cut:
        return source
    kept = [line for i, line in enumerate(lines) if i not in cut]
    text = "\n".join(kept) + "\n"
    try:
        ast.parse(text)
    except SyntaxError:
        return source
    return text


_EXAMPLE_HEADERS = frozenset({"example:", "examples:", "example::", "examples::", "usage:"})


def _tidied(lines: list[str], inside: range, cut: set[int]) -> set[int]:
    """Lines of a docstring to cut as well once its examples are gone: an ``Examples:`` header
    with nothing left under it, and the second of two blank lines in a row."""
    more: set[int] = set()
    kept = [i for i in inside if i not in cut]
    for n, i in enumerate(kept):
        if lines[i].strip().lower() not in _EXAMPLE_HEADERS:
            continue
        indent = len(lines[i]) - len(lines[i].lstrip())
        below = next((j for j in kept[n + 1 :] if lines[j].strip()), None)
        if below is None or len(lines[below]) - len(lines[below].lstrip()) <= indent:
            more.add(i)
    previous_blank = False
    for i in kept:
        if i in more:
            continue
        blank = not lines[i].strip()
        if blank and previous_blank:
            more.add(i)
        previous_blank = blank
    return more


def _function(package: str, module: str, name: str, counts: Counter[str]) -> dict | None:
    namespace, _, _ = _module_namespace(module, PACKAGES)
    func = namespace.get(name)
    if not inspect.isfunction(func):
        counts["not a plain function (decorated)"] += 1
        return None
    try:
        source = assemble(module, name, PACKAGES)
    except (Unresolvable, SyntaxError, KeyError, ImportError):
        counts["cannot be copied alone"] += 1
        return None
    if impurity(source) is not None:
        counts["impure"] += 1
        return None
    source = without_examples(source)
    copy_env: dict[str, Any] = {"__name__": "ndb_library_check", "__builtins__": builtins}
    try:
        exec(compile(source, "<library>", "exec", dont_inherit=True), copy_env)
    except Exception:
        counts["copy does not run"] += 1
        return None
    own = copy_env.get(name)
    written = doctest_calls(func.__doc__, name)[: MAX_CALLS * 2]
    templates: list[Template] = []
    for args in written:
        items = [
            (a.arg or "", argument_shape(a.value))
            if isinstance(a, ast.keyword)
            else ("", argument_shape(a))
            for a in args
        ]
        templates.append(Template(items, "", "doctest"))
    candidates = [(_texts(a), "doctest") for a in written]
    if not written:
        try:
            hints = typing.get_type_hints(func)
        except Exception:
            hints = {}
        for by_name, kind in ((False, "annotation"), (True, "name")):
            items = signature_template(func, hints, by_name)
            if items is not None:
                templates.append(Template(items, "", kind))
                drawn = draw(items, seed=len(name), count=FUZZ_CHECKS)
                candidates += [(d, kind) for d in drawn]
                break
    if not candidates:
        counts["no calls and no argument shapes"] += 1
        return None
    calls: list[LibraryCall] = []
    wraps: set[str] = set()
    seen: set[tuple[str, ...]] = set()
    for args, _ in candidates:
        if tuple(args) in seen:
            continue
        seen.add(tuple(args))
        try:
            want = _outcome(func, args)
            got = _outcome(own, args)
        except _Reject as why:
            counts[f"calls dropped: {why}"] += 1
            continue
        if "NameError" in got[0] or got != want:
            counts["calls where the copy disagrees"] += 1
            continue
        calls.append(LibraryCall(args, want[1], want[2]))
        wraps.add(want[1])
    if not any(not c.raises for c in calls):
        counts["no call returns normally"] += 1
        return None
    wrap = "list" if "list" in wraps else ""
    templates = [Template(t.items, wrap, t.source) for t in templates]
    return asdict(LibraryFunction(package, module, name, source, calls[:MAX_CALLS], templates))


def child_main(packages: list[str], out_path: str) -> None:
    """Harvest ``packages`` and write one JSON object (functions, counts) to ``out_path``."""
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))
    signal.signal(signal.SIGALRM, _alarm)
    sys.setrecursionlimit(400)
    counts: Counter[str] = Counter()
    functions = []
    sink = io.StringIO()
    for package in packages:
        for module in LIBRARIES[package].modules:
            try:
                _, source, _ = _module_namespace(module, PACKAGES)
            except (Unresolvable, ImportError) as exc:
                counts[f"module unavailable: {module}: {type(exc).__name__}"] += 1
                continue
            defs = _definitions(ast.parse(source))
            for name, node in defs.items():
                if name.startswith("_") or not isinstance(node, ast.FunctionDef):
                    continue
                counts["functions seen"] += 1
                with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
                    try:
                        found = _function(package, module, name, counts)
                    except Exception as exc:  # a harvest failure on one function
                        counts[f"harvest failed: {type(exc).__name__}"] += 1
                        found = None
                sink.seek(0)
                sink.truncate()
                if found is not None:
                    functions.append(found)
    Path(out_path).write_text(json.dumps({"functions": functions, "counts": counts}))


# ---------------------------------------------------------------------- the parent


def harvest_libraries(
    packages: typing.Iterable[str] | None = None, timeout_s: float = HARVEST_TIMEOUT_S
) -> LibraryHarvest:
    """Harvest ``packages`` (default: all of :data:`LIBRARIES`) in a sandboxed subprocess."""
    names = sorted(LIBRARIES if packages is None else packages)
    unknown = [n for n in names if n not in LIBRARIES]
    if unknown:
        raise ValueError(f"unknown libraries: {', '.join(unknown)}")
    result = LibraryHarvest(versions=versions(names))
    with tempfile.TemporaryDirectory(prefix="ndb-library-") as tmp:
        out_path = Path(tmp, "functions.json")
        work = Path(tmp, "cwd")
        work.mkdir()
        cmd = [sys.executable, "-m", __name__, out_path.as_posix(), *names]
        proc = subprocess.Popen(
            cmd,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            env=_child_env(),
            cwd=str(work),
            start_new_session=True,
        )
        try:
            _, err = proc.communicate(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()
            raise RuntimeError(f"the library harvest ran past {timeout_s:g} s") from None
        if proc.returncode != 0 or not out_path.exists():
            tail = err.decode("utf-8", "replace")[-2000:]
            raise RuntimeError(f"the library harvest failed ({proc.returncode}):\n{tail}")
        data = json.loads(out_path.read_text(encoding="utf-8"))
    result.functions = [LibraryFunction.from_json(f) for f in data["functions"]]
    result.counts.update(data["counts"])
    return result


if __name__ == "__main__":
    child_main(sys.argv[2:], sys.argv[1])
