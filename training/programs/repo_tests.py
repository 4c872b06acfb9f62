"""Repository-level traces: real test suites run under a tracer, one sampled call made the entry.

Why: the paper trains on repository test runs as well as on single functions, with the entry of
a trajectory being one call sampled from the calls that happen on the stack while a test runs.
The inputs a test suite passes are written by the module's own authors to hit edge cases (empty
sequences, separators at the ends, Windows drive letters, NaN-free floats, ...), which neither
the program generator nor the hand-written argument generators of :mod:`.stdlib` produce.

How: each test module listed in :data:`SUITES` is run in a sandboxed subprocess (no stdin,
``PYTHONHASHSEED=0``, an address-space limit, a fresh temporary working folder, a hard timeout,
``random`` reseeded before every test). Modules of CPython's ``test`` package run with
``unittest`` (``test.support`` resources switched off); the pytest suites that installed packages
ship inside themselves (``networkx``, ``sympy``) run in-process with ``pytest.main`` and a small
plugin (no cache, no entry-point plugins, no captured output files, the package's own
``conftest.py`` applied), the hook installed around each test's call only, tests named by their
node ids. A ``sys.settrace`` hook sees every call into a top-level function of the module under
test, at any stack depth, and keeps it when its arguments can be written back as Python
literals that compare equal to the originals; with each kept call it stores the locals exactly
as the project's tracer renders them at that call event. A training program is then one
sampled call: the function's source assembled with everything it needs (the same assembly as
:mod:`.stdlib`; a package suite's functions may be copied from that package), entered as
``function(ARGS)``; the program is kept only if the traced entry call shows the same call state
the test run showed (so the trajectory's first state in the function is what really happened
inside the test) and it runs within the usual bounds. Functions that depend on the OS, the
clock, randomness or addresses are dropped, and so is every harvested function whose normal
form matches a CruxEval function.

Methods: the hook also keeps calls of plain methods of the module's top-level classes
(``Class.method``, see :func:`_top_level_methods`) when the instance is of exactly that class
and all its state (slots and ``__dict__``) can be written as literals (:func:`_state_literal`),
and it records how the call ended (returned value or raised exception, and the instance then).
The program is the class cut down to what the method reaches (``assemble(..., method=...)``),
a helper :data:`RESTORE_HELPER` that makes an instance without running ``__init__``, and the
instance rebuilt at module level (run untraced before the entry), so the entry is a plain
``text_wrapper.wrap('...')`` and the trace starts in the method. It is kept only if the traced
call shows the test run's locals (the instance's text may differ only in its class's module
qualification) and ends as it did in the test run; origins read ``repo:TEST:module.Class.method``.
"""

from __future__ import annotations

import ast
import builtins
import contextlib
import functools
import json
import keyword
import os
import random
import re
import resource
import subprocess
import sys
import tempfile
import time
import types
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import FrameType
from typing import Any

from neural_debugger.tracer.events import ExitKind
from neural_debugger.tracer.program import load_program
from neural_debugger.tracer.record import record

from .base import TrainingProgram
from .cruxeval_filter import CruxEvalFilter, functions_of
from .stdlib import MAX_SOURCE_CHARS, Unresolvable, _definitions, _literal, assemble
from .validate import RECORD_LIMITS, check_program


@dataclass(frozen=True)
class Suite:
    """A test module, the module it tests, and why running it is safe and deterministic."""

    test: str  # importable name of the test module
    module: str  # the pure-Python module whose top-level functions are sampled
    reason: str
    skip_classes: tuple[str, ...] = ()  # TestCase classes (pytest: classes or tests) left out
    runner: str = "unittest"  # "unittest" (CPython's ``test`` package) or "pytest" (a package's)

    @property
    def packages(self) -> frozenset[str]:
        """Installed packages whose source the assembly may copy: a pytest suite's own."""
        return frozenset({self.module.split(".")[0]}) if self.runner == "pytest" else frozenset()


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
    # Installed packages' own pytest suites (run in-process by pytest, see _pytest_child_main).
    Suite(
        "networkx.utils.tests.test_misc",
        "networkx.utils.misc",
        "helpers on plain containers (flatten, pairwise, groups); its RNG tests give no literals",
        # numpy's tests run only where numpy is installed: left out, the harvest is the same
        # on every machine (the packed data Python of training/device_kit.py has no numpy)
        skip_classes=("TestNumpyArray", "test_create_random_state"),
        runner="pytest",
    ),
    Suite(
        "sympy.utilities.tests.test_iterables",
        "sympy.utilities.iterables",
        "combinatorial generators and sequence helpers on lists and ints",
        runner="pytest",
    ),
    Suite(
        "sympy.utilities.tests.test_misc",
        "sympy.utilities.misc",
        "string helpers and int checks; the subprocess and PATH-search tests are left out",
        skip_classes=("test_debug_output", "test_deprecated_find_executable"),
        runner="pytest",
    ),
    Suite(
        "sympy.crypto.tests.test_crypto",
        "sympy.crypto.crypto",
        "classical ciphers on strings, modular arithmetic on ints; random keys are impure",
        runner="pytest",
    ),
    Suite(
        "sympy.ntheory.tests.test_digits",
        "sympy.ntheory.digits",
        "digit expansions of literal ints in given bases",
        runner="pytest",
    ),
    Suite(
        "sympy.ntheory.tests.test_multinomial",
        "sympy.ntheory.multinomial",
        "binomial and multinomial coefficient tables of small ints",
        runner="pytest",
    ),
)

HARVEST_TIMEOUT_S = 240.0  # one test module, wall clock, in the child
TEST_TIMEOUT_S = 10.0  # one test: stopped by the hook after this long
MAX_CALLS_PER_TEST = 400  # calls kept per test (the rest are counted)
MAX_ENTRY_CHARS = 400  # longer argument lists make unreadably long entries
MAX_STATE_CHARS = 1500  # an instance's attributes, written as a dict display in the program
MEMORY_BYTES = 2 * 1024**3


@dataclass(frozen=True)
class HarvestedCall:
    """One call into the module under test, seen while a test ran.

    A method call (``function`` is ``Class.method``) also carries the instance: its attributes
    as a dict display, and how the call ended, as the tracer renders it (see :class:`_Exit`).
    """

    function: str  # ``name``, or ``Class.method`` for a method of a top-level class
    entry: str  # ``function(ARGS)`` with literal arguments (a method's: without ``self``)
    locals: dict[str, str]  # the call state's locals as the project's tracer renders them
    depth: int  # Python frames below the call on the stack when it happened
    state: str = ""  # a method's instance: ``{'attr': LITERAL, ...}``
    exit: str = ""  # a method's: ``return VALUE`` or ``raise EXCEPTION``; "" if never seen
    self_after: str = ""  # a method's instance, rendered when the call ended

    @property
    def is_method(self) -> bool:
        return "." in self.function


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


def _top_level_methods(module_name: str) -> dict[str, int]:
    """The sampled methods of the module's top-level classes: ``Class.method`` → first line.

    Only plain methods defined in the class body: no decorator (static and class methods,
    properties, wrapped functions), no special method but ``__call__``, no private ``__name``
    (its attribute is mangled), at least one positional parameter (the instance).
    """
    module = __import__(module_name, fromlist=["_"])
    tree = ast.parse(Path(module.__file__).resolve().read_text(encoding="utf-8"))
    found: dict[str, int] = {}
    for name, node in _definitions(tree).items():
        if not isinstance(node, ast.ClassDef):
            continue
        for item in node.body:
            if not isinstance(item, ast.FunctionDef) or item.decorator_list:
                continue
            if item.name.startswith("__") and item.name != "__call__":
                continue
            if item.args.posonlyargs + item.args.args:
                found[f"{name}.{item.name}"] = item.lineno
    return found


_HEAP_TYPE = 1 << 9  # Py_TPFLAGS_HEAPTYPE: a class written in Python


def _instance_state(obj: object) -> dict[str, object] | None:
    """All an instance holds: its set slots (by their stored, mangled names) and its
    ``__dict__``; None when that is not all (a base class written in C keeps state of its
    own, or ``object.__new__`` could not make one) or a key is not a string."""
    tp = type(obj)
    if any(not k.__flags__ & _HEAP_TYPE for k in tp.__mro__[:-1]):
        return None
    state: dict[str, object] = {}
    for klass in reversed(tp.__mro__[:-1]):
        declared = klass.__dict__.get("__slots__", ())
        for name in (declared,) if isinstance(declared, str) else declared:
            stored = name
            if name.startswith("__") and not name.endswith("__"):
                stored = f"_{klass.__name__.lstrip('_')}{name}"
            descriptor = klass.__dict__.get(stored)
            if type(descriptor) is types.MemberDescriptorType:
                with contextlib.suppress(AttributeError):
                    state[stored] = descriptor.__get__(obj, tp)
    try:
        namespace = object.__getattribute__(obj, "__dict__")
    except AttributeError:
        namespace = {}
    if type(namespace) is not dict or any(type(k) is not str for k in namespace):
        return None
    for key, value in namespace.items():
        if key in state:
            return None
        state[key] = value
    return state


_MUTABLE = (list, dict, set, bytearray)


def _state_literal(obj: object, arguments: Iterable[object]) -> str | None:
    """``{'attr': LITERAL, ...}`` rebuilding the instance's whole state, or None.

    None also when two attributes (or an attribute and an argument) are the same mutable
    object: literals would make them two objects, and the call could behave differently.
    """
    state = _instance_state(obj)
    if state is None:
        return None
    shared = [id(v) for v in (*state.values(), *arguments) if isinstance(v, _MUTABLE)]
    if len(shared) != len(set(shared)):
        return None
    parts = []
    for key, value in state.items():
        text = _literal_of(value)
        if text is None:
            return None
        parts.append(f"{key!r}: {text}")
    literal = "{" + ", ".join(parts) + "}"
    return literal if len(literal) <= MAX_STATE_CHARS and "\n" not in literal else None


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


def _entry_for(frame: FrameType, method: bool = False) -> str | None:
    """``name(ARGS)`` reproducing the call of ``frame`` from its arguments, or None.

    ``method``: ``Class.method(ARGS)``, the instance (the first parameter) left out.
    """
    code = frame.f_code
    names = code.co_varnames
    f_locals = frame.f_locals
    positional = code.co_argcount
    kwonly = code.co_kwonlyargcount
    parts: list[str] = []
    for name in names[1 if method else 0 : positional]:
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
    entry = f"{code.co_qualname if method else code.co_name}({', '.join(parts)})"
    return entry if len(entry) <= MAX_ENTRY_CHARS and "\n" not in entry else None


class _TestTimeout(BaseException):
    """Ends a test that runs too long (a BaseException, so ``except Exception`` misses it)."""


_GENERATOR_FLAGS = 0x20 | 0x80 | 0x200  # CO_GENERATOR, CO_COROUTINE, CO_ASYNC_GENERATOR


class _Exit:
    """The local trace of a kept method call: how the call ended, rendered as the tracer does
    (``return VALUE``, or ``raise EXCEPTION`` when an exception left the frame), and the
    instance at that moment; stored into the hook's call at ``index``."""

    def __init__(self, hook: _Hook, index: int, self_name: str) -> None:
        self.hook = hook
        self.index = index
        self.self_name = self_name
        self.raised: str | None = None

    def __call__(self, frame: FrameType, event: str, arg: Any) -> _Exit | None:
        render_value = self.hook.render_value
        if event == "exception":
            self.raised = self.hook.render_exception(arg[1] if arg[1] is not None else arg[0]())
        elif event == "line":
            self.raised = None  # caught in this frame
        elif event == "return":
            shown = f"raise {self.raised}" if self.raised else f"return {render_value(arg)}"
            after = render_value(frame.f_locals.get(self.self_name))
            calls = self.hook.calls
            calls[self.index] = replace(calls[self.index], exit=shown, self_after=after)
            return None
        return self


class _Hook:
    """The trace hook: keeps the calls of the module's top-level functions and methods."""

    def __init__(
        self,
        files: frozenset[str],
        functions: dict[str, int],
        methods: dict[str, int] | None = None,
    ) -> None:
        from neural_debugger.tracer.values import render_exception, render_locals, render_value

        self.render_locals = render_locals
        self.render_value = render_value
        self.render_exception = render_exception
        self.files = files
        self.functions = functions
        self.methods = methods or {}
        self.calls: list[HarvestedCall] = []
        self.kept = Counter[bool]()  # calls kept, functions (False) and methods (True) apart
        self.counts: Counter[str] = Counter()
        self.deadline = 0.0
        self.stopped = False  # set when the hook ended the test (pytest catches the exception)

    def __call__(self, frame: FrameType, event: str, arg: object) -> _Exit | None:
        if time.monotonic() > self.deadline:
            sys.settrace(None)
            self.stopped = True
            raise _TestTimeout
        code = frame.f_code
        if code.co_filename not in self.files:
            return None
        first = self.functions.get(code.co_name)
        if first is None or code.co_qualname != code.co_name:
            method = self.methods.get(code.co_qualname)
            if method is not None and code.co_firstlineno == method:
                return self._method_call(frame, code.co_name)
            return None  # not sampled, or a nested function
        if code.co_firstlineno != first:
            return None  # another definition with the same name
        self.counts["calls seen"] += 1
        if self.kept[False] >= MAX_CALLS_PER_TEST:
            self.counts["calls over the per-test cap"] += 1
            return None
        try:
            entry = _entry_for(frame)
        except Exception:
            entry = None
        if entry is None:
            self.counts["calls with non-literal arguments"] += 1
            return None
        shown = self.render_locals(frame.f_locals, module_level=False)
        self.calls.append(HarvestedCall(code.co_name, entry, shown, _stack_depth(frame)))
        self.kept[False] += 1
        return None

    def _method_call(self, frame: FrameType, method: str) -> _Exit | None:
        """Keep a method call whose instance and arguments can be written as literals.

        The instance's class must be the one whose body defines the method (not a subclass;
        a fresh import of the module, as some tests make, has classes of its own)."""
        code = frame.f_code
        self.counts["method calls seen"] += 1
        if code.co_flags & _GENERATOR_FLAGS:
            self.counts["method calls of generators"] += 1  # an entry call would not run them
            return None
        if self.kept[True] >= MAX_CALLS_PER_TEST:
            self.counts["method calls over the per-test cap"] += 1
            return None
        f_locals = frame.f_locals
        instance = f_locals[code.co_varnames[0]]
        defined = type(instance).__dict__.get(method)
        if type(instance).__qualname__ != code.co_qualname.partition(".")[0] or (
            getattr(defined, "__code__", None) is not code
        ):
            self.counts["method calls on a subclass instance"] += 1
            return None
        try:
            arguments = [v for k, v in f_locals.items() if k != code.co_varnames[0]]
            state = _state_literal(instance, arguments)
        except Exception:
            state = None
        if state is None:
            self.counts["method calls with a non-literal instance"] += 1
            return None
        try:
            entry = _entry_for(frame, method=True)
        except Exception:
            entry = None
        if entry is None:
            self.counts["method calls with non-literal arguments"] += 1
            return None
        shown = self.render_locals(f_locals, module_level=False)
        self.calls.append(HarvestedCall(code.co_qualname, entry, shown, _stack_depth(frame), state))
        self.kept[True] += 1
        return _Exit(self, len(self.calls) - 1, code.co_varnames[0])


def _stack_depth(frame: FrameType) -> int:
    """Python frames below ``frame`` on the stack."""
    depth, caller = 0, frame.f_back
    while caller is not None:
        depth += 1
        caller = caller.f_back
    return depth


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
    if suite.runner == "pytest":
        _pytest_child_main(suite, out_path)
        return
    import test.support

    test.support.use_resources = []  # no network, no cpu-heavy or GUI resources
    test.support.verbose = False
    files, functions = _top_level_functions(suite.module)
    methods = _top_level_methods(suite.module)
    out = open(out_path, "w", encoding="utf-8")  # noqa: SIM115 - closed below
    devnull = open(os.devnull, "w")  # noqa: SIM115 - the process exits right after
    sys.stdout = sys.stderr = devnull
    totals: Counter[str] = Counter()
    for case in _tests_of(suite):
        hook = _Hook(files, functions, methods)
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


def _pytest_plugin(suite: Suite, out: Any) -> Any:
    """The hooks of an in-process pytest run: per test, the RNG reseeded, the trace hook around
    the test call only, and one JSON line; collection errors are tallied, ``skip_classes`` left
    out. (A factory, so that pytest is imported only in the child of a pytest suite.)"""
    import pytest

    files, functions = _top_level_functions(suite.module)
    methods = _top_level_methods(suite.module)
    skip = frozenset(suite.skip_classes)

    class Plugin:
        def __init__(self) -> None:
            self.hook: _Hook | None = None
            self.totals: Counter[str] = Counter()

        def pytest_collectreport(self, report: Any) -> None:
            if report.failed:
                self.totals["collection errors"] += 1

        def pytest_collection_modifyitems(self, config: Any, items: list[Any]) -> None:
            kept, left_out = [], []
            for item in items:
                names = {part.split("[")[0] for part in item.nodeid.split("::")[1:]}
                (left_out if names & skip else kept).append(item)
            if left_out:
                config.hook.pytest_deselected(items=left_out)
                items[:] = kept

        @pytest.hookimpl(tryfirst=True)
        def pytest_runtest_setup(self, item: Any) -> None:
            random.seed(0)  # before the fixtures, as unittest reseeds before setUp

        @pytest.hookimpl(wrapper=True)
        def pytest_runtest_call(self, item: Any) -> Any:
            hook = self.hook = _Hook(files, functions, methods)
            hook.deadline = time.monotonic() + TEST_TIMEOUT_S
            sys.settrace(hook)
            try:
                return (yield)
            finally:
                sys.settrace(None)

        @pytest.hookimpl(wrapper=True)
        def pytest_runtest_protocol(self, item: Any) -> Any:
            self.hook = None
            try:
                return (yield)
            finally:
                hook = self.hook or _Hook(files, functions)  # no call: skipped in setup
                if hook.stopped:  # pytest caught the hook's exception as a test failure
                    hook.counts["tests stopped by the timeout"] += 1
                self.totals.update(hook.counts)
                self.totals["tests run"] += 1
                record_ = {"test": item.nodeid, "calls": [vars(c) for c in hook.calls]}
                out.write(json.dumps(record_, ensure_ascii=False) + "\n")
                out.flush()
                self.hook = None

    return Plugin()


def _pytest_child_main(suite: Suite, out_path: str) -> None:
    """Run a package's pytest module in this process with :func:`_pytest_plugin`'s hooks.

    The package's own ``conftest.py`` files apply (as when its authors run it); the project's
    configuration does not (an empty ini file in the working folder), entry-point plugins are
    not loaded, nothing is cached, output is not captured to files, and ``tmp_path`` lies in the
    temporary working folder. Test ids are node ids relative to ``site-packages``.
    """
    import importlib.util

    import pytest

    spec = importlib.util.find_spec(suite.test)
    assert spec is not None and spec.origin is not None, suite.test
    top = importlib.util.find_spec(suite.module.split(".")[0])
    assert top is not None and top.submodule_search_locations is not None
    root = Path(next(iter(top.submodule_search_locations))).resolve().parent
    os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    Path("pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    out = open(out_path, "w", encoding="utf-8")  # noqa: SIM115 - closed below
    devnull = open(os.devnull, "w")  # noqa: SIM115 - the process exits right after
    sys.stdout = sys.stderr = devnull
    plugin = _pytest_plugin(suite, out)
    args = ["-q", "-s", "-c", "pytest.ini", f"--rootdir={root}", f"--confcutdir={root}"]
    args += ["-p", "no:cacheprovider", "-p", "no:stepwise", "-p", "no:faulthandler"]
    args += [f"--basetemp={Path.cwd() / 'basetemp'}", str(Path(spec.origin).resolve())]
    pytest.main(args, plugins=[plugin])
    out.write(json.dumps({"end": dict(plugin.totals)}) + "\n")
    out.close()


# ---------------------------------------------------------------------- the parent


def _child_env() -> dict[str, str]:
    """The parent's environment without Python's start-up switches (a startup file, inspect
    mode, a hash seed), but with its import path: where the project is installed with
    ``pip --target`` (a lent GPU machine), the child finds it only through PYTHONPATH."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON") or k == "PYTHONPATH"}
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
            env=_child_env() | {"TMPDIR": tmp},  # the tests' own temporary files lie in it
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
                    kept = [c for c in calls if not _names_the_run(c, Path(tmp).name, proc.pid)]
                    result.counts[TEMPORARY_NAMES] += len(calls) - len(kept)
                    result.tests[data["test"]] = kept
    return result


TEMPORARY_NAMES = "calls naming the harvest's temporary files"


def _names_the_run(call: HarvestedCall, folder: str, pid: int) -> bool:
    """Whether ``call`` shows a name that only this harvest had: its temporary folder's random
    name (in any spelling of the path: split, Windows-style, bytes), or the file name CPython's
    tests make from their process id (``@test_PID_tmp``). Such a call would train on random
    names, and two data runs of one seed would differ there."""
    texts = (call.entry, call.state, call.exit, call.self_after, *call.locals.values())
    return any(folder in text or f"@test_{pid}_tmp" in text for text in texts)


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
    | {"random"}  # numpy.random, random.random
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
                if set(name.split(".")) & _IMPURE_MODULES:  # also sympy.core.random
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
    for name in _free_names(tree):
        if name in _IMPURE_NAMES:
            return f"uses {name}"
    return None


_SCOPES = ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda


def _free_names(tree: ast.AST) -> list[str]:
    """Names read in a function (or at module level) that it does not bind itself, so that
    ``id = cls.idpattern`` or a parameter called ``input`` is not taken for the builtin."""
    found: list[str] = []

    def own(scope: ast.AST) -> list[ast.AST]:
        out, todo = [], list(ast.iter_child_nodes(scope))
        while todo:
            node = todo.pop()
            out.append(node)
            if not isinstance(node, _SCOPES | ast.ClassDef):
                todo.extend(ast.iter_child_nodes(node))
        return out

    todo = [tree]
    while todo:
        scope = todo.pop()
        nodes = own(scope)
        bound = {a.arg for a in nodes if isinstance(a, ast.arg)}
        if isinstance(scope, _SCOPES):
            args = scope.args
            every = [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]
            bound |= {a.arg for a in every if a is not None}
        if not isinstance(scope, ast.Module):
            bound |= {
                n.id for n in nodes if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)
            }
        for node in nodes:
            if isinstance(node, ast.Name) and node.id not in bound:
                found.append(node.id)
            if isinstance(node, _SCOPES | ast.ClassDef):
                todo.append(node)
    return found


@dataclass(frozen=True)
class RepoFunction:
    """A function of a suite's module, assembled into a self-contained program source."""

    module: str
    name: str
    source: str


@functools.cache
def assembled(module: str, name: str, packages: frozenset[str] = frozenset()) -> str | None:
    """The program source for ``module.name``, or None when it cannot stand alone.

    ``packages``: installed packages it may be copied from (see :attr:`Suite.packages`).
    """
    try:
        return assemble(module, name, packages)
    except (Unresolvable, SyntaxError, KeyError, ImportError):
        return None


RESTORE_HELPER = "restored"
_RESTORE_SOURCE = f'''def {RESTORE_HELPER}(cls, state):
    """An instance of cls whose attributes are state, made without calling __init__."""
    obj = object.__new__(cls)
    for name, value in state.items():
        object.__setattr__(obj, name, value)
    return obj
'''


def _top_level_names(source: str) -> set[str]:
    names: set[str] = set()
    for node in ast.parse(source).body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
        else:
            names.update(n.id for n in ast.walk(node) if isinstance(n, ast.Name))
    return names


@functools.cache
def method_source(module: str, function: str, packages: frozenset[str] = frozenset()) -> str | None:
    """The program source for the method ``function`` (``Class.method``) of ``module`` without
    its instance: the class cut down to what the method reaches (see :func:`.stdlib.assemble`),
    then :data:`RESTORE_HELPER`. None when it cannot stand alone."""
    cls, _, method = function.partition(".")
    try:
        source = assemble(module, cls, packages, method=method)
    except (Unresolvable, SyntaxError, KeyError, ImportError):
        return None
    if RESTORE_HELPER in _top_level_names(source):
        return None
    return f"{source}\n\n{_RESTORE_SOURCE}"


def _instance_name(cls: str, source: str) -> str:
    """A module-level name for the instance: the class name in snake case (``TextWrapper`` →
    ``text_wrapper``), prefixed with ``the_`` when the program already uses that name."""
    snake = re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", cls).lower()
    snake = snake.strip("_") or "instance"
    taken = _top_level_names(source) | set(dir(builtins)) | {"main", "ndb_main"}
    if snake in taken or keyword.iskeyword(snake):
        snake = f"the_{snake}"
    return snake


def method_program(
    module: str, call: HarvestedCall, packages: frozenset[str] = frozenset()
) -> tuple[str, str] | None:
    """The program and entry of a method call: the class and helper, then the instance rebuilt
    at module level (which the tracer runs untraced before the entry), e.g.::

        text_wrapper = restored(TextWrapper, {
            'width': 40,
            ...
        })

    and the entry ``text_wrapper.wrap('...')``, so the trace starts in the method itself."""
    base = method_source(module, call.function, packages)
    if base is None:
        return None
    cls = call.function.partition(".")[0]
    name = _instance_name(cls, base)
    line = f"{name} = {RESTORE_HELPER}({cls}, {call.state})"
    if len(line) > 99:
        state = ast.parse(call.state, mode="eval").body
        assert isinstance(state, ast.Dict)
        items = [
            f"    {ast.get_source_segment(call.state, k)}: {ast.get_source_segment(call.state, v)},"
            for k, v in zip(state.keys, state.values, strict=True)
            if k is not None
        ]
        line = "\n".join([f"{name} = {RESTORE_HELPER}({cls}, {{", *items, "})"])
    entry = name + "." + call.entry.removeprefix(cls + ".")
    return f"{base}\n\n{line}\n", entry


def _program_of(suite: Suite, call: HarvestedCall) -> tuple[str, str] | None:
    """Source and entry for a harvested call; None when its code cannot stand alone."""
    if call.is_method:
        return method_program(suite.module, call, suite.packages)
    source = assembled(suite.module, call.function, suite.packages)
    return None if source is None else (source, call.entry)


@dataclass(frozen=True)
class RepoCandidate:
    """A sampled call: the program to trace and the call state the test run showed.

    A method's also carries how the call ended and the instance then (see
    :class:`HarvestedCall`), and the module whose name qualifies the class in the test run.
    """

    program: TrainingProgram
    function: str
    locals: dict[str, str]
    depth: int
    exit: str = ""
    self_after: str = ""
    module: str = ""


@dataclass
class RepoPool:
    """Per test, the distinct usable calls, in a fixed order; and what was left out."""

    tests: list[tuple[str, Suite, list[HarvestedCall]]] = field(default_factory=list)
    counts: Counter[str] = field(default_factory=Counter)
    functions: set[str] = field(default_factory=set)


def _left_out(suite: Suite, call: HarvestedCall, crux: CruxEvalFilter | None) -> str | None:
    """Why the function or method ``call`` runs is left out of the pool (None: it is kept):
    it cannot stand alone, uses the OS, clock or addresses, or matches a CruxEval function."""
    if call.is_method:
        source = method_source(suite.module, call.function, suite.packages)
    else:
        source = assembled(suite.module, call.function, suite.packages)
    if source is None:
        return "that cannot stand alone"
    if impurity(source) is not None:
        return "that use the OS, clock or addresses"
    if crux is not None and any(form in crux.normal_forms for form in functions_of(source)):
        return "dropped as CruxEval matches"
    return None


def build_pool(harvests: Iterable[Harvest], crux: CruxEvalFilter | None) -> RepoPool:
    """Keep calls to functions and methods that assemble, are pure and match no CruxEval
    function; dedupe per test. A method call also needs its exit seen in the test run and a
    program within :data:`.stdlib.MAX_SOURCE_CHARS` once its instance is written out.
    Functions and methods are tallied apart (``functions kept``, ``methods kept``, ...)."""
    pool = RepoPool()
    dropped: dict[str, set[str]] = {}  # "functions/methods that ..." → origins
    # why a function or method is left out (None: kept), by what its source is read from: a
    # test suite calls the same ones many times, and reading each one's source once per call
    # was most of the pool's time (normalising it for the CruxEval filter: 157 of 254 s)
    verdicts: dict[tuple[str, frozenset[str], str, bool], str | None] = {}
    for item in harvests:
        pool.counts.update(item.counts)
        suite = item.suite
        for test_id, calls in item.tests.items():
            seen: set[tuple[str, str]] = set()
            kept: list[HarvestedCall] = []
            for call in calls:
                origin = f"{suite.module}.{call.function}"
                what = "methods" if call.is_method else "functions"
                key = (suite.module, suite.packages, call.function, call.is_method)
                if key not in verdicts:
                    verdicts[key] = _left_out(suite, call, crux)
                reason = verdicts[key]
                if reason is not None:
                    dropped.setdefault(f"{what} {reason}", set()).add(origin)
                    continue
                if (call.state, call.entry) in seen:
                    continue
                if call.is_method:
                    if not call.exit:
                        pool.counts["method calls whose exit was not seen"] += 1
                        continue
                    program = method_program(suite.module, call, suite.packages)
                    if program is None or len(program[0]) > MAX_SOURCE_CHARS:
                        pool.counts["method calls whose program is too long"] += 1
                        continue
                seen.add((call.state, call.entry))
                kept.append(call)
                pool.functions.add(origin)
            if kept:
                pool.tests.append((test_id, suite, kept))
    methods = {f"{s.module}.{c.function}" for _, s, cs in pool.tests for c in cs if c.is_method}
    pool.counts["functions kept"] = len(pool.functions - methods)
    pool.counts["methods kept"] = len(methods)
    for what in ("functions", "methods"):
        for reason in (
            "that cannot stand alone",
            "that use the OS, clock or addresses",
            "dropped as CruxEval matches",
        ):
            pool.counts[f"{what} {reason}"] = len(dropped.get(f"{what} {reason}", ()))
    pool.counts["tests with usable calls"] = len(pool.tests)
    pool.counts["distinct calls"] = sum(len(calls) for _, _, calls in pool.tests)
    pool.counts["distinct method calls"] = sum(
        c.is_method for _, _, calls in pool.tests for c in calls
    )
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
        made = _program_of(suite, call)
        assert made is not None
        source, entry = made
        test_name = test_id.removeprefix("test.")
        program = TrainingProgram(source, entry, f"repo:{test_name}:{suite.module}.{call.function}")
        out.append(
            RepoCandidate(
                program,
                call.function,
                call.locals,
                call.depth,
                call.exit,
                call.self_after,
                suite.module if call.is_method else "",
            )
        )
    return out


def check_candidate(candidate: RepoCandidate) -> str | None:
    """Why the candidate is not a usable program (None when it is).

    The program must run within the generator's bounds (normal or error exit) and its traced
    entry call must show exactly the locals the test run showed at that call. For a method,
    the instance's text may differ only in how the class is qualified by its module (see
    :func:`_same_text`), and the call must also end as it did in the test run: the same
    returned value or raised exception, and the same instance afterwards.
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
    at = next((i for i, ev in enumerate(trace.events) if ev.kind == "call" and ev.depth == 1), -1)
    first = trace.events[at] if at >= 0 else None
    if first is None or first.function != candidate.function:
        return "entry call not traced"
    if not candidate.module:
        return None if first.locals == candidate.locals else "call state differs from the test run"
    cls = candidate.function.partition(".")[0]
    same = functools.partial(_same_text, cls, candidate.module, loaded.module_name)
    names = list(candidate.locals)
    if (
        list(first.locals) != names
        or not same(candidate.locals[names[0]], first.locals[names[0]])
        or any(first.locals[k] != candidate.locals[k] for k in names[1:])
    ):
        return "call state differs from the test run"
    shown, after = _exit_of(trace.events, at)
    if not same(candidate.exit, shown) or not same(candidate.self_after, after.get(names[0], "")):
        return "exit differs from the test run"
    return None


def _same_text(cls: str, module: str, program_module: str, harvested: str, traced: str) -> bool:
    """Whether two renderings agree once the class's module qualification is taken out
    (``module.Class`` in the test run, ``program_module.Class`` in the program); anything
    else must be equal character for character."""
    if harvested == traced:
        return True
    ours = re.sub(rf"(?<![\w.]){re.escape(module)}\.(?={re.escape(cls)}\b)", "", harvested)
    theirs = re.sub(rf"(?<![\w.]){re.escape(program_module)}\.(?={re.escape(cls)}\b)", "", traced)
    return ours == theirs


def _exit_of(events: list[Any], at: int) -> tuple[str, dict[str, str]]:
    """How the call whose call event is ``events[at]`` ended, written as :class:`_Exit` writes
    it, and its locals then; ("", {}) when the trace does not show its end."""
    activation = events[at].activation
    previous = events[at]
    for ev in events[at + 1 :]:
        if ev.activation != activation:
            continue
        if ev.kind == "return":
            if previous.kind == "exception":
                return f"raise {previous.value}", ev.locals
            return f"return {ev.value}", ev.locals
        previous = ev
    return "", {}


if __name__ == "__main__":
    child_main(int(sys.argv[1]), sys.argv[2])
    sys.stdout.flush()
    os._exit(0)
