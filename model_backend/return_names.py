"""The name debugpy gives a return value: ``(return) NAME``, ``Class.name`` or the bare name.

Why: debugpy (pydevd's ``get_clsname_for_code``) does not name a return by where its function
is written but by the object the frame's first variable holds when it returns: the class of
that object (the object itself, when it is a class) names the entry when looking the function's
name up on it finds this very function. So ``Shape.__init__`` run through ``super()`` for a
``Rect`` shows as ``(return) __init__`` (``Rect.__init__`` is another function), an inherited
``Shape.describe`` run for a ``Rect`` as ``(return) Rect.describe``, and a property's getter
bare (the class attribute is the property).

Nothing runs, so the object's class is read from its text as the tracer writes it (``Rect(w=2)``,
``<class 'mod.Rect'>``, ``<mod.Rect object>``), and the lookup walks the program's own classes
in method resolution order. Where either cannot be known from the code (a text that names no
class of the program: a builtin value, a class's own repr, a model's wrong guess; a base from
another module ahead of the function's class; a decorated method), the name as the code writes
it stands: ``Class.name`` when the first parameter is ``self`` or ``cls``.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from .module_constants import first_line

_CLASS_TEXT = re.compile(r"<class '(?:[\w.]*\.)?(\w+)'>|<(?:[\w.]*\.)?(\w+) object>|(\w+)\(")
_BINDERS = frozenset({"staticmethod", "classmethod"})  # getattr still finds the function


@dataclass(frozen=True)
class ClassFacts:
    """One class of the program: its bases (their names, ``None`` for one that is not a plain
    name) and, for each name its body binds, the first line of the plain function it is (or
    ``None``: something else, whose lookup cannot be followed)."""

    bases: tuple[str | None, ...]
    names: dict[str, int | None]
    own_repr: bool


def _binding_lines(body: list[ast.stmt]) -> dict[str, int | None]:
    names: dict[str, int | None] = {}
    for node in body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            plain = all(isinstance(d, ast.Name) and d.id in _BINDERS for d in node.decorator_list)
            names[node.name] = first_line(node) if plain else None
        else:  # an assignment, or a definition under an ``if``: not followed
            for child in ast.walk(node):
                if isinstance(child, ast.Name) and isinstance(child.ctx, ast.Store):
                    names[child.id] = None
                elif isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                    names[child.name] = None
    return names


def program_classes(source: str) -> dict[str, ClassFacts | None]:
    """Every class the program defines, by name (``None`` for a name defined twice: which one
    an object has cannot be told from its text)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return {}
    found: dict[str, ClassFacts] = {}
    twice: set[str] = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.ClassDef):
            continue
        if node.name in found:
            twice.add(node.name)
        bases = tuple(b.id if isinstance(b, ast.Name) else None for b in node.bases)
        names = _binding_lines(node.body)
        found[node.name] = ClassFacts(bases, names, own_repr="__repr__" in names)
    return {name: (None if name in twice else facts) for name, facts in found.items()}


def class_of(text: str | None) -> str | None:
    """The class name an object's text shows (a class's own name for a class)."""
    if not text:
        return None
    match = _CLASS_TEXT.match(text)
    if match is None:
        return None
    return next(group for group in match.groups() if group)


def _linearised(name: str, classes: dict[str, ClassFacts | None]) -> list[str | None] | None:
    """The method resolution order of a program class (C3); a base from outside the program
    stands as ``None``, whose attributes are unknown. ``None``: no consistent order."""
    facts = classes.get(name)
    if facts is None:
        return [None]
    bases = [base if base in classes else None for base in facts.bases]
    orders = [_linearised(base, classes) if base is not None else [None] for base in bases]
    if any(order is None for order in orders):
        return None
    pending = [list(order) for order in orders if order] + [bases]
    result: list[str | None] = [name]
    while any(pending):
        for order in pending:
            if not order:
                continue
            head = order[0]
            if head is None or not any(head in o[1:] for o in pending if o):
                break
        else:
            return None
        result.append(head)
        for order in pending:
            if order and order[0] == head:
                order.pop(0)
    return result


class ReturnNames:
    """``(return)`` names for the code objects of one program."""

    def __init__(self, source: str) -> None:
        self.classes = program_classes(source)
        self._orders: dict[str, list[str | None]] = {}  # each class's, once (every return asks)

    def name(
        self,
        function: str,
        first: int,
        static: str,
        first_value: str | None,
        parameter: bool = False,
    ) -> str:
        """The entry's name for a return of the function ``function`` whose code starts on line
        ``first`` (its first decorator's), given the text of its first variable's value at the
        return (``None``: no variable, or unbound); ``static`` is the name as written.
        ``parameter``: that variable is a parameter, bound in every run, so a value missing
        (from a predicted frame's locals) says nothing and the name stays as written."""
        if first_value is None:
            return static if parameter else function
        owner = class_of(first_value)
        if owner is None or owner not in self.classes:
            # a builtin value, another module's object, a text of a repr of its own, or a
            # predicted value that cannot be the frame's own (a string for a ``self``)
            return static
        if owner not in self._orders:
            self._orders[owner] = _linearised(owner, self.classes) or [None]
        for cls in self._orders[owner]:
            facts = self.classes.get(cls) if cls is not None else None
            if facts is None or facts.own_repr:
                return static  # a base from elsewhere may hold the name; a text of its own
            if function in facts.names:
                found = facts.names[function]
                if found is None:
                    return static
                return f"{owner}.{function}" if found == first else function
        return function
