"""A safe evaluator of expressions over predicted values: the one copy the project has.

Two callers need it. The server evaluates watch, hover, REPL and breakpoint-condition
expressions a client sends; the decoder computes what a line's code makes of the values the
state standing on it shows (:mod:`.branches`: which way a head goes; :mod:`.computed`: what an
assignment binds or a ``return`` returns). Both work on repr texts, not on objects of a
running program, and neither may ever run code. So expressions are walked node by node with
:mod:`ast` over values rebuilt by :func:`ast.literal_eval`: names, literals, displays (with
``*`` and ``**``), f-strings, operators, comparisons, subscripts and slices, reading attributes
and methods of plain values and of the builtin types (``dict.fromkeys``, ``str.maketrans``;
never one starting with ``_``), a few pure builtins, ``str.format`` (fields read items, never
attributes), comprehensions and generator expressions, and lambdas handed to a call
(``sorted(pairs, key=lambda p: p[1])``, ``map(int, digits)``). Anything else (calls of other
functions, imports, assignment) is refused with a message saying what is not allowed.

A :class:`Rules` says what else holds. The server's (:data:`HOVER`) is the above. The
decoder's (:data:`PREDICTING`) stands for the program's own run, so it also refuses what the
rebuilt values cannot tell the same way the program's objects would: ``is`` between anything
but ``None`` (a rebuilt value is a copy, not the program's object), and a set's order (a set
rebuilt from its text iterates in its own hash table's order, not the original's), and it
calls a builtin only where the program binds no such name. Its ``mutating`` variant also lets
a list, dict or set method change its receiver (``out.append(x)``), for a statement's effects.

``eval``, ``exec`` and ``compile`` are never used; sizes are bounded so ``10 ** 10 ** 9`` or
``'x' * 10 ** 12`` are refused instead of exhausting the server, and the turns of
comprehensions and calls of lambdas are counted (:data:`MAX_STEPS`). Sizes are measured through
nesting (``[[0] * 10 ** 6] * 10 ** 6`` is a trillion items to show or compare, not a million),
and the operations that can build far more than they are given (joining, replacing, padding with
``%`` or a format, expanding tabs, translating, rounding an integer to a negative number of
digits) are checked before they run, also where a builtin calls them (``map(str.zfill, ...)``);
what a lazy iterator (``map``, ``filter``) yields is measured before a call consumes it. Codecs
are looked up by name and an unknown name makes Python import a module, so only encodings and
error handlers that need no import are accepted.
"""

from __future__ import annotations

import ast
import operator
import re
import string
import types
from collections.abc import Callable, Iterable, Iterator, Mapping, Sized
from dataclasses import dataclass
from typing import Any, cast

MAX_TEXT = 200_000  # longer repr texts are shown, never rebuilt
MAX_EXPRESSION = 2000
MAX_NODES = 300
MAX_ITEMS = 1_000_000  # the longest sequence an operator may build
MAX_BITS = 1_000_000  # the largest integer a power, product or shift may build
MAX_WIDTH = 10_000  # the widest field or precision a % format may ask for
MAX_STEPS = 100_000  # comprehension turns and lambda calls in one evaluation
# Names that Python's codec machinery resolves without importing anything.
ENCODINGS = frozenset({"utf-8", "utf8", "ascii", "latin-1", "latin1", "utf-16", "utf-32"})
ERROR_HANDLERS = frozenset(
    {"strict", "ignore", "replace", "backslashreplace", "xmlcharrefreplace", "surrogateescape",
     "surrogatepass"}
)  # fmt: skip


class EvaluationError(ValueError):
    """An expression that is refused or fails; the message is for the user."""


class NotALiteral(ValueError):
    """A repr text that cannot be rebuilt into a value."""


def rebuild(text: str) -> Any:
    """The value a repr text stands for, if it is a literal; :class:`NotALiteral` otherwise."""
    if len(text) > MAX_TEXT:
        raise NotALiteral(f"a value of {len(text)} characters is too long to rebuild")
    try:
        return ast.literal_eval(text)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        raise NotALiteral(f"{shorten(text)} is not a literal value") from None


def shorten(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _one_iterable_sum(values: Any) -> Any:
    """``sum`` over numbers only (no start value, so lists cannot be concatenated quadratically)."""
    return sum(values)


BUILTINS: dict[str, Callable[..., Any]] = {
    "len": len,
    "min": min,
    "max": max,
    "sum": _one_iterable_sum,
    "sorted": sorted,
    "abs": abs,
    "repr": repr,
    "round": round,
    "any": any,
    "all": all,
    "bool": bool,
    "int": int,
    "float": float,
    "str": str,
    "list": list,
    "tuple": tuple,
    "set": set,
    "dict": dict,
    "chr": chr,
    "ord": ord,
    "divmod": divmod,
    "range": range,
    "reversed": reversed,
    "enumerate": enumerate,
    "zip": zip,
    "isinstance": isinstance,  # its types are read by Evaluator._isinstance
    "map": map,
    "filter": filter,
    "type": type,  # of one value only (:func:`_check_arguments`)
}
# builtins that keep their iterable arguments lazily, as they are; any other call is handed
# what an iterator yields as a list, measured first
_LAZY = frozenset({"map", "filter", "zip", "enumerate", "reversed"})
# The builtin types ``isinstance`` may name (where the program binds no such name).
TYPES: dict[str, type] = {
    t.__name__: t for t in (str, int, float, bool, list, tuple, dict, set, bytes, type(None))
}
# Calls whose result does not depend on the order of a set they are given.
_ORDER_FREE = frozenset(
    {"len", "sorted", "min", "max", "sum", "any", "all", "bool", "set", "isinstance"}
    | {"union", "intersection", "difference", "symmetric_difference", "issubset", "issuperset"}
    | {"isdisjoint", "copy", "add", "discard", "update", "get", "count"}
)

# Attributes of plain values that only read (methods that mutate, like append, are left out).
READING_ATTRIBUTES = frozenset(
    {
        "real", "imag", "numerator", "denominator", "conjugate", "bit_length", "is_integer",
        "count", "index", "get", "keys", "values", "items", "copy",
        "union", "intersection", "difference", "symmetric_difference",
        "issubset", "issuperset", "isdisjoint",
        "upper", "lower", "strip", "lstrip", "rstrip", "split", "rsplit", "splitlines",
        "startswith", "endswith", "find", "rfind", "replace", "join", "partition",
        "rpartition", "isdigit", "isalpha", "isalnum", "isspace", "isupper", "islower",
        "title", "capitalize", "hex", "decode", "encode",
        "rindex", "casefold", "swapcase", "removeprefix", "removesuffix", "istitle",
        "isdecimal", "isnumeric", "isidentifier", "isprintable", "isascii",
        "zfill", "center", "ljust", "rjust",
        "fromkeys", "maketrans", "translate", "expandtabs", "format",
    }
)  # fmt: skip
# Methods of lists, dicts and sets that change their receiver (:attr:`Rules.mutating` only).
MUTATING_ATTRIBUTES = frozenset(
    {"append", "extend", "insert", "pop", "remove", "clear", "reverse", "sort", "update"}
    | {"setdefault", "popitem", "add", "discard"}
)
_PADDING = frozenset({"zfill", "center", "ljust", "rjust"})  # a width argument, checked


@dataclass(frozen=True)
class Rules:
    """What an evaluation may do besides reading plain values (see the module)."""

    # builtins it may call (None: all of :data:`BUILTINS`)
    builtins: frozenset[str] | None = None
    strict: bool = False  # no ``is`` but against None, no order taken from a set
    mutating: bool = False  # list, dict and set methods may change their receiver


HOVER = Rules()
PREDICTING = Rules(strict=True)
MUTATING = Rules(strict=True, mutating=True)  # the predicting rules, for a statement's effects

_BINARY: dict[type[ast.operator], Callable[[Any, Any], Any]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
    ast.LShift: operator.lshift,
    ast.RShift: operator.rshift,
    ast.BitAnd: operator.and_,
    ast.BitOr: operator.or_,
    ast.BitXor: operator.xor,
}
_UNARY: dict[type[ast.unaryop], Callable[[Any], Any]] = {
    ast.Not: operator.not_,
    ast.USub: operator.neg,
    ast.UAdd: operator.pos,
    ast.Invert: operator.invert,
}
# comparisons of values (``is`` and ``is not`` aside)
COMPARISONS: dict[type[ast.cmpop], Callable[[Any, Any], Any]] = {
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
    ast.In: lambda a, b: a in b,
    ast.NotIn: lambda a, b: a not in b,
}
_COMPARE: dict[type[ast.cmpop], Callable[[Any, Any], Any]] = {
    **COMPARISONS,
    ast.Is: operator.is_,
    ast.IsNot: operator.is_not,
}
_ALLOWED = (
    ast.Expression, ast.Name, ast.Load, ast.Constant, ast.Attribute, ast.Subscript, ast.Slice,
    ast.Tuple, ast.List, ast.Set, ast.Dict, ast.BinOp, ast.UnaryOp, ast.BoolOp, ast.Compare,
    ast.IfExp, ast.Call, ast.keyword, ast.And, ast.Or, ast.JoinedStr, ast.FormattedValue,
    ast.Starred, ast.Lambda, ast.arguments, ast.arg, ast.ListComp, ast.SetComp, ast.DictComp,
    ast.GeneratorExp, ast.comprehension, ast.Store,
    *_BINARY, *_UNARY, *_COMPARE,
)  # fmt: skip


def parse(expression: str) -> ast.Expression:
    """Parse and check an expression without evaluating it (for breakpoint conditions too)."""
    if len(expression) > MAX_EXPRESSION:
        raise EvaluationError(f"the expression is longer than {MAX_EXPRESSION} characters")
    try:
        tree = ast.parse(expression.strip(), mode="eval")
    except SyntaxError as err:
        raise EvaluationError(f"not a Python expression: {err.msg}") from None
    check(tree)
    return tree


def check(tree: ast.AST, rules: Rules = HOVER) -> None:
    """Refuse ``tree`` if any of its parts is not allowed under ``rules``."""
    nodes = list(ast.walk(tree))
    if len(nodes) > MAX_NODES:
        raise EvaluationError(f"the expression has more than {MAX_NODES} parts")
    for node in nodes:
        if not isinstance(node, _ALLOWED):
            raise EvaluationError(f"{_describe(node)} is not allowed in an expression here")
    # nodes are kept by identity (``id`` is an audited builtin, which the server avoids)
    handed: set[ast.AST] = {a for n in nodes if isinstance(n, ast.Call) for a in n.args}
    handed |= {k.value for n in nodes if isinstance(n, ast.Call) for k in n.keywords}
    targets = {
        part for n in nodes if isinstance(n, ast.comprehension) for part in ast.walk(n.target)
    }
    for node in nodes:
        if isinstance(node, ast.Attribute):
            _check_attribute(node.attr, rules)
        if isinstance(node, ast.Call):
            _check_call(node, rules)
        if isinstance(node, ast.Lambda):
            _check_lambda(node, node in handed)
        if isinstance(node, ast.comprehension) and node.is_async:
            raise EvaluationError("async comprehensions are not allowed in an expression here")
        stored = isinstance(getattr(node, "ctx", None), ast.Store)
        if stored and (node not in targets or not isinstance(node, ast.Name | ast.Tuple)):
            raise EvaluationError("only a comprehension's names can be bound in an expression")


def _describe(node: ast.AST) -> str:
    names = {
        ast.Lambda: "a lambda",
        ast.NamedExpr: "assignment (:=)",
        ast.ListComp: "a comprehension",
        ast.SetComp: "a comprehension",
        ast.DictComp: "a comprehension",
        ast.GeneratorExp: "a generator",
        ast.Await: "await",
        ast.Yield: "yield",
        ast.Starred: "unpacking (*)",
    }
    return names.get(type(node), type(node).__name__)


def _check_attribute(name: str, rules: Rules = HOVER) -> None:
    if name.startswith("_"):
        raise EvaluationError(f"attribute {name!r} is not allowed: names starting with _ are")
    if name not in READING_ATTRIBUTES and not (rules.mutating and name in MUTATING_ATTRIBUTES):
        raise EvaluationError(f"attribute {name!r} is not available: only reading methods are")


def _check_call(node: ast.Call, rules: Rules = HOVER) -> None:
    func = node.func
    if isinstance(func, ast.Name):
        allowed = BUILTINS.keys() if rules.builtins is None else rules.builtins & BUILTINS.keys()
        if func.id not in allowed:
            listed = ", ".join(sorted(allowed))
            raise EvaluationError(f"calling {func.id!r} is not allowed; only {listed}")
    elif not isinstance(func, ast.Attribute):
        raise EvaluationError("only builtins and methods of plain values can be called")


def _check_lambda(node: ast.Lambda, handed: bool) -> None:
    arguments = node.args
    if not handed:
        raise EvaluationError("a lambda is allowed only as a call's argument, e.g. key=")
    if arguments.posonlyargs or arguments.kwonlyargs or arguments.vararg or arguments.kwarg:
        raise EvaluationError("a lambda here takes plain parameters only")
    if arguments.defaults:
        raise EvaluationError("a lambda here takes no default values")


class Evaluator:
    """Evaluates checked expressions over a stop's variables (repr texts, rebuilt on use).

    ``used`` collects the variable names an evaluation read, so its result can be labelled with
    the confidence of the predictions it rests on. Each name is rebuilt once, so a method that
    changes its receiver (``rules.mutating``) changes the value :meth:`value` reads later.
    """

    def __init__(self, variables: Mapping[str, str], rules: Rules = HOVER) -> None:
        self.variables = variables
        self.rules = rules
        self.used: list[str] = []
        self._rebuilt: dict[str, Any] = {}
        self._scopes: list[dict[str, Any]] = []  # comprehensions' and lambdas' own names
        self._steps = 0

    def evaluate(self, expression: str) -> Any:
        return self.evaluate_node(parse(expression).body)

    def evaluate_node(self, node: ast.expr) -> Any:
        """The value of an expression already parsed (checked here under :attr:`rules`)."""
        check(node, self.rules)
        try:
            return self._eval(node)
        except EvaluationError:
            raise
        except RecursionError:
            raise EvaluationError("the expression is nested too deeply") from None
        except MemoryError:
            raise EvaluationError("the result would be too large") from None
        except Exception as err:  # the expression's own error, e.g. an index out of range
            raise EvaluationError(f"{type(err).__name__}: {err}") from None

    def value(self, name: str) -> Any:
        """The value of variable ``name``, rebuilt once (and changed by what ran since)."""
        if name not in self._rebuilt:
            self._rebuilt[name] = self.lookup(name)
        if name not in self.used:
            self.used.append(name)
        return self._rebuilt[name]

    def lookup(self, name: str) -> Any:
        """Rebuild variable ``name`` from its text (a subclass may look elsewhere too)."""
        if name not in self.variables:
            raise EvaluationError(f"name {name!r} is not a variable at this stop")
        try:
            return rebuild(self.variables[name])
        except NotALiteral as err:
            raise EvaluationError(f"{name} cannot be rebuilt: {err}") from None

    # ---- nodes -----------------------------------------------------------------------------

    def _eval(self, node: ast.expr) -> Any:
        method = getattr(self, f"_{type(node).__name__}", None)
        if method is None:  # check() admits only nodes with a method below
            raise EvaluationError(f"{_describe(node)} is not allowed in an expression here")
        return method(node)

    def _Constant(self, node: ast.Constant) -> Any:
        return node.value

    def _Name(self, node: ast.Name) -> Any:
        for scope in reversed(self._scopes):
            if node.id in scope:
                return scope[node.id]
        builtin = self._builtin(node.id)
        return self.value(node.id) if builtin is None else builtin

    def _builtin(self, name: str) -> Any:
        """The builtin function or type ``name`` stands for, where no variable hides it and
        the rules allow it (``key=len``, ``map(int, digits)``, ``type(x) == list``)."""
        if name in self.variables or name == "isinstance":
            return None
        if self.rules.builtins is not None and name not in self.rules.builtins:
            return None
        return BUILTINS.get(name)

    def _items(self, nodes: list[ast.expr]) -> list[Any]:
        """A display's or a call's items, ``*`` parts unpacked."""
        out: list[Any] = []
        for node in nodes:
            if isinstance(node, ast.Starred):
                part = self._materialized(self._eval(node.value))
                self._check_order(part, "unpacking (*)")
                out.extend(part)
            else:
                out.append(self._eval(node))
            _check_length(out)
        return out

    def _Tuple(self, node: ast.Tuple) -> Any:
        return tuple(self._items(node.elts))

    def _List(self, node: ast.List) -> Any:
        return self._items(node.elts)

    def _Set(self, node: ast.Set) -> Any:
        return set(self._items(node.elts))

    def _Dict(self, node: ast.Dict) -> Any:
        result: dict[Any, Any] = {}
        for key, value in zip(node.keys, node.values, strict=True):
            if key is None:  # ``{**a, **b}``
                part = self._eval(value)
                if not isinstance(part, dict):
                    raise EvaluationError("unpacking (**) takes a dict")
                result.update(part)
            else:
                result[self._eval(key)] = self._eval(value)
            _check_length(result)
        return result

    def _Starred(self, node: ast.Starred) -> Any:
        raise EvaluationError("unpacking (*) is allowed only in a display or a call")

    def _Attribute(self, node: ast.Attribute) -> Any:
        _check_attribute(node.attr, self.rules)
        owner = node.value
        kind = self._builtin(owner.id) if isinstance(owner, ast.Name) else None
        value = kind if isinstance(kind, type) else self._eval(owner)  # ``dict.fromkeys``
        try:
            return getattr(value, node.attr)
        except AttributeError:
            kind = type(value).__name__
            raise EvaluationError(f"a {kind} has no attribute {node.attr!r}") from None

    # ---- comprehensions and lambdas ----------------------------------------------------------

    def _step(self) -> None:
        self._steps += 1
        if self._steps > MAX_STEPS:
            raise EvaluationError(f"more than {MAX_STEPS} turns or calls; too long to evaluate")

    def _bind(self, target: ast.expr, value: Any, scope: dict[str, Any]) -> None:
        if isinstance(target, ast.Name):
            scope[target.id] = value
            return
        assert isinstance(target, ast.Tuple)  # check() admits no other target
        parts = list(value)
        if len(parts) != len(target.elts):
            raise EvaluationError(f"cannot unpack {len(parts)} values into {len(target.elts)}")
        for part, item in zip(target.elts, parts, strict=True):
            self._bind(part, item, scope)

    def _turns(
        self, node: ast.ListComp | ast.SetComp | ast.DictComp | ast.GeneratorExp
    ) -> list[Any]:
        """What a comprehension's element (or key and value) is on each turn, in order. The
        first iterable is read outside the comprehension's own names, as Python reads it."""
        found: list[Any] = []
        weight = 0
        first = self._eval(node.generators[0].iter)
        scope: dict[str, Any] = {}

        def turn(index: int, iterable: Any) -> None:
            nonlocal weight
            generator = node.generators[index]
            self._check_order(iterable, "a comprehension")
            for item in self._materialized(iterable):
                self._step()
                self._bind(generator.target, item, scope)
                if not all(self._eval(test) for test in generator.ifs):
                    continue
                if index + 1 < len(node.generators):
                    turn(index + 1, self._eval(node.generators[index + 1].iter))
                    continue
                if isinstance(node, ast.DictComp):
                    made: Any = (self._eval(node.key), self._eval(node.value))
                else:
                    made = self._eval(node.elt)
                weight += _weight(made, MAX_ITEMS - weight) + 1
                if weight > MAX_ITEMS:
                    raise EvaluationError("the result would be too large")
                found.append(made)

        self._scopes.append(scope)
        try:
            turn(0, first)
        finally:
            self._scopes.pop()
        return found

    def _ListComp(self, node: ast.ListComp) -> Any:
        return self._turns(node)

    def _SetComp(self, node: ast.SetComp) -> Any:
        return set(self._turns(node))

    def _DictComp(self, node: ast.DictComp) -> Any:
        return dict(self._turns(node))

    def _GeneratorExp(self, node: ast.GeneratorExp) -> Any:
        return Generated(self._turns(node))

    def _Lambda(self, node: ast.Lambda) -> Any:
        names = [a.arg for a in node.args.args]
        scopes = list(self._scopes)

        def call(*values: Any) -> Any:
            if len(values) != len(names):
                raise EvaluationError(f"the lambda takes {len(names)} values, not {len(values)}")
            self._step()
            saved, self._scopes = self._scopes, [*scopes, dict(zip(names, values, strict=True))]
            try:
                return self._eval(node.body)
            finally:
                self._scopes = saved

        return call

    def _materialized(self, value: Any) -> Any:
        """What an iterator yields (a ``map``, a ``filter``, ...), as a list measured as it
        is made; any other value as it is."""
        if not isinstance(value, Iterator):
            return value
        out: list[Any] = []
        weight = 0
        for item in value:
            weight += _weight(item, MAX_ITEMS - weight) + 1
            if weight > MAX_ITEMS:
                raise EvaluationError("the result would be too large")
            out.append(item)
        return out

    def _Subscript(self, node: ast.Subscript) -> Any:
        value = self._eval(node.value)
        return value[self._eval(node.slice)]

    def _Slice(self, node: ast.Slice) -> Any:
        def part(n: ast.expr | None) -> Any:
            return None if n is None else self._eval(n)

        return slice(part(node.lower), part(node.upper), part(node.step))

    def _UnaryOp(self, node: ast.UnaryOp) -> Any:
        return _UNARY[type(node.op)](self._eval(node.operand))

    def _BinOp(self, node: ast.BinOp) -> Any:
        left, right = self._eval(node.left), self._eval(node.right)
        _check_size(type(node.op), left, right)
        return _BINARY[type(node.op)](left, right)

    def _BoolOp(self, node: ast.BoolOp) -> Any:
        value: Any = None
        for part in node.values:
            value = self._eval(part)
            if isinstance(node.op, ast.And) and not value:
                return value
            if isinstance(node.op, ast.Or) and value:
                return value
        return value

    def _Compare(self, node: ast.Compare) -> Any:
        left = self._eval(node.left)
        for op, comparator in zip(node.ops, node.comparators, strict=True):
            right = self._eval(comparator)
            identity = isinstance(op, ast.Is | ast.IsNot)
            # None, True, False and the builtin types are one object each: `is` reads them
            single = any(v is None or type(v) is bool for v in (left, right))
            typed = isinstance(left, type) and isinstance(right, type)
            if self.rules.strict and identity and not typed and not single:
                raise EvaluationError("'is' compares the program's objects, not copies")
            if not _COMPARE[type(op)](left, right):
                return False
            left = right
        return True

    def _IfExp(self, node: ast.IfExp) -> Any:
        return self._eval(node.body) if self._eval(node.test) else self._eval(node.orelse)

    def _JoinedStr(self, node: ast.JoinedStr) -> Any:
        text = "".join(self._eval(part) for part in node.values)
        _check_length(text)
        return text

    def _FormattedValue(self, node: ast.FormattedValue) -> Any:
        value = self._eval(node.value)
        self._check_order(value, "an f-string")
        if node.conversion in (ord("r"), ord("a")):
            value = repr(value) if node.conversion == ord("r") else ascii(value)
        elif node.conversion == ord("s"):
            value = str(value)
        spec = "" if node.format_spec is None else self._eval(node.format_spec)
        _check_spec(spec)
        return format(value, spec)

    def _Call(self, node: ast.Call) -> Any:
        _check_call(node, self.rules)
        if isinstance(node.func, ast.Name) and node.func.id == "isinstance":
            return self._isinstance(node)
        func = self._callee(node.func)
        args = self._items(node.args)
        keywords: dict[str, Any] = {}
        for keyword in node.keywords:
            if keyword.arg is not None:
                keywords[keyword.arg] = self._eval(keyword.value)
                continue
            given = self._eval(keyword.value)  # ``**options``
            if not isinstance(given, dict) or not all(isinstance(k, str) for k in given):
                raise EvaluationError("unpacking (**) in a call takes a dict of names")
            keywords.update(given)
        called = node.func
        name = called.id if isinstance(called, ast.Name) else cast(ast.Attribute, called).attr
        return self._invoke(name, func, args, keywords, _takes_receiver(func))

    def _invoke(
        self,
        name: str,
        func: Callable[..., Any],
        args: list[Any],
        keywords: dict[str, Any],
        unbound: bool = False,
    ) -> Any:
        """Call a builtin, a method or a lambda with its sizes checked first: the one way the
        evaluator calls anything, also where a builtin calls what it is handed."""
        if name not in _LAZY:
            args = [self._materialized(a) for a in args]
            keywords = {k: self._materialized(v) for k, v in keywords.items()}
        for value in (*args, *keywords.values()):
            _check_length(value)
        receiver = getattr(func, "__self__", None)
        if isinstance(receiver, type | types.ModuleType):
            receiver = None  # a class method (``dict.fromkeys``), or a builtin function
        if unbound and args:
            receiver = args[0]
        given = args[1:] if unbound else args
        _check_arguments(name, receiver, given, keywords)
        if name not in _ORDER_FREE:
            for value in (receiver, *args, *keywords.values()):
                self._check_order(value, f"{name}()")
        args = [self._guarded(a) for a in args]
        keywords = {k: self._guarded(v) for k, v in keywords.items()}
        if name == "format" and isinstance(receiver, str):
            result: Any = _Formatter().vformat(receiver, tuple(given), keywords)
        else:
            result = func(*args, **keywords)
        _check_length(result)  # e.g. repr or hex, each a few times longer than what it is given
        return result

    def _guarded(self, value: Any) -> Any:
        """A function handed to a call (``key=len``, ``map(str.zfill, ...)``), wrapped so
        that each call it makes goes through :meth:`_invoke`'s checks."""
        if not callable(value):
            return value
        name = getattr(value, "__name__", "")
        if name == "call":  # a lambda of this evaluator checks its own body
            return value
        unbound = _takes_receiver(value)

        def guarded(*args: Any, **keywords: Any) -> Any:
            return self._invoke(name, value, list(args), keywords, unbound)

        return guarded

    def _isinstance(self, node: ast.Call) -> bool:
        """``isinstance(x, str)``: the second argument names builtin types, not variables."""
        if len(node.args) != 2 or node.keywords:
            raise EvaluationError("isinstance takes a value and a type")
        kinds = node.args[1]
        names = kinds.elts if isinstance(kinds, ast.Tuple) else [kinds]
        found = []
        for kind in names:
            allowed = self.rules.builtins is None or (
                isinstance(kind, ast.Name) and kind.id in self.rules.builtins
            )
            if not isinstance(kind, ast.Name) or kind.id not in TYPES or not allowed:
                raise EvaluationError("isinstance takes builtin types here (int, str, list, ...)")
            if kind.id in self.variables:
                raise EvaluationError(f"{kind.id} is a variable at this stop, not a type")
            found.append(TYPES[kind.id])
        return isinstance(self._eval(node.args[0]), tuple(found))

    def _callee(self, func: ast.expr) -> Callable[..., Any]:
        if isinstance(func, ast.Name):
            if func.id in self.variables or any(func.id in scope for scope in self._scopes):
                raise EvaluationError(f"{func.id} is a variable at this stop, not the builtin")
            return BUILTINS[func.id]
        method = self._eval(func)
        if not callable(method):
            raise EvaluationError(f"{ast.unparse(func)} is not a method")
        return cast(Callable[..., Any], method)

    def _check_order(self, value: Any, where: str) -> None:
        """Refuse, under strict rules, what would read a set's order (see the module)."""
        if self.rules.strict and holds_a_set(value):
            raise EvaluationError(f"{where} would read a set's order, which its text does not keep")


def _takes_receiver(func: object) -> bool:
    """Whether ``func`` is a type's method taken from the type (``str.upper``): its first
    argument is the receiver, whose sizes the checks read. A class's or static method
    (``dict.fromkeys``, ``str.maketrans``) and a builtin function take none."""
    return isinstance(func, types.MethodDescriptorType | types.WrapperDescriptorType)


class Generated:
    """A generator expression's items, made when it is evaluated: iterated like the generator,
    and, like it, no plain value (its text is not a literal)."""

    def __init__(self, items: list[Any]) -> None:
        self._items = items

    def __iter__(self) -> Iterator[Any]:
        return iter(self._items)

    def __repr__(self) -> str:
        return "<generator object <genexpr>>"


class _Formatter(string.Formatter):
    """``str.format``, its fields reading items but never attributes, its widths checked."""

    def get_field(self, field_name: str, args: Any, kwargs: Any) -> Any:
        if "." in field_name:
            raise EvaluationError("a format field may not read attributes here")
        return super().get_field(field_name, args, kwargs)

    def format_field(self, value: Any, format_spec: str) -> Any:
        _check_spec(format_spec)
        return format(value, format_spec)


def holds_a_set(value: object, depth: int = 0) -> bool:
    """Whether ``value`` is or holds a set (or a view or iterator over one)."""
    if depth > 20:
        return True
    if isinstance(value, set | frozenset):
        return True
    if isinstance(value, list | tuple):
        return any(holds_a_set(v, depth + 1) for v in value)
    if isinstance(value, dict):
        return any(holds_a_set(v, depth + 1) for v in value.values())
    return False


def _length(value: Any) -> int:
    return len(value) if isinstance(value, str | bytes | list | tuple | dict | set) else 1


VIEWS: tuple[type, ...] = (type({}.keys()), type({}.values()), type({}.items()))


def _weight(value: Any, limit: int) -> int:
    """How much there is to copy, show or compare in ``value``, through every level of nesting.

    Characters, container items (a part held n times counts n times, as showing it would) and
    64-bit words of integers. The count stops once past ``limit``, so measuring a value costs
    no more than the limit, however large the value is.
    """
    total, stack = 0, [value]
    while stack and total <= limit:
        item = stack.pop()
        if isinstance(item, str | bytes):
            total += len(item)
        elif isinstance(item, int):
            total += item.bit_length() // 64
        elif isinstance(item, dict):
            total += 2 * len(item)
            if total <= limit:
                stack.extend(item.keys())
                stack.extend(item.values())
        elif isinstance(item, (list, tuple, set, frozenset, *VIEWS)):
            total += len(cast(Sized, item))
            if total <= limit:
                stack.extend(cast(Iterable[Any], item))
    return total


def _check_length(value: Any) -> None:
    if _length(value) > MAX_ITEMS:
        raise EvaluationError(f"a value of more than {MAX_ITEMS} items is too large here")


def _check_size(op: type[ast.operator], left: Any, right: Any) -> None:
    """Refuse an operation whose result would be huge, before computing it."""
    sequences: tuple[type, ...] = (str, bytes, list, tuple)
    too_large = False
    if op is ast.Mult:
        too_large = any(
            isinstance(seq, sequences)
            and isinstance(times, int)
            and times > 1
            and _weight(seq, MAX_ITEMS // times) * times > MAX_ITEMS
            for seq, times in ((left, right), (right, left))
        )
        if isinstance(left, int) and isinstance(right, int):
            too_large = left.bit_length() + right.bit_length() > MAX_BITS
    elif op is ast.Add:
        too_large = isinstance(left, sequences) and _length(left) + _length(right) > MAX_ITEMS
    elif op is ast.Mod and isinstance(left, str | bytes):
        _check_format(left)
    elif op in (ast.Pow, ast.LShift) and isinstance(left, int) and isinstance(right, int):
        if op is ast.Pow:
            bits = max(abs(left).bit_length(), 1) * right
        else:
            bits = abs(left).bit_length() + right
        too_large = bits > MAX_BITS
    if too_large:
        raise EvaluationError("the result would be too large")


_FORMAT_FIELD = r"%(?:%|(?:\([^)]*\))?[-#0 +]*(\*|\d*)(?:\.(\*|\d*))?)"
_FORMAT_FIELDS = (re.compile(_FORMAT_FIELD), re.compile(_FORMAT_FIELD.encode()))


def _check_format(template: str | bytes) -> None:
    """Refuse a % format whose width or precision would pad the result to a huge size."""
    pattern = _FORMAT_FIELDS[isinstance(template, bytes)]
    for field in pattern.finditer(template):  # type: ignore[arg-type]
        for size in field.groups():
            if size and (size in ("*", b"*") or len(size) > 5 or int(size) > MAX_WIDTH):
                raise EvaluationError(f"% formats wider than {MAX_WIDTH} are not allowed here")


def _check_arguments(name: str, receiver: Any, args: list[Any], keywords: dict[str, Any]) -> None:
    """Refuse, before it runs, a call that would build far more than it is given or import.

    ``receiver`` is the value a method belongs to, None for a builtin.
    """
    if name == "join" and isinstance(receiver, str | bytes) and args:
        parts = len(args[0]) if isinstance(args[0], Sized) else 1
        room = MAX_ITEMS - len(receiver) * parts  # what the separators leave
        if room < 0 or _weight(args[0], room) > room:
            raise EvaluationError("the result would be too large")
    elif name == "replace" and isinstance(receiver, str | bytes) and len(args) >= 2:
        old, new = args[0], args[1]
        found = receiver.count(old)
        if len(args) > 2 and isinstance(args[2], int) and args[2] >= 0:
            found = min(found, args[2])
        if len(receiver) + found * (len(new) - len(old)) > MAX_ITEMS:
            raise EvaluationError("the result would be too large")
    elif name in _PADDING and isinstance(receiver, str | bytes) and args:
        if isinstance(args[0], int) and args[0] > MAX_ITEMS:
            raise EvaluationError("the result would be too large")
    elif name == "expandtabs" and isinstance(receiver, str | bytes):
        size = args[0] if args else keywords.get("tabsize", 8)
        tabs = receiver.count("\t") if isinstance(receiver, str) else receiver.count(b"\t")
        if isinstance(size, int) and (size > MAX_WIDTH or len(receiver) + tabs * size > MAX_ITEMS):
            raise EvaluationError("the result would be too large")
    elif name == "translate" and isinstance(receiver, str) and args:
        table = args[0]
        widest = (
            max((len(v) for v in table.values() if isinstance(v, str)), default=1)
            if (isinstance(table, dict))
            else 1
        )
        if len(receiver) * widest > MAX_ITEMS:
            raise EvaluationError("the result would be too large")
    elif name == "type" and receiver is None and (len(args) != 1 or keywords):
        raise EvaluationError("type() here takes one value")
    elif name == "range" and receiver is None:
        if len(args) > 3 or len(range(*args)) > MAX_ITEMS:  # list(range(...)) would build it
            raise EvaluationError(f"a range of more than {MAX_ITEMS} items is too large here")
    elif name == "round" and receiver is None:
        number = args[0] if args else keywords.get("number")
        digits = args[1] if len(args) > 1 else keywords.get("ndigits")
        if isinstance(number, int) and isinstance(digits, int) and -digits * 4 > MAX_BITS:
            raise EvaluationError("the result would be too large")  # it computes 10 ** -digits
    elif name in ("encode", "decode") or (name == "str" and receiver is None):
        given = args[1:3] if name == "str" else args[:2]
        encoding = keywords.get("encoding", given[0] if given else None)
        errors = keywords.get("errors", given[1] if len(given) > 1 else None)
        if isinstance(encoding, str) and encoding.lower().replace("_", "-") not in ENCODINGS:
            allowed = ", ".join(sorted(ENCODINGS))
            raise EvaluationError(f"encoding {encoding!r} is not available here; only {allowed}")
        if isinstance(errors, str) and errors not in ERROR_HANDLERS:
            raise EvaluationError(f"error handler {errors!r} is not available here")


_SPEC_WIDTHS = re.compile(r"\d+")


def _check_spec(spec: str) -> None:
    """Refuse a format spec whose width or precision would pad the result to a huge size."""
    if len(spec) > 50 or any(int(size) > MAX_WIDTH for size in _SPEC_WIDTHS.findall(spec)):
        raise EvaluationError(f"format widths over {MAX_WIDTH} are not allowed here")


def truthy(expression: str, variables: Mapping[str, str]) -> bool:
    """Whether a breakpoint condition holds over a stop's variables."""
    return bool(Evaluator(variables).evaluate(expression))
