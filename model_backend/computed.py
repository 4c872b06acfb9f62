"""What a line computes from the values the state standing on it shows.

Why: a small model steps through ``n = text.count('a')`` or ``out = out + word[::-1]`` and
writes a value that is close but wrong; it does not know what ``str.count``, ``list.index``,
slicing or an f-string's format spec do, and one wrong value makes every later step wrong. A
debugger's next state after such a line follows from the values the line reads, and the state
standing on the line shows them. Where the line reads only those values (and the module's
constants) and calls only builtins and the methods of plain values, the shared evaluator
(:mod:`.expressions`, under its predicting rules) computes what the line binds before the
model writes a token, and the decoder fixes it.

The lines (a statement alone on its line, :func:`.handed_back.alone_on_their_lines`):

* ``NAME = EXPR``, ``a, b = EXPR``, ``x = y = EXPR``, ``NAME: T = EXPR``: the targets' texts;
* ``NAME += EXPR`` and the other augmented assignments, ``NAME[KEY] = EXPR``,
  ``NAME[A:B] = EXPR``, ``NAME[KEY] += EXPR``, ``a[i], a[j] = a[j], a[i]`` and
  ``del NAME[KEY]``: the variable's new text;
* ``NAME.append(EXPR)``, ``NAME.pop()``, ``NAME.update(...)``, ... (the methods of lists,
  dicts and sets that change their receiver), alone or as an assignment's value: the
  receiver's new text too;
* ``return EXPR`` in a function that does not yield, outside a ``with`` block or a ``try``
  with a ``finally`` (which run before the return): the value the frame returns.

Left out: statements naming a name declared ``global`` or ``nonlocal`` anywhere (the frame's
locals do not show it), class bodies and ``async`` functions. A text is fixed only where it is
surely the tracer's: a plain value (:func:`.branches.literal`'s kinds) holding no set, written
by the tracer's own renderer. A variable read from another name that aliases it is not
followed: only the names the line itself names get texts.
"""

from __future__ import annotations

import ast
import copy
from collections import Counter
from dataclasses import dataclass
from typing import Any, cast

from neural_debugger.model_backend.branches import (
    Reading,
    Undecided,
    Values,
    blocks,
    declared_names,
    own_names,
    plain,
)
from neural_debugger.model_backend.expressions import MUTATING, MUTATING_ATTRIBUTES, holds_a_set
from neural_debugger.model_backend.handed_back import alone_on_their_lines, guarded_nodes
from neural_debugger.protocol.source_map import yields
from neural_debugger.tracer.values import render_value


@dataclass(frozen=True)
class Computing:
    """A line whose statement may be computed from the values shown on it."""

    statement: ast.stmt
    local: frozenset[str] | None  # the enclosing function's own names (None: the module)


@dataclass(frozen=True)
class Effects:
    """What a step from a computed line shows: variables' new texts, or the value returned."""

    shown: dict[str, str]
    returned: str | None = None
    # every variable the line binds or changes (those of ``shown`` and any not plain): the
    # line changes no other
    touched: frozenset[str] = frozenset()


def computing_lines(tree: ast.Module) -> dict[int, Computing]:
    """The lines of ``tree`` whose statement :func:`effects` may compute, by line."""
    declared = declared_names(tree)
    alone = {id(node) for node in alone_on_their_lines(tree)}
    guarded = guarded_nodes(tree)
    found: dict[int, Computing] = {}

    def visit(statements: list[ast.stmt], local: frozenset[str] | None, generator: bool) -> None:
        for statement in statements:
            if isinstance(statement, ast.FunctionDef):
                visit(statement.body, own_names(statement), yields(statement))
                continue
            if isinstance(statement, ast.AsyncFunctionDef | ast.ClassDef):
                continue
            names = {n.id for n in ast.walk(statement) if isinstance(n, ast.Name)}
            returning = isinstance(statement, ast.Return)
            if (
                id(statement) in alone
                and _computable(statement)
                and not names & declared
                and not (returning and (generator or local is None or id(statement) in guarded))
            ):
                found[statement.lineno] = Computing(statement, local)
            for block in blocks(statement):
                visit(block, local, generator)

    visit(tree.body, None, False)
    return found


def _computable(statement: ast.stmt) -> bool:
    """Whether ``statement`` is one of the module's kinds of line."""
    if isinstance(statement, ast.Return):
        return statement.value is not None
    if isinstance(statement, ast.Assign):
        return all(_target(t, unpacking=True) for t in statement.targets)
    if isinstance(statement, ast.AugAssign):
        return _target(statement.target, unpacking=False)
    if isinstance(statement, ast.AnnAssign):
        return statement.value is not None and isinstance(statement.target, ast.Name)
    if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call):
        method = statement.value.func
        return isinstance(method, ast.Attribute) and method.attr in MUTATING_ATTRIBUTES
    if isinstance(statement, ast.Delete):
        return all(_item(t) for t in statement.targets)
    return False


def _target(target: ast.expr, *, unpacking: bool) -> bool:
    if isinstance(target, ast.Name):
        return True
    if isinstance(target, ast.Subscript):
        return _item(target) and (unpacking or not isinstance(target.slice, ast.Slice))
    if unpacking and isinstance(target, ast.Tuple | ast.List):
        return all(isinstance(e, ast.Name) or _item(e) for e in target.elts)
    return False


def _item(target: ast.expr) -> bool:
    """``NAME[KEY]`` or ``NAME[A:B]``: an item or a slice of a variable's value."""
    return isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name)


class _Running(Reading):
    """The evaluator over the values shown, on copies it may change, remembering each name's
    text as first read so the names a method changed can be told."""

    def __init__(self, values: Values) -> None:
        super().__init__(values, MUTATING)
        self.texts: dict[str, str] = {}

    def lookup(self, name: str) -> object:
        value = copy.deepcopy(self.values[name])
        self.texts[name] = render_value(value)
        return value


def effects(computing: Computing, values: Values) -> Effects | None:
    """What a step from ``computing``'s line shows, from ``values`` (the frame's locals on the
    line); None where that is not known (:mod:`.expressions` refuses the line, or Python
    would raise)."""
    running = _Running(values)
    statement = computing.statement
    bound: dict[str, object] = {}
    try:
        if isinstance(statement, ast.Return):
            assert statement.value is not None
            return _returned(running.run(statement.value))
        if isinstance(statement, ast.Assign | ast.AnnAssign):
            assert statement.value is not None
            value = running.run(statement.value)
            targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            for target in targets:
                _bind(running, target, value, bound)
        elif isinstance(statement, ast.AugAssign):
            load = _loaded(statement.target)
            value = running.run(ast.BinOp(left=load, op=statement.op, right=statement.value))
            _bind(running, statement.target, value, bound)
        elif isinstance(statement, ast.Expr):
            running.run(statement.value)
        elif isinstance(statement, ast.Delete):
            for target in statement.targets:
                _delete(running, cast(ast.Subscript, target))
    except Undecided:
        return None
    made = dict(bound)  # what the targets took, and the variables a method changed
    for name, text in running.texts.items():
        if name in values.shown and name not in bound:
            value = running.value(name)
            if render_value(value) != text:
                made[name] = value
    texts = {name: shown_text(value) for name, value in made.items()}
    shown = {name: text for name, text in texts.items() if text is not None}
    return Effects(shown, touched=frozenset(made))


def shown_text(value: object) -> str | None:
    """The text the tracer writes for a computed ``value``, where it is surely that: a plain
    value holding no set (a set's text follows its own hash table, not a copy's)."""
    return render_value(value) if plain(value) and not holds_a_set(value) else None


def _returned(value: object) -> Effects | None:
    text = shown_text(value)
    return None if text is None else Effects({}, text)


def _loaded(target: ast.expr) -> ast.expr:
    """``target`` read instead of stored (``x += 1`` reads ``x``)."""
    load = copy.copy(target)
    load.ctx = ast.Load()  # type: ignore[attr-defined]
    return ast.fix_missing_locations(load)


def _bind(running: _Running, target: ast.expr, value: object, bound: dict[str, object]) -> None:
    """Store ``value`` in ``target`` as Python would (:class:`Undecided` where it raises)."""
    if isinstance(target, ast.Name):
        bound[target.id] = value
        return
    if isinstance(target, ast.Tuple | ast.List):
        if not isinstance(value, list | tuple | str) or len(value) != len(target.elts):
            raise Undecided("unpacking")
        for part, item in zip(target.elts, value, strict=True):
            _bind(running, part, item, bound)
        return
    assert isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name)
    if target.value.id in bound:  # ``b = b[0] = v``: the item goes into the new value
        raise Undecided("a container bound by the same statement")
    container = running.run(target.value)
    key = running.run(target.slice)
    if isinstance(container, list) and isinstance(key, slice):
        try:
            container[key] = list(cast(Any, value))
        except (TypeError, ValueError) as error:  # not iterable, or an extended slice's size
            raise Undecided("slice assignment") from error
        return
    size = len(container) if isinstance(container, list) else 0
    listed = isinstance(container, list) and type(key) is int and -size <= key < size
    if not listed and not (isinstance(container, dict) and not holds_a_set(key)):
        raise Undecided("item assignment")
    container[key] = value


def _delete(running: _Running, target: ast.Subscript) -> None:
    """``del NAME[KEY]`` as Python runs it (:class:`Undecided` where it raises)."""
    container = running.run(target.value)
    key = running.run(target.slice)
    sliced = isinstance(container, list) and (isinstance(key, slice) or type(key) is int)
    if not sliced and not isinstance(container, dict):
        raise Undecided("item deletion")
    try:
        del container[key]
    except (IndexError, KeyError, TypeError, ValueError) as error:
        raise Undecided("item deletion") from error


_BUILDS = (ast.ListComp, ast.SetComp, ast.DictComp)  # frames that return what they built
_MAKERS = (*_BUILDS, ast.GeneratorExp, ast.Lambda)  # code a line runs in frames of its own


def after_comprehension(computing: Computing, value: object) -> Computing | None:
    """``computing``'s line once its one comprehension's frame has returned ``value`` (in
    Python 3.11 a list, set or dict comprehension runs in a frame of its own, which returns
    what it built): the statement with the comprehension replaced by the value. None where the
    line has other frames' code besides it (a lambda, a generator, another comprehension)."""
    made = [n for n in ast.walk(computing.statement) if isinstance(n, _MAKERS)]
    if len(made) != 1 or not isinstance(made[0], _BUILDS):
        return None
    statement = copy.deepcopy(computing.statement)
    (built,) = [n for n in ast.walk(statement) if isinstance(n, _MAKERS)]

    class _Put(ast.NodeTransformer):
        def visit(self, node: ast.AST) -> ast.AST:
            if node is built:
                # a Constant holding the built value: the evaluator hands it back as is
                return ast.copy_location(ast.Constant(value=cast(Any, value)), node)
            return self.generic_visit(node)

    return Computing(cast(ast.stmt, _Put().visit(statement)), computing.local)


@dataclass(frozen=True)
class Made:
    """A list, set or dict comprehension alone among the frames its line makes, whose own
    frame's states the values on its line fix (:func:`comprehension_lines`)."""

    node: ast.ListComp | ast.SetComp | ast.DictComp
    local: frozenset[str] | None  # the enclosing function's own names (None: the module)
    free: tuple[str, ...]  # the function's names it reads, which its frame shows, in order
    targets: tuple[str, ...]  # the names its ``for`` binds, in order
    tuple_target: bool


def comprehension_lines(tree: ast.Module) -> dict[int, Made]:
    """The lines holding one comprehension and no other frame a line can make (a lambda, a
    generator expression, another comprehension), written on the line, with one ``for`` whose
    target is names, in the module or a function that is not nested in another (whose frame
    would show the outer function's names too) and declares no ``global`` or ``nonlocal``.

    Python 3.11 runs such a comprehension in a frame of its own: its call shows ``.0`` (the
    iterator over its first iterable, made in the caller) and the function's names it reads;
    then a line event before its first item and one after each item (the targets bound to
    it); then its return, what it built."""
    spans = Counter(
        line
        for node in ast.walk(tree)
        if isinstance(node, _MAKERS)
        for line in range(node.lineno, (node.end_lineno or node.lineno) + 1)
    )
    declared = declared_names(tree)
    found: dict[int, Made] = {}

    def visit(node: ast.AST, local: frozenset[str] | None, usable: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef):
                visit(child, own_names(child), usable and local is None)
                continue
            if isinstance(child, ast.AsyncFunctionDef | ast.ClassDef | ast.Lambda):
                visit(child, local, False)
                continue
            if isinstance(child, ast.ListComp | ast.SetComp | ast.DictComp) and usable:
                made = _made(child, local)
                line = child.lineno
                if made is not None and spans[line] == 1 and child.end_lineno == line:
                    found[line] = made
            visit(child, local, usable)

    visit(tree, None, not declared)
    return found


def _made(
    node: ast.ListComp | ast.SetComp | ast.DictComp, local: frozenset[str] | None
) -> Made | None:
    if len(node.generators) != 1 or node.generators[0].is_async:
        return None
    generator = node.generators[0]
    target = generator.target
    targets: tuple[str, ...]
    if isinstance(target, ast.Name):
        targets, tupled = (target.id,), False
    elif isinstance(target, ast.Tuple) and all(isinstance(e, ast.Name) for e in target.elts):
        targets, tupled = tuple(cast(ast.Name, e).id for e in target.elts), True
    else:
        return None
    inside = [
        *generator.ifs,
        *((node.key, node.value) if isinstance(node, ast.DictComp) else (node.elt,)),
    ]
    read = {n.id for part in inside for n in ast.walk(part) if isinstance(n, ast.Name)}
    free = tuple(sorted((read - set(targets)) & local)) if local is not None else ()
    return Made(node, local, free, targets, tupled)
