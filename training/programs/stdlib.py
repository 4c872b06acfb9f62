"""Real code for training: pure-Python standard-library functions as the program's own code.

Why: generated programs follow one grammar; real code written by other people has other
habits (docstrings, ``os.fspath``, sentinels, ``while True`` with ``break``, regular
expressions, helper calls, early returns). For each function listed in ``SPECS`` the source is
copied out of the standard library (the module's own file, read with :mod:`ast`, so functions
that a C accelerator shadows such as ``bisect.bisect_left`` are copied from their Python
version) together with the minimal lines it needs: imports, module-level constants written as
literals, compiled regular expressions, and the source of the module's helper functions and
classes it calls. The assembled module is checked automatically: it must run on its own and
return what the library function returns on sample inputs; any function that fails (a
``NameError``, an ``ImportError``, a different result) is dropped from the catalog. Nothing
from ``site-packages`` is used.

The program's entry is a call with generated arguments (``normpath("a//b/../c")``); for
one-line functions it maps the function over a few inputs, so the run has enough lines.
"""

from __future__ import annotations

import ast
import builtins
import dis
import functools
import importlib
import random
import re
import sys
import sysconfig
import textwrap
import types
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .names import WORDS
from .scope import lit

ArgGen = Callable[[random.Random], list[str]]

# C modules that shadow Python code; blocked while loading the Python version of a module.
ACCELERATORS: dict[str, tuple[str, ...]] = {
    "bisect": ("_bisect",),
    "heapq": ("_heapq",),
    "functools": ("_functools",),
    "operator": ("_operator",),
    "json.encoder": ("_json",),
    "datetime": ("_datetime",),
}
MAX_SOURCE_CHARS = 6500
_STDLIB_DIR = Path(sysconfig.get_paths()["stdlib"]).resolve()


@dataclass(frozen=True)
class Spec:
    """One standard-library function and how to make arguments for it."""

    module: str
    name: str
    args: ArgGen
    multi: int = 0  # > 0: the entry maps the function over this many argument sets
    kind: str = "stdlib"  # the origin's prefix: "stdlib", or "package" for installed packages
    wrap: str = ""  # a callable around the entry call, e.g. "list" to run a generator to its end

    @property
    def origin(self) -> str:
        return f"{self.kind}:{self.module}.{self.name}"


@dataclass(frozen=True)
class StdlibFunction:
    """A verified catalog entry: the spec and the assembled, runnable module source."""

    spec: Spec
    source: str

    def entry(self, rng: random.Random) -> str:
        name = self.spec.name
        if self.spec.multi:
            sets = [self.spec.args(rng) for _ in range(self.spec.multi)]
            columns = list(zip(*sets, strict=True))
            lists = ", ".join("[" + ", ".join(col) + "]" for col in columns)
            call = f"list(map({name}, {lists}))"
        else:
            call = f"{name}({', '.join(self.spec.args(rng))})"
        return f"{self.spec.wrap}({call})" if self.spec.wrap else call


# ---------------------------------------------------------------------- argument generators

_SEGMENTS = (
    "usr",
    "lib",
    "home",
    "bob",
    "docs",
    "a",
    "b",
    "..",
    ".",
    "",
    "x.txt",
    "data.csv",
    "archive.tar.gz",
    ".bashrc",
    "src",
    "main.py",
    "tmp",
    "notes",
    "img.png",
    "README",
)


def _path(rng: random.Random, sep: str = "/") -> str:
    parts = [rng.choice(_SEGMENTS) for _ in range(rng.randint(1, 5))]
    path = sep.join(parts)
    if rng.random() < 0.4:
        path = sep + path
    if rng.random() < 0.15:
        path += sep
    return path or "."


def _winpath(rng: random.Random) -> str:
    path = _path(rng, rng.choice(["\\", "/", "\\"]))
    if rng.random() < 0.4:
        path = (
            rng.choice(["C:", "D:", "c:"]) + ("" if path.startswith(("\\", "/")) else "\\") + path
        )
    if rng.random() < 0.1:
        path = "\\\\server\\share" + path
    return path


def _words(rng: random.Random, lo: int = 1, hi: int = 6) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(lo, hi)))


def _indented(rng: random.Random) -> str:
    base = " " * rng.choice([0, 2, 4, 4])
    lines = []
    for _ in range(rng.randint(1, 4)):
        extra = " " * rng.choice([0, 0, 2, 4])
        lines.append("" if rng.random() < 0.15 else base + extra + _words(rng, 1, 3))
    return "\n".join(lines) + ("\n" if rng.random() < 0.5 else "")


def _ints(rng: random.Random, lo: int = 0, hi: int = 8) -> list[int]:
    return [rng.randint(-10, 40) for _ in range(rng.randint(lo, hi))]


def _heap(rng: random.Random, lo: int = 0) -> list[int]:
    import heapq

    xs = _ints(rng, lo, 8)
    heapq.heapify(xs)
    return xs


def _rgb(rng: random.Random) -> list[str]:
    return [repr(round(rng.random(), 2)) for _ in range(3)]


def _pattern(rng: random.Random) -> str:
    return rng.choice(
        [
            "*.py",
            "data_??.csv",
            "[abc]*",
            "[!x]y*",
            "file[0-9].txt",
            "*",
            "a*b*c",
            "*.[ch]",
            "test_*",
            "??",
            "[a-f]*.log",
            "report-*-final.*",
        ]
    )


def _filename(rng: random.Random) -> str:
    return rng.choice(
        [
            "main.py",
            "data_01.csv",
            "apple",
            "xyz",
            "file7.txt",
            "test_io.py",
            "ab",
            "b.c",
            "abc",
            "util.h",
            "a1b2c3",
            "error.log",
            "report-2023-final.pdf",
            "zeta.py",
        ]
    )


def _shell_word(rng: random.Random) -> str:
    return rng.choice(
        [
            "hello",
            "hello world",
            "it's",
            "a;b",
            "$HOME",
            "x=1",
            "",
            "file name.txt",
            "--flag",
            'say "hi"',
            "*.py",
            "back\\slash",
            "ok",
        ]
    )


def _html(rng: random.Random) -> str:
    return rng.choice(
        [
            "a < b",
            "x & y",
            '"quoted"',
            "it's <b>bold</b>",
            "plain text",
            "1 > 0 & 2 > 1",
            "<a href='x'>link</a>",
            "Tom & Jerry",
            "",
        ]
    )


def _url(rng: random.Random) -> str:
    return rng.choice(
        [
            "http://user:pw@example.com:8080/path?q=1#top",
            "example.com:80",
            "www.python.org",
            "https://docs.python.org/3/library/",
            "ftp://files.host.net/pub/file.txt",
            "host:abc",
            "mailto:bob@example.com",
            "//cdn.site.org/lib.js?v=2",
            "/local/path#frag",
            "user@host",
            "user:secret@server",
            "name=value",
            "page?id=7&sort=asc",
        ]
    )


def _query(rng: random.Random) -> str:
    pairs = []
    for _ in range(rng.randint(1, 4)):
        key = rng.choice(["a", "id", "q", "page", "sort", "name"])
        if rng.random() < 0.2:
            pairs.append(key)
        else:
            pairs.append(f"{key}={rng.choice(['1', 'x', 'hello+world', '%20a', 'asc', ''])}")
    return rng.choice(["&", "&", ";"]).join(pairs)


def _date_text(rng: random.Random) -> str:
    day = rng.choice(["Mon, ", "Tue, ", "", "Fri, "])
    zone = rng.choice(["-0500", "+0100", "GMT", "EST", "+0000", "UT"])
    return (
        f"{day}{rng.randint(1, 28)} {rng.choice(['Jan', 'Feb', 'Mar', 'Nov', 'Dec'])} "
        f"{rng.choice([1995, 2001, 2019, 2024])} {rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}"
        f":{rng.randint(0, 59):02d} {zone}"
    )


def _plural(rng: random.Random) -> str:
    return rng.choice(
        [
            "n != 1",
            "n > 1",
            "n == 1 ? 0 : 1",
            "n%10==1 && n%100!=11 ? 0 : 1",
            "0",
            "(n==1) ? 0 : (n>=2 && n<=4) ? 1 : 2",
            "n==0 ? 0 : n==1 ? 1 : 2",
        ]
    )


def _s(value: object) -> str:
    return lit(value)


def _one(gen: Callable[[random.Random], object]) -> ArgGen:
    return lambda rng: [_s(gen(rng))]


def _year(rng: random.Random) -> int:
    return rng.choice([1900, 2000, 2023, 2024, 1996, 2100, rng.randint(1800, 2100)])


SPECS: tuple[Spec, ...] = (
    # posixpath / genericpath
    Spec("posixpath", "normpath", _one(_path)),
    Spec("posixpath", "join", lambda r: [_s(_path(r)) for _ in range(r.randint(2, 3))]),
    Spec("posixpath", "split", _one(_path), multi=3),
    Spec("posixpath", "splitext", _one(_path), multi=2),
    Spec("posixpath", "basename", _one(_path), multi=3),
    Spec("posixpath", "dirname", _one(_path), multi=3),
    Spec("posixpath", "isabs", _one(_path), multi=4),
    Spec(
        "posixpath",
        "commonpath",
        lambda r: [_s(["/" + _path(r).strip("/") for _ in range(r.randint(1, 3))])],
    ),
    Spec("genericpath", "commonprefix", lambda r: [_s([_path(r) for _ in range(r.randint(1, 4))])]),
    # ntpath
    Spec("ntpath", "normpath", _one(_winpath)),
    Spec("ntpath", "splitdrive", _one(_winpath), multi=2),
    Spec("ntpath", "split", _one(_winpath), multi=2),
    Spec("ntpath", "splitext", _one(_winpath), multi=2),
    Spec("ntpath", "join", lambda r: [_s(_winpath(r)) for _ in range(r.randint(2, 3))]),
    Spec("ntpath", "isabs", _one(_winpath), multi=3),
    # text
    Spec("textwrap", "dedent", _one(_indented)),
    Spec(
        "textwrap",
        "indent",
        lambda r: [_s(_indented(r)), _s(r.choice(["> ", "  ", "# ", "|  "][:3]))],
    ),
    Spec("textwrap", "shorten", lambda r: [_s(_words(r, 2, 8)), str(r.randint(12, 30))]),
    Spec("textwrap", "wrap", lambda r: [_s(_words(r, 2, 6)), str(r.randint(8, 20))]),
    Spec("textwrap", "fill", lambda r: [_s(_words(r, 2, 6)), str(r.randint(8, 20))]),
    Spec("string", "capwords", lambda r: [_s(_words(r, 1, 5))], multi=4),
    Spec("html", "escape", _one(_html), multi=2),
    Spec("shlex", "quote", _one(_shell_word), multi=3),
    Spec("shlex", "join", lambda r: [_s([_shell_word(r) for _ in range(r.randint(1, 3))])]),
    Spec(
        "shlex",
        "split",
        lambda r: [
            _s(" ".join(_shell_word(r) for _ in range(r.randint(1, 2))).replace("it's", "its"))
        ],
    ),
    Spec("xml.sax.saxutils", "escape", _one(_html), multi=2),
    Spec(
        "xml.sax.saxutils",
        "unescape",
        lambda r: [_s(r.choice(["a &lt; b", "x &amp; y", "&gt;&gt;", "plain"]))],
        multi=2,
    ),
    Spec("xml.sax.saxutils", "quoteattr", _one(_html), multi=2),
    Spec("json.encoder", "py_encode_basestring", _one(_html), multi=2),
    Spec(
        "json.encoder",
        "py_encode_basestring_ascii",
        lambda r: [_s(r.choice(["café", "naïve", "plain", "tab\there", "日本", "a\nb"]))],
        multi=2,
    ),
    Spec(
        "email._parseaddr",
        "quote",
        lambda r: [_s(r.choice(['say "hi"', "back\\slash", "plain"]))],
        multi=4,
    ),
    Spec(
        "email.utils",
        "unquote",
        lambda r: [_s(r.choice(['"quoted"', "<angle>", "plain", '"a\\"b"']))],
        multi=3,
    ),
    Spec("email._parseaddr", "_parsedate_tz", lambda r: [_s(_date_text(r))]),
    Spec("gettext", "c2py", lambda r: [_s(_plural(r))]),
    # patterns
    Spec("fnmatch", "translate", _one(_pattern)),
    Spec("fnmatch", "fnmatchcase", lambda r: [_s(_filename(r)), _s(_pattern(r))], multi=3),
    Spec(
        "fnmatch",
        "filter",
        lambda r: [_s([_filename(r) for _ in range(r.randint(1, 4))]), _s(_pattern(r))],
    ),
    Spec("glob", "has_magic", lambda r: [_s(r.choice([_pattern(r), _path(r)]))], multi=3),
    Spec("glob", "escape", lambda r: [_s(r.choice([_pattern(r), _path(r)]))], multi=2),
    # numbers
    Spec("colorsys", "rgb_to_hsv", _rgb),
    Spec("colorsys", "hsv_to_rgb", _rgb),
    Spec("colorsys", "rgb_to_hls", _rgb),
    Spec("colorsys", "hls_to_rgb", _rgb),
    Spec("colorsys", "rgb_to_yiq", _rgb),
    Spec("colorsys", "yiq_to_rgb", _rgb),
    Spec("calendar", "isleap", lambda r: [str(_year(r))], multi=4),
    Spec(
        "calendar",
        "leapdays",
        lambda r: [str(r.randint(1800, 2000)), str(r.randint(2000, 2100))],
        multi=2,
    ),
    Spec(
        "calendar",
        "weekday",
        lambda r: [str(_year(r)), str(r.randint(1, 12)), str(r.randint(1, 28))],
        multi=2,
    ),
    Spec("calendar", "monthrange", lambda r: [str(_year(r)), str(r.randint(1, 12))]),
    Spec("datetime", "_is_leap", lambda r: [str(_year(r))], multi=4),
    Spec("datetime", "_days_before_year", lambda r: [str(_year(r))], multi=3),
    Spec("datetime", "_days_in_month", lambda r: [str(_year(r)), str(r.randint(1, 12))], multi=3),
    Spec(
        "datetime",
        "_ymd2ord",
        lambda r: [str(_year(r)), str(r.randint(1, 12)), str(r.randint(1, 28))],
    ),
    Spec("datetime", "_ord2ymd", lambda r: [str(r.randint(1, 800_000))]),
    Spec("statistics", "mean", lambda r: [_s(_ints(r, 1, 6))]),
    Spec("statistics", "fmean", lambda r: [_s(_ints(r, 1, 6))]),
    Spec("statistics", "median", lambda r: [_s(_ints(r, 1, 7))]),
    Spec("statistics", "median_low", lambda r: [_s(_ints(r, 1, 7))]),
    Spec("statistics", "median_high", lambda r: [_s(_ints(r, 1, 7))]),
    Spec("statistics", "median_grouped", lambda r: [_s(_ints(r, 1, 6))]),
    Spec(
        "statistics",
        "mode",
        lambda r: [_s([r.randint(0, 4) for _ in range(r.randint(1, 7))])],
        multi=2,
    ),
    Spec(
        "statistics", "multimode", lambda r: [_s([r.randint(0, 4) for _ in range(r.randint(0, 7))])]
    ),
    Spec("statistics", "pvariance", lambda r: [_s(_ints(r, 1, 5))]),
    Spec("statistics", "variance", lambda r: [_s(_ints(r, 2, 5))]),
    Spec(
        "ipaddress",
        "_count_righthand_zero_bits",
        lambda r: [str(r.choice([0, 8, 12, 40, 96, 1024, 4096])), str(r.choice([8, 16, 32]))],
        multi=3,
    ),
    # algorithms
    Spec("bisect", "bisect_left", lambda r: [_s(sorted(_ints(r))), str(r.randint(-10, 40))]),
    Spec("bisect", "bisect_right", lambda r: [_s(sorted(_ints(r))), str(r.randint(-10, 40))]),
    Spec("bisect", "insort_left", lambda r: [_s(sorted(_ints(r))), str(r.randint(-10, 40))]),
    Spec("bisect", "insort_right", lambda r: [_s(sorted(_ints(r))), str(r.randint(-10, 40))]),
    Spec("heapq", "heappush", lambda r: [_s(_heap(r)), str(r.randint(-10, 40))]),
    Spec("heapq", "heappop", lambda r: [_s(_heap(r, 1))]),
    Spec("heapq", "heapify", lambda r: [_s(_ints(r, 2))]),
    Spec("heapq", "heapreplace", lambda r: [_s(_heap(r, 1)), str(r.randint(-10, 40))]),
    Spec("heapq", "heappushpop", lambda r: [_s(_heap(r)), str(r.randint(-10, 40))]),
    Spec("heapq", "nsmallest", lambda r: [str(r.randint(1, 3)), _s(_ints(r, 1))]),
    Spec("heapq", "nlargest", lambda r: [str(r.randint(1, 3)), _s(_ints(r, 1))]),
    Spec(
        "functools",
        "reduce",
        lambda r: [
            r.choice(
                ["lambda a, b: a + b", "lambda a, b: a * b", "max", "lambda acc, x: acc * 10 + x"]
            ),
            _s(_ints(r, 1, 5)),
        ],
    ),
    Spec(
        "operator",
        "countOf",
        lambda r: [_s([r.randint(0, 3) for _ in range(r.randint(0, 7))]), str(r.randint(0, 3))],
    ),
    Spec(
        "operator",
        "indexOf",
        lambda r: (lambda xs: [_s(xs), str(r.choice(xs))])(
            [r.randint(0, 5) for _ in range(r.randint(1, 7))]
        ),
    ),
    Spec(
        "collections",
        "_count_elements",
        lambda r: ["{}", _s(r.choice([_words(r, 1, 2), [r.randint(0, 3) for _ in range(5)]]))],
    ),
    Spec(
        "difflib",
        "_format_range_unified",
        lambda r: [str(r.randint(0, 20)), str(r.randint(20, 40))],
        multi=3,
    ),
    Spec(
        "difflib",
        "_format_range_context",
        lambda r: [str(r.randint(0, 20)), str(r.randint(20, 40))],
        multi=3,
    ),
    Spec(
        "difflib",
        "IS_CHARACTER_JUNK",
        lambda r: [_s(r.choice([" ", "\t", "a", "#", "x"]))],
        multi=5,
    ),
    Spec("difflib", "get_close_matches", lambda r: [_s(r.choice(WORDS)), _s(r.sample(WORDS, 4))]),
    Spec("urllib.parse", "_splittype", _one(_url), multi=2),
    Spec(
        "urllib.parse",
        "_splithost",
        lambda r: [_s(r.choice(["//www.python.org/doc", "//host:80/", "/no/host", "//user@h/p"]))],
        multi=2,
    ),
    Spec("urllib.parse", "_splituser", _one(_url), multi=2),
    Spec(
        "urllib.parse",
        "_splitpasswd",
        lambda r: [_s(r.choice(["user:secret", "bob", "a:b:c"]))],
        multi=3,
    ),
    Spec("urllib.parse", "_splitport", _one(_url), multi=2),
    Spec(
        "urllib.parse",
        "_splitnport",
        lambda r: [_s(r.choice(["host:8080", "host", "host:abc", "h:"]))],
        multi=2,
    ),
    Spec("urllib.parse", "_splitquery", _one(_url), multi=2),
    Spec("urllib.parse", "_splittag", _one(_url), multi=2),
    Spec(
        "urllib.parse",
        "_splitvalue",
        lambda r: [_s(r.choice(["name=value", "flag", "a=b=c"]))],
        multi=3,
    ),
    Spec("urllib.parse", "parse_qsl", lambda r: [_s(_query(r))]),
    Spec(
        "quopri",
        "needsquoting",
        lambda r: [
            _s(r.choice([b"a", b"=", b" ", b"\t", b"\xe9"])),
            r.choice(["True", "False"]),
            r.choice(["True", "False"]),
        ],
        multi=3,
    ),
    Spec("quopri", "quote", lambda r: [_s(r.choice([b"=", b"\xe9", b"\t", b"\x00"]))], multi=3),
    Spec("quopri", "unhex", lambda r: [_s(r.choice([b"3D", b"e9", b"FF", b"0a", b"7F"]))], multi=2),
)


# ---------------------------------------------------------------------- assembly


class Unresolvable(Exception):
    """A name the function needs cannot be written as plain module-level code."""


def _check_stdlib_file(path: str | None, modname: str, packages: frozenset[str]) -> Path:
    """The module's file; it must be the standard library's, or a package in ``packages``."""
    if path is None:
        raise Unresolvable("no source file")
    file = Path(path).resolve()
    if modname.split(".")[0] in packages and file.suffix == ".py":
        return file  # an installed pure-Python package the caller allows (see packages.py)
    if "site-packages" in file.parts or "dist-packages" in file.parts:
        raise Unresolvable(f"{file} is not in the standard library")
    if _STDLIB_DIR not in file.parents:
        raise Unresolvable(f"{file} is not under {_STDLIB_DIR}")
    return file


@functools.cache
def _module_namespace(
    modname: str, packages: frozenset[str] = frozenset()
) -> tuple[dict[str, Any], str, str]:
    """The module's namespace (its pure-Python version where C would shadow it), source, file.

    ``packages`` names installed top-level packages whose modules may be read too.
    """
    real = importlib.import_module(modname)
    file = _check_stdlib_file(getattr(real, "__file__", None), modname, packages)
    source = file.read_text(encoding="utf-8")
    blocked = ACCELERATORS.get(modname)
    if not blocked:
        return vars(real), source, str(file)
    missing = object()
    saved = {name: sys.modules.get(name, missing) for name in blocked}
    module = types.ModuleType(f"_ndb_pure_{modname.replace('.', '_')}")
    module.__file__ = str(file)
    try:
        for name in blocked:
            sys.modules[name] = None  # type: ignore[assignment]  # makes the import fail
        exec(compile(source, str(file), "exec"), module.__dict__)
    finally:
        for name, value in saved.items():
            if value is missing:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = value  # type: ignore[assignment]
    return module.__dict__, source, str(file)


def _definitions(tree: ast.Module) -> dict[str, ast.FunctionDef | ast.ClassDef]:
    """Top-level functions and classes, including those inside top-level if/try blocks.

    ``@overload`` stubs are passed over: the definition that runs is the one after them."""
    found: dict[str, ast.FunctionDef | ast.ClassDef] = {}

    def visit(body: list[ast.stmt]) -> None:
        for node in body:
            if isinstance(node, ast.FunctionDef) and _is_overload(node):
                continue
            if isinstance(node, ast.FunctionDef | ast.ClassDef):
                found.setdefault(node.name, node)
            elif isinstance(node, ast.If):
                visit(node.body)
                visit(node.orelse)
            elif isinstance(node, ast.Try):
                visit(node.body)
                for handler in node.handlers:
                    visit(handler.body)

    visit(tree.body)
    return found


def _is_overload(node: ast.FunctionDef) -> bool:
    """Whether the function is a ``typing.overload`` stub (``@overload``, ``@t.overload``)."""
    for decorator in node.decorator_list:
        name = decorator.attr if isinstance(decorator, ast.Attribute) else None
        name = decorator.id if isinstance(decorator, ast.Name) else name
        if name == "overload":
            return True
    return False


def _segment(lines: list[str], node: ast.FunctionDef | ast.ClassDef) -> str:
    """The definition's source (decorators included), moved to column 0 if it was nested."""
    start = min([node.lineno, *(d.lineno for d in node.decorator_list)])
    assert node.end_lineno is not None
    return textwrap.dedent("\n".join(lines[start - 1 : node.end_lineno]))


def _global_names(code: types.CodeType) -> list[str]:
    names: list[str] = []
    for instr in dis.get_instructions(code):
        if (
            instr.opname in ("LOAD_GLOBAL", "LOAD_NAME", "STORE_GLOBAL")
            and isinstance(instr.argval, str)
            and instr.argval not in names
        ):
            names.append(instr.argval)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            for name in _global_names(const):
                if name not in names:
                    names.append(name)
    return names


def _sliced_class_names(code: types.CodeType) -> list[str]:
    """:func:`_global_names` of a module holding one class, without the names the class body
    binds itself and reads back (``firstweekday = property(getfirstweekday, ...)`` reads the
    class's own ``getfirstweekday``, not a module function of that name)."""
    names: list[str] = []

    def add(found: list[str]) -> None:
        names.extend(n for n in found if n not in names)

    add(
        [
            str(i.argval)
            for i in dis.get_instructions(code)
            if i.opname in ("LOAD_GLOBAL", "LOAD_NAME", "STORE_GLOBAL")
        ]
    )
    for const in code.co_consts:
        if not isinstance(const, types.CodeType):
            continue
        own = list(dis.get_instructions(const))
        stored = {str(i.argval) for i in own if i.opname == "STORE_NAME"}
        add(
            [
                str(i.argval)
                for i in own
                if i.opname in ("LOAD_GLOBAL", "LOAD_NAME", "STORE_GLOBAL")
                and str(i.argval) not in stored
            ]
        )
        for inner in const.co_consts:
            if isinstance(inner, types.CodeType):
                add(_global_names(inner))
    return names


def _literal(value: object, depth: int = 0) -> str | None:
    """Source for a plain constant, or None."""
    if depth > 4:
        return None
    if value is None or isinstance(value, bool | int | float | str | bytes):
        return repr(value)
    if isinstance(value, tuple | list):
        parts = [_literal(v, depth + 1) for v in value]
        if any(p is None for p in parts):
            return None
        if isinstance(value, tuple):
            return "(" + ", ".join(parts) + ("," if len(parts) == 1 else "") + ")"  # type: ignore[arg-type]
        return "[" + ", ".join(parts) + "]"  # type: ignore[arg-type]
    if isinstance(value, frozenset | set):
        parts = sorted(p for p in (_literal(v, depth + 1) for v in value) if p is not None)
        if len(parts) != len(value):
            return None
        inner = "{" + ", ".join(parts) + "}" if parts else "()"
        return (
            f"frozenset({inner})" if isinstance(value, frozenset) else (inner if parts else "set()")
        )
    if isinstance(value, dict):
        items = []
        for k, v in value.items():
            ks, vs = _literal(k, depth + 1), _literal(v, depth + 1)
            if ks is None or vs is None:
                return None
            items.append(f"{ks}: {vs}")
        return "{" + ", ".join(items) + "}"
    return None


_FLAG_NAMES = ("ASCII", "IGNORECASE", "LOCALE", "MULTILINE", "DOTALL", "VERBOSE")


def _pattern_source(pattern: re.Pattern[Any]) -> str:
    flags = [f"re.{n}" for n in _FLAG_NAMES if pattern.flags & getattr(re, n)]
    text = repr(pattern.pattern)
    if isinstance(pattern.pattern, str) and "\\" in pattern.pattern:
        raw = pattern.pattern
        if "'" not in raw and "\n" not in raw and not raw.endswith("\\"):
            text = f"r'{raw}'"
    return f"re.compile({text}{', ' + '|'.join(flags) if flags else ''})"


def _import_line(name: str, value: object, tree: ast.Module) -> str | None:
    """An import binding ``name`` to ``value``, preferring the module's own import statement."""
    if isinstance(value, types.ModuleType):
        return (
            f"import {value.__name__}"
            if value.__name__ == name
            else (f"import {value.__name__} as {name}")
        )
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                if (alias.asname or alias.name) == name:
                    try:
                        mod = importlib.import_module(node.module)
                    except ImportError:
                        continue
                    if getattr(mod, alias.name, None) is value:
                        as_part = f" as {alias.asname}" if alias.asname else ""
                        return f"from {node.module} import {alias.name}{as_part}"
    modname = getattr(value, "__module__", None)
    attr = getattr(value, "__name__", None)
    if isinstance(modname, str) and isinstance(attr, str) and not modname.startswith("_ndb"):
        try:
            mod = importlib.import_module(modname)
        except ImportError:
            return None
        if getattr(mod, attr, None) is value:
            return f"from {modname} import {attr}" + (f" as {name}" if attr != name else "")
    return None


def _is_dunder(name: str) -> bool:
    return name.startswith("__") and name.endswith("__") and len(name) > 4


def _binds(stmt: ast.stmt) -> set[str]:
    """The names a class-body statement binds."""
    if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return {stmt.name}
    targets: list[ast.expr] = []
    if isinstance(stmt, ast.Assign):
        targets = stmt.targets
    elif isinstance(stmt, ast.AnnAssign | ast.AugAssign):
        targets = [stmt.target]
    return {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}


def _reads(stmt: ast.stmt) -> set[str]:
    """Every name, attribute name and identifier-like string a statement mentions (a
    ``del``'s targets included): the members it may reach, over-approximated."""
    found: set[str] = set()
    for node in ast.walk(stmt):
        if isinstance(node, ast.Name):
            found.add(node.id)
        elif isinstance(node, ast.Attribute):
            found.add(node.attr)
        elif isinstance(node, ast.Constant) and str(node.value).isidentifier():
            found.add(str(node.value))  # getattr(self, "name")
    return found


def _class_family(defs: dict[str, ast.FunctionDef | ast.ClassDef], name: str) -> list[ast.ClassDef]:
    """The class and its base classes defined in the same module, subclass first."""
    family: list[ast.ClassDef] = []
    todo = [name]
    while todo:
        node = defs.get(todo.pop(0))
        if not isinstance(node, ast.ClassDef) or node in family:
            continue
        family.append(node)
        todo.extend(b.id for b in node.bases if isinstance(b, ast.Name))
    return family


_OPERATORS: dict[type, str] = {
    ast.Add: "add",
    ast.Sub: "sub",
    ast.Mult: "mul",
    ast.MatMult: "matmul",
    ast.Div: "truediv",
    ast.FloorDiv: "floordiv",
    ast.Mod: "mod",
    ast.Pow: "pow",
    ast.LShift: "lshift",
    ast.RShift: "rshift",
    ast.BitOr: "or",
    ast.BitXor: "xor",
    ast.BitAnd: "and",
}
_UNARY: dict[type, str] = {
    ast.USub: "neg",
    ast.UAdd: "pos",
    ast.Invert: "invert",
    ast.Not: "bool len",
}
_ORDER = "lt le gt ge eq ne"
_ITERATION = "iter next len length_hint getitem contains reversed"
_HASHING = "hash eq"
_TRUTH = "bool len"
_COPYING = "copy deepcopy reduce reduce_ex getstate setstate getnewargs getnewargs_ex"
# Builtins that call special methods of what they are given.
_BUILTIN_CALLS: dict[str, str] = {
    "len": "len",
    "bool": _TRUTH,
    "hash": "hash",
    "abs": "abs",
    "int": "int index trunc",
    "float": "float index",
    "complex": "complex float index",
    "round": "round",
    "divmod": "divmod rdivmod",
    "pow": "pow rpow",
    "next": "next",
    "iter": _ITERATION,
    "reversed": _ITERATION,
    "bytes": "bytes index " + _ITERATION,
    **dict.fromkeys(["list", "tuple", "enumerate", "zip", "map", "filter", "any"], _ITERATION),
    **dict.fromkeys(["all", "sum", "join", "extend", "update", "fsum", "prod"], _ITERATION),
    **dict.fromkeys(["sorted", "min", "max", "sort", "bisect", "insort"], f"{_ITERATION} {_ORDER}"),
    **dict.fromkeys(
        ["set", "frozenset", "dict", "add", "get", "fromkeys"], f"{_ITERATION} {_HASHING}"
    ),
    **dict.fromkeys(["copy", "deepcopy", "replace"], _COPYING),
    "index": "index",
}


def _triggers(stmt: ast.stmt) -> set[str]:
    """The special methods the statement's code may make Python call without naming them
    (``a + b`` calls ``__add__``, ``__radd__`` or ``__iadd__``; ``for x in y`` ``__iter__``)."""
    found: list[str] = []
    for node in ast.walk(stmt):
        if isinstance(node, ast.BinOp | ast.AugAssign):
            op = _OPERATORS.get(type(node.op), "")
            found += [op, "r" + op, "i" + op] if op else []
        elif isinstance(node, ast.UnaryOp):
            found += _UNARY.get(type(node.op), "").split()
        elif isinstance(node, ast.BoolOp | ast.If | ast.While | ast.IfExp | ast.Assert):
            found += _TRUTH.split()
        elif isinstance(node, ast.Compare):
            for op in node.ops:
                if isinstance(op, ast.In | ast.NotIn):
                    found += f"{_ITERATION} {_HASHING}".split()
                elif not isinstance(op, ast.Is | ast.IsNot):
                    found += _ORDER.split()
        elif isinstance(
            node, ast.For | ast.AsyncFor | ast.comprehension | ast.Starred | ast.YieldFrom
        ):
            found += _ITERATION.split()
        elif isinstance(node, ast.Tuple | ast.List) and isinstance(node.ctx, ast.Store):
            found += _ITERATION.split()  # unpacking
        elif isinstance(node, ast.Subscript | ast.Slice):
            found += ["getitem", "setitem", "delitem", "missing", "index", "class_getitem"]
        elif isinstance(node, ast.With | ast.AsyncWith):
            found += ["enter", "exit", "aenter", "aexit"]
        elif isinstance(node, ast.Dict | ast.Set):
            keys = node.keys if isinstance(node, ast.Dict) else node.elts
            if not all(isinstance(k, ast.Constant) for k in keys):
                found += _HASHING.split()  # constant keys hash no instance
        elif isinstance(node, ast.DictComp | ast.SetComp):
            found += _HASHING.split()
        elif isinstance(node, ast.Call):
            func = node.func
            name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
            found += _BUILTIN_CALLS.get(name, "").split()
    return {f"__{name}__" for name in found}


# Special methods kept only when the kept code may trigger them (see _triggers); any other
# (``__repr__``, ``__str__``, ``__getattr__``, ``__setattr__``, ``__init_subclass__``, ...) is
# always kept: Python calls them when it renders, reads or defines the instance or class.
_TRIGGERED = {
    f"__{name}__"
    for text in [*_UNARY.values(), _ORDER, _ITERATION, _HASHING, *_BUILTIN_CALLS.values()]
    for name in text.split()
} | {f"__{p}{op}__" for op in _OPERATORS.values() for p in ("", "r", "i")}
_TRIGGERED |= {f"__{n}__" for n in ["setitem", "delitem", "missing", "class_getitem"]}
_TRIGGERED |= {"__enter__", "__exit__", "__aenter__", "__aexit__"}


def _method_statements(family: list[ast.ClassDef], method: str) -> set[int]:
    """The class-body statements (as ``id()`` of their nodes) that ``method`` can reach.

    Kept: the method; every method, property or class attribute whose name the kept code
    mentions (transitively, so over-approximated); the special methods the kept code may make
    Python call (``__add__`` where it adds, ``__iter__`` where it loops, see :func:`_triggers`),
    those Python calls to render, read or define the instance or class (``__repr__``,
    ``__getattr__``, ``__init_subclass__``), ``__init__`` and ``__new__`` when the kept code
    names the class or its type; class-body data a kept statement reads, and a ``del`` of kept
    names. A class with decorators, keywords or a base from elsewhere (a dataclass, an enum, a
    named tuple) keeps all its data statements: there they define the class, not just values.
    What this misses (a special method called by a function the method passes the instance
    to) shows as a different exit, which the harvest's check compares with the test run's.
    """
    names = {c.name for c in family}
    wanted = {method}
    triggered: set[str] = set()
    kept: set[int] = set()

    def special(name: str) -> bool:
        if name in ("__init__", "__new__"):
            return bool(wanted & (names | {"__class__", "type"}))
        return _is_dunder(name) and (name not in _TRIGGERED or name in triggered)

    changed = True
    while changed:
        changed = False
        for cls in family:
            plain = not cls.decorator_list and not cls.keywords
            plain = plain and all(
                isinstance(b, ast.Name) and b.id in names | {"object"} for b in cls.bases
            )
            for stmt in _body(cls):
                if id(stmt) in kept:
                    continue
                bound = _binds(stmt)
                if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef):
                    keep = stmt.name in wanted or special(stmt.name)
                elif not plain:
                    keep = True
                elif isinstance(stmt, ast.Delete):
                    keep = bool(_reads(stmt) & wanted)
                else:  # data: what kept code reads, special names, unnamed statements
                    keep = bool(bound & wanted) or any(map(special, bound)) or not bound
                if keep:
                    kept.add(id(stmt))
                    wanted |= bound | _reads(stmt)
                    triggered |= _triggers(stmt)
                    changed = True
    return kept


def _body(cls: ast.ClassDef) -> list[ast.stmt]:
    """A class's statements without its docstring."""
    body = cls.body
    first = body[0] if body else None
    if (
        isinstance(first, ast.Expr)
        and isinstance(first.value, ast.Constant)
        and isinstance(first.value.value, str)
    ):
        return body[1:]
    return body


def _start(node: ast.stmt) -> int:
    decorators = getattr(node, "decorator_list", [])
    return min([node.lineno, *(d.lineno for d in decorators)])


def _class_slice(lines: list[str], node: ast.ClassDef, kept: set[int]) -> str:
    """The class's source with only the ``kept`` statements of its body (no docstring).

    A comment line between statements goes with the statement it belongs to: the one before it
    when it is indented deeper than the class body, else the one after it.
    """
    assert node.end_lineno is not None
    spans = []
    for stmt in node.body:
        assert stmt.end_lineno is not None
        spans.append((_start(stmt), stmt.end_lineno, id(stmt) in kept))
    body_start = spans[0][0]
    first = lines[body_start - 1]
    indent = len(first) - len(first.lstrip())
    out = [lines[n - 1] for n in range(_start(node), body_start)]
    while out and not out[-1].strip():
        out.pop()  # the blank lines between the header and the docstring
    header = len(out)
    for number in range(body_start, node.end_lineno + 1):
        text = lines[number - 1]
        inside = [keep for lo, hi, keep in spans if lo <= number <= hi]
        if inside:
            if inside[0]:
                out.append(text)
            continue
        if not text.strip():
            if out[-1].strip() and len(out) > header:
                out.append(text)  # one blank line between statements, none under the header
            continue
        deeper = len(text) - len(text.lstrip()) > indent
        before = [keep for lo, hi, keep in spans if hi < number]
        after = [keep for lo, hi, keep in spans if lo > number]
        owner = before[-1:] if deeper else after[:1]
        if owner and owner[0]:
            out.append(text)
    while out and not out[-1].strip():
        out.pop()
    if len(out) == header:
        out.append(" " * indent + "pass")
    return textwrap.dedent("\n".join(out))


def _class_calls(tree: ast.Module, lines: list[str], name: str) -> list[str]:
    """Top-level statements such as ``Template.__init_subclass__()`` that finish a class."""
    out = []
    for node in tree.body:
        if (
            isinstance(node, ast.Expr)
            and isinstance(node.value, ast.Call)
            and isinstance(node.value.func, ast.Attribute)
            and isinstance(node.value.func.value, ast.Name)
            and node.value.func.value.id == name
            and all(isinstance(a, ast.Constant) for a in node.value.args)
            and not node.value.keywords
        ):
            assert node.end_lineno is not None
            out.append("\n".join(lines[node.lineno - 1 : node.end_lineno]))
    return out


def assemble(
    module: str,
    name: str,
    packages: frozenset[str] = frozenset(),
    *,
    method: str | None = None,
) -> str:
    """A self-contained module with ``module.name`` and everything it needs.

    ``packages``: installed top-level packages allowed as sources besides the standard library.
    ``method``: ``name`` is then a top-level class, and the module holds the class cut down to
    what that method of it can reach (see :func:`_method_members`; its base classes in the
    module are cut the same way, other classes it needs are copied whole), and the top-level
    calls that finish the class (``Template.__init_subclass__()``).
    """
    namespace, source, file = _module_namespace(module, packages)
    tree = ast.parse(source)
    lines = source.splitlines()
    defs = _definitions(tree)
    sliced: dict[str, set[int]] = {}
    if method is None:
        if name not in defs or not isinstance(defs[name], ast.FunctionDef):
            raise Unresolvable(f"{module}.{name} is not a top-level function")
    else:
        node = defs.get(name)
        if not isinstance(node, ast.ClassDef):
            raise Unresolvable(f"{module}.{name} is not a top-level class")
        if not any(isinstance(s, ast.FunctionDef) and s.name == method for s in node.body):
            raise Unresolvable(f"{module}.{name}.{method} is not a method of the class body")
        family = _class_family(defs, name)
        kept = _method_statements(family, method)
        sliced = {cls.name: kept for cls in family}
    texts: dict[str, str] = {}
    imports: list[str] = []
    constants: dict[str, str] = {}
    needed_defs: dict[str, ast.FunctionDef | ast.ClassDef] = {}
    uses_re = False
    todo = [name]
    while todo:
        current = todo.pop()
        if current in needed_defs:
            continue
        node = defs[current]
        needed_defs[current] = node
        if current in sliced:
            text = _class_slice(lines, node, sliced[current])  # type: ignore[arg-type]
            text = "\n\n\n".join([text, *_class_calls(tree, lines, current)])
        else:
            text = _segment(lines, node)
        texts[current] = text
        code = compile(text, file, "exec", dont_inherit=True)  # annotations are names too
        refs = _sliced_class_names(code) if current in sliced else _global_names(code)
        for ref in refs:
            if ref in needed_defs or ref in constants or ref == current:
                continue
            if ref.startswith("__") and ref.endswith("__"):
                continue  # __name__ read by a class body
            if ref in defs and ref in namespace:
                todo.append(ref)
                continue
            if ref not in namespace:
                if hasattr(builtins, ref):
                    continue
                continue  # a local of a class body, or a name bound later (checked by running)
            value = namespace[ref]
            if hasattr(builtins, ref) and getattr(builtins, ref) is value:
                continue
            if isinstance(value, re.Pattern):
                constants[ref] = _pattern_source(value)
                uses_re = True
                continue
            bound_self = getattr(value, "__self__", None)
            if isinstance(bound_self, re.Pattern):
                constants[ref] = f"{_pattern_source(bound_self)}.{value.__name__}"  # type: ignore[attr-defined]
                uses_re = True
                continue
            if type(value) is object:  # a sentinel
                constants[ref] = "object()"
                continue
            literal = _literal(value)
            if literal is not None and not isinstance(value, types.ModuleType):
                if len(literal) > 1500:
                    raise Unresolvable(f"{ref} is too large a constant")
                constants[ref] = literal
                continue
            line = _import_line(ref, value, tree)
            if line is None:
                raise Unresolvable(f"cannot bring in {ref} ({type(value).__name__})")
            if line not in imports:
                imports.append(line)
    if uses_re and "import re" not in imports:
        imports.append("import re")
    ordered = sorted(needed_defs.values(), key=lambda n: n.lineno)
    parts = []
    if imports:
        parts.append("\n".join(sorted(imports, key=lambda s: (s.startswith("from"), s))))
    if constants:
        parts.append("\n".join(f"{k} = {v}" for k, v in constants.items()))
    parts.extend(texts[n.name] for n in ordered)
    text = "\n\n\n".join(parts) + "\n"
    if len(text) > MAX_SOURCE_CHARS:
        what = f"{name}.{method}" if method else name
        raise Unresolvable(f"{module}.{what} needs {len(text)} characters of source")
    if "<|" in text or "|>" in text:
        raise Unresolvable("special token delimiters in the source")
    return text


def reference(module: str, name: str, packages: frozenset[str] = frozenset()) -> Callable[..., Any]:
    """The library's own function, to compare the assembled copy with."""
    namespace, _, _ = _module_namespace(module, packages)
    func = namespace[name]
    assert callable(func)
    return func  # type: ignore[no-any-return]


def _outcome(func: Callable[..., Any], args_text: list[str], env: dict[str, Any]) -> str:
    args = [eval(a, dict(env)) for a in args_text]  # literals and lambdas only
    try:
        result = func(*args)
        if isinstance(result, types.GeneratorType):
            result = list(result)
        elif callable(result):
            result = [result(n) for n in range(6)]
    except Exception as exc:
        return f"raised {type(exc).__name__}"
    shown = [repr(a) for a in args if isinstance(a, list | dict | bytearray)]
    return repr(result) + "|" + "|".join(shown)


def verify(
    spec: Spec, source: str, samples: int = 4, packages: frozenset[str] = frozenset()
) -> bool:
    """Does the assembled source run alone and agree with the library on sample inputs?"""
    namespace: dict[str, Any] = {"__name__": "ndb_stdlib_check", "__builtins__": builtins}
    try:
        exec(compile(source, "<stdlib>", "exec", dont_inherit=True), namespace)
    except Exception:
        return False
    own = namespace.get(spec.name)
    if not callable(own):
        return False
    ref = reference(spec.module, spec.name, packages)
    rng = random.Random(f"verify:{spec.origin}")
    agreed = 0
    env = {"__builtins__": builtins}
    for _ in range(samples):
        args = spec.args(rng)
        try:
            got, want = _outcome(own, args, env), _outcome(ref, args, env)
        except Exception:
            return False
        if "NameError" in got or "ImportError" in got or "AttributeError" in got:
            return False
        if got != want:
            return False
        if not got.startswith("raised"):
            agreed += 1
    return agreed > 0


@functools.cache
def catalog() -> tuple[StdlibFunction, ...]:
    """Every spec whose assembled source passed :func:`verify`, in ``SPECS`` order."""
    out = []
    for spec in SPECS:
        try:
            source = assemble(spec.module, spec.name)
        except (Unresolvable, SyntaxError, KeyError):
            continue
        if verify(spec, source):
            out.append(StdlibFunction(spec, source))
    return tuple(out)


def dropped() -> list[str]:
    """Origins of the specs that did not make it into the catalog."""
    kept = {f.spec.origin for f in catalog()}
    return [s.origin for s in SPECS if s.origin not in kept]
