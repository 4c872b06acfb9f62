"""Argument shapes for library functions, and hypothesis strategies that draw from them.

Why shapes instead of hypothesis strategies directly: the functions are harvested in a
sandboxed child process (:mod:`.library_harvest`) and used in the data workers, so what
describes a parameter must cross a process boundary as JSON. A shape is a small JSON
description (``{"t": "list", "of": {"t": "int"}}``) taken from one of three places, in this
order of trust: the literals a doctest passes (the author's own examples), the parameter's type
annotation, and the parameter's name (``text`` is a string, ``n`` an int). Values are kept
small (short lists, ints in a narrow range): a library call must stay within a trace's bounds,
and every drawn value must be written back as a Python literal in the program's entry.

The values come from hypothesis (``@given`` run with ``@seed``, no database, generation only,
no constants collected from the process's modules), so the same seed draws the same arguments
in every process.
"""

from __future__ import annotations

import ast
import contextlib
import inspect
import types
import typing
from collections.abc import Callable, Iterator
from typing import Any

from hypothesis import HealthCheck, Phase, Verbosity, given, settings
from hypothesis import seed as hypothesis_seed
from hypothesis import strategies as st

from .names import WORDS

Shape = dict[str, Any]
INT_RANGE = (-10, 40)
MAX_ITEMS = 6
MAX_LITERAL_CHARS = 240
_ALPHABET = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 _-.,:!'éüß"

# Parameter names whose meaning is plain across the standard library and the packages.
NAME_SHAPES: dict[str, Shape] = {
    **{n: {"t": "str"} for n in ("s", "text", "string", "word", "value_str", "name", "sep")},
    **{n: {"t": "str"} for n in ("path", "p", "url", "prefix", "suffix", "chars", "pattern")},
    **{n: {"t": "int"} for n in ("n", "k", "width", "size", "count", "num", "places", "year")},
    **{n: {"t": "int"} for n in ("month", "day", "start", "stop", "step", "index", "i")},
    **{n: {"t": "list", "of": {"t": "int"}} for n in ("iterable", "seq", "items", "data")},
    **{n: {"t": "list", "of": {"t": "int"}} for n in ("array", "values", "lst", "coll", "a")},
    **{n: {"t": "list", "of": {"t": "str"}} for n in ("lines", "words", "strings")},
    **{n: {"t": "str"} for n in ("line", "key", "pat", "address", "host", "qs", "query")},
    **{n: {"t": "str"} for n in ("separator", "filename")},
    **{n: {"t": "int"} for n in ("x", "value", "item", "precision", "y1", "y2", "firstweekday")},
    "heap": {"t": "list", "of": {"t": "int"}},
    **{n: {"t": "list", "of": {"t": "str"}} for n in ("keys", "names", "paths")},
    **{n: {"t": "dict", "k": {"t": "str"}, "v": {"t": "int"}} for n in ("mapping", "d")},
    **{n: {"t": "callable"} for n in ("pred", "f", "func", "function", "key_func")},
    **{n: {"t": "float", "lo": 0.0, "hi": 1.0} for n in ("r", "g", "b", "h", "l", "v", "y")},
}


# What a parameter named like a function (``pred``, ``f``) is given: builtins and lambdas that
# take one value, most of them meant for the ints that list-shaped parameters draw.
CALLABLES = (
    "bool",
    "abs",
    "str",
    "lambda x: x % 2 == 0",
    "lambda x: x > 3",
    "lambda x: x * 2",
    "lambda x: -x",
)


def shape_of(value: object) -> Shape | None:
    """The shape of a literal value, or None when it has none we can draw."""
    if value is None:
        return {"t": "none"}
    if isinstance(value, bool):
        return {"t": "bool"}
    if isinstance(value, int):
        return {"t": "int"}
    if isinstance(value, float):
        return {"t": "float", "lo": -100.0, "hi": 100.0}
    if isinstance(value, str):
        return {"t": "str"}
    if isinstance(value, bytes):
        return {"t": "bytes"}
    if isinstance(value, list | set | frozenset):
        of = _common(list(value))
        kind = "list" if isinstance(value, list) else "set"
        return None if of is None else {"t": kind, "of": of}
    if isinstance(value, tuple):
        items = [shape_of(v) for v in value]
        if any(s is None for s in items) or not items:
            return None if items else {"t": "tuple", "items": []}
        return {"t": "tuple", "items": items}
    if isinstance(value, dict):
        keys, values = _common(list(value)), _common(list(value.values()))
        if keys is None or values is None:
            return None
        return {"t": "dict", "k": keys, "v": values}
    return None


def _common(values: list[object]) -> Shape | None:
    """One shape for the items of a container: the first item's, or int for an empty one."""
    if not values:
        return {"t": "int"}
    shapes = [shape_of(v) for v in values]
    if any(s is None for s in shapes):
        return None
    distinct = []
    for s in shapes:
        if s not in distinct:
            distinct.append(s)
    return distinct[0] if len(distinct) == 1 else {"t": "one_of", "of": distinct[:3]}


def shape_of_annotation(hint: object) -> Shape | None:
    """The shape of a type annotation, or None when it names nothing drawable."""
    if hint in (int, float, str, bool, bytes, type(None), None):
        return shape_of({int: 0, float: 0.0, str: "", bool: False, bytes: b""}.get(hint))  # type: ignore[call-overload]
    if isinstance(hint, typing.TypeVar):
        return {"t": "int"}
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        parts = [shape_of_annotation(a) for a in args]
        kept = [p for p in parts if p is not None]
        return {"t": "one_of", "of": kept} if kept and len(kept) == len(parts) else None
    names = {"list", "Sequence", "Iterable", "Collection", "MutableSequence", "Iterator"}
    name = getattr(origin, "__name__", "")
    if origin is list or name in names:
        of = shape_of_annotation(args[0]) if args else {"t": "int"}
        return None if of is None else {"t": "list", "of": of}
    if origin in (set, frozenset) or name in {"Set", "AbstractSet", "MutableSet"}:
        of = shape_of_annotation(args[0]) if args else {"t": "int"}
        return None if of is None else {"t": "set", "of": of}
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            of = shape_of_annotation(args[0])
            return None if of is None else {"t": "list", "of": of, "as": "tuple"}
        items = [shape_of_annotation(a) for a in args]
        return None if any(i is None for i in items) else {"t": "tuple", "items": items}
    if origin is dict or name in {"Mapping", "MutableMapping"}:
        if len(args) != 2:
            return {"t": "dict", "k": {"t": "str"}, "v": {"t": "int"}}
        k, v = shape_of_annotation(args[0]), shape_of_annotation(args[1])
        return None if k is None or v is None else {"t": "dict", "k": k, "v": v}
    return None


def strategy(shape: Shape) -> st.SearchStrategy[Any]:
    """A hypothesis strategy for a shape; its values are literals (``keep`` stays source)."""
    kind = shape["t"]
    if kind == "none":
        return st.none()
    if kind == "bool":
        return st.booleans()
    if kind == "int":
        return st.integers(*INT_RANGE)
    if kind == "float":
        lo, hi = shape.get("lo", -100.0), shape.get("hi", 100.0)
        return st.floats(lo, hi, allow_nan=False, allow_infinity=False).map(lambda x: round(x, 3))
    if kind == "str":
        words = st.lists(st.sampled_from(WORDS), max_size=4).map(" ".join)
        return st.one_of(st.text(_ALPHABET, max_size=12), words)
    if kind == "bytes":
        return st.binary(max_size=8)
    if kind == "list":
        items = st.lists(strategy(shape["of"]), max_size=MAX_ITEMS)
        return items.map(tuple) if shape.get("as") == "tuple" else items
    if kind == "set":
        return st.frozensets(strategy(shape["of"]), max_size=MAX_ITEMS).map(set)
    if kind == "tuple":
        return st.tuples(*(strategy(s) for s in shape["items"]))
    if kind == "dict":
        keys = strategy(shape["k"]).filter(_hashable)
        return st.dictionaries(keys, strategy(shape["v"]), max_size=4)
    if kind == "one_of":
        return st.one_of(*(strategy(s) for s in shape["of"]))
    if kind == "keep":
        return st.just(Source(shape["text"]))
    if kind == "callable":
        return st.sampled_from([Source(text) for text in CALLABLES])
    raise ValueError(f"unknown shape {shape!r}")


class Source(str):
    """Argument text kept as written in a doctest (a lambda, ``range(5)``): not a literal."""


def _hashable(value: object) -> bool:
    try:
        hash(value)
    except TypeError:
        return False
    return True


def literal_text(value: object) -> str | None:
    """Source text of a drawn value that evaluates back to an equal value, or None."""
    if isinstance(value, Source):
        return str(value)
    text = render(value)
    if len(text) > MAX_LITERAL_CHARS:
        return None
    try:
        back = eval(text, {"__builtins__": {"set": set, "frozenset": frozenset}})
    except Exception:
        return None
    return text if back == value and type(back) is type(value) else None


def render(value: object) -> str:
    """``repr`` with every set's items in sorted order: a set of strings would otherwise be
    written in an order that changes with the process's hash seed."""
    if isinstance(value, set | frozenset):
        if not value:
            return "set()" if isinstance(value, set) else "frozenset()"
        items = "{" + ", ".join(sorted(render(v) for v in value)) + "}"
        return items if isinstance(value, set) else f"frozenset({items})"
    if isinstance(value, list):
        return "[" + ", ".join(render(v) for v in value) + "]"
    if isinstance(value, tuple):
        inner = ", ".join(render(v) for v in value)
        return f"({inner},)" if len(value) == 1 else f"({inner})"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{render(k)}: {render(v)}" for k, v in value.items()) + "}"
    return repr(value)


@contextlib.contextmanager
def _no_local_constants() -> Iterator[None]:
    """Hypothesis without the constants it collects from the running process's own modules.

    Why: hypothesis now and then draws a literal found in the source of any "local" module
    loaded in the process, which with the project installed editable means the project's own
    modules (token names, messages). That would put the project's strings into training
    programs, and the draws would change with which modules a process happened to import (a
    data worker against the main process), breaking determinism in the seed. Its built-in
    constants stay; hypothesis is pinned in the ``data`` extra, as this reaches into it."""
    from hypothesis.internal.conjecture import providers
    from hypothesis.internal.constants_ast import Constants

    saved = providers._get_local_constants, providers.CONSTANTS_CACHE
    providers._get_local_constants = Constants  # an empty set of every kind
    providers.CONSTANTS_CACHE = type(saved[1])(1024)
    try:
        yield
    finally:
        providers._get_local_constants, providers.CONSTANTS_CACHE = saved


def draw(template: list[tuple[str, Shape]], seed: int, count: int) -> list[list[str]]:
    """``count`` argument lists (source texts, keywords as ``name=text``) drawn for the
    template's ``(keyword or "", shape)`` items by hypothesis from ``seed``; the same lists for
    the same seed in every process."""
    strategies = [strategy(shape) for _, shape in template]
    drawn: list[tuple[Any, ...]] = []

    @hypothesis_seed(seed)
    @settings(
        database=None,
        max_examples=count,
        phases=[Phase.generate],
        deadline=None,
        suppress_health_check=list(HealthCheck),
        verbosity=Verbosity.quiet,
        derandomize=False,
    )
    @given(st.tuples(*strategies))
    def collect(values: tuple[Any, ...]) -> None:
        drawn.append(values)

    with _no_local_constants():
        collect()
    out = []
    for values in drawn:
        texts = [literal_text(v) for v in values]
        if any(t is None for t in texts):
            continue
        out.append([f"{k}={t}" if k else str(t) for (k, _), t in zip(template, texts, strict=True)])
    return out


# Names an argument written in a doctest may use besides literals: pure builtins only.
SAFE_NAMES = frozenset(
    {"range", "len", "str", "int", "float", "bool", "list", "tuple", "set", "dict", "abs"}
    | {"min", "max", "sum", "sorted", "reversed", "iter", "frozenset", "bytes", "chr", "ord"}
    | {"True", "False", "None", "divmod", "pow", "round", "repr", "isinstance", "callable"}
    | {"enumerate", "zip", "map", "filter", "any", "all", "type", "object"}
)


def portable(node: ast.expr) -> bool:
    """Whether an argument written in a doctest can be copied into a program on its own:
    literals, arithmetic on them, lambdas, and calls or attributes of pure builtins."""
    bound: set[str] = set()
    for sub in ast.walk(node):
        if isinstance(sub, ast.Lambda):
            bound.update(a.arg for a in sub.args.args)
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name):
            if sub.id not in SAFE_NAMES and sub.id not in bound:
                return False
        elif isinstance(sub, ast.Attribute):
            if sub.attr.startswith("_"):
                return False
        elif not isinstance(sub, _PORTABLE_NODES):
            return False
    return True


_PORTABLE_NODES = (
    ast.Constant,
    ast.List,
    ast.Tuple,
    ast.Set,
    ast.Dict,
    ast.UnaryOp,
    ast.BinOp,
    ast.BoolOp,
    ast.Compare,
    ast.IfExp,
    ast.Lambda,
    ast.arguments,
    ast.arg,
    ast.Call,
    ast.keyword,
    ast.Load,
    ast.operator,
    ast.unaryop,
    ast.boolop,
    ast.cmpop,
    ast.Subscript,
    ast.Slice,
)


def argument_shape(node: ast.expr) -> Shape:
    """The shape of a doctest argument: drawn like its literal, or kept as written."""
    try:
        value = ast.literal_eval(node)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return {"t": "keep", "text": ast.unparse(node)}
    shape = shape_of(value)
    return shape if shape is not None else {"t": "keep", "text": ast.unparse(node)}


def signature_template(
    func: Callable[..., Any], hints: dict[str, Any], by_name: bool
) -> list[tuple[str, Shape]] | None:
    """A template for the function's required parameters from annotations (``by_name``: or
    from their names), or None when some required parameter has neither."""
    try:
        params = inspect.signature(func).parameters.values()
    except (TypeError, ValueError):
        return None
    template: list[tuple[str, Shape]] = []
    for p in params:
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) or p.default is not p.empty:
            continue
        shape = shape_of_annotation(hints[p.name]) if p.name in hints else None
        if shape is None and by_name:
            shape = NAME_SHAPES.get(p.name)
        if shape is None:
            return None
        template.append((p.name if p.kind is p.KEYWORD_ONLY else "", shape))
    return template or None
