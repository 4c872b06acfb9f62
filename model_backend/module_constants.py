"""Module-level names whose value the code alone fixes, and when they are bound.

Why: at a script's module-level stops the debugger shows the module's globals, and a model that
has only seen a function's frame (a breakpoint jump into it, then a return) must write them all
again from nothing. Some of them need no prediction: ``LIMIT = 2`` at the top of a script is
``2`` at every later stop, and ``def parse(...)`` is ``<function parse>``, as long as nothing
else binds the name. The grammar then writes such a value instead of the model, and does not let
a module's whole locals end before every name bound by an earlier top-level statement is shown.

A name is a constant when, reading the code (never running it):

* one top-level statement binds it, unconditionally (a direct child of the module, not inside
  ``if``/``for``/``try``/``with``): ``NAME = literal`` (numbers, strings, bytes, booleans,
  ``None``, tuples of them; lists and dicts of them too where the run never changes them:
  no code binds the name again anywhere and every use of it only reads it, handing it to a
  plain function of the code only where that function only reads the parameter,
  :func:`.passed_arguments.only_read_everywhere`), an undecorated ``def NAME``, or an
  undecorated ``class NAME``
  without keywords whose bases are ``object``, builtin exceptions or constant classes of the
  module (no metaclass to change how the class is written);
* no other instruction of the module binds or deletes it, and no function declares it
  ``global``;
* no code reaches frames or globals dynamically (``exec``, ``globals()``, ``sys._getframe``,
  ...; :class:`.flow.LineFlow` finds these).

Values are written by the tracer's own renderer, so they read as the training data does.
"""

from __future__ import annotations

import ast
import builtins
from collections.abc import Callable, Iterable

from neural_debugger.tracer.values import MAX_VARIABLES, render_value

_LITERAL_TYPES = (int, float, complex, str, bytes, bool, type(None))
# Bases a class can have and still be made by ``type`` (no metaclass of its own, which could
# write another repr or put names of its own into the class body: ``Enum``'s
# ``_generate_next_value_``).
PLAIN_BASES = frozenset(
    name
    for name, value in vars(builtins).items()
    if isinstance(value, type) and issubclass(value, BaseException)
) | {"object"}


def first_line(node: ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    """Where a definition starts, its decorators included (its code object's first line)."""
    return min([node.lineno, *(d.lineno for d in node.decorator_list)])


def plain_classes(tree: ast.AST) -> frozenset[int]:
    """The ``class`` statements (by :func:`first_line`) whose class ``type`` makes: no
    keywords, and every base a builtin exception, ``object`` or such a class of the code
    defined before it."""
    plain: set[str] = set()
    lines: set[int] = set()
    classes = sorted(
        (node for node in ast.walk(tree) if isinstance(node, ast.ClassDef)),
        key=lambda node: node.lineno,
    )
    for node in classes:
        bases_plain = all(
            isinstance(base, ast.Name) and (base.id in PLAIN_BASES or base.id in plain)
            for base in node.bases
        )
        if bases_plain and not node.keywords:
            plain.add(node.name)
            lines.add(first_line(node))
    return frozenset(lines)


def fixed_literal(node: ast.expr, mutable: bool = False) -> tuple[bool, object]:
    """Whether ``node`` is a literal the tracer writes the same way at every run, and its
    value: numbers, strings, bytes, booleans, ``None`` and tuples of them, and where
    ``mutable``, lists and dicts of them too (never a set, whose order is the hash's)."""
    try:
        value = ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False, None
    return _written_alike(value, mutable), value


def _written_alike(value: object, mutable: bool) -> bool:
    if isinstance(value, list | dict) and not mutable:
        return False
    if isinstance(value, dict):
        return all(_written_alike(item, mutable) for item in [*value, *value.values()])
    if isinstance(value, list | tuple):
        return all(_written_alike(item, mutable) for item in value)
    return isinstance(value, _LITERAL_TYPES)


class ModuleConstants:
    """The module's constant names, their values as the tracer writes them, and the top-level
    statement that binds each (see the module docstring)."""

    def __init__(
        self,
        tree: ast.Module | None,
        plain: frozenset[int],
        stores: Callable[[str], int] | None,
        module_names: frozenset[str] | None,
        kept: Callable[[str, object], bool] | None = None,
    ) -> None:
        """``tree``: the code's syntax tree (None: it does not compile, nothing is constant);
        ``plain``: its classes ``type`` makes (:func:`plain_classes`). ``stores(name)``: how
        many instructions of the module's own code bind or delete ``name``, or -1 where other
        code can (``global`` in a function); None: code reaches frames or globals dynamically,
        so no name is constant. ``module_names``: every name the module's frame can show
        (None: any). ``kept(name, value)``: whether the run keeps a list or dict literal the
        name is bound to unchanged (None: no such name is constant)."""
        self.values: dict[str, str] = {}
        self.literals: dict[str, object] = {}  # the names bound to literals, by their values
        self._bound_by: dict[str, int] = {}  # name -> index of its top-level statement
        self._spans: list[tuple[int, int]] = []  # each top-level statement's first, last line
        self._complete = module_names is not None and len(module_names) <= MAX_VARIABLES
        if tree is None:
            return
        self._spans = [(s.lineno, s.end_lineno or s.lineno) for s in tree.body]
        if stores is None:
            return
        for index, statement in enumerate(tree.body):
            found = self._constant(statement, plain, kept)
            if found is None:
                continue
            name, text, literal = found
            if name.startswith("__") and name.endswith("__"):
                continue  # the tracer hides dunder names
            if stores(name) != 1:
                continue
            self.values[name] = text
            self._bound_by[name] = index
            if isinstance(statement, ast.Assign | ast.AnnAssign):
                self.literals[name] = literal

    @staticmethod
    def _constant(
        statement: ast.stmt, plain: frozenset[int], kept: Callable[[str, object], bool] | None
    ) -> tuple[str, str, object] | None:
        """The name a top-level statement binds to a value the code fixes, that value's text,
        and the value (a literal's; None for a function or a class)."""
        if isinstance(statement, ast.Assign | ast.AnnAssign):
            targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            if len(targets) != 1 or not isinstance(targets[0], ast.Name) or not statement.value:
                return None
            name = targets[0].id
            ok, value = fixed_literal(statement.value)
            if not ok and kept is not None:  # a list or dict the run only reads
                ok, value = fixed_literal(statement.value, mutable=True)
                ok = ok and kept(name, value)
            return (name, render_value(value), value) if ok else None
        if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef):
            if statement.decorator_list:
                return None
            return statement.name, f"<function {statement.name}>", None
        if isinstance(statement, ast.ClassDef):
            if statement.decorator_list or first_line(statement) not in plain:
                return None
            return statement.name, f"<class '{statement.name}'>", None
        return None

    def statement_of(self, line: int) -> int | None:
        """The index of the top-level statement ``line`` belongs to (None: none)."""
        for index, (first, last) in enumerate(self._spans):
            if first <= line <= last:
                return index
        return None

    def bound_at(self, lines: Iterable[int]) -> frozenset[str]:
        """Constants certainly bound when the module's frame stands on any of ``lines``: those
        of top-level statements before the earliest statement of them (empty where the module
        may have more names than the tracer shows, or a line is outside every statement)."""
        if not self._complete:
            return frozenset()
        indices = [self.statement_of(line) for line in lines]
        if not indices or any(index is None for index in indices):
            return frozenset()
        first = min(index for index in indices if index is not None)
        return frozenset(name for name, index in self._bound_by.items() if index < first)
