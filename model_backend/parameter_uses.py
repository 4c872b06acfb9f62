"""What kinds of value a function's parameters are, read from how its code uses them.

Why: asked which input produced a return value (an inverse step to the call, CruxEval-I), the
small model often writes an argument of a kind the function cannot use: ``99`` for the ``s2`` of
``s2.endswith(s1)``, a string for the ``d`` of ``d.items()``. The code says what a parameter
is used as; a value of another builtin kind would have raised before the return. This is
evidence, not a fact (a class of another module may have any method), so it is kept apart from
the grammar: a decoder weighs kinds by it (:data:`UNUSED_SHARE`, :func:`.choosing.shortlist`),
it never forbids one.

A parameter's kinds are the builtin types (``int``, ``float``, ``bool``, ``NoneType``, ``str``,
``bytes``, ``list``, ``tuple``, ``dict``, ``set``) that every use of it admits, where it is
used as:

* ``p.name``: the types with that attribute (``p.items()``: a ``dict``; ``p.split()``: a
  ``str`` or ``bytes``), where no class of the code defines the name;
* ``p[i]`` (``str``, ``bytes``, ``list``, ``tuple``, ``dict``), ``p[a:b]`` (no ``dict``),
  ``p[i] = v`` and ``del p[i]`` (``list``, ``dict``);
* an iterable (``for x in p``, ``x in p``, ``*p``, ``a, b = p``, ``sorted(p)``, ``len(p)``,
  ``''.join(p)``, ...): the containers and strings;
* a number: ``range(p)``, ``-p``, ``p - 1``, ``p / 2``, ``p < 3`` (an ``int``, ``float`` or
  ``bool``); ``p + 'x'`` a ``str``, ``p + [x]`` a ``list``.

Uses count only where the parameter still holds its argument: before the first statement that
can bind it again, and in that statement what runs before its binding (the value of
``text = text.strip()``, a loop's iterable and the part of its body before the binding). A
parameter the code tests the type of (``isinstance(p, ...)``, ``type(p)``), a method's ``self``
or ``cls``, and anything in a module that imports from outside the standard library get none;
so does a parameter whose uses admit no kind at all.
"""

from __future__ import annotations

import ast
import builtins
from collections.abc import Iterable, Iterator

from .call_sites import bound_names
from .module_constants import first_line
from .value_shapes import standard_imports

# The builtin types a parameter's kinds are among, by the name a value's kind has.
KINDS: dict[str, type] = {
    "int": int,
    "float": float,
    "bool": bool,
    "NoneType": type(None),
    "str": str,
    "bytes": bytes,
    "list": list,
    "tuple": tuple,
    "dict": dict,
    "set": set,
}
# How often a parameter's argument is of a kind its uses do not admit: none of 40,503 traced
# call arguments whose parameter's uses say (generated, package, drill and everyday training
# programs, 1,600 of each kind of program for each of seeds 2 to 4, with the reads before a
# rebinding counted; each argument also reads whole as one of its kinds, ``repr_syntax.
# is_whole``; ``tests/model_backend/test_parameter_uses.py`` checks it again), so the rule of
# succession's (0 + 1) / (n + 2). A decoder counts this share of the model's probability for
# such a kind.
UNUSED_SHARE = 1 / 40_505

_NUMBERS = frozenset({"int", "float", "bool"})
_ITERABLE = frozenset({"str", "bytes", "list", "tuple", "dict", "set"})
_INDEXED = frozenset({"str", "bytes", "list", "tuple", "dict"})
_SLICED = frozenset({"str", "bytes", "list", "tuple"})
_ASSIGNED = frozenset({"list", "dict"})
_COUNT = frozenset({"int", "bool"})
_BOUND = frozenset({"int", "bool", "NoneType"})  # a slice's bound, a search's start or end
_TEXT = frozenset({"str", "bytes"})
# What the arguments of a string's (or bytes') methods must be, by position: methods no list,
# tuple, dict, set or number has (and ``insert``, whose first argument is a list's index).
_METHOD_ARGUMENTS: dict[str, tuple[frozenset[str], ...]] = {
    "replace": (_TEXT, _TEXT, _COUNT),
    **dict.fromkeys(("startswith", "endswith"), (_TEXT | {"tuple"}, _BOUND, _BOUND)),
    **dict.fromkeys(("partition", "rpartition", "removeprefix", "removesuffix"), (_TEXT,)),
    **dict.fromkeys(("split", "rsplit"), (_TEXT | {"NoneType"}, _COUNT)),
    **dict.fromkeys(("strip", "lstrip", "rstrip"), (_TEXT | {"NoneType"},)),
    **dict.fromkeys(("find", "rfind"), (_TEXT | {"int"}, _BOUND, _BOUND)),
    **dict.fromkeys(("center", "ljust", "rjust"), (_COUNT, _TEXT)),
    **dict.fromkeys(("zfill", "expandtabs", "insert"), (_COUNT,)),
}
# Builtins that iterate over their first argument (``len`` sizes it: the same kinds here).
_ITERATING = frozenset(
    {"len", "sorted", "list", "tuple", "set", "frozenset", "enumerate", "sum", "any", "all"}
    | {"iter", "zip", "reversed", "map", "filter", "min", "max"}
)
_COUNTING = frozenset({"range", "chr"})  # builtins that take an int
_CALCULATING = frozenset({"abs", "round", "divmod"})
_ORDERING = (ast.Lt, ast.LtE, ast.Gt, ast.GtE)
_NUMBER_OPS = (ast.Sub, ast.Div, ast.FloorDiv, ast.Pow)
_OWN_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def parameter_kinds(tree: ast.Module) -> dict[int, dict[str, frozenset[str]]]:
    """For each function of the code, by the line its call event shows (its first line,
    decorators included): the kinds each parameter's uses admit, for the parameters used in
    a way that says."""
    if not standard_imports(tree):
        return {}
    defined = _class_attributes(tree)
    kept = frozenset(vars(builtins)) - set(bound_names(tree))
    found: dict[int, dict[str, frozenset[str]]] = {}
    modules = _imported(tree)
    for method, node in _functions(tree):
        kinds = _Uses(node, defined, kept, modules).kinds(skip_first=method)
        if kinds:
            found[first_line(node)] = kinds
    return found


def _functions(tree: ast.Module) -> Iterator[tuple[bool, ast.FunctionDef | ast.AsyncFunctionDef]]:
    """Every function of the code, and whether it is a method that takes its instance or
    class first (one in a class body, not a ``staticmethod``)."""
    methods = {
        id(item)
        for node in ast.walk(tree)
        if isinstance(node, ast.ClassDef)
        for item in node.body
        if not any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in _decorators(item))
    }
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            yield id(node) in methods, node


def _decorators(node: ast.stmt) -> list[ast.expr]:
    return getattr(node, "decorator_list", [])


def _class_attributes(tree: ast.Module) -> frozenset[str]:
    """Every name a class of the code defines or an assignment sets as an attribute."""
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            for item in ast.walk(node):
                if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef):
                    found.add(item.name)
                elif isinstance(item, ast.Name) and isinstance(item.ctx, ast.Store):
                    found.add(item.id)
        elif isinstance(node, ast.Attribute) and not isinstance(node.ctx, ast.Load):
            found.add(node.attr)
    return frozenset(found)


def _attribute_kinds(name: str) -> frozenset[str]:
    return frozenset(kind for kind, cls in KINDS.items() if hasattr(cls, name))


class _Uses:
    """The uses of one function's parameters."""

    def __init__(
        self,
        function: ast.FunctionDef | ast.AsyncFunctionDef,
        defined: frozenset[str],
        kept: frozenset[str],
        modules: frozenset[str],
    ) -> None:
        self._function = function
        self._defined = defined  # attribute names a class of the code defines
        self._kept = kept  # builtins no code rebinds
        self._modules = modules  # names of modules and types, whose attributes are not methods

    def kinds(self, skip_first: bool) -> dict[str, frozenset[str]]:
        args = self._function.args
        names = [a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs]]
        if skip_first:
            names = names[1:]
        defaults = _defaults(args)
        found = {}
        for name in names:
            kinds = self._kinds_of(name)
            if kinds and name in defaults:  # a call may leave it out: the default's kind too
                default = defaults[name]
                kinds = None if default is None else kinds | {default}
            if kinds:
                found[name] = kinds
        return found

    def _kinds_of(self, name: str) -> frozenset[str] | None:
        admitted: frozenset[str] | None = None
        for node, parent in self._loads(name):
            if _type_tested(parent):
                return None
            kinds = self._admitted(node, parent)
            if kinds is not None:
                admitted = kinds if admitted is None else admitted & kinds
        return admitted or None

    def _loads(self, name: str) -> Iterator[tuple[ast.Name, ast.AST]]:
        """Each read of ``name`` while it holds the argument, with the node it is part of."""
        yield from _reads_until_bound(self._function.body, name, None)

    def _admitted(self, node: ast.Name, parent: ast.AST) -> frozenset[str] | None:
        """The kinds one read of the parameter admits (None: it says nothing)."""
        if isinstance(parent, ast.Attribute):
            if parent.attr in self._defined or parent.attr.startswith("__"):
                return None
            return _attribute_kinds(parent.attr) or None
        if isinstance(parent, ast.Subscript) and parent.value is node:
            if isinstance(parent.ctx, ast.Load):
                return _SLICED if isinstance(parent.slice, ast.Slice) else _INDEXED
            return None if isinstance(parent.slice, ast.Slice) else _ASSIGNED
        if isinstance(parent, ast.For | ast.comprehension) and parent.iter is node:
            return _ITERABLE
        if isinstance(parent, ast.Starred):
            return _ITERABLE
        if isinstance(parent, ast.Assign) and parent.value is node:
            unpacked = any(isinstance(t, ast.Tuple | ast.List) for t in parent.targets)
            return _ITERABLE if unpacked else None
        if isinstance(parent, ast.Compare):
            return _compared(node, parent)
        if isinstance(parent, ast.UnaryOp) and isinstance(parent.op, ast.USub | ast.UAdd):
            return _NUMBERS
        if isinstance(parent, ast.BinOp):
            other = parent.right if parent.left is node else parent.left
            return _operand(parent.op, other)
        if isinstance(parent, ast.Slice):
            return _BOUND
        if isinstance(parent, ast.Dict) and any(
            key is None and value is node
            for key, value in zip(parent.keys, parent.values, strict=True)
        ):
            return frozenset({"dict"})  # {**p}
        if isinstance(parent, ast.keyword) and parent.arg is None:
            return frozenset({"dict"})  # f(**p)
        if isinstance(parent, ast.Call) and node in parent.args:
            return self._argument(node, parent)
        return None

    def _argument(self, node: ast.Name, call: ast.Call) -> frozenset[str] | None:
        func = call.func
        if isinstance(func, ast.Name) and func.id in self._kept:
            if func.id in _COUNTING:
                return frozenset({"int", "bool"})
            if func.id in _CALCULATING:
                return _NUMBERS
            at, name = call.args.index(node), func.id
            if name in ("min", "max") and len(call.args) > 1:
                return None  # the least or greatest of its arguments: any kind
            if name in ("map", "filter"):
                return _ITERABLE if at > 0 else None  # the first is a function
            if name == "zip" or (name in _ITERATING and at == 0):
                return _ITERABLE
            return None
        if isinstance(func, ast.Attribute) and func.attr in _METHOD_ARGUMENTS:
            if func.attr in self._defined or _root(func.value) in self._modules:
                return None  # a class's own method, or a module's function (``re.split``)
            kinds = _METHOD_ARGUMENTS[func.attr]
            at = call.args.index(node)
            return kinds[at] if at < len(kinds) else None
        if isinstance(func, ast.Attribute) and func.attr == "join":
            joiner = func.value
            if isinstance(joiner, ast.Constant) and isinstance(joiner.value, str):
                return frozenset({"str", "list", "tuple", "dict", "set"})
        return None


def _defaults(args: ast.arguments) -> dict[str, str | None]:
    """The kind of each parameter's default (None: not a literal, any kind)."""
    positional = [*args.posonlyargs, *args.args]
    pairs = [
        *zip(positional[len(positional) - len(args.defaults) :], args.defaults, strict=True),
        *((a, d) for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True) if d),
    ]
    return {arg.arg: _literal_kind(default) for arg, default in pairs}


def _root(node: ast.expr) -> str | None:
    """The name an attribute chain starts from (``os`` of ``os.path``; None: not a name)."""
    while isinstance(node, ast.Attribute):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def _imported(tree: ast.Module) -> frozenset[str]:
    """The names imports bind, and the builtin types' (``str.split(p)`` passes ``p`` first)."""
    found = set(KINDS) | {"frozenset", "bytearray", "object", "type"}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            found.update(a.asname or a.name.split(".")[0] for a in node.names)
    return frozenset(found)


def _type_tested(parent: ast.AST) -> bool:
    """Whether a read hands the parameter to a test of its type."""
    if isinstance(parent, ast.Call) and isinstance(parent.func, ast.Name):
        return parent.func.id in ("isinstance", "type", "hasattr", "callable")
    return False


def _binds(statement: ast.stmt, name: str) -> bool:
    """Whether ``statement`` can bind ``name`` in the function's own frame."""
    for node in _own_nodes([statement]):
        if isinstance(node, ast.Name) and node.id == name and not isinstance(node.ctx, ast.Load):
            return True
        if isinstance(node, ast.ExceptHandler) and node.name == name:
            return True
        if isinstance(node, _DEFINITIONS) and node.name == name:
            return True
        if isinstance(node, ast.alias) and (node.asname or node.name.split(".")[0]) == name:
            return True
        if isinstance(node, ast.Global | ast.Nonlocal) and name in node.names:
            return True
    return False


def _own_nodes(body: Iterable[ast.AST]) -> Iterator[ast.AST]:
    """The nodes of ``body``, not looking inside nested functions, classes and lambdas (their
    names are theirs), but inside comprehensions."""
    todo = list(body)
    while todo:
        node = todo.pop()
        yield node
        if not isinstance(node, _OWN_SCOPES):
            todo.extend(ast.iter_child_nodes(node))


def _reads(node: ast.AST, name: str, parent: ast.AST | None) -> Iterator[tuple[ast.Name, ast.AST]]:
    """Loads of ``name`` under ``node`` that read the frame's variable (not a nested scope's
    own name of it), and that run whatever its value: not in a branch that tests it, not
    after it in an ``and``/``or``, not where a handler may catch what the use raised."""
    if isinstance(node, ast.Name):
        if node.id == name and isinstance(node.ctx, ast.Load) and parent is not None:
            yield node, parent
        return
    if isinstance(node, _OWN_SCOPES) and _scope_binds(node, name):
        return
    if isinstance(node, _COMPREHENSIONS) and any(
        _target_names(g.target) & {name} for g in node.generators
    ):
        return
    children: list[ast.AST] = list(ast.iter_child_nodes(node))
    if isinstance(node, ast.If | ast.While | ast.IfExp) and _reads_name(node.test, name):
        children = [node.test]
    elif isinstance(node, ast.BoolOp):
        read = [i for i, value in enumerate(node.values) if _reads_name(value, name)]
        children = list(node.values[: read[0] + 1] if read else [])
    elif isinstance(node, ast.Try | ast.TryStar) and node.handlers:
        children = [*node.orelse, *node.finalbody]
    for child in children:
        yield from _reads(child, name, node)


def _reads_until_bound(
    body: list[ast.stmt], name: str, parent: ast.AST | None
) -> Iterator[tuple[ast.Name, ast.AST]]:
    """The reads of ``name`` in ``body`` that run before a statement binds it again: every
    statement's up to the first that can bind it, and that one's own reads before its binding
    (:func:`_reads_before_binding`)."""
    for statement in body:
        if _binds(statement, name):
            yield from _reads_before_binding(statement, name)
            return
        yield from _reads(statement, name, parent)


def _reads_before_binding(statement: ast.stmt, name: str) -> Iterator[tuple[ast.Name, ast.AST]]:
    """The reads of ``name`` in a statement that binds it, that run before it does: the value
    of an assignment (``text = text.strip()``), a loop's iterable or test and its body up to the
    binding (what the first pass reads), a branch's test and each branch up to the binding, a
    ``with``'s context managers and body. Anything else (a ``try`` with handlers, an import, a
    definition, a ``match``): none."""
    if isinstance(statement, ast.Assign | ast.AugAssign | ast.AnnAssign):
        if statement.value is not None:
            yield from _reads(statement.value, name, statement)
    elif isinstance(statement, ast.For | ast.AsyncFor):
        yield from _reads(statement.iter, name, statement)
        if name not in _target_names(statement.target):
            yield from _reads_until_bound(statement.body, name, statement)
    elif isinstance(statement, ast.While | ast.If):
        yield from _reads(statement.test, name, statement)
        if not _reads_name(statement.test, name):  # else its branches test it
            yield from _reads_until_bound(statement.body, name, statement)
            if isinstance(statement, ast.If):
                yield from _reads_until_bound(statement.orelse, name, statement)
    elif isinstance(statement, ast.With | ast.AsyncWith):
        for item in statement.items:
            yield from _reads(item.context_expr, name, item)
            if item.optional_vars is not None and name in _target_names(item.optional_vars):
                return
        yield from _reads_until_bound(statement.body, name, statement)
    elif isinstance(statement, ast.Try | ast.TryStar) and not statement.handlers:
        yield from _reads_until_bound(statement.body, name, statement)


def _reads_name(node: ast.AST, name: str) -> bool:
    return any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(node))


def _scope_binds(node: ast.AST, name: str) -> bool:
    if isinstance(node, ast.ClassDef):
        return False  # a class body reads the function's names
    args = node.args  # type: ignore[attr-defined]
    every = [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]
    if any(a is not None and a.arg == name for a in every):
        return True
    body = node.body if isinstance(node.body, list) else [node.body]  # type: ignore[attr-defined]
    return any(_binds(s, name) for s in body if isinstance(s, ast.stmt))


def _target_names(target: ast.expr) -> set[str]:
    return {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}


def _compared(node: ast.Name, compare: ast.Compare) -> frozenset[str] | None:
    """What a comparison admits: a container on the right of ``in``; a number (or a string)
    ordered against a number (or a string) literal."""
    operands = [compare.left, *compare.comparators]
    at = next(i for i, each in enumerate(operands) if each is node)
    kinds: frozenset[str] | None = None
    for i, op in enumerate(compare.ops):
        if i + 1 == at and isinstance(op, ast.In | ast.NotIn):
            kinds = _ITERABLE
        elif at in (i, i + 1) and isinstance(op, _ORDERING):
            other = operands[i + 1 if at == i else i]
            literal = _literal_kind(other)
            if literal in _NUMBERS:
                kinds = _NUMBERS
            elif literal == "str":
                kinds = frozenset({"str"})
    return kinds


def _operand(op: ast.operator, other: ast.expr) -> frozenset[str] | None:
    """What arithmetic with a literal admits."""
    literal = _literal_kind(other)
    if literal is None:
        if isinstance(other, ast.List) and isinstance(op, ast.Add):
            return frozenset({"list"})
        return None
    if isinstance(op, _NUMBER_OPS) and literal in _NUMBERS:
        return _NUMBERS
    if isinstance(op, ast.Add):
        return _NUMBERS if literal in _NUMBERS else frozenset({literal})
    if isinstance(op, ast.Mult) and literal in ("int", "bool"):
        return _NUMBERS | _SLICED
    if isinstance(op, ast.Mult) and literal in _SLICED:
        return _COUNT  # a sequence repeated
    return None


def _literal_kind(node: ast.expr) -> str | None:
    """The kind of a literal operand (a constant, or a negative number)."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        node = node.operand
    if isinstance(node, ast.Constant):
        kind = type(node.value).__name__
        return kind if kind in KINDS else None
    displays = {ast.Tuple: "tuple", ast.List: "list", ast.Dict: "dict", ast.Set: "set"}
    return displays.get(type(node))
