"""Real code from installed pure-Python packages, called with generated inputs.

Why: the standard library is one code base with one house style; installed packages add other
authors' habits (camelCase helpers, type-annotated signatures, keyword-only flags, small parsers
over indices, tuple-returning helpers, sympy's combinatorics). Each function listed in ``SPECS``
is copied out of the package's own ``.py`` file with the same assembly as :mod:`.stdlib` (the
function, the helpers and constants it needs, imports for the rest) and kept only if the copy
run alone agrees with the package's function on sample inputs.

Only packages in :data:`ALLOWED` are read, each with the reason it is safe to run as training
code: the chosen functions are pure (no file or network I/O, no clock, no randomness, no global
state), so a traced run depends on its arguments alone. Functions whose copy would import a
heavy package at run time (sympy's core, huggingface_hub) are left out so a trace stays fast.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import random
from collections.abc import Callable
from typing import Any

from .names import WORDS
from .repo_tests import impurity
from .stdlib import ArgGen, Spec, StdlibFunction, Unresolvable, _s, assemble, reference, verify

# Top-level package → why running its listed functions is safe and deterministic.
ALLOWED: dict[str, str] = {
    "packaging": "version and name normalisation: string parsing with regular expressions",
    "markdown_it": "Markdown helpers: character classes and link parsing over a string and index",
    "pygments": "option parsing and regex building helpers; pure string work",
    "click": "text wrapping and table measuring for help output; no terminal access",
    "idna": "label checks and integer range tables; pure functions of their arguments",
    "rich": "word splitting, ratio arithmetic and size formatting; no console is created",
    "tqdm": "display-width helpers over strings; no progress bar or clock is used",
    "fsspec": "path and URL string helpers only; no file system is opened",
    "sympy": "combinatorics on plain lists and ints (no sympy objects, no sympy import)",
    "networkx": "iteration helpers over plain containers; no graph is built",
    "jinja2": "text filters on strings; no template environment is created",
}
PACKAGES = frozenset(ALLOWED)


def _words(rng: random.Random, lo: int = 1, hi: int = 6) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(lo, hi)))


def _ints(rng: random.Random, lo: int = 0, hi: int = 7, low: int = -5, high: int = 20) -> list[int]:
    return [rng.randint(low, high) for _ in range(rng.randint(lo, hi))]


def _perm(rng: random.Random) -> list[int]:
    p = list(range(rng.randint(2, 6)))
    rng.shuffle(p)
    return p


def _pick(*options: Any) -> Callable[[random.Random], Any]:
    return lambda rng: rng.choice(options)


def _one(gen: Callable[[random.Random], object]) -> ArgGen:
    return lambda rng: [_s(gen(rng))]


def _span(text: str) -> list[str]:
    """Arguments ``(text, 0, len(text))`` for parsers that take a string and a range."""
    return [_s(text), "0", str(len(text))]


def _P(module: str, name: str, args: ArgGen, multi: int = 0) -> Spec:
    return Spec(module, name, args, multi=multi, kind="package")


_NAMES = _pick("Django", "requests_oauthlib", "Foo.Bar", "zope-interface", "A__b", "numpy", "a-")
_VERSIONS = _pick("1.0", "2.0.0", "1.4.0.post1", "v3.2rc1", "1!2.0", "0.9.dev3", "1.0+local.7")
_LINKS = _pick(
    "<http://a.b/c> rest",
    "/path/to(x)y end",
    "(nested (parens)) x",
    "<bad\nlink>",
    "plain-text",
    "a\\(b\\) c",
)
_TITLES = _pick('"a title" x', "'single' y", "(paren title) z", '"open', "'esc\\'aped'")
_URLS = _pick(
    "s3://bucket/key/file.csv",
    "file:///tmp/data.json",
    "gcs://b/a/b/c.parquet",
    "memory://x",
    "/local/path.txt",
    "C:\\data\\f.txt",
    "hdfs://user@host:8020/a",
    "http://example.com/x?y=1",
)
_FILES = _pick("data.csv.gz", "a.tar.bz2", "notes.txt", "x.zst", "arch.xz", "model.lz4", "f.zip")
_GLOBS = _pick("*.py", "data/**/*.csv", "a?c/[ab]*", "**", "src/*/main.py", "[!x]y", "a/b")
_TEXT = _pick(
    "<?xml version='1.0'?><a/>",
    "<!DOCTYPE html><html>",
    "#!/usr/bin/env python3\nprint(1)",
    "#!/bin/sh\necho",
    "<html><body>x</body></html>",
    "plain text",
)


SPECS: tuple[Spec, ...] = (
    _P("packaging.utils", "canonicalize_name", _one(_NAMES), multi=3),
    _P("packaging.utils", "is_normalized_name", _one(_NAMES), multi=5),
    _P(
        "packaging.version",
        "_parse_letter_version",
        lambda r: [
            _s(r.choice(["a", "alpha", "b", "beta", "c", "rc", "pre", "post", "rev", "r", None])),
            _s(r.choice(["1", "0", "12", None])),
        ],
        multi=3,
    ),
    _P(
        "packaging.version",
        "_parse_local_version",
        _one(_pick("ubuntu.1", "abc_2-x", "7", "local.10.b", None)),
        multi=2,
    ),
    _P("markdown_it.common.utils", "escapeHtml", _one(lambda r: r.choice(['a<b & "c"', "x>y"]))),
    _P(
        "markdown_it.common.utils", "isPunctChar", _one(_pick("!", "a", ".", "-", " ", "ü", "»")), 4
    ),
    _P(
        "markdown_it.common.utils",
        "isMdAsciiPunct",
        lambda r: [str(r.choice([0x21, 0x2F, 0x40, 0x41, 0x5B, 0x61, 0x7E, 0x7F, 0x3A]))],
        multi=4,
    ),
    _P(
        "markdown_it.common.utils",
        "normalizeReference",
        _one(_pick("  Foo  Bar ", "[ẞ]", "ΑΓΩ", "a\tb\nc")),
        multi=2,
    ),
    _P(
        "markdown_it.common.utils",
        "isValidEntityCode",
        lambda r: [str(r.choice([0, 9, 11, 65, 0xD800, 0xFDD0, 0xFFFF, 0x1F600, 0x7F, 0x110000]))],
        multi=4,
    ),
    _P("markdown_it.common.utils", "stripEscape", _one(_pick("a\\*b", "\\#x\\\\", "plain")), 4),
    _P(
        "markdown_it.helpers.parse_link_destination",
        "parseLinkDestination",
        lambda r: _span(_LINKS(r)),
    ),
    _P(
        "markdown_it.helpers.parse_link_title",
        "parseLinkTitle",
        lambda r: _span(_TITLES(r)),
    ),
    _P(
        "pygments.util",
        "get_bool_opt",
        lambda r: [
            _s({"flag": r.choice([True, False, 0, 1, "yes", "off", "True", "0"])}),
            _s("flag"),
        ],
        multi=3,
    ),
    _P(
        "pygments.util",
        "get_list_opt",
        lambda r: [_s({"names": r.choice(["a b c", ["x", "y"], ("p",), "one"])}), _s("names")],
        multi=2,
    ),
    _P(
        "pygments.util",
        "shebang_matches",
        lambda r: [_s(_TEXT(r)), _s(r.choice(["python(2|3)?", "sh|bash", "perl"]))],
        multi=2,
    ),
    _P("pygments.util", "html_doctype_matches", _one(_TEXT), multi=2),
    _P("pygments.util", "looks_like_xml", _one(_TEXT), multi=2),
    _P(
        "pygments.util",
        "format_lines",
        lambda r: [_s(r.choice(["TOKENS", "names"])), _s(r.sample(WORDS, r.randint(1, 4)))],
    ),
    _P(
        "pygments.util",
        "duplicates_removed",
        lambda r: [_s([r.choice("abcd") for _ in range(r.randint(0, 7))])],
    ),
    _P("pygments.regexopt", "regex_opt", lambda r: [_s(r.sample(WORDS, r.randint(1, 5)))]),
    _P("pygments.regexopt", "make_charset", lambda r: [_s(sorted(r.sample("abc-]^xyz", 3)))], 3),
    _P(
        "click.formatting",
        "wrap_text",
        lambda r: [_s(_words(r, 3, 10)), str(r.randint(8, 24))],
    ),
    _P(
        "click.formatting",
        "measure_table",
        lambda r: [_s([(r.choice(WORDS), _words(r, 1, 3)) for _ in range(r.randint(1, 4))])],
    ),
    _P("idna.core", "valid_label_length", _one(lambda r: "x" * r.choice([0, 3, 63, 64])), 5),
    _P("idna.core", "check_hyphen_ok", _one(_pick("ab", "-ab", "ab-", "ab--c", "xn--d", "a-b")), 3),
    _P(
        "idna.intranges",
        "intranges_from_list",
        lambda r: [_s(sorted(set(_ints(r, 1, 9, 0, 15))))],
    ),
    _P("rich._wrap", "words", lambda r: [_s(_words(r, 1, 5).replace(" ", r.choice([" ", "  "])))]),
    _P(
        "rich._ratio",
        "ratio_reduce",
        lambda r: (
            lambda n: [
                str(r.randint(0, 30)),
                _s([r.randint(0, 4) for _ in range(n)]),
                _s([r.randint(5, 20) for _ in range(n)]),
                _s([r.randint(5, 20) for _ in range(n)]),
            ]
        )(r.randint(1, 4)),
    ),
    _P(
        "rich._ratio",
        "ratio_distribute",
        lambda r: [str(r.randint(0, 40)), _s([r.randint(1, 5) for _ in range(r.randint(1, 4))])],
    ),
    _P(
        "rich.filesize",
        "decimal",
        lambda r: [str(r.choice([0, 1, 999, 1000, 1500, 123456, 10**7, 3 * 10**9]))],
        multi=3,
    ),
    _P("rich.markup", "escape", _one(_pick("[bold]x[/bold]", "a\\[b]", "no tags", "[x=1] y"))),
    _P("rich.control", "strip_control_codes", _one(_pick("a\bb\rc", "bell\x07", "clean")), 3),
    _P("tqdm.utils", "disp_trim", lambda r: [_s(_words(r, 1, 4)), str(r.randint(1, 12))], 2),
    _P("fsspec.utils", "infer_storage_options", _one(_URLS)),
    _P("fsspec.utils", "infer_compression", _one(_FILES), multi=3),
    _P(
        "fsspec.utils",
        "common_prefix",
        lambda r: [_s(["/".join(r.sample(["a", "b", "c", "d"], 3)) for _ in range(3)])],
    ),
    _P(
        "fsspec.utils",
        "other_paths",
        lambda r: [
            _s(["/data/" + r.choice(["x", "y/z"]) + f"/{i}.csv" for i in range(3)]),
            _s("out"),
        ],
    ),
    _P("fsspec.utils", "glob_translate", _one(_GLOBS)),
    _P("fsspec.core", "split_protocol", _one(_URLS), multi=3),
    _P("sympy.utilities.iterables", "runs", lambda r: [_s(_ints(r, 0, 8))]),
    _P("sympy.utilities.iterables", "uniq", lambda r: [_s(_ints(r, 0, 7, 0, 4))]),
    _P(
        "sympy.utilities.iterables",
        "rotate_left",
        lambda r: [_s(_ints(r, 0, 6)), str(r.randint(-3, 5))],
        multi=2,
    ),
    _P(
        "sympy.utilities.iterables",
        "necklaces",
        lambda r: [str(r.randint(1, 4)), str(r.randint(1, 3))],
    ),
    _P("sympy.utilities.iterables", "binary_partitions", lambda r: [str(r.randint(1, 8))]),
    _P(
        "sympy.utilities.iterables",
        "common_prefix",
        lambda r: [_s([1, 2, r.randint(2, 4), 5]), _s([1, 2, r.randint(2, 4)])],
    ),
    _P("sympy.utilities.iterables", "minlex", lambda r: [_s(_ints(r, 1, 6, 0, 5))]),
    _P("sympy.utilities.iterables", "least_rotation", lambda r: [_s(_ints(r, 1, 6, 0, 4))]),
    _P(
        "sympy.utilities.iterables",
        "is_palindromic",
        lambda r: [_s(r.choice(["abba", "abc", "racecar", [1, 2, 1], "x", ""]))],
        multi=2,
    ),
    _P("sympy.utilities.iterables", "has_dups", lambda r: [_s(_ints(r, 0, 6, 0, 6))], multi=2),
    _P(
        "sympy.utilities.iterables",
        "topological_sort",
        lambda r: [_s(([1, 2, 3, 4, 5], [(1, 2), (1, 3), (2, 5), (3, 4)][: r.randint(1, 4)]))],
    ),
    _P(
        "sympy.utilities.iterables",
        "strongly_connected_components",
        lambda r: [_s(([1, 2, 3, 4], [(1, 2), (2, 3), (3, 1), (3, 4)][: r.randint(1, 4)]))],
    ),
    _P(
        "sympy.utilities.misc",
        "ordinal",
        lambda r: [str(r.choice([1, 2, 3, 4, 11, 12, 13, 21, 102, -3]))],
        3,
    ),
    _P(
        "sympy.combinatorics.permutations",
        "_af_rmul",
        lambda r: (lambda n: [_s(r.sample(range(n), n)), _s(r.sample(range(n), n))])(
            r.randint(2, 6)
        ),
    ),
    _P("sympy.combinatorics.permutations", "_af_invert", lambda r: [_s(_perm(r))]),
    _P("sympy.combinatorics.permutations", "_af_parity", lambda r: [_s(_perm(r))]),
    _P(
        "sympy.combinatorics.permutations",
        "_af_pow",
        lambda r: [_s(_perm(r)), str(r.randint(-2, 9))],
    ),
    _P(
        "sympy.polys.densebasic",
        "dup_strip",
        lambda r: [_s([0] * r.randint(0, 3) + _ints(r, 0, 4))],
    ),
    _P(
        "sympy.printing.conventions",
        "split_super_sub",
        _one(_pick("x_1", "alpha^2_i", "a__b", "x12", "y_{ij}")),
        2,
    ),
    _P(
        "networkx.utils.misc",
        "groups",
        lambda r: [_s({w: r.randint(0, 2) for w in r.sample(WORDS, 4)})],
    ),
    _P(
        "networkx.utils.misc",
        "pairwise",
        lambda r: [_s(_ints(r, 0, 5)), r.choice(["True", "False"])],
    ),
    _P(
        "jinja2.filters",
        "do_filesizeformat",
        lambda r: [
            str(r.choice([0, 1, 1000, 2048, 10**6, 5 * 10**9])),
            r.choice(["True", "False"]),
        ],
        2,
    ),
    _P("jinja2.filters", "do_batch", lambda r: [_s(_ints(r, 0, 7)), str(r.randint(1, 3))]),
)


@functools.cache
def catalog() -> tuple[StdlibFunction, ...]:
    """Every spec whose assembled source passed the check against the package, in order."""
    out = []
    for spec in SPECS:
        try:
            source = assemble(spec.module, spec.name, PACKAGES)
        except (Unresolvable, SyntaxError, KeyError, ImportError):
            continue
        if impurity(source) is not None:
            continue  # e.g. a cache keyed by hash(): values that change from run to run
        if inspect.isgeneratorfunction(reference(spec.module, spec.name, PACKAGES)):
            spec = dataclasses.replace(spec, wrap="list")  # run the generator to its end
        if verify(spec, source, packages=PACKAGES):
            out.append(StdlibFunction(spec, source))
    return tuple(out)


def dropped() -> list[str]:
    """Origins of the specs that did not make it into the catalog."""
    kept = {f.spec.origin for f in catalog()}
    return [s.origin for s in SPECS if s.origin not in kept]
