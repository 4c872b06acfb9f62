"""What a frame can return, read from the code alone: a few literal texts, or builtin types.

Why: a jump to a return (a step out, CruxEval's one action) shows a value the model writes from
nothing, and the small model often writes the wrong kind of value: a string where every
``return`` of the function gives ``True`` or ``False``, a list where it returns ``len(...)``.
Where the code fixes what kind of value a frame returns, the grammar keeps the model to it
(:class:`.flow.Expected`, ``return_shapes``): one of a few exact texts, or a text that starts the
way the repr of one of a few builtin types starts (``[`` for a list, a quote for a ``str``).

A :class:`Shape` is such a set. :class:`ValueShapes` infers, for each plain function of the code
(:mod:`.call_sites`: called by name only, so every call is in the code; not a generator), the
shape of what it returns: the union of its ``return`` expressions' shapes, and ``None`` where
its body can end without one. An expression's shape is known for:

* literals (their exact texts, as the tracer writes them), f-strings (``str``), displays and
  comprehensions of lists, tuples, dicts and sets;
* ``not``, ``in``/``is`` tests (``bool``); other comparisons too where no class of the code
  defines a comparison method and every import is of the standard library (else a comparison
  may return anything); ``and``/``or`` and ``x if c else y`` (the union of their operands);
* arithmetic of exact builtin types (``int + int`` is an ``int``, ``str * int`` a ``str``,
  ``'%d' % n`` a ``str``), subscripts and slices of strings, slices of lists and tuples;
* calls of builtins no code rebinds (``len`` gives an ``int``, ``sorted`` a ``list``, ``str``
  a ``str``), of a known type's methods (``s.upper()`` on a ``str``, ``s.split()``), and of
  the code's plain functions (their own shape);
* variables of the function: the union of every binding's shape (assignments, augmented ones,
  ``for`` targets over a string or a ``range``), where each binding is one of the above; its
  parameters, where every call passes them literals (:mod:`.passed_arguments`), ``*args`` (a
  tuple) and ``**kwargs`` (a dict).

Anything else is not known, and a function with anything not known returns any value. Every
frame with code on a line counts for a return on that line (:meth:`ValueShapes.on_line`): the
module's returns ``None``; a comprehension's its list, set or dict; a lambda, a generator
expression, a class body or a generator any value.
"""

from __future__ import annotations

import ast
import dis
import enum
import functools
import sys
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from types import CodeType

from neural_debugger.protocol.source_map import yields
from neural_debugger.tracer.values import MAX_VALUE_CHARS, render_value

from .module_constants import first_line

# The characters a builtin type's text (the tracer's render, :mod:`neural_debugger.tracer.
# values`) can start with: an ``int`` past 50 000 bits is ``<int with N bits>``, a float may be
# ``inf`` or ``nan``, an empty set is ``set()``; a ``bool`` is ``True`` or ``False``.
FIRSTS: dict[str, str] = {
    "int": "-0123456789<",
    "float": "-0123456789in",
    "str": "'\"",
    "bytes": "b",
    "list": "[",
    "tuple": "(",
    "dict": "{",
    "set": "{s",
    "bool": "TF",
    "NoneType": "N",
}
_LITERAL_KINDS = {bool: "bool", type(None): "NoneType", int: "int", float: "float"} | {
    str: "str",
    bytes: "bytes",
}
_GENERATOR_FLAGS = 0x20 | 0x80 | 0x100 | 0x200  # generator, coroutine, iterable and async ones


@dataclass(frozen=True)
class Shape:
    """The values a frame may return: exact texts, or any value of one of ``types``."""

    texts: frozenset[str] = frozenset()
    types: frozenset[str] = frozenset()
    # ``None`` is among the texts only as the return of a frame an exception leaves
    # (:meth:`or_raised`), which a decoder weighs by how rarely that happens (RAISED_SHARE)
    raised: bool = False

    def __or__(self, other: Shape) -> Shape:
        return Shape(self.texts | other.texts, self.types | other.types)

    def or_raised(self) -> Shape:
        """The shape with ``None`` added for a frame an exception leaves."""
        if "None" in self.texts:
            return self
        return Shape(self.texts | NONE.texts, self.types, raised=True)

    @property
    def kinds(self) -> frozenset[str]:
        """The type names of every value the shape holds."""
        return self.types | {text_kind(t) for t in self.texts}

    def allows(self, text: str | None) -> bool:
        """Whether a value written ``text`` fits."""
        if text is None:
            return False
        if text in self.texts:
            return True
        return bool(text) and any(text[0] in FIRSTS[t] for t in self.types)


NONE = Shape(texts=frozenset({"None"}))
# How often a jump to a return (a breakpoint, a step out, a continue) lands on a frame an
# exception leaves, where the frame's code returns no ``None`` itself: 76 of 2,762 such real
# returns in the flow check's trajectories (the held-out sets and 10,000 training
# trajectories, ``make flow-check``). Where the model expected a kind the code rules out, its
# probability for ``None`` is mostly for a ``None`` the code rules out too; a decoder then
# counts this share of the other kinds' total for it (:func:`.choosing.shortlist`).
RAISED_SHARE = 0.028
BOOL = Shape(texts=frozenset({"True", "False"}))


class Odds(enum.Enum):
    """How a decoder weighs one kind of value where a value of a few kinds starts
    (:func:`.choosing.shortlist`): by the model's probability for it, as a ``None`` only an
    exception gives (:data:`RAISED_SHARE`), or as a kind the code's use of the value does not
    admit (:data:`.parameter_uses.UNUSED_SHARE`)."""

    MODEL = "model"
    RAISED = "raised"
    UNUSED = "unused"


def typed(*names: str) -> Shape:
    return Shape(types=frozenset(names))


def literal_shape(value: object) -> Shape | None:
    """The shape of one literal value: its text, or its type where the text would be cut."""
    kind = _LITERAL_KINDS.get(type(value))
    if kind is None:
        return None
    text = render_value(value)
    if len(text) <= MAX_VALUE_CHARS:
        return Shape(texts=frozenset({text}))
    return typed(kind) if kind in FIRSTS else None


@functools.lru_cache(maxsize=4096)
def text_kind(text: str) -> str:
    """The type name of the literal a text of :func:`literal_shape` writes."""
    return _LITERAL_KINDS[type(ast.literal_eval(text))]


def union(shapes: Iterable[Shape | None]) -> Shape | None:
    """The union of ``shapes``; None (any value) if one is."""
    found = Shape()
    for shape in shapes:
        if shape is None:
            return None
        found = found | shape
    return found


# ---- what operations give ---------------------------------------------------------------------

_NUMBERS = frozenset({"int", "float", "bool"})
_SEQUENCES = frozenset({"str", "bytes", "list", "tuple"})


def _arithmetic(op: ast.operator, left: str, right: str) -> str | None:
    """The exact type ``left OP right`` gives for exact builtin types; None: not known here
    (or it raises)."""
    if left in _NUMBERS and right in _NUMBERS:
        if isinstance(op, ast.Div):
            return "float"
        if isinstance(op, ast.Pow):
            return None  # a negative power of an int is a float
        arithmetic = (ast.Add, ast.Sub, ast.Mult, ast.FloorDiv, ast.Mod)
        if isinstance(op, arithmetic):
            return "float" if "float" in (left, right) else "int"
        if isinstance(op, ast.LShift | ast.RShift) and "float" not in (left, right):
            return "int"
        if isinstance(op, ast.BitAnd | ast.BitOr | ast.BitXor) and "float" not in (left, right):
            return "bool" if left == right == "bool" else "int"
        return None
    if isinstance(op, ast.Add) and left == right and left in _SEQUENCES:
        return left
    if isinstance(op, ast.Mult) and {left, right} <= _SEQUENCES | {"int", "bool"}:
        counts = {left, right} & {"int", "bool"}
        sequences = {left, right} & _SEQUENCES
        if counts and len(sequences) == 1:
            return next(iter(sequences))
    if isinstance(op, ast.Mod) and left in ("str", "bytes"):
        return left
    if isinstance(op, ast.BitOr) and left == right and left in ("set", "dict"):
        return left
    if isinstance(op, ast.BitAnd | ast.Sub | ast.BitXor) and left == right == "set":
        return "set"
    return None


# Builtins whose call gives one exact type, whatever they are given (or they raise).
_BUILTIN_RESULTS: dict[str, Shape] = {
    **dict.fromkeys(("len", "ord", "int", "hash", "id"), typed("int")),
    **dict.fromkeys(("str", "repr", "ascii", "chr", "hex", "oct", "bin", "format"), typed("str")),
    **dict.fromkeys(("bool", "isinstance", "issubclass", "callable", "hasattr"), BOOL),
    **dict.fromkeys(("all", "any"), BOOL),
    "float": typed("float"),
    "sorted": typed("list"),
    "list": typed("list"),
    "tuple": typed("tuple"),
    "dict": typed("dict"),
    "set": typed("set"),
    "bytes": typed("bytes"),
}
_TO_STR = ("upper", "lower", "strip", "lstrip", "rstrip", "replace", "title", "capitalize",
           "swapcase", "casefold", "center", "ljust", "rjust", "zfill", "join", "format",
           "expandtabs", "removeprefix", "removesuffix", "translate")  # fmt: skip
_TO_BOOL = ("startswith", "endswith", "isalpha", "isdigit", "isalnum", "isspace", "isupper",
            "islower", "istitle", "isdecimal", "isnumeric", "isidentifier", "isprintable",
            "isascii")  # fmt: skip
_STR_METHODS: dict[str, Shape] = {
    **dict.fromkeys(
        _TO_STR,
        typed("str"),
    ),
    **dict.fromkeys(("split", "rsplit", "splitlines"), typed("list")),
    **dict.fromkeys(("partition", "rpartition"), typed("tuple")),
    **dict.fromkeys(("find", "rfind", "index", "rindex", "count"), typed("int")),
    **dict.fromkeys(
        _TO_BOOL,
        BOOL,
    ),
    "encode": typed("bytes"),
}
_METHODS: dict[str, dict[str, Shape]] = {
    "str": _STR_METHODS,
    "list": {"copy": typed("list"), "index": typed("int"), "count": typed("int")},
    "tuple": {"index": typed("int"), "count": typed("int")},
    "dict": {"copy": typed("dict")},
    "set": {"copy": typed("set"), "union": typed("set"), "intersection": typed("set")}
    | {"difference": typed("set"), "issubset": BOOL, "issuperset": BOOL, "isdisjoint": BOOL},
}
_ALWAYS_BOOL = (ast.In, ast.NotIn, ast.Is, ast.IsNot)
_COMPARING = frozenset({"__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__"})
_OWN_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def _plain_comparisons(tree: ast.Module) -> bool:
    """Whether every comparison of the code gives a bool: no class of the code defines a
    comparison method, and every import is of the standard library."""
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name in _COMPARING:
            return False
        stored = isinstance(node, ast.Name | ast.Attribute) and not isinstance(node.ctx, ast.Load)
        if stored and _stored_name(node) in _COMPARING:
            return False
    return standard_imports(tree)


def standard_imports(tree: ast.Module) -> bool:
    """Whether every import of the code is of the standard library."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import) and any(
            a.name.split(".")[0] not in sys.stdlib_module_names for a in node.names
        ):
            return False
        if isinstance(node, ast.ImportFrom) and (
            node.level or (node.module or "").split(".")[0] not in sys.stdlib_module_names
        ):
            return False
    return True


def _stored_name(node: ast.AST) -> str:
    return node.id if isinstance(node, ast.Name) else getattr(node, "attr", "")


def _falls_off(body: list[ast.stmt]) -> bool:
    """Whether running ``body`` can go past its end (read simply: a last ``return`` or
    ``raise``, or an ``if`` whose branches both end so, does not)."""
    if not body:
        return True
    last = body[-1]
    if isinstance(last, ast.Return | ast.Raise):
        return False
    if isinstance(last, ast.If):
        return _falls_off(last.body) or _falls_off(last.orelse)
    return True


def _own(body: Iterable[ast.AST]) -> Iterator[ast.AST]:
    """The nodes of ``body`` that run in its own frame (not in functions, classes, lambdas or
    comprehensions inside it)."""
    todo = list(body)
    while todo:
        node = todo.pop()
        yield node
        if not isinstance(node, _OWN_SCOPES + _COMPREHENSIONS):
            todo.extend(ast.iter_child_nodes(node))


@dataclass(frozen=True)
class _Binding:
    """One way a function binds a variable: to ``value`` (``op``: an augmented assignment's
    operator), to the items of ``items``, or in a way not read here (both None)."""

    value: ast.expr | None = None
    op: ast.operator | None = None
    items: ast.expr | None = None


def _bindings(function: ast.FunctionDef) -> dict[str, list[_Binding]]:
    """Every binding of each variable of ``function``'s own frame."""
    found: dict[str, list[_Binding]] = {}

    def add(name: str, binding: _Binding) -> None:
        found.setdefault(name, []).append(binding)

    def target(node: ast.expr, binding: _Binding) -> None:
        if isinstance(node, ast.Name):
            add(node.id, binding)
        elif isinstance(node, ast.Tuple | ast.List):
            for item in node.elts:
                target(item.value if isinstance(item, ast.Starred) else item, _Binding())
        # attributes and subscripts bind no variable

    for node in _own(function.body):
        if isinstance(node, ast.Assign):
            for each in node.targets:
                pairs = _pairs(each, node.value)
                if pairs is None:
                    target(each, _Binding(node.value))
                for name, value in pairs or ():
                    add(name, _Binding(value))
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            add(node.target.id, _Binding(node.value, node.op))
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            target(node.target, _Binding(node.value))
        elif isinstance(node, ast.For | ast.AsyncFor):
            target(node.target, _Binding(items=node.iter))
        elif isinstance(node, ast.NamedExpr):
            add(node.target.id, _Binding(node.value))
        elif isinstance(node, ast.withitem) and node.optional_vars is not None:
            target(node.optional_vars, _Binding())
        elif isinstance(node, ast.ExceptHandler | ast.FunctionDef | ast.AsyncFunctionDef):
            if node.name:
                add(node.name, _Binding())
        elif isinstance(node, ast.ClassDef):
            add(node.name, _Binding())
        elif isinstance(node, ast.Import | ast.ImportFrom):
            for alias in node.names:
                add(alias.asname or alias.name.split(".")[0], _Binding())
        elif isinstance(node, ast.Global | ast.Nonlocal):
            for name in node.names:
                add(name, _Binding())
        elif isinstance(node, ast.MatchAs | ast.MatchStar) and node.name:
            add(node.name, _Binding())
        elif isinstance(node, ast.MatchMapping) and node.rest:
            add(node.rest, _Binding())
        elif isinstance(node, ast.AugAssign | ast.Delete):
            for part in ast.walk(node):
                if isinstance(part, ast.Name) and not isinstance(part.ctx, ast.Load):
                    add(part.id, _Binding())
    # an assignment expression inside a comprehension binds the function's variable
    for scope in ast.walk(function):
        if isinstance(scope, _COMPREHENSIONS):
            for inner in ast.walk(scope):
                if isinstance(inner, ast.NamedExpr):
                    add(inner.target.id, _Binding())
    return found


def _pairs(target: ast.expr, value: ast.expr) -> list[tuple[str, ast.expr]] | None:
    """``a, b = x, y``: each name with its own value; None where the target is not names
    matched one to one by a display of as many items."""
    if not isinstance(target, ast.Tuple | ast.List) or not isinstance(value, ast.Tuple | ast.List):
        return None
    if len(target.elts) != len(value.elts):
        return None
    if not all(isinstance(t, ast.Name) for t in target.elts):
        return None
    if any(isinstance(v, ast.Starred) for v in value.elts):
        return None
    return [(t.id, v) for t, v in zip(target.elts, value.elts, strict=True)]  # type: ignore[attr-defined]


class ValueShapes:
    """What each plain function of one code context returns, and each line's frames."""

    def __init__(
        self,
        tree: ast.Module,
        functions: Mapping[int, ast.FunctionDef],
        passed: Mapping[int, Mapping[str, frozenset[str]]],
        builtins_kept: frozenset[str],
        constants: Mapping[str, str],
    ) -> None:
        """``functions``: the plain functions by def line (:mod:`.call_sites`), the only ones
        a call by name surely makes; ``passed``:
        for each, the literal texts its calls pass each parameter, where every call passes a
        literal (:meth:`.passed_arguments.PassedArguments.literal_texts`); ``builtins_kept``:
        the builtins no code rebinds; ``constants``: the module's constant names and their
        texts (:mod:`.module_constants`)."""
        self._defs = {
            node.lineno: node for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)
        }
        self._by_name = {f.name: line for line, f in functions.items()}
        self._passed = passed
        self._builtins = builtins_kept
        self._constants = constants
        self._comparisons = _plain_comparisons(tree)
        self._returns: dict[int, Shape | None] = {}
        self._envs: dict[int, dict[str, Shape]] = {}
        self._busy: set[int] = set()

    def returned(self, function: int) -> Shape | None:
        """What a frame of the function defined on line ``function`` returns, its ``return``
        statements read (None: any value). Only a plain function's parameters are known."""
        if function in self._returns:
            return self._returns[function]
        node = self._defs.get(function)
        if node is None or function in self._busy or yields(node):
            return None  # a recursive call's shape is the one being read: not known here
        self._busy.add(function)
        try:
            env = self._variables(function, node)
            shapes: list[Shape | None] = [
                NONE if r.value is None else self._shape(r.value, env)
                for r in _own(node.body)
                if isinstance(r, ast.Return)
            ]
            if _falls_off(node.body):
                shapes.append(NONE)
            found = union(shapes)
        finally:
            self._busy.discard(function)
        self._returns[function] = found
        return found

    def variables(self, function: int) -> dict[str, Shape]:
        """The kinds of value each variable of a frame of the function defined on line
        ``function`` can hold, for the variables whose every binding is read here."""
        found = self._envs.get(function)
        if found is None:
            node = self._defs.get(function)
            env = {} if node is None or yields(node) else self._variables(function, node)
            found = self._envs[function] = {n: s for n, s in env.items() if s is not None}
        return found

    def _variables(self, function: int, node: ast.FunctionDef) -> dict[str, Shape | None]:
        """Each variable's shape: the union of its bindings', read again until none grows."""
        env: dict[str, Shape | None] = {}
        args = node.args
        passed = self._passed.get(function, {})
        for arg in [*args.posonlyargs, *args.args, *args.kwonlyargs]:
            texts = passed.get(arg.arg)
            env[arg.arg] = None if texts is None else union(_text_shape(t) for t in texts)
        if args.vararg is not None:
            env[args.vararg.arg] = typed("tuple")
        if args.kwarg is not None:
            env[args.kwarg.arg] = typed("dict")
        bindings = _bindings(node)
        for name in bindings:
            if name in env and env[name] is None:
                continue
            env.setdefault(name, Shape())
        for _ in range(8):
            changed = False
            for name, ways in bindings.items():
                if env[name] is None:
                    continue
                grown = union([env[name], *(self._bound(b, name, env) for b in ways)])
                if grown != env[name]:
                    env[name] = grown
                    changed = True
            if not changed:
                return env
        return {name: (None if name in bindings else shape) for name, shape in env.items()}

    def _bound(self, binding: _Binding, name: str, env: Mapping[str, Shape | None]) -> Shape | None:
        if binding.items is not None:
            return self._item(binding.items, env)
        if binding.value is None:
            return None
        if binding.op is not None:
            return self._operation(binding.op, env[name], self._shape(binding.value, env))
        return self._shape(binding.value, env)

    def _item(self, items: ast.expr, env: Mapping[str, Shape | None]) -> Shape | None:
        """The shape of each item a ``for`` loop over ``items`` binds."""
        if self._builtin_call(items) == "range":
            return typed("int")
        shape = self._shape(items, env)
        return typed("str") if shape is not None and shape.kinds == {"str"} else None

    def _builtin_call(self, node: ast.expr) -> str | None:
        called = isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
        return node.func.id if called and node.func.id in self._builtins else None  # type: ignore[attr-defined]

    def _shape(self, node: ast.expr, env: Mapping[str, Shape | None]) -> Shape | None:
        """The shape of ``node``'s value in a frame whose variables have ``env``'s shapes."""
        if isinstance(node, ast.Constant):
            return literal_shape(node.value)
        if isinstance(node, ast.JoinedStr):
            return typed("str")
        simple = {
            ast.List: "list",
            ast.ListComp: "list",
            ast.Tuple: "tuple",
            ast.Dict: "dict",
            ast.DictComp: "dict",
            ast.Set: "set",
            ast.SetComp: "set",
        }.get(type(node))
        if simple is not None:
            return typed(simple)
        if isinstance(node, ast.Name):
            if node.id in env:
                return env[node.id]
            text = self._constants.get(node.id)
            return None if text is None else _text_shape(text)
        if isinstance(node, ast.UnaryOp):
            return self._unary(node, env)
        if isinstance(node, ast.Compare):
            if self._comparisons or all(isinstance(op, _ALWAYS_BOOL) for op in node.ops):
                return BOOL
            return None
        if isinstance(node, ast.BoolOp):
            return union(self._shape(v, env) for v in node.values)
        if isinstance(node, ast.IfExp):
            return union([self._shape(node.body, env), self._shape(node.orelse, env)])
        if isinstance(node, ast.BinOp):
            left, right = self._shape(node.left, env), self._shape(node.right, env)
            return self._operation(node.op, left, right)
        if isinstance(node, ast.NamedExpr):
            return self._shape(node.value, env)
        if isinstance(node, ast.Subscript):
            return self._subscript(node, env)
        if isinstance(node, ast.Call):
            return self._call(node, env)
        return None

    def _unary(self, node: ast.UnaryOp, env: Mapping[str, Shape | None]) -> Shape | None:
        if isinstance(node.op, ast.Not):
            return BOOL
        operand = self._shape(node.operand, env)
        if operand is None or not operand.kinds <= _NUMBERS:
            return None
        if isinstance(node.op, ast.Invert):
            return typed("int") if "float" not in operand.kinds else None
        return typed(*{"float" if k == "float" else "int" for k in operand.kinds})

    @staticmethod
    def _operation(op: ast.operator, left: Shape | None, right: Shape | None) -> Shape | None:
        if left is None or right is None:
            return None
        found: set[str] = set()
        for a in left.kinds:
            for b in right.kinds:
                kind = _arithmetic(op, a, b)
                if kind is None:
                    return None
                found.add(kind)
        return union(BOOL if k == "bool" else typed(k) for k in found)

    def _subscript(self, node: ast.Subscript, env: Mapping[str, Shape | None]) -> Shape | None:
        shape = self._shape(node.value, env)
        if shape is None or len(shape.kinds) != 1:
            return None
        (kind,) = shape.kinds
        if isinstance(node.slice, ast.Slice):
            return typed(kind) if kind in _SEQUENCES else None
        if kind == "str":
            return typed("str")
        return typed("int") if kind == "bytes" else None

    def _call(self, node: ast.Call, env: Mapping[str, Shape | None]) -> Shape | None:
        builtin = self._builtin_call(node)
        if builtin is not None:
            return _BUILTIN_RESULTS.get(builtin)
        if isinstance(node.func, ast.Name):
            line = self._by_name.get(node.func.id)
            return None if line is None or node.func.id in env else self.returned(line)
        if isinstance(node.func, ast.Attribute):
            receiver = self._shape(node.func.value, env)
            if receiver is None or len(receiver.kinds) != 1:
                return None
            (kind,) = receiver.kinds
            return _METHODS.get(kind, {}).get(node.func.attr)
        return None


def _text_shape(text: str) -> Shape | None:
    """The shape of a value the tracer wrote as ``text`` (a literal's; None: not one)."""
    try:
        value = ast.literal_eval(text)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None
    kind = _LITERAL_KINDS.get(type(value))
    if kind is not None:
        return literal_shape(value)
    name = type(value).__name__
    return typed(name) if name in FIRSTS else None


@dataclass(frozen=True)
class CodeUnit:
    """What :func:`line_shapes` reads of one code object: its name, first line, flags, the
    lines it has instructions on, and whether it can re-raise an exception (an ``except``
    that does not match, the end of a ``finally`` or a ``with`` after an error), which
    leaves its frame with no exception event, so a step from one of its lines can land on a
    return of ``None``."""

    name: str
    first_line: int
    flags: int
    lines: frozenset[int]
    reraises: bool


def code_unit(unit: CodeType, instructions: Iterable[dis.Instruction]) -> CodeUnit:
    """The :class:`CodeUnit` of ``unit``, whose ``instructions`` the caller has decoded."""
    lines = frozenset(line for _, _, line in unit.co_lines() if line is not None)
    reraises = any(i.opname == "RERAISE" for i in instructions)
    return CodeUnit(unit.co_name, unit.co_firstlineno, unit.co_flags, lines, reraises)


def reraising_lines(units: Iterable[CodeUnit]) -> frozenset[int]:
    """The lines of every code that can re-raise (:attr:`CodeUnit.reraises`)."""
    return frozenset(line for unit in units if unit.reraises for line in unit.lines)


_COMPREHENDED = {"<listcomp>": typed("list"), "<setcomp>": typed("set")} | {
    "<dictcomp>": typed("dict"),
    "<module>": NONE,
}


def line_shapes(
    units: Iterable[CodeUnit], shapes: ValueShapes, tree: ast.Module
) -> dict[int, Shape | None]:
    """For each line with code: what a frame returning on it can return, every frame with
    instructions there counted (None: any value)."""
    functions = {
        (node.name, first_line(node)): node
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
    }
    found: dict[int, list[Shape | None]] = {}
    for unit in units:
        shape: Shape | None = _COMPREHENDED.get(unit.name)
        node = functions.get((unit.name, unit.first_line))
        if unit.flags & _GENERATOR_FLAGS:
            shape = None
        elif isinstance(node, ast.FunctionDef) and unit.name not in _COMPREHENDED:
            shape = shapes.returned(node.lineno)
        for line in unit.lines:
            found.setdefault(line, []).append(shape)
    return {line: union(each) for line, each in found.items()}
